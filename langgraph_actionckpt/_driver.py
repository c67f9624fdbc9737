"""I/O-free plans and the two thin drivers that run them.

Every database interaction of this package is written once, as a *plan*: a
generator that yields :class:`Op` objects and receives each op's result. The
sync driver runs plans on a psycopg ``Connection``/``ConnectionPool``, the async
driver on an ``AsyncConnection``/``AsyncConnectionPool``. The sync and async
classes therefore share every SQL statement and every decision.

Both drivers retry a plan once on a fresh connection when the connection broke
under it (``pg_terminate_backend``, a server restart, a cloud proxy reaping an
idle connection). Plans are written to be re-runnable: writes are upserts.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import orjson
import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg_pool import AsyncConnectionPool, ConnectionPool

logger = logging.getLogger("langgraph_actionckpt")

T = TypeVar("T")

Fetch = Literal["none", "one", "all", "many", "begin", "commit", "rollback", "copy", "sleep"]


@dataclass(slots=True)
class Op:
    """One step of a plan.

    Attributes:
        query: The statement (``psycopg.sql`` composable or a constant string).
        params: Bound parameters; never interpolated.
        fetch: ``none`` (execute), ``one``/``all`` (return rows), ``many``
            (executemany over ``params``), ``copy`` (COPY FROM STDIN with
            ``params`` as the rows), ``begin``/``commit``/``rollback``, ``sleep``
            (wait ``params[0]`` seconds on the client, holding no snapshot).
        prepare: Prepare the statement on first use (hot statements; skipped when
            the connection disables prepared statements, e.g. for pgbouncer).
    """

    query: sql.Composable | str = ""
    params: Sequence[Any] | Mapping[str, Any] | None = None
    fetch: Fetch = "none"
    prepare: bool = False


Plan = Generator[Op, Any, T]
PlanFactory = Callable[[], Plan[T]]

BEGIN = Op(fetch="begin")
COMMIT = Op(fetch="commit")


def configure_connection(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
    """Use orjson for JSONB on this connection (faster, and what the encoder targets)."""
    set_json_loads(orjson.loads, conn)
    set_json_dumps(lambda obj: orjson.dumps(obj).decode(), conn)


def _is_connection_lost(exc: BaseException, conn: Any) -> bool:
    if not isinstance(exc, psycopg.OperationalError):
        return False
    return bool(getattr(conn, "broken", False) or getattr(conn, "closed", False))


# --------------------------------------------------------------------------- sync


class SyncDriver:
    """Runs plans on a connection or a pool, synchronously.

    Args:
        conn: A psycopg Connection (shared under a lock) or a ConnectionPool.
        pipeline: Run multi-statement plans in psycopg pipeline mode.
        reconnect: For a bare connection owned by the saver, a function that
            opens a replacement when the connection breaks.
    """

    def __init__(
        self,
        conn: psycopg.Connection[Any] | ConnectionPool[Any],
        *,
        pipeline: bool = False,
        reconnect: Callable[[], psycopg.Connection[Any]] | None = None,
    ) -> None:
        self.conn = conn
        self.pipeline = pipeline
        self.reconnect = reconnect
        self.lock = threading.RLock()
        self._pool_to_check = False
        if isinstance(conn, psycopg.Connection):
            configure_connection(conn)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one plan (borrowed from the pool or the shared one, locked)."""
        if isinstance(self.conn, ConnectionPool):
            with self.conn.connection() as conn:
                yield conn
        else:
            with self.lock:
                if self.conn.closed and self.reconnect is not None:
                    self.conn = self.reconnect()
                    configure_connection(self.conn)
                yield self.conn

    def run(self, factory: PlanFactory[T], *, pipeline: bool | None = None) -> T:
        """Run the plan made by ``factory``; retry once on a fresh connection if ours broke.

        Args:
            factory: Makes the plan (called again for the retry).
            pipeline: Override the driver's pipeline setting for this plan.
        """
        for attempt in (1, 2):
            if self._pool_to_check and isinstance(self.conn, ConnectionPool):
                self._pool_to_check = False
                self.conn.check()
            with self.connection() as conn:
                try:
                    return self._run_on(conn, factory(), pipeline)
                except psycopg.OperationalError as exc:
                    if attempt == 2 or not _is_connection_lost(exc, conn):
                        raise
                    logger.warning("connection lost (%s); retrying on a fresh connection", exc)
                    self._discard(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    def _discard(self, conn: psycopg.Connection[Any]) -> None:
        if isinstance(self.conn, ConnectionPool):
            # the pool drops this connection when it is returned; the others may
            # have died too (a server restart), so check the idle ones now
            self._pool_to_check = True
            return
        if self.reconnect is None:
            return
        try:
            conn.close()
        finally:
            self.conn = self.reconnect()
            configure_connection(self.conn)

    def _run_on(
        self, conn: psycopg.Connection[Any], plan: Plan[T], pipeline: bool | None = None
    ) -> T:
        use_pipeline = self.pipeline if pipeline is None else pipeline
        ctx = conn.pipeline() if use_pipeline else nullcontext()
        try:
            with ctx, conn.cursor(binary=True) as cur:
                result: Any = None
                while True:
                    try:
                        op = plan.send(result)
                    except StopIteration as stop:
                        return stop.value  # type: ignore[no-any-return]
                    result = _run_op_sync(conn, cur, op)
        except BaseException:
            _cleanup_sync(conn)
            raise
        finally:
            plan.close()


def _cleanup_sync(conn: psycopg.Connection[Any]) -> None:
    """After a failed plan: end an open transaction and drop session advisory locks."""
    if conn.closed or conn.broken:
        return
    try:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
        conn.execute("SELECT pg_advisory_unlock_all()")
    except psycopg.Error:
        pass


async def _cleanup_async(conn: psycopg.AsyncConnection[Any]) -> None:
    """Async :func:`_cleanup_sync`."""
    if conn.closed or conn.broken:
        return
    try:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            await conn.execute("ROLLBACK")
        await conn.execute("SELECT pg_advisory_unlock_all()")
    except psycopg.Error:
        pass


def _run_op_sync(conn: psycopg.Connection[Any], cur: psycopg.Cursor[Any], op: Op) -> Any:
    fetch = op.fetch
    if fetch == "sleep":
        time.sleep(op.params[0])  # type: ignore[index]
        return None
    if fetch == "begin":
        cur.execute("BEGIN")
        return None
    if fetch == "commit":
        cur.execute("COMMIT")
        return None
    if fetch == "rollback":
        cur.execute("ROLLBACK")
        return None
    if fetch == "many":
        cur.executemany(op.query, op.params or [])  # type: ignore[arg-type]
        return None
    if fetch == "copy":
        with cur.copy(op.query) as copy:  # type: ignore[arg-type]
            for row in op.params or ():
                copy.write_row(row)
        return None
    prepare = True if op.prepare and conn.prepare_threshold is not None else None
    cur.execute(op.query, op.params, prepare=prepare)  # type: ignore[arg-type]
    if fetch == "one":
        return cur.fetchone()
    if fetch == "all":
        return cur.fetchall()
    return None


# -------------------------------------------------------------------------- async


class AsyncDriver:
    """Runs plans on an async connection or pool (the twin of :class:`SyncDriver`)."""

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any],
        *,
        pipeline: bool = False,
        reconnect: Callable[[], Any] | None = None,
    ) -> None:
        self.conn = conn
        self.pipeline = pipeline
        self.reconnect = reconnect
        self.lock = asyncio.Lock()
        self._pool_to_check = False
        # Plans wait here rather than in the pool: with more concurrent graphs than
        # connections, psycopg_pool's waiting path costs ~40 us per borrow more
        # than a semaphore (measured with 64 tasks on 10 connections).
        self._gate = (
            asyncio.Semaphore(conn.max_size) if isinstance(conn, AsyncConnectionPool) else None
        )
        if isinstance(conn, psycopg.AsyncConnection):
            configure_connection(conn)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A connection for one plan (borrowed from the pool or the shared one, locked)."""
        if isinstance(self.conn, AsyncConnectionPool):
            assert self._gate is not None
            async with self._gate, self.conn.connection() as conn:
                yield conn
        else:
            async with self.lock:
                conn = self.conn
                if conn.closed and self.reconnect is not None:
                    conn = self.conn = await self.reconnect()
                    configure_connection(conn)
                yield conn

    async def run(self, factory: PlanFactory[T], *, pipeline: bool | None = None) -> T:
        """Run the plan made by ``factory``; retry once on a fresh connection if ours broke."""
        for attempt in (1, 2):
            if self._pool_to_check and isinstance(self.conn, AsyncConnectionPool):
                self._pool_to_check = False
                await self.conn.check()
            async with self.connection() as conn:
                try:
                    return await self._run_on(conn, factory(), pipeline)
                except psycopg.OperationalError as exc:
                    if attempt == 2 or not _is_connection_lost(exc, conn):
                        raise
                    logger.warning("connection lost (%s); retrying on a fresh connection", exc)
                    await self._discard(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _discard(self, conn: psycopg.AsyncConnection[Any]) -> None:
        if isinstance(self.conn, AsyncConnectionPool):
            self._pool_to_check = True
            return
        if self.reconnect is None:
            return
        try:
            await conn.close()
        finally:
            fresh: psycopg.AsyncConnection[Any] = await self.reconnect()
            self.conn = fresh
            configure_connection(fresh)

    async def _run_on(
        self, conn: psycopg.AsyncConnection[Any], plan: Plan[T], pipeline: bool | None = None
    ) -> T:
        try:
            if self.pipeline if pipeline is None else pipeline:
                async with conn.pipeline():
                    return await self._loop(conn, plan)
            return await self._loop(conn, plan)
        except BaseException:
            await _cleanup_async(conn)
            raise
        finally:
            plan.close()

    @staticmethod
    async def _loop(conn: psycopg.AsyncConnection[Any], plan: Plan[T]) -> T:
        async with conn.cursor(binary=True) as cur:
            result: Any = None
            while True:
                try:
                    op = plan.send(result)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
                result = await _run_op_async(cur, op)


async def _run_op_async(cur: psycopg.AsyncCursor[Any], op: Op) -> Any:
    fetch = op.fetch
    if fetch == "sleep":
        await asyncio.sleep(op.params[0])  # type: ignore[index]
        return None
    if fetch == "begin":
        await cur.execute("BEGIN")
        return None
    if fetch == "commit":
        await cur.execute("COMMIT")
        return None
    if fetch == "rollback":
        await cur.execute("ROLLBACK")
        return None
    if fetch == "many":
        await cur.executemany(op.query, op.params or [])  # type: ignore[arg-type]
        return None
    if fetch == "copy":
        async with cur.copy(op.query) as copy:  # type: ignore[arg-type]
            for row in op.params or ():
                await copy.write_row(row)
        return None
    prepare = True if op.prepare and cur.connection.prepare_threshold is not None else None
    await cur.execute(op.query, op.params, prepare=prepare)  # type: ignore[arg-type]
    if fetch == "one":
        return await cur.fetchone()
    if fetch == "all":
        return await cur.fetchall()
    return None
