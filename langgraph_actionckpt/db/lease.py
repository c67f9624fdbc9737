"""Per-thread leases of a saver: one worker runs a thread at a time.

Two workers that resume the same thread at once would both execute its next
actions (each prepares the same task, neither sees the other's rows yet). A
lease is a row of ``{schema}.leases`` with a fencing token and an expiry on
the server's clock, kept by the saver's
:class:`~langgraph_actionckpt.db.fence.LeaseKeeper` (its own autocommit
connection without prepared statements, and a heartbeat thread). No session
state is involved, so leases hold through transaction-mode pgbouncer and
survive the loss of the lease connection (see :mod:`~langgraph_actionckpt.db.fence`):

* ``saver.lease_mode``: ``"wait"`` polls until the lease is free or
  ``saver.lease_timeout`` seconds have passed, ``"error"`` raises
  :class:`~langgraph_actionckpt.ThreadBusyError` at once, ``"off"`` takes no
  lease; ``saver.lease_ttl``: seconds a lease lives without a heartbeat;
* taken by the callback handler when a root run with a ``thread_id`` starts
  (before LangGraph loads the checkpoint, so the second worker continues from
  the first one's final state), and by the replay layer before the first live
  action of a thread (for graphs run without the handler); taking a held lease
  again costs nothing;
* released when the handler sees the root run end or fail, by :func:`release`,
  and for every thread by :func:`release_all` (the savers call it on close).
  A process that dies stops its heartbeat: its leases expire (on a direct
  connection they are free at once, since the holder's backend is gone).

While a lease is held, every write of the saver to that thread carries the
fencing token (:func:`token`), and the database refuses it once another
worker took the lease over: the run stops with
:class:`~langgraph_actionckpt.LeaseLostError`.

Thread ids are the caller's (unescaped); the lease rows store them the way
every table does (:func:`~langgraph_actionckpt.db.encoding.escape_text`).

A direct saver's keeper lives in its :class:`ThreadLeases`, which its checkpoint
store's fencing and its action writer are handed: they ask it for tokens, and
it turns the fence's refusal into the typed error, without going back up to
the saver.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from langgraph_actionckpt.db.encoding import escape_text, stored_id, unescape_text
from langgraph_actionckpt.db.fence import LeaseKeeper, refused
from langgraph_actionckpt.errors import LeaseLostError

if TYPE_CHECKING:
    from langgraph_actionckpt._contracts import ActionSaverLike

__all__ = [
    "ThreadLeases",
    "aacquire",
    "acquire",
    "arelease",
    "check",
    "enabled",
    "holds",
    "keeper",
    "release",
    "release_all",
]

_lock = threading.Lock()


class ThreadLeases:
    """The leases of one direct saver: its keeper (made on a first lease) and their tokens.

    The saver's checkpoint store and its action writer are handed this object
    and ask it for the fencing tokens of the threads they write; a saver that
    took no lease pays one attribute test.
    """

    def __init__(self) -> None:
        self.keeper: LeaseKeeper | None = None

    def fences(self, thread_ids: Collection[str]) -> dict[str, int]:
        """Fencing tokens by stored thread id of the leased ones among the caller's ``thread_ids``.

        Raises:
            LeaseLostError: One of their leases was taken over.
        """
        keeper = self.keeper
        if keeper is None:
            return {}
        out: dict[str, int] = {}
        for thread_id in {escape_text(t) for t in thread_ids}:
            token = keeper.token(thread_id)
            if token is not None:
                out[thread_id] = token
        return out

    def refusal(self, error: BaseException) -> LeaseLostError | None:
        """The typed error for a write the fence refused (None for any other error).

        The lease is marked lost, so no later write of this saver tries again.
        """
        which = refused(error)
        if which is None:
            return None
        thread_id, token = which
        if self.keeper is not None:
            self.keeper.mark_lost(thread_id, token)
        return LeaseLostError(unescape_text(thread_id), token)


def _remote(saver: ActionSaverLike) -> Any:
    """The lease keeper of a saver whose leases live elsewhere (the service's remote savers)."""
    return getattr(saver, "lease_keeper", None)


def enabled(saver: ActionSaverLike) -> bool:
    """Whether ``saver`` takes leases at all (a mode other than ``off`` and a conninfo)."""
    return getattr(saver, "lease_mode", "off") != "off" and bool(getattr(saver, "conninfo", None))


def keeper(saver: ActionSaverLike, *, create: bool = False) -> LeaseKeeper | None:
    """The saver's lease keeper; made on first use when ``create`` (None: leases off)."""
    leases: ThreadLeases | None = getattr(saver, "thread_leases", None)
    if leases is None:
        return None
    found = leases.keeper
    if found is not None or not create or not enabled(saver):
        return found
    with _lock:
        if leases.keeper is None:
            leases.keeper = LeaseKeeper(
                str(saver.conninfo),
                saver.schema,
                mode=saver.lease_mode,
                timeout=float(saver.lease_timeout),
                ttl=float(saver.lease_ttl),
            )
        made: LeaseKeeper = leases.keeper
    return made


def acquire(saver: ActionSaverLike, thread_id: str) -> bool:
    """Take the lease of ``thread_id``.

    Returns:
        True when a lease was taken now, False when this saver already holds it
        or leases are off.

    Raises:
        ConfigurationError: The thread id is longer than its limit.
        ThreadBusyError: Another worker holds it (``"error"`` mode), or it
            stayed busy for ``saver.lease_timeout`` seconds (``"wait"`` mode).
    """
    stored = stored_id("thread id", thread_id)
    remote = _remote(saver)
    if remote is not None:
        return bool(remote.acquire(str(thread_id)))
    k = keeper(saver, create=True)
    if k is None:
        return False
    return k.acquire(stored, mode=saver.lease_mode, timeout=float(saver.lease_timeout))


async def aacquire(saver: ActionSaverLike, thread_id: str) -> bool:
    """:func:`acquire` from async code (the keeper's I/O runs in a worker thread)."""
    stored = stored_id("thread id", thread_id)
    remote = _remote(saver)
    if remote is not None:
        return bool(await remote.aacquire(str(thread_id)))
    k = keeper(saver, create=True)
    if k is None:
        return False
    return await k.aacquire(stored, mode=saver.lease_mode, timeout=float(saver.lease_timeout))


def release(saver: ActionSaverLike, thread_id: str) -> bool:
    """Give the lease of ``thread_id`` back. Returns True when one was held (and not lost)."""
    remote = _remote(saver)
    if remote is not None:
        return bool(remote.release(str(thread_id)))
    k = keeper(saver)
    return k is not None and k.release(escape_text(str(thread_id)))


async def arelease(saver: ActionSaverLike, thread_id: str) -> bool:
    """:func:`release` from async code."""
    remote = _remote(saver)
    if remote is not None:
        return bool(await remote.arelease(str(thread_id)))
    k = keeper(saver)
    return k is not None and await k.arelease(escape_text(str(thread_id)))


def release_all(saver: ActionSaverLike) -> int:
    """Release every lease ``saver`` holds and stop its heartbeat; how many were released.

    The savers call this when they close.
    """
    k = keeper(saver)
    return 0 if k is None else k.release_all()


def holds(saver: ActionSaverLike, thread_id: str) -> bool:
    """Whether ``saver`` holds the (not lost) lease of ``thread_id``."""
    k = keeper(saver)
    return k is not None and k.holds(escape_text(str(thread_id)))


def check(saver: ActionSaverLike, thread_id: str) -> None:
    """Raise :class:`~langgraph_actionckpt.LeaseLostError` when the lease of ``thread_id`` is lost.

    A no-op for a thread this saver holds no lease on.
    """
    k = keeper(saver)
    if k is not None:
        k.token(escape_text(str(thread_id)))
