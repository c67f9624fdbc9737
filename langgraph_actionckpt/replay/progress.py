"""Recovery queries of a run: each agent's last completed action and its actions in flight.

No I/O here: :func:`progress_of` turns a run's rows into a :class:`RunProgress`;
``run_progress``/``arun_progress`` (:mod:`.run`) read the rows.
:func:`plan_runs_to_resume` is the plan behind ``saver.runs_to_resume`` and
``actionckpt to-resume``: the runs left unfinished, each with its progress.
:func:`open_run_row` and :func:`close_run_row` build an agent's run row.

Each agent of an :class:`~langgraph_actionckpt.ActionRun` has one *run row*
(action type :data:`RUN_ROW`, key ``<run id>/<agent id>:run``): ``running``
from the moment the agent enters the run, ``completed`` when its block ends
normally, ``failed`` or ``interrupted`` when it raises. A row still ``running``
after the process is gone is an agent killed, between two actions or inside
one. The run row is not an action: it is never served, never refused, and it is
left out of the counts, the last completed action and the actions in flight.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from psycopg import sql

from langgraph_actionckpt.actions.fields import error_payload
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries, row_from_db
from langgraph_actionckpt.actions.settle import UNSETTLED_SQL
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.encoding import unescape_text
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.replay.core import UNKNOWN_OUTCOME, interrupts, now

DEFAULT_AGENT = "root"
"""The agent id of a run entered without one (the id a graph's root gets)."""

RUN_ROW = "run"
"""The ``action_type`` of an agent's run row: its entry into an ActionRun and how it left."""


@dataclass
class AgentProgress:
    """Where one agent of a run stands, from the log.

    Attributes:
        agent_id: The agent.
        completed: How many of its actions completed.
        last_completed: Its last completed action (None: none yet).
        in_flight: Its actions whose outcome is unknown (``pending``,
            ``running``, ``unknown``, ``interrupted``), in recorded order.
        failed: Its last action, when that one failed (None otherwise).
        run: Its run row (an ActionRun's agent; None for a graph's): status
            ``running`` while its block runs or after its process was killed,
            ``completed`` when the block ended normally, ``failed`` or
            ``interrupted`` when it raised (``error`` says what).
    """

    agent_id: str
    completed: int = 0
    last_completed: ActionRecord | None = None
    in_flight: list[ActionRecord] = field(default_factory=list)
    failed: ActionRecord | None = None
    run: ActionRecord | None = None

    @property
    def finished(self) -> bool | None:
        """Whether the agent's last entry into the run ended normally (None: no run row)."""
        return None if self.run is None else self.run.status == "completed"


@dataclass
class RunProgress:
    """Where a run stands, from the log: what an orchestrator asks before resuming it.

    Attributes:
        run_id: The run.
        last_completed: The run's last completed action (None: none yet).
        in_flight: The run's actions whose outcome is unknown, in recorded order.
        agents: Each agent's progress, by agent id.
    """

    run_id: str
    last_completed: ActionRecord | None
    in_flight: list[ActionRecord]
    agents: dict[str, AgentProgress]


def open_run_row(
    run_id: str, task_id: str, agent_id: str, records: Sequence[ActionRecord]
) -> ActionRecord:
    """An agent's run row as it enters: ``running``, the next attempt of the logged one.

    A new attempt, so the upsert reopens a row that an earlier entry closed.

    Args:
        run_id: The run.
        task_id: The agent's task id (``<run id>/<agent id>``).
        agent_id: The agent.
        records: The agent's logged rows (its run row among them, if it entered before).
    """
    key = f"{task_id}:{RUN_ROW}"
    old = next((r for r in records if r.action_id == key), None)
    return ActionRecord(
        thread_id=run_id,
        action_id=key,
        action_type=RUN_ROW,
        name=agent_id,
        status="running",
        run_id=run_id,
        task_id=task_id,
        node=agent_id,
        agent_id=agent_id,
        attempt=1 if old is None else old.attempt + 1,
        started_at=now(),
    )


def close_run_row(row: ActionRecord, error: BaseException | None) -> ActionRecord:
    """The run row ``row`` as its agent leaves: ``completed``, or how an exception stopped it.

    ``failed`` for an exception of the agent's code, ``interrupted`` when it was
    stopped from outside (cancellation, Ctrl-C, a lost lease: see
    :func:`~langgraph_actionckpt.replay.core.interrupts`); both with the error.
    """
    done = now()
    closed = ActionRecord(
        thread_id=row.thread_id,
        action_id=row.action_id,
        action_type=row.action_type,
        name=row.name,
        status="completed",
        attempt=row.attempt,
        completed_at=done,
    )
    if row.started_at is not None:
        closed.latency_ms = (done - row.started_at).total_seconds() * 1000.0
    if error is not None:
        closed.status = "interrupted" if interrupts(error) else "failed"
        closed.error = error_payload(error)
    return closed


def progress_of(run_id: str, records: Sequence[ActionRecord]) -> RunProgress:
    """A run's progress from its rows (in recorded order); no I/O."""
    run = RunProgress(run_id, None, [], {})
    for rec in records:
        agent_id = rec.agent_id or DEFAULT_AGENT
        agent = run.agents.setdefault(agent_id, AgentProgress(agent_id))
        if rec.action_type == RUN_ROW:
            agent.run = rec
            continue
        agent.failed = rec if rec.status == "failed" else None
        if rec.status == "completed":
            run.last_completed = agent.last_completed = rec
            agent.completed += 1
        elif rec.status in UNKNOWN_OUTCOME:
            run.in_flight.append(rec)
            agent.in_flight.append(rec)
    return run


# The runs to resume: an action whose outcome is unknown (UNSETTLED_SQL, the
# reports' rule), an agent's run row not completed (the agent was killed, or its
# block raised), or, in a thread without run rows (a graph's), a last action
# (highest step_index) that failed: an ActionRun whose agents all finished handled
# that failure. ``last_at`` is the newest start or completion. An ActionRun's rows
# have task_id ``<run id>/<agent id>`` (replay/run.py): that is how
# ``action_runs_only`` knows them.
_CANDIDATES = """
SELECT thread_id FROM (
    SELECT thread_id,
           max(GREATEST(started_at, completed_at)) AS last_at,
           count(*) FILTER (WHERE {unsettled}) AS unsettled,
           count(*) FILTER (WHERE action_type = %(run_row)s) AS runs,
           count(*) FILTER (WHERE action_type = %(run_row)s AND status <> 'completed') AS open_runs,
           (array_agg(status ORDER BY step_index DESC))[1] AS last_status
    FROM {s}.actions
    WHERE (NOT %(action_runs)s OR task_id = thread_id || '/' || agent_id)
    GROUP BY thread_id
) r
WHERE (unsettled > 0 OR open_runs > 0 OR (runs = 0 AND last_status = 'failed'))
  AND (%(since)s::timestamptz IS NULL OR last_at >= %(since)s::timestamptz)
ORDER BY last_at DESC NULLS LAST, thread_id
LIMIT %(limit)s
"""

# Of those runs, only what the progress needs: each agent's last completed action
# and its last action when that one failed (both with the agent's count of
# completed actions), its run row, and the actions whose outcome is unknown.
_PROGRESS = """
WITH c (t, n, last_done, last_any) AS (
    SELECT thread_id, count(*) FILTER (WHERE status = 'completed'),
           max(step_index) FILTER (WHERE status = 'completed'), max(step_index)
    FROM {s}.actions
    WHERE thread_id = ANY(%(threads)s::text[]) AND action_type <> %(run_row)s
    GROUP BY thread_id, agent_id
)
SELECT {cols}, c.n FROM {s}.actions a JOIN c ON a.thread_id = c.t
    AND (a.step_index = c.last_done OR (a.step_index = c.last_any AND a.status = 'failed'))
UNION ALL
SELECT {cols}, NULL FROM {s}.actions a
WHERE a.thread_id = ANY(%(threads)s::text[])
  AND ({unsettled} AND a.action_type <> %(run_row)s OR a.action_type = %(run_row)s)
ORDER BY step_index
"""


def plan_runs_to_resume(
    q: ActionQueries,
    *,
    limit: int = 50,
    since: dt.datetime | dt.timedelta | None = None,
    action_runs_only: bool = False,
) -> Plan[list[RunProgress]]:
    """The runs an orchestrator should resume, most recently active first (two queries).

    A run (a thread) is listed when one of its actions has an unknown outcome
    (pending, running, unknown, or a non-idempotent one interrupted), when one
    of its agents entered and did not finish normally (its run row is not
    ``completed``: killed between or inside actions, or its block raised), or,
    for a thread without run rows (a graph's), when its last action failed.
    Each comes with its :class:`RunProgress`: each agent's last completed
    action, how many completed, its actions in flight, its last action when
    that one failed, and its run row.

    Raises:
        ConfigurationError: ``limit`` is not positive.
    """
    if limit < 1:
        raise ConfigurationError(f"runs_to_resume: limit must be at least 1, not {limit}")
    if isinstance(since, dt.timedelta):
        since = dt.datetime.now(dt.UTC) - since
    unsettled = sql.SQL(UNSETTLED_SQL)
    params = {"limit": limit, "since": since, "action_runs": action_runs_only, "run_row": RUN_ROW}
    rows = yield Op(q.q(_CANDIDATES, unsettled=unsettled), params, "all")
    threads = [r[0] for r in rows]
    if not threads:
        return []
    statement = q.q(_PROGRESS, cols=q.columns, unsettled=unsettled)
    found = yield Op(statement, {"threads": threads, "run_row": RUN_ROW}, "all")
    records: dict[str, list[ActionRecord]] = {}
    counts: dict[tuple[str, str], int] = {}
    for row in found:
        rec = row_from_db(row[:-1], q, keep_sealed=True)
        records.setdefault(rec.thread_id, []).append(rec)
        if row[-1] is not None:
            counts[rec.thread_id, rec.agent_id or DEFAULT_AGENT] = int(row[-1])
    out = []
    for thread in map(unescape_text, threads):  # stored escaped, as the records are not
        run = progress_of(thread, records.get(thread, []))
        for agent in run.agents.values():
            agent.completed = counts.get((thread, agent.agent_id), 0)
        out.append(run)
    return out
