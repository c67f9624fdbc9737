"""Read-only queries behind the ``actionckpt`` CLI: runs, timelines, failures, in-flight actions.

Each function takes a sync psycopg ``Connection`` (autocommit), a
``ConnectionPool`` or an :class:`~langgraph_actionckpt.ActionSaver`, and a
schema name; results are small dataclasses with a ``to_dict()`` that is ready
for ``json.dumps``. Every value is bound as a parameter; the schema is always
an identifier composed with :mod:`psycopg.sql`.

A *run* here is a thread: its status is derived from its actions:
``running`` when any action is ``pending``/``running``, ``failed`` when its last
action (highest ``step_index``) failed, else ``completed``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from psycopg import sql

from langgraph_actionckpt.actions.reads import plan_list
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.actions.settle import UNSETTLED_SQL, is_unsettled
from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.migrations import migration_sql as _migration_sql
from langgraph_actionckpt.db.sqlid import q as _q
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops.jsonable import Jsonable
from langgraph_actionckpt.ops.target import Target as Target
from langgraph_actionckpt.ops.target import driver_for as driver_for
from langgraph_actionckpt.ops.target import require_schema as require_schema
from langgraph_actionckpt.ops.target import schema_for as schema_for
from langgraph_actionckpt.ops.target import schema_version as schema_version

RUN_STATUSES = ("running", "failed", "completed")
_UNSETTLED = sql.SQL(UNSETTLED_SQL)  # one rule for every report (actions.settle)


# ----------------------------------------------------------------------- runs


@dataclasses.dataclass(slots=True)
class RunSummary(Jsonable):
    """One thread as listed by ``actionckpt runs``.

    Attributes:
        thread_id: The thread.
        status: ``running``, ``failed`` or ``completed`` (derived, see module doc).
        actions: Number of actions.
        by_type: Action count per ``action_type``.
        last_action_type: Type of the last action (highest ``step_index``).
        last_action_name: Name of the last action.
        last_action_status: Status of the last action.
        last_error: The last action's error (decoded JSON) when it failed.
        inflight: Actions still ``pending``/``running``.
        checkpoints: Number of checkpoints of the thread.
        first_at: When the first action started (or the first checkpoint).
        last_at: Newest activity: action start/completion or checkpoint.
        age_seconds: Seconds since ``last_at``.
    """

    thread_id: str
    status: str
    actions: int
    by_type: dict[str, int]
    last_action_type: str | None
    last_action_name: str | None
    last_action_status: str | None
    last_error: Any
    inflight: int
    checkpoints: int
    first_at: dt.datetime | None
    last_at: dt.datetime | None
    age_seconds: float | None


_RUNS_SQL = """
WITH a AS (
    SELECT thread_id, count(*) AS n, min(started_at) AS first_at,
           max(GREATEST(started_at, completed_at)) AS last_at,
           count(*) FILTER (WHERE {unsettled}) AS inflight
    FROM {s}.actions GROUP BY thread_id
), ty AS (
    SELECT thread_id, jsonb_object_agg(action_type, n) AS by_type
    FROM (SELECT thread_id, action_type, count(*) AS n
          FROM {s}.actions GROUP BY thread_id, action_type) x
    GROUP BY thread_id
), l AS (
    -- each thread's last action (DISTINCT ON the distribution column: Citus runs it
    -- on each shard, where a lateral join per thread is refused)
    SELECT DISTINCT ON (thread_id) thread_id, action_type, name, status, error, action_id
    FROM {s}.actions ORDER BY thread_id, step_index DESC
), c AS (
    SELECT thread_id, count(*) AS n, min(created_at) AS first_at, max(created_at) AS last_at
    FROM {s}.checkpoints GROUP BY thread_id
), t AS (
    SELECT thread_id,
           COALESCE(a.n, 0) AS n_actions,
           COALESCE(ty.by_type, '{{}}'::jsonb) AS by_type,
           COALESCE(a.inflight, 0) AS inflight,
           COALESCE(c.n, 0) AS n_checkpoints,
           LEAST(a.first_at, c.first_at) AS first_at,
           GREATEST(a.last_at, c.last_at) AS last_at
    FROM a LEFT JOIN ty USING (thread_id) FULL JOIN c USING (thread_id)
), r AS (
    SELECT t.*, l.action_type AS l_type, l.name AS l_name, l.status AS l_status,
           l.error AS l_error, l.action_id AS l_action,
           CASE WHEN t.inflight > 0 THEN 'running'
                WHEN l.status = 'failed' THEN 'failed'
                ELSE 'completed' END AS run_status
    FROM t LEFT JOIN l USING (thread_id)
)
SELECT thread_id, run_status, n_actions, by_type, l_type, l_name, l_status, l_error,
       inflight, n_checkpoints, first_at, last_at,
       EXTRACT(EPOCH FROM (now() - last_at))::float8, l_action
FROM r
WHERE (%(statuses)s::text[] IS NULL OR run_status = ANY(%(statuses)s::text[]))
  AND (%(since)s::timestamptz IS NULL OR last_at >= %(since)s::timestamptz)
  AND (%(thread_id)s::text IS NULL OR thread_id = %(thread_id)s::text)
ORDER BY last_at DESC NULLS LAST, thread_id
LIMIT %(limit)s
"""


def _plan_runs(
    schema: str,
    statuses: Sequence[str] | None,
    since: dt.datetime | None,
    limit: int | None,
    thread_id: str | None = None,
    keyring: KeyRing | None = None,
) -> Plan[list[RunSummary]]:
    from langgraph_actionckpt.actions.batch_rows import open_columns
    from langgraph_actionckpt.db import encoding as _encoding

    def last_error(r: Any) -> Any:  # opened with the key ring; sealed without one: refused
        values = {"thread_id": r[0], "action_id": r[13], "input": None, "output": None}
        values["error"] = r[7]
        open_columns(keyring, schema, values)
        return _encoding.from_jsonable(values["error"])

    params = {
        "statuses": list(statuses) if statuses else None,
        "since": since,
        "limit": limit,
        "thread_id": thread_id,
    }
    rows = yield Op(_q(schema, _RUNS_SQL, unsettled=_UNSETTLED), params, "all")
    return [
        RunSummary(
            thread_id=_encoding.unescape_text(r[0]),
            status=r[1],
            actions=int(r[2]),
            by_type={k: int(v) for k, v in (r[3] or {}).items()},
            last_action_type=r[4],
            last_action_name=r[5],
            last_action_status=r[6],
            last_error=last_error(r),
            inflight=int(r[8]),
            checkpoints=int(r[9]),
            first_at=r[10],
            last_at=r[11],
            age_seconds=r[12],
        )
        for r in rows
    ]


def list_runs(
    target: Target,
    schema: str | None = None,
    *,
    status: str | Sequence[str] | None = None,
    since: dt.datetime | dt.timedelta | None = None,
    limit: int | None = 50,
    keyring: KeyRing | None = None,
) -> list[RunSummary]:
    """Threads with their derived status, newest activity first.

    Args:
        target: Connection, pool or saver.
        schema: The schema (default: the saver's, else ``actionckpt``).
        status: Only runs with this derived status (or one of several).
        since: Only runs with activity at or after this time (a timedelta
            means "this long ago").
        limit: At most this many runs (``None``: all).
        keyring: Opens an encrypted last error (default: the saver's).

    Raises:
        ConfigurationError: An unknown status was asked for.
        DecryptionError: A last error is encrypted and there is no key ring.
    """
    sch = schema_for(target, schema)
    statuses = [status] if isinstance(status, str) else list(status) if status else None
    for s in statuses or ():
        if s not in RUN_STATUSES:
            raise ConfigurationError(f"unknown run status {s!r}; use one of {RUN_STATUSES}")
    if isinstance(since, dt.timedelta):
        since = dt.datetime.now(dt.UTC) - since
    ring = keyring or getattr(target, "encryption", None)
    return driver_for(target).run(lambda: _plan_runs(sch, statuses, since, limit, None, ring))


def failed_runs(
    target: Target,
    schema: str | None = None,
    *,
    limit: int | None = 50,
    keyring: KeyRing | None = None,
) -> list[RunSummary]:
    """Runs whose last action failed (with that action's error), newest first.

    Runs with an action still in flight are reported by :func:`inflight_actions`
    instead, since their outcome is not known yet.
    """
    return list_runs(target, schema, status="failed", limit=limit, keyring=keyring)


# ------------------------------------------------------------------- timeline


@dataclasses.dataclass(slots=True)
class TimelineRow(Jsonable):
    """One action of a thread's timeline.

    Attributes:
        step_index: Order in the whole action log (one sequence shared by
            every thread: increasing within a thread, with gaps); see ``position``.
        step: The LangGraph superstep the action ran in (``None`` outside a graph).
        action_type: ``node``, ``llm_completion``, ``tool_call``...
        name: Node, model, tool or function name.
        status: The action's status.
        node: The graph node it ran in.
        duration_ms: ``latency_ms`` when recorded, else completed minus started.
        tokens: Total tokens (LLM rows), if known.
        replayed: Times it was served from the log instead of executed.
        attempt: Attempt number.
        started_at: Start time.
        completed_at: Completion time.
        error: The error (decoded JSON) of a failed action.
        action_id: The idempotency key.
        trace_id: The OpenTelemetry trace that recorded it (README "OpenTelemetry").
        position: The action's number in its thread: 1, 2, 3... in log order.
    """

    step_index: int | None
    step: int | None
    action_type: str
    name: str | None
    status: str
    node: str | None
    duration_ms: float | None
    tokens: int | None
    replayed: int
    attempt: int
    started_at: dt.datetime | None
    completed_at: dt.datetime | None
    error: Any
    action_id: str
    trace_id: str | None = None
    position: int = 0

    @classmethod
    def from_record(cls, r: ActionRecord) -> TimelineRow:
        """Build a row from an :class:`ActionRecord` (the fields they share are copied)."""
        duration = r.latency_ms
        if duration is None and r.started_at and r.completed_at:
            duration = (r.completed_at - r.started_at).total_seconds() * 1000.0
        tokens = r.total_tokens
        if tokens is None and (r.input_tokens is not None or r.output_tokens is not None):
            tokens = (r.input_tokens or 0) + (r.output_tokens or 0)
        shared = {name: getattr(r, name) for name in _SHARED_WITH_RECORD}
        return cls(duration_ms=duration, tokens=tokens, **shared)


_SHARED_WITH_RECORD = tuple(
    f.name
    for f in dataclasses.fields(TimelineRow)
    if f.name in {g.name for g in dataclasses.fields(ActionRecord)}
)
"""The fields of a timeline row that are its record's own, under the same name."""


@dataclasses.dataclass(slots=True)
class Timeline(Jsonable):
    """The action timeline of one thread (``actionckpt show``).

    Attributes:
        thread_id: The thread.
        status: Derived run status (``None`` when the thread has no rows).
        actions: The actions in ``step_index`` order.
        executed: Actions that ran live (``replayed == 0``).
        replayed: Actions served from the log at least once (``replayed > 0``).
        tokens: Sum of the tokens of its LLM rows.
    """

    thread_id: str
    status: str | None
    actions: list[TimelineRow]
    executed: int
    replayed: int
    tokens: int


def thread_timeline(
    target: Target, thread_id: str, schema: str | None = None, keyring: KeyRing | None = None
) -> Timeline:
    """A thread's actions in order, with durations, tokens and replay counts.

    Args:
        target: Connection, pool or saver.
        thread_id: The thread.
        schema: The schema.
        keyring: Opens encrypted action rows (default: the saver's; without one
            an encrypted row raises :class:`~langgraph_actionckpt.errors.DecryptionError`).
    """
    sch = schema_for(target, schema)
    driver = driver_for(target)
    ring = keyring or getattr(target, "encryption", None)
    records = driver.run(lambda: plan_list(ActionQueries(sch, ring), thread_id))
    rows = [TimelineRow.from_record(r) for r in records]
    for n, row in enumerate(rows, 1):  # plan_list reads in step_index order
        row.position = n
    status: str | None = None
    if rows:
        if any(is_unsettled(r) for r in records):
            status = "running"
        elif rows[-1].status == "failed":
            status = "failed"
        else:
            status = "completed"
    return Timeline(
        thread_id=thread_id,
        status=status,
        actions=rows,
        executed=sum(1 for r in rows if r.replayed == 0),
        replayed=sum(1 for r in rows if r.replayed > 0),
        tokens=sum(r.tokens or 0 for r in rows if r.action_type == "llm_completion"),
    )


# ------------------------------------------------------------------- inflight


@dataclasses.dataclass(slots=True)
class InflightAction(Jsonable):
    """An action that started and has no completion (``actionckpt inflight``).

    Attributes:
        thread_id: The thread.
        step_index: Order in the whole action log (shared by every thread).
        action_id: The idempotency key.
        action_type: Its type.
        name: Its name.
        status: ``pending`` or ``running``.
        step: The LangGraph superstep it ran in (``None`` outside a graph).
        idempotent: Whether a re-run may execute it again.
        attempt: Attempt number.
        started_at: Start time.
        age_seconds: Seconds since it started.
        position: The action's number in its thread: 1, 2, 3... in log order.
    """

    thread_id: str
    step_index: int
    action_id: str
    action_type: str
    name: str | None
    status: str
    idempotent: bool
    attempt: int
    started_at: dt.datetime
    age_seconds: float
    step: int | None = None
    position: int = 0


# An ActionRun agent's run row (action type 'run', replay/progress.py) is open
# while the agent runs: it is not an action, and its outcome is never unknown.
_INFLIGHT_SQL = """
SELECT thread_id, step_index, action_id, action_type, name, status, idempotent, attempt,
       started_at, EXTRACT(EPOCH FROM (now() - started_at))::float8, step,
       (SELECT count(*) FROM {s}.actions y
        WHERE y.thread_id = a.thread_id AND y.step_index <= a.step_index)::int
FROM {s}.actions a
WHERE {unsettled} AND action_type <> 'run'
  AND (%(older)s::timestamptz IS NULL OR started_at < %(older)s::timestamptz)
ORDER BY started_at, thread_id, step_index
LIMIT %(limit)s
"""


def _plan_inflight(
    schema: str, older: dt.datetime | None, limit: int | None
) -> Plan[list[InflightAction]]:
    sql_ = _q(schema, _INFLIGHT_SQL, unsettled=_UNSETTLED)
    rows = yield Op(sql_, {"older": older, "limit": limit}, "all")
    return [InflightAction(*r) for r in rows]


def inflight_actions(
    target: Target,
    schema: str | None = None,
    *,
    older_than: dt.timedelta | None = None,
    limit: int | None = 100,
) -> list[InflightAction]:
    """Actions ``pending``/``running`` with no completion, oldest first.

    After a crash these are the actions whose outcome is unknown.

    Args:
        target: Connection, pool or saver.
        schema: The schema.
        older_than: Only actions that started at least this long ago.
        limit: At most this many rows.
    """
    sch = schema_for(target, schema)
    older = dt.datetime.now(dt.UTC) - older_than if older_than is not None else None
    return driver_for(target).run(lambda: _plan_inflight(sch, older, limit))


# ----------------------------------------------------------------- migrations


def migration_sql(schema: str = DEFAULT_SCHEMA) -> str:
    """The SQL of every migration for ``schema``, for a DBA to review or apply by hand.

    Nothing is executed; see :func:`langgraph_actionckpt.db.migrations.migration_sql`.

    Args:
        schema: The schema name (validated: letters, digits, underscore).
    """
    return _migration_sql(validate_schema(schema))


# A window per thread (the distribution column on Citus: each shard numbers its
# own threads); the pairs asked for are picked out of the threads' numbering.
_POSITIONS_SQL = """
SELECT thread_id, step_index, n FROM (
    SELECT thread_id, step_index, row_number() OVER (
               PARTITION BY thread_id ORDER BY step_index)::int AS n
    FROM {s}.actions WHERE thread_id = ANY(%(threads)s::text[])
) x WHERE step_index = ANY(%(steps)s::bigint[])
"""


def _plan_positions(schema: str, keys: list[tuple[str, int]]) -> Plan[dict[tuple[str, int], int]]:
    wanted = set(keys)
    args = {"threads": sorted({k[0] for k in keys}), "steps": sorted({k[1] for k in keys})}
    rows = yield Op(_q(schema, _POSITIONS_SQL), args, "all")
    return {(t, i): n for t, i, n in rows if (t, i) in wanted}


def positions(
    target: Target, keys: Iterable[tuple[str, int]], schema: str | None = None
) -> dict[tuple[str, int], int]:
    """Each action's number in its thread (1, 2, 3... in log order).

    Args:
        target: Connection, pool or saver.
        keys: ``(thread_id, step_index)`` of the actions.
        schema: The schema.

    Returns:
        ``position`` by ``(thread_id, step_index)``.
    """
    sch = schema_for(target, schema)
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return {}
    return driver_for(target).run(lambda: _plan_positions(sch, wanted))
