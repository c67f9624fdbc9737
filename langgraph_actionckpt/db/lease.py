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
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg

from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.errors import ThreadBusyError

if TYPE_CHECKING:
    from langgraph_actionckpt._contracts import ActionSaverLike as SaverCore

TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext(%s || ':' || %s))"
UNLOCK = "SELECT pg_advisory_unlock(hashtext(%s || ':' || %s))"
POLL_INTERVAL = 0.05
_IDLE_MAX = 4


@dataclass(slots=True)
class Lease:
    """A held lease: the thread and the connection whose session holds the lock."""

    thread_id: str
    conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]


_lock = threading.Lock()
# id(saver) -> thread_id -> Lease
_held: dict[int, dict[str, Lease]] = {}
# id(saver) -> idle sync connections kept for the next lease
_idle: dict[int, list[psycopg.Connection[Any]]] = {}


def _params(saver: SaverCore, thread_id: str) -> tuple[str, str]:
    return escape_text(saver.schema), escape_text(str(thread_id))


def holds(saver: SaverCore, thread_id: str) -> bool:
    """Whether this process holds the lease of ``thread_id`` for ``saver``."""
    with _lock:
        return str(thread_id) in _held.get(id(saver), {})


def _enabled(saver: SaverCore) -> bool:
    return getattr(saver, "lease_mode", "off") != "off" and bool(getattr(saver, "conninfo", None))


def _take_idle(saver: SaverCore) -> psycopg.Connection[Any] | None:
    with _lock:
        pool = _idle.get(id(saver)) or []
        while pool:
            conn = pool.pop()
            if not conn.closed:
                return conn
    return None


def acquire(saver: SaverCore, thread_id: str) -> bool:
    """Take the lease of ``thread_id`` (blocking, sync).

    Returns:
        True when a lease was taken now, False when it was already held by this
        process or leases are off.

    Raises:
        ThreadBusyError: Another process holds it (``"error"`` mode), or it
            stayed busy for ``saver.lease_timeout`` seconds (``"wait"`` mode).
    """
    thread_id = str(thread_id)
    if not _enabled(saver) or holds(saver, thread_id):
        return False
    conn = _take_idle(saver) or psycopg.Connection.connect(str(saver.conninfo), autocommit=True)
    params = _params(saver, thread_id)
    deadline = time.monotonic() + float(saver.lease_timeout)
    try:
        while True:
            row = conn.execute(TRY_LOCK, params).fetchone()
            if row and row[0]:
                break
            if saver.lease_mode == "error" or time.monotonic() >= deadline:
                raise ThreadBusyError(thread_id)
            time.sleep(POLL_INTERVAL)
    except BaseException:
        _park(saver, conn)
        raise
    return _register(saver, thread_id, conn)


async def aacquire(saver: SaverCore, thread_id: str) -> bool:
    """Async :func:`acquire` on an async connection (never blocks the event loop)."""
    thread_id = str(thread_id)
    if not _enabled(saver) or holds(saver, thread_id):
        return False
    conn = await psycopg.AsyncConnection.connect(str(saver.conninfo), autocommit=True)
    params = _params(saver, thread_id)
    deadline = time.monotonic() + float(saver.lease_timeout)
    try:
        while True:
            cur = await conn.execute(TRY_LOCK, params)
            row = await cur.fetchone()
            if row and row[0]:
                break
            if saver.lease_mode == "error" or time.monotonic() >= deadline:
                raise ThreadBusyError(thread_id)
            await asyncio.sleep(POLL_INTERVAL)
    except BaseException:
        await conn.close()
        raise
    return _register(saver, thread_id, conn)


def _register(
    saver: SaverCore,
    thread_id: str,
    conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any],
) -> bool:
    with _lock:
        per = _held.setdefault(id(saver), {})
        if thread_id in per:  # a concurrent acquire in this process won: share its lease
            duplicate = True
        else:
            per[thread_id] = Lease(thread_id, conn)
            duplicate = False
    if duplicate:
        _close(conn)  # closing the session frees our second (re-entrant) lock
        return False
    return True


def _park(saver: SaverCore, conn: psycopg.Connection[Any]) -> None:
    """Keep a sync connection that holds no lock for the next lease, or close it."""
    if conn.closed:
        return
    with _lock:
        pool = _idle.setdefault(id(saver), [])
        if len(pool) < _IDLE_MAX:
            pool.append(conn)
            return
    conn.close()


def _close(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
    """Close either kind of connection from sync code (the server frees its locks)."""
    try:
        if isinstance(conn, psycopg.AsyncConnection):
            conn.pgconn.finish()
        else:
            conn.close()
    except Exception:  # noqa: BLE001 - a dead connection holds no lock either
        pass


def release(saver: SaverCore, thread_id: str) -> bool:
    """Give the lease of ``thread_id`` back (sync). Returns True when one was held."""
    with _lock:
        lease = _held.get(id(saver), {}).pop(str(thread_id), None)
    if lease is None:
        return False
    conn = lease.conn
    if isinstance(conn, psycopg.Connection) and not conn.closed:
        try:
            conn.execute(UNLOCK, _params(saver, lease.thread_id))
        except psycopg.Error:
            _close(conn)
            return True
        _park(saver, conn)
    else:
        _close(conn)
    return True


async def arelease(saver: SaverCore, thread_id: str) -> bool:
    """Async :func:`release`."""
    with _lock:
        lease = _held.get(id(saver), {}).pop(str(thread_id), None)
    if lease is None:
        return False
    conn = lease.conn
    if isinstance(conn, psycopg.AsyncConnection):
        try:
            await conn.close()
        except Exception:  # noqa: BLE001
            _close(conn)
        return True
    await asyncio.to_thread(_unlock_and_park, saver, lease)
    return True


def _unlock_and_park(saver: SaverCore, lease: Lease) -> None:
    conn = lease.conn
    assert isinstance(conn, psycopg.Connection)
    try:
        conn.execute(UNLOCK, _params(saver, lease.thread_id))
    except psycopg.Error:
        _close(conn)
        return
    _park(saver, conn)


def release_all(saver: SaverCore) -> int:
    """Release every lease ``saver`` holds in this process and close its connections.

    The savers call this when they close. Safe from sync and async code (it
    never awaits: async connections are closed at the libpq level).

    Returns:
        How many leases were released.
    """
    with _lock:
        held = _held.pop(id(saver), {})
        idle = _idle.pop(id(saver), [])
    for lease in held.values():
        _close(lease.conn)
    for conn in idle:
        _close(conn)
    return len(held)


__all__ = [
    "Lease",
    "aacquire",
    "acquire",
    "arelease",
    "holds",
    "release",
    "release_all",
]
