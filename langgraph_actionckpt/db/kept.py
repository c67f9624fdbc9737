"""A pooled connection kept between plans for a moment (:class:`AsyncKeptConnection`).

A graph run alone writes a checkpoint every superstep, a millisecond or so apart.
Borrowing from psycopg_pool and giving back (``getconn`` + ``putconn``: its lock,
its queue, its statistics and the reset check) cost the event loop about 40 us of
CPU a plan, a tenth of what the saver adds to a superstep. The async driver
therefore keeps the last connection a plan gave back, and the next plan takes it
without asking the pool. The pool still sees every connection often: one idle
for :data:`KEEP_IDLE` seconds goes back, and so does one kept for
:data:`KEEP_MAX` seconds in a row (so that the pool's ``max_lifetime`` and its
checks still apply). Only a healthy connection outside a transaction is kept.

The sync driver's plans run on the callers' threads, each borrowing its own
connection; :class:`SyncKeptConnection` keeps nothing there.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from psycopg.pq import TransactionStatus

__all__ = ["KEEP_IDLE", "KEEP_MAX", "AsyncKeptConnection", "SyncKeptConnection"]

KEEP_IDLE = 0.05
"""Seconds a kept connection may wait for the next plan before it goes back to the pool."""
KEEP_MAX = 1.0
"""Seconds one connection is kept in a row before the pool sees it again."""

_IDLE = TransactionStatus.IDLE


class AsyncKeptConnection:
    """The connection the last plan gave back, for the next plan (event loop only).

    Args:
        pool: The pool the connections come from (``None``: a bare connection,
            nothing is kept).
    """

    __slots__ = ("_conn", "_pool", "_since", "_tasks", "_timer", "_used")

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self._conn: Any = None
        self._used = 0.0  # when the kept connection was given back
        self._since: float | None = None  # when this connection was first kept, in a row
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def take(self) -> Any:
        """The kept connection (now the caller's), or None."""
        conn = self._conn
        self._conn = None
        return conn

    def keep(self, conn: Any) -> bool:
        """Keep ``conn`` for the next plan; False: give it back to the pool yourself."""
        if (
            self._pool is None
            or self._conn is not None
            or conn.closed
            or conn.broken
            or conn.pgconn.transaction_status != _IDLE
        ):
            return False
        now = time.monotonic()
        if self._since is None:
            self._since = now
        elif now - self._since > KEEP_MAX:
            self._since = None
            return False
        self._conn, self._used = conn, now
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(KEEP_IDLE, self._expire)
        return True

    def _expire(self) -> None:
        """The timer: an idle kept connection goes back to the pool."""
        self._timer = None
        conn = self._conn
        if conn is None:  # in use: the plan's give-back arms the timer again
            return
        loop = asyncio.get_running_loop()
        left = self._used + KEEP_IDLE - time.monotonic()
        if left > 0:
            self._timer = loop.call_later(left, self._expire)
            return
        self._conn = self._since = None
        task = loop.create_task(self._pool.putconn(conn))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def release(self) -> None:
        """Give the kept connection back to the pool now (the saver is closing)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        conn, self._conn, self._since = self._conn, None, None
        if conn is not None:
            await self._pool.putconn(conn)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


class SyncKeptConnection:
    """The sync driver's: nothing is kept (each calling thread borrows its own)."""

    __slots__ = ()

    def __init__(self, pool: Any) -> None:
        del pool

    def take(self) -> Any:
        """Nothing kept: None."""
        return None

    def keep(self, conn: Any) -> bool:
        """Never kept: False."""
        del conn
        return False

    def release(self) -> None:
        """Nothing to give back."""
