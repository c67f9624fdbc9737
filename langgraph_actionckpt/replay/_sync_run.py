# Generated from langgraph_actionckpt/replay/_async_run.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The I/O of an :class:`~langgraph_actionckpt.replay.run.ActionRun`: enter, leave, progress,
and the runs to resume (``saver.runs_to_resume``).

``_async_run.py`` is the source and ``_sync_run.py`` is generated from it
(``python .ci/gen_sync.py``). The state changes are the run's own methods,
called after each read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Protocol

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db import lease
from langgraph_actionckpt.replay.progress import RunProgress, plan_runs_to_resume, progress_of


class RunState(Protocol):
    """What the I/O needs of an ``ActionRun`` (a protocol: this module never imports it)."""

    saver: Any
    run_id: str
    task_id: str

    def _claim(self) -> None: ...
    def _unclaim(self) -> None: ...
    def _opened(self, records: Sequence[ActionRecord]) -> ActionRecord: ...
    def _closed(self, error: BaseException | None) -> ActionRecord: ...
    def _start(self, records: Sequence[ActionRecord]) -> None: ...
    def _stop(self) -> None: ...


def enter(run: RunState) -> None:
    """Take the run's lease, read the agent's logged rows (another worker may write them),
    then write the agent's run row ``running``, durably: a kill from then on, even
    between two actions, leaves the run listed by ``runs_to_resume``."""
    run._claim()
    try:
        lease.acquire(run.saver, run.run_id)
        saver: Any = run.saver
        records = saver.list_actions(run.run_id, task_id=run.task_id)
        run.saver.writer.write_now(run._opened(records))
    except BaseException:
        run._unclaim()
        raise
    run._start(records)


def leave(run: RunState, error: BaseException | None) -> None:
    """Close the agent's run row (how the block ended, ``error`` when it raised) and write
    it with the queued rows while the lease is held, then let the lease go."""
    run._stop()
    try:
        run.saver.writer.enqueue(run._closed(error))
        run.saver.writer.flush()
    finally:
        run._unclaim()


def progress(saver: Any, run_id: str) -> RunProgress:
    """The run's progress, read from its rows."""
    return progress_of(run_id, saver.list_actions(run_id))


def runs_to_resume(
    saver: Any,
    *,
    limit: int = 50,
    since: dt.datetime | dt.timedelta | None = None,
    action_runs_only: bool = False,
) -> list[RunProgress]:
    """The runs left unfinished, most recently active first: what an orchestrator resumes.

    A run (a thread: an :class:`~langgraph_actionckpt.ActionRun`'s run id, or
    a graph's thread id) is listed when one of its actions has an unknown
    outcome (``pending``, ``running``, ``unknown``, or a non-idempotent one
    ``interrupted``: a crash or a kill caught it) or when its last action
    failed. Resume a listed run by running its program again under the same
    run id; settle a non-idempotent action in flight first with
    ``resolve_action``. Each agent of an ``ActionRun`` logs its entry and how it
    left (its run row), so a run is also listed when an agent entered and did
    not leave normally: killed between two actions (nothing in flight), or its
    block raised. A run whose agents all finished is not listed, even when one
    of them handled a failed action; a graph's thread (no run rows) is listed
    when its last action failed.

    Args:
        limit: At most this many runs.
        since: Only runs active at or after this time (a ``timedelta``: this
            long ago).
        action_runs_only: Only runs recorded by ``ActionRun`` (not graph threads).

    Returns:
        One :class:`~langgraph_actionckpt.RunProgress` per run: each agent's
        last completed action, its count of completed actions and its actions
        in flight.

    Raises:
        ConfigurationError: ``limit`` is below 1.
    """
    queries = saver.store.action_queries
    result: list[RunProgress] = saver.runner.run(
        lambda: plan_runs_to_resume(
            queries, limit=limit, since=since, action_runs_only=action_runs_only
        )
    )
    return result
