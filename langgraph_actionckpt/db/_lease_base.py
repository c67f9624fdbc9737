"""What the sync and async leases share: the SQL, the registry of held leases,
and each world's connection primitives.

The acquire/release logic is written once (``_async_lease.py``, with
``_sync_lease.py`` generated from it); what really differs between the worlds
lives here as :class:`SyncSession` and :class:`AsyncSession`, whose method
names match so the generated code calls the right one by renaming
``AsyncSession`` to ``SyncSession``. See :mod:`langgraph_actionckpt.db.lease`
for what a lease is and when it is taken.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg

from langgraph_actionckpt.db.encoding import escape_text

if TYPE_CHECKING:
    from langgraph_actionckpt._contracts import ActionSaverLike

TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext(%s || ':' || %s))"
UNLOCK = "SELECT pg_advisory_unlock(hashtext(%s || ':' || %s))"
POLL_INTERVAL = 0.05
_IDLE_MAX = 4

AnyConnection = psycopg.Connection[Any] | psycopg.AsyncConnection[Any]


@dataclass(slots=True)
class HeldLease:
    """A held lease: the thread and the connection whose session holds the lock."""

    thread_id: str
    conn: AnyConnection


_lock = threading.Lock()
# id(saver) -> thread_id -> HeldLease. One registry for both worlds: a lease
# taken by sync code (a sync node in an async graph) may be given back by async
# code, and the other way round.
_held: dict[int, dict[str, HeldLease]] = {}
# id(saver) -> idle sync connections kept for the next lease. Async connections
# are never kept: they belong to the event loop that opened them.
_idle: dict[int, list[psycopg.Connection[Any]]] = {}


def lock_params(saver: ActionSaverLike, thread_id: str) -> tuple[str, str]:
    """The bound parameters of the lock key (the server hashes them)."""
    return escape_text(saver.schema), escape_text(str(thread_id))


def enabled(saver: ActionSaverLike) -> bool:
    """Whether ``saver`` takes leases at all (a mode other than ``off`` and a conninfo)."""
    return getattr(saver, "lease_mode", "off") != "off" and bool(getattr(saver, "conninfo", None))


def holds(saver: ActionSaverLike, thread_id: str) -> bool:
    """Whether this process holds the lease of ``thread_id`` for ``saver``."""
    with _lock:
        return str(thread_id) in _held.get(id(saver), {})


def register(saver: ActionSaverLike, thread_id: str, conn: AnyConnection) -> bool:
    """Record a lease just taken on ``conn``; False when a concurrent acquire won."""
    with _lock:
        per = _held.setdefault(id(saver), {})
        if thread_id in per:  # a concurrent acquire in this process won: share its lease
            duplicate = True
        else:
            per[thread_id] = HeldLease(thread_id, conn)
            duplicate = False
    if duplicate:
        close_any(conn)  # closing the session frees our second (re-entrant) lock
        return False
    return True


def unregister(saver: ActionSaverLike, thread_id: str) -> HeldLease | None:
    """Forget the lease of ``thread_id``; the caller gives its connection back."""
    with _lock:
        return _held.get(id(saver), {}).pop(str(thread_id), None)


def unregister_all(saver: ActionSaverLike) -> tuple[list[HeldLease], list[AnyConnection]]:
    """Forget every lease and idle connection of ``saver``."""
    with _lock:
        held = _held.pop(id(saver), {})
        idle = _idle.pop(id(saver), [])
    return list(held.values()), list(idle)


def close_any(conn: AnyConnection) -> None:
    """Close either kind of connection from sync code (the server frees its locks)."""
    try:
        if isinstance(conn, psycopg.AsyncConnection):
            conn.pgconn.finish()
        else:
            conn.close()
    except Exception:  # noqa: BLE001 - a dead connection holds no lock either
        pass


def close_held(saver: ActionSaverLike, lease: HeldLease) -> None:
    """Close a held lease's connection, unlocking first when that needs no await.

    Closing alone frees the lock only once the server has noticed the closed
    session, a moment later: a worker that asks for the thread right after
    :func:`~langgraph_actionckpt.db.lease.release_all` could still find it busy.
    """
    conn = lease.conn
    if isinstance(conn, psycopg.Connection) and not conn.closed:
        try:
            conn.execute(UNLOCK, lock_params(saver, lease.thread_id))
        except psycopg.Error:
            pass  # closing below frees it anyway
    close_any(conn)


class SyncSession:
    """The sync world's connection primitives (idle connections are reused)."""

    @staticmethod
    def open(saver: ActionSaverLike) -> psycopg.Connection[Any]:
        """An idle connection kept from an earlier lease, or a new one."""
        with _lock:
            pool = _idle.get(id(saver)) or []
            while pool:
                conn = pool.pop()
                if not conn.closed:
                    return conn
        return psycopg.Connection.connect(str(saver.conninfo), autocommit=True)

    @staticmethod
    def pause() -> None:
        """Wait one poll interval before asking for a busy lease again."""
        time.sleep(POLL_INTERVAL)

    @staticmethod
    def discard(saver: ActionSaverLike, conn: psycopg.Connection[Any]) -> None:
        """Keep a connection that holds no lock for the next lease, or close it."""
        if conn.closed:
            return
        with _lock:
            pool = _idle.setdefault(id(saver), [])
            if len(pool) < _IDLE_MAX:
                pool.append(conn)
                return
        conn.close()

    @staticmethod
    def give_back(saver: ActionSaverLike, lease: HeldLease) -> None:
        """Unlock and keep a sync connection; close an async one at the libpq level."""
        conn = lease.conn
        if not isinstance(conn, psycopg.Connection) or conn.closed:
            close_any(conn)
            return
        try:
            conn.execute(UNLOCK, lock_params(saver, lease.thread_id))
        except psycopg.Error:
            close_any(conn)
            return
        SyncSession.discard(saver, conn)


class AsyncSession:
    """The async world's connection primitives (a connection per lease, never blocking)."""

    @staticmethod
    async def open(saver: ActionSaverLike) -> psycopg.AsyncConnection[Any]:
        """A new async connection (async ones are not kept: they belong to one loop)."""
        return await psycopg.AsyncConnection.connect(str(saver.conninfo), autocommit=True)

    @staticmethod
    async def pause() -> None:
        """Wait one poll interval before asking for a busy lease again."""
        await asyncio.sleep(POLL_INTERVAL)

    @staticmethod
    async def discard(saver: ActionSaverLike, conn: psycopg.AsyncConnection[Any]) -> None:
        """Close a connection that holds no lock."""
        await conn.close()

    @staticmethod
    async def give_back(saver: ActionSaverLike, lease: HeldLease) -> None:
        """Close an async connection (frees its lock); unlock a sync one off the loop."""
        conn = lease.conn
        if isinstance(conn, psycopg.AsyncConnection):
            try:
                await conn.close()
            except Exception:  # noqa: BLE001 - closing anyway frees the lock
                close_any(conn)
            return
        await asyncio.to_thread(SyncSession.give_back, saver, lease)
