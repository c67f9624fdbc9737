"""The in-memory queue of action rows that both writers flush, and how rows merge.

Recording must cost the graph almost nothing, so rows are queued and
group-committed: one multi-row upsert per flush. A flush that fails (database
gone) puts its rows back at the head of the queue; nothing queued is dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import fields

from langgraph_actionckpt.actions.record import TERMINAL, ActionRecord

__all__ = ["RowQueue", "merge_records"]

_FIELDS = tuple(f.name for f in fields(ActionRecord) if f.name not in ("extra",))


def merge_records(records: Sequence[ActionRecord]) -> list[ActionRecord]:
    """Fold several records of one action into one, in arrival order.

    Later non-None fields win, except that a terminal status is never replaced
    by a non-terminal one (a late ``running`` never undoes ``completed``), and
    ``meta`` objects merge key by key within an attempt, as the upsert merges them
    in the table: a callback's row for a served action keeps the ``reused_from``
    the replay layer noted (one owner for the row's meta: the merge).
    """
    # nothing to fold (the common case): distinct action ids are distinct keys, told
    # without a (thread, action) tuple a row
    if len({r.action_id for r in records}) == len(records):
        return list(records)
    keys = {(r.thread_id, r.action_id) for r in records}
    if len(keys) == len(records):
        return list(records)
    merged: dict[tuple[str, str], ActionRecord] = {}
    for rec in records:
        key = (rec.thread_id, rec.action_id)
        old = merged.get(key)
        if old is None:
            merged[key] = ActionRecord(**{f: getattr(rec, f) for f in _FIELDS})
            continue
        newer = rec.attempt > old.attempt  # before ``attempt`` itself is folded
        for name in _FIELDS:
            value = getattr(rec, name)
            if name == "status":
                if old.status in TERMINAL and value not in TERMINAL and not newer:
                    continue
                old.status = value
            elif name in ("attempt", "replayed"):
                setattr(old, name, max(getattr(old, name), value))
            elif name == "meta":
                old.meta = _merge_meta(old.meta, value, newer)
            elif name in ("idempotent", "replayable") or value is not None:
                setattr(old, name, value)
    return list(merged.values())


def _merge_meta(old: object, new: object, new_attempt: bool) -> object:
    """``meta`` after a later row: keys merged (later wins); a new attempt starts over."""
    if new is None:
        return old
    if not new_attempt and isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}
    return new


class RowQueue:
    """Rows waiting to be written, with the bookkeeping both writers share.

    Args:
        batch_size: Flush when this many rows are queued.
        interval: Flush at least this often (seconds) while rows are queued.
        on_depth: Called with the queue depth after each flush (metrics).
    """

    def __init__(
        self, batch_size: int, interval: float, on_depth: Callable[[int], None] | None
    ) -> None:
        self.batch_size = batch_size
        self.interval = interval
        self._queue: deque[ActionRecord] = deque()
        self._on_depth = on_depth
        self._closed = False

    @property
    def depth(self) -> int:
        """Rows waiting in the queue."""
        return len(self._queue)

    def _take(self, record: ActionRecord | None) -> list[ActionRecord]:
        """Everything queued (thread-safe, one row at a time), then ``record``."""
        out: list[ActionRecord] = []
        while True:
            try:
                out.append(self._queue.popleft())
            except IndexError:
                break
        if record is not None:
            out.append(record)
        return out

    def _give_back(self, rows: list[ActionRecord], record: ActionRecord | None) -> None:
        """Put the rows of a failed write back at the head (``record`` is the caller's)."""
        self._queue.extendleft(reversed(rows if record is None else rows[:-1]))

    def _report_depth(self) -> None:
        if self._on_depth is not None:
            self._on_depth(len(self._queue))
