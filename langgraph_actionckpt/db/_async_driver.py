"""A driver runs plans on a psycopg connection or pool.

``_async_driver.py`` is the one source (:class:`AsyncDriver`); ``.ci/gen_sync.py``
generates ``_sync_driver.py`` (:class:`SyncDriver`) from it, and docstrings here
are read in both worlds. What differs between the worlds is in
:mod:`langgraph_actionckpt.db._driver_base`. Group commit, which only the async
saver does, builds on the async driver in :mod:`langgraph_actionckpt.db.group_commit`.

A plan is retried once on a fresh connection when the connection broke under
it (``pg_terminate_backend``, a server restart, a cloud proxy reaping an idle
connection), and once when its transaction was rolled back by a serialization
failure or a deadlock. Plans are written to be re-runnable: writes are upserts.
Nothing else is retried: an error about the data itself (see
``_driver_base.is_data_error``) belongs to its caller.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.generators import send
from psycopg.pq import TransactionStatus
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt.db import direct
from langgraph_actionckpt.db._driver_base import (
    KEEPS_ROWS,
    AsyncLock,
    AsyncReconnect,
    Watchdog,
    asleep,
    async_gate,
    configure_connection,
    give_back_cursor,
    is_connection_lost,
    is_transient,
    logger,
    no_answer,
    pooler_misconfigured,
    prepare_flag,
    take_cursor,
)
from langgraph_actionckpt.db.kept import AsyncKeptConnection
from langgraph_actionckpt.db.plan import Op, Plan, PlanFactory, T


class AsyncDriver:
    """Runs plans on one connection or on a pool.

    Args:
        conn: A psycopg connection (shared under a lock) or a connection pool.
        pipeline: Run multi-statement plans in psycopg pipeline mode.
        reconnect: For a bare connection owned by the saver, a function that
            opens a replacement when the connection breaks.
        io_timeout: Seconds a plan may wait for the server before its
            connection is cut (:class:`~._driver_base.Watchdog`); ``None``: no limit.
    """

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any],
        *,
        pipeline: bool = False,
        reconnect: AsyncReconnect | None = None,
        io_timeout: float | None = None,
    ) -> None:
        self.conn = conn
        self.io_timeout = io_timeout
        self.pipeline = pipeline
        self.reconnect = reconnect
        self.lock = AsyncLock()
        self._gate = async_gate(conn)
        self._pool_to_check = False
        pool = conn if isinstance(conn, AsyncConnectionPool) else None
        self._kept = AsyncKeptConnection(pool)  # the last plan's, for the next one
        if isinstance(conn, psycopg.AsyncConnection):
            configure_connection(conn)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A connection for one plan (borrowed from the pool or the shared one, locked)."""
        conn = await self._borrow()
        try:
            yield conn
        finally:
            await self._give_back(conn)

    async def _borrow(self) -> psycopg.AsyncConnection[Any]:
        """Take a connection for one plan; :meth:`_give_back` returns it.

        What :meth:`connection` does, without a context manager object per
        plan (:meth:`run` is on every checkpoint's path).
        """
        if isinstance(self.conn, AsyncConnectionPool):
            # getconn/putconn, not the pool's connection(): its ``with conn``
            # block commits on exit, a no-op lock round on our autocommit
            # connections (a failed plan has rolled back already, and the pool
            # checks what comes back)
            await self._gate.acquire()
            kept: psycopg.AsyncConnection[Any] | None = self._kept.take()
            if kept is not None:
                return kept
            try:
                pooled: psycopg.AsyncConnection[Any] = await self.conn.getconn()
            except BaseException:
                self._gate.release()
                raise
            return pooled
        await self.lock.acquire()
        try:
            conn = self.conn
            if conn.closed and self.reconnect is not None:
                conn = self.conn = await self.reconnect()
                configure_connection(conn)
            return conn
        except BaseException:
            self.lock.release()
            raise

    async def _give_back(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Return what :meth:`_borrow` took (the pool's connection, or the lock)."""
        if isinstance(self.conn, AsyncConnectionPool):
            try:
                if not self._kept.keep(conn):
                    await self.conn.putconn(conn)
            finally:
                self._gate.release()
        else:
            self.lock.release()

    async def run(
        self,
        factory: PlanFactory[T],
        *,
        pipeline: bool | None = None,
        io_timeout: float | bool | None = True,
    ) -> T:
        """Run the plan made by ``factory``; retry once on a fresh connection if ours broke.

        Args:
            factory: Makes the plan (called again for the retry).
            pipeline: Override the driver's pipeline setting for this plan.
            io_timeout: ``True``: the driver's; else seconds, or ``None`` for no
                limit (migrations: an index build may take long).

        Raises:
            ConnectionFailedError: The server did not answer within the timeout.
        """
        timeout = self.io_timeout if io_timeout is True else io_timeout
        for attempt in (1, 2):
            if self._pool_to_check and isinstance(self.conn, AsyncConnectionPool):
                self._pool_to_check = False
                await self.conn.check()
            conn = await self._borrow()  # as ``async with self.connection()``, inlined
            try:
                watch = Watchdog(conn, timeout)  # type: ignore[arg-type]
                try:
                    return await self.run_on(conn, factory(), pipeline)
                except psycopg.OperationalError as exc:
                    if watch.fired:  # a blackhole: a fresh connection would hang too
                        raise no_answer(conn, timeout, exc) from exc  # type: ignore[arg-type]
                    if attempt == 2:
                        raise
                    if is_transient(exc):  # rolled back: nothing of it was stored
                        logger.warning("transaction rolled back (%s); running it again", exc)
                        continue
                    if not is_connection_lost(exc, conn):
                        raise
                    logger.warning("connection lost (%s); retrying on a fresh connection", exc)
                    await self._discard(conn)
                except psycopg.ProgrammingError as exc:
                    clear = pooler_misconfigured(exc)
                    if clear is None:
                        raise
                    raise clear from exc
                finally:
                    watch.stop()
            finally:
                await self._give_back(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    async def run_write(self, factory: PlanFactory[T]) -> T:
        """Run a checkpoint write: as :meth:`run` here; group commit groups them."""
        return await self.run(factory)

    async def run_read(self, factory: PlanFactory[T]) -> T:
        """Run a thread's read: as :meth:`run` here; group commit batches them."""
        return await self.run(factory)

    async def drain(self) -> None:
        """Wait for writes still in flight (none here; see group commit)."""

    async def release(self) -> None:
        """Give a connection kept between plans back to the pool (``db.kept``)."""
        await self._kept.release()

    async def _discard(self, conn: psycopg.AsyncConnection[Any]) -> None:
        if isinstance(self.conn, AsyncConnectionPool):
            # the pool drops this connection when it is returned; the others may
            # have died too (a server restart), so check the idle ones now
            self._pool_to_check = True
            return
        if self.reconnect is None:
            return
        try:
            await conn.close()
        finally:
            fresh = await self.reconnect()
            self.conn = fresh
            configure_connection(fresh)

    async def run_on(
        self,
        conn: psycopg.AsyncConnection[Any],
        plan: Plan[T],
        pipeline: bool | None = None,
        first: Op | None = None,
    ) -> T:
        """Run ``plan`` on ``conn``; ``first``: an op the plan already yielded.

        Outside a pipeline, a first statement that can go direct (``db.direct``: a
        put, a thread's read) is sent here, with no cursor: most plans end after it.
        """
        try:
            if self.pipeline if pipeline is None else pipeline:
                async with conn.pipeline():
                    return await _run_ops(conn, plan, first)
            if first is None:
                try:
                    first = plan.send(None)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            stmt = direct.usable(conn, first)
            if stmt is not None:
                result = await conn.wait(direct.lone_gen(conn, stmt, first))
                try:
                    first = plan.send(result)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            return await _run_ops(conn, plan, first)
        except BaseException:
            await end_failed_transaction(conn)
            raise
        finally:
            plan.close()


async def _run_ops(conn: psycopg.AsyncConnection[Any], plan: Plan[T], first: Op | None) -> T:
    cur = take_cursor(conn)
    reusable = True
    try:
        result: Any = None
        if first is not None:
            result = await run_op(cur, first)
            reusable = not (result and first.fetch in KEEPS_ROWS and _holds_rows(cur))
        while True:
            try:
                op = plan.send(result)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result = await run_op(cur, op)
            if result and op.fetch in KEEPS_ROWS and _holds_rows(cur):
                reusable = False
    except BaseException:
        reusable = False
        raise
    finally:
        spare = give_back_cursor(conn, cur, reusable)
        if spare is not None:
            await spare.close()


def _holds_rows(cur: Any) -> bool:
    """Whether ``cur`` keeps a result with rows (not when the op went direct: ``db.direct``)."""
    return cur.rownumber is not None


async def end_failed_transaction(conn: psycopg.AsyncConnection[Any]) -> None:
    """After a failed plan: end an open transaction (no plan keeps session state)."""
    if conn.closed or conn.broken:
        return
    try:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            await conn.execute("ROLLBACK")
    except psycopg.Error:
        pass


async def run_op(cur: psycopg.AsyncCursor[Any], op: Op) -> Any:
    """Run one op on ``cur`` and return its result (rows, or None)."""
    fetch = op.fetch
    if fetch == "sleep":
        await asleep(op.params[0])  # type: ignore[index]
        return None
    if fetch == "sync":
        # psycopg keeps the connection's open pipeline here (no public getter)
        pipeline = getattr(cur.connection, "_pipeline", None)
        if pipeline is not None:
            # Pipeline.sync() waits for results once its commands are queued, though libpq
            # may still hold unsent bytes of a large value: then client and server wait
            # for each other (psycopg #685, fixed for the pipeline's exit only). Send all first.
            await cur.connection.wait(send(cur.connection.pgconn))
            await pipeline.sync()
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
    conn = cur.connection
    stmt = direct.usable(conn, op)
    if stmt is not None:  # a hot statement: libpq directly, half the cursor's CPU
        return await conn.wait(direct.lone_gen(conn, stmt, op))
    await cur.execute(op.query, op.params, prepare=prepare_flag(op, conn))  # type: ignore[arg-type]
    if fetch == "one":
        return await cur.fetchone()
    if fetch == "all":
        return await cur.fetchall()
    return None
