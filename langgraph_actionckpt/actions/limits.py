"""Length limits of an action record's ids and names, checked before any SQL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_actionckpt._config import LIMITS
from langgraph_actionckpt.actions.record import STATUSES
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.errors import ConfigurationError

if TYPE_CHECKING:
    from langgraph_actionckpt.actions.record import ActionRecord

__all__ = ["check_record"]

_LIMITED = (
    ("thread_id", "thread id"),
    ("checkpoint_ns", "checkpoint namespace"),
    ("checkpoint_id", "checkpoint id"),
    ("action_id", "action id"),
    ("task_id", "task id"),
    ("run_id", "run id"),
    ("name", "action name"),
    ("node", "action name"),
)


# The smallest limit of the checked fields, and the smallest but the checkpoint
# id's (the smallest of all today). LIMITS are fixed: a test may raise one at run
# time, which keeps these bounds safe.
_SMALLEST = min(LIMITS[what] for _, what in _LIMITED)
_SECOND = min(LIMITS[what] for _, what in _LIMITED if what != "checkpoint id")


def check_record(record: ActionRecord) -> ActionRecord:
    """Refuse a record whose ids or names pass their limits (``_config.LIMITS``), before any SQL.

    A too long key would fail the whole batch of rows it is written with.

    Raises:
        ConfigurationError: One is too long (the message names it and its size),
            or the status is not one of ``STATUSES``.
    """
    # On the caller's path (every queued row): plain ASCII ids, nearly always,
    # are stored as they are, a byte a character, so their lengths tell. Each
    # one is at most as long as all of them together: when that fits the
    # smallest limit (or the second smallest, and the one id with the smallest
    # limit fits it), every one fits its own, told by one length.
    r = record
    if r.status not in STATUSES:  # the table's CHECK would fail the whole batch
        raise ConfigurationError(
            f"action {str(r.action_id)[:40]!r} of thread {str(r.thread_id)[:40]!r}: "
            f"unknown status {str(r.status)[:40]!r}; use one of {STATUSES}"
        )
    ids = (r.thread_id, r.checkpoint_ns, r.checkpoint_id, r.action_id, r.task_id, r.run_id)
    try:
        joined = "".join(filter(None, (*ids, r.name, r.node)))
    except TypeError:  # not all strings
        joined = "\x00"
    if joined.isascii() and "\x00" not in joined:
        size = len(joined)
        if size <= _SMALLEST or (size <= _SECOND and len(ids[2] or "") <= LIMITS["checkpoint id"]):
            return record
        lim = LIMITS
        if (
            len(ids[0] or "") <= lim["thread id"]
            and len(ids[1] or "") <= lim["checkpoint namespace"]
            and len(ids[2] or "") <= lim["checkpoint id"]
            and len(ids[3] or "") <= lim["action id"]
            and len(ids[4] or "") <= lim["task id"]
            and len(ids[5] or "") <= lim["run id"]
            and len(r.name or "") <= lim["action name"]
            and len(r.node or "") <= lim["action name"]
        ):
            return record
    for attr, what in _LIMITED:
        value = getattr(record, attr)
        if value is not None:
            try:
                _encoding.stored_id(what, value)
            except ConfigurationError as exc:
                raise ConfigurationError(
                    f"action {str(record.action_id)[:40]!r} of thread "
                    f"{str(record.thread_id)[:40]!r}: {exc}"
                ) from None
    return record
