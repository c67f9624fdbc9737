"""Per-thread leases: one process runs a thread at a time.

Two workers that resume the same thread at once would both execute its next
actions (each prepares the same task, neither sees the other's rows yet). A
lease is a PostgreSQL *session* advisory lock held on a dedicated connection
(opened from ``saver.conninfo``) for as long as this process runs the thread:

* key: ``hashtext(schema || ':' || thread_id)``, computed by the server from
  bound parameters;
* ``saver.lease_mode``: ``"wait"`` polls ``pg_try_advisory_lock`` until the
  lease is free or ``saver.lease_timeout`` seconds have passed (polling, not a
  blocking ``pg_advisory_lock``, so no statement and no snapshot stays open
  while waiting), ``"error"`` raises :class:`~langgraph_actionckpt.ThreadBusyError`
  at once, ``"off"`` takes no lease;
* taken by the callback handler when a root run with a ``thread_id`` starts
  (before LangGraph loads the checkpoint, so the second worker continues from
  the first one's final state), and by the replay layer before the first live
  action of a thread (for graphs run without the handler); held leases are
  cached per ``(saver, thread_id)``, so taking it again costs nothing;
* released when the handler sees the root run end or fail, by :func:`release`,
  and for every thread by :func:`release_all` (call it when the saver closes).
  A process that dies loses its connection, and the server frees the lock.

Without the callback handler a lease is held until :func:`release` or
:func:`release_all`.

Both worlds use the same names: ``SyncLease(saver).acquire(thread_id)`` and
``await AsyncLease(saver).acquire(thread_id)`` (``release`` likewise); the sync
class is generated from the async one. The module functions :func:`acquire`,
:func:`aacquire`, :func:`release` and :func:`arelease` are kept for callers
written before the classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_actionckpt.db._async_lease import AsyncLease
from langgraph_actionckpt.db._lease_base import (
    HeldLease,
    close_any,
    close_held,
    holds,
    unregister_all,
)
from langgraph_actionckpt.db._sync_lease import SyncLease

if TYPE_CHECKING:
    from langgraph_actionckpt._contracts import ActionSaverLike

# The held-lease record had this name before the lease classes existed.
Lease = HeldLease


def acquire(saver: ActionSaverLike, thread_id: str) -> bool:
    """``SyncLease(saver).acquire(thread_id)``."""
    return SyncLease(saver).acquire(thread_id)


async def aacquire(saver: ActionSaverLike, thread_id: str) -> bool:
    """``await AsyncLease(saver).acquire(thread_id)``."""
    return await AsyncLease(saver).acquire(thread_id)


def release(saver: ActionSaverLike, thread_id: str) -> bool:
    """``SyncLease(saver).release(thread_id)``."""
    return SyncLease(saver).release(thread_id)


async def arelease(saver: ActionSaverLike, thread_id: str) -> bool:
    """``await AsyncLease(saver).release(thread_id)``."""
    return await AsyncLease(saver).release(thread_id)


def release_all(saver: ActionSaverLike) -> int:
    """Release every lease ``saver`` holds in this process and close its connections.

    The savers call this when they close. Safe from sync and async code (it
    never awaits: async connections are closed at the libpq level).

    Returns:
        How many leases were released.
    """
    held, idle = unregister_all(saver)
    for lease in held:
        close_held(saver, lease)
    for conn in idle:
        close_any(conn)
    return len(held)


__all__ = [
    "AsyncLease",
    "HeldLease",
    "Lease",
    "SyncLease",
    "aacquire",
    "acquire",
    "arelease",
    "holds",
    "release",
    "release_all",
]
