# Generated from langgraph_actionckpt/replay/_async_run.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The I/O of an :class:`~langgraph_actionckpt.replay.run.ActionRun`: enter, leave, progress.

``_async_run.py`` is the source and ``_sync_run.py`` is generated from it
(``python .ci/gen_sync.py``). The state changes are the run's own methods,
called after each read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db import lease
from langgraph_actionckpt.replay.progress import RunProgress, progress_of


class RunState(Protocol):
    """What the I/O needs of an ``ActionRun`` (a protocol: this module never imports it)."""

    saver: Any
    run_id: str
    task_id: str

    def _claim(self) -> None: ...
    def _unclaim(self) -> None: ...
    def _start(self, records: Sequence[ActionRecord]) -> None: ...
    def _stop(self) -> None: ...


def enter(run: RunState) -> None:
    """Take the run's lease, then read the agent's logged rows (another worker may write them)."""
    run._claim()
    try:
        lease.acquire(run.saver, run.run_id)
        saver: Any = run.saver
        records = saver.list_actions(run.run_id, task_id=run.task_id)
    except BaseException:
        run._unclaim()
        raise
    run._start(records)


def leave(run: RunState) -> None:
    """Write the queued rows while the lease is held, then let the lease go."""
    run._stop()
    try:
        run.saver.writer.flush()
    finally:
        run._unclaim()


def progress(saver: Any, run_id: str) -> RunProgress:
    """The run's progress, read from its rows."""
    return progress_of(run_id, saver.list_actions(run_id))
