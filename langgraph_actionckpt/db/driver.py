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
        lock_key: The thread whose rows the statement writes; a group commit
            runs its statements in this order (see ``AsyncDriver.run_grouped``).
    """

    query: sql.Composable | str = ""
    params: Sequence[Any] | Mapping[str, Any] | None = None
    fetch: Fetch = "none"
    prepare: bool = False
    lock_key: str = ""


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
        # group commit (see run_grouped): queued plans and the flushers draining them
        self._groups: list[tuple[PlanFactory[Any], asyncio.Future[Any]]] = []
        self._flushers = 0
        self._max_flushers = (
            max(1, conn.max_size // 2) if isinstance(conn, AsyncConnectionPool) else 0
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self.grouped = 0  # plans committed as part of a group (observability, tests)
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

    async def run_grouped(self, factory: PlanFactory[T]) -> T:
        """Run a write plan, committing it together with the ones queued meanwhile.

        With many graphs running at once, every checkpoint would pay its own pool
        borrow, round trip and WAL flush. Plans submitted while others are being
        written wait and go out together: their first statements in one pipelined
        transaction (one round trip, one commit), then whatever each plan does
        next. A plan alone takes the ordinary path, and so does every plan of a
        group that fails, so each caller gets its own outcome. Each call returns
        only after its plan is committed.

        Only plans whose first op executes without fetching qualify (puts);
        others are run as by :meth:`run`.
        """
        if not self._max_flushers:
            return await self.run(factory)
        if self._flushers < self._max_flushers and not self._groups:
            # Nothing waits: write it now, in this task (no hand-off, so a lone
            # graph pays nothing); what arrives meanwhile queues up.
            self._flushers += 1
            try:
                return await self.run(factory)
            finally:
                self._flushers -= 1
                self._start_drains()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._groups.append((factory, future))
        self._start_drains()
        return await future

    def _start_drains(self) -> None:
        wanted = -(-len(self._groups) // MAX_GROUP)  # one drain per group's worth queued
        while wanted > 0 and self._flushers < self._max_flushers:
            wanted -= 1
            self._flushers += 1
            task = asyncio.get_running_loop().create_task(self._drain_groups())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait until every grouped write submitted so far is done."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _drain_groups(self) -> None:
        try:
            while self._groups:
                group, self._groups = self._groups[:MAX_GROUP], self._groups[MAX_GROUP:]
                if len(group) == 1:
                    factory, future = group[0]
                    await _settle(future, self.run(factory))
                else:
                    await self._write_group(group)
        finally:
            self._flushers -= 1

    async def _write_group(self, group: list[tuple[PlanFactory[Any], asyncio.Future[Any]]]) -> None:
        started: list[tuple[Plan[Any], Op, PlanFactory[Any], asyncio.Future[Any]]] = []
        for factory, future in group:
            plan = factory()
            try:
                op = next(plan)
            except StopIteration as stop:  # nothing to write
                _resolve(future, stop.value)
                continue
            except Exception as exc:  # noqa: BLE001 - the caller's error, not the group's
                _fail(future, exc)
                continue
            if op.fetch != "none":
                plan.close()
                await _settle(future, self.run(factory))
                continue
            started.append((plan, op, factory, future))
        if not started:
            return
        # Row locks are taken thread by thread in ascending order, as every
        # multi-thread write of this package takes them: no two can deadlock.
        started.sort(key=lambda item: item[1].lock_key)
        try:
            async with (
                self.connection() as conn,
                conn.pipeline(),
                conn.transaction(),
                conn.cursor(binary=True) as cur,
            ):
                for _plan, op, _factory, _future in started:
                    prepare = True if op.prepare and conn.prepare_threshold is not None else None
                    await cur.execute(op.query, op.params, prepare=prepare)  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - retried one by one below
            logger.debug(
                "group of %d writes failed (%s); writing them one by one", len(started), exc
            )
            for plan, _op, factory, future in started:
                plan.close()  # plans give back what they took (held writes) on close
                await _settle(future, self.run(factory))
            return
        self.grouped += len(started)
        for plan, _op, _factory, future in started:
            await _settle(future, self._resume(plan))

    async def _resume(self, plan: Plan[T]) -> T:
        """Go on with a plan whose first op was committed in a group."""
        try:
            try:
                op = plan.send(None)
            except StopIteration as stop:  # the common case: nothing more to do
                return stop.value  # type: ignore[no-any-return]
            async with self.connection() as conn:
                return await self._run_on(conn, plan, first=op)
        finally:
            plan.close()

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
        self,
        conn: psycopg.AsyncConnection[Any],
        plan: Plan[T],
        pipeline: bool | None = None,
        first: Op | None = None,
    ) -> T:
        try:
            if self.pipeline if pipeline is None else pipeline:
                async with conn.pipeline():
                    return await self._loop(conn, plan, first)
            return await self._loop(conn, plan, first)
        except BaseException:
            await _cleanup_async(conn)
            raise
        finally:
            plan.close()

    @staticmethod
    async def _loop(
        conn: psycopg.AsyncConnection[Any], plan: Plan[T], first: Op | None = None
    ) -> T:
        """Run the plan's ops; ``first``: an op the plan already yielded."""
        async with conn.cursor(binary=True) as cur:
            result: Any = None if first is None else await _run_op_async(cur, first)
            while True:
                try:
                    op = plan.send(result)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
                result = await _run_op_async(cur, op)


MAX_GROUP = 32
"""At most this many plans share one group commit (each waits for the whole group)."""


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


async def _settle(future: asyncio.Future[Any], work: Any) -> None:
    """Await ``work`` and hand its outcome to ``future`` (whose caller may be gone)."""
    try:
        value = await work
    except Exception as exc:  # noqa: BLE001 - delivered to the caller
        _fail(future, exc)
    else:
        _resolve(future, value)


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
