# Generated from langgraph_actionckpt/db/_async_driver.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
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

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.generators import send
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from langgraph_actionckpt.db import direct
from langgraph_actionckpt.db._driver_base import (
    KEEPS_ROWS,
    SyncLock,
    SyncReconnect,
    Watchdog,
    configure_connection,
    give_back_cursor,
    is_connection_lost,
    is_transient,
    logger,
    no_answer,
    pooler_misconfigured,
    prepare_flag,
    sleep,
    sync_gate,
    take_cursor,
)
from langgraph_actionckpt.db.kept import SyncKeptConnection
from langgraph_actionckpt.db.plan import Op, Plan, PlanFactory, T


class SyncDriver:
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
        conn: psycopg.Connection[Any] | ConnectionPool[Any],
        *,
        pipeline: bool = False,
        reconnect: SyncReconnect | None = None,
        io_timeout: float | None = None,
    ) -> None:
        self.conn = conn
        self.io_timeout = io_timeout
        self.pipeline = pipeline
        self.reconnect = reconnect
        self.lock = SyncLock()
        self._gate = sync_gate(conn)
        self._pool_to_check = False
        pool = conn if isinstance(conn, ConnectionPool) else None
        self._kept = SyncKeptConnection(pool)  # the last plan's, for the next one
        if isinstance(conn, psycopg.Connection):
            configure_connection(conn)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one plan (borrowed from the pool or the shared one, locked)."""
        conn = self._borrow()
        try:
            yield conn
        finally:
            self._give_back(conn)

    def _borrow(self) -> psycopg.Connection[Any]:
        """Take a connection for one plan; :meth:`_give_back` returns it.

        What :meth:`connection` does, without a context manager object per
        plan (:meth:`run` is on every checkpoint's path).
        """
        if isinstance(self.conn, ConnectionPool):
            # getconn/putconn, not the pool's connection(): its ``with conn``
            # block commits on exit, a no-op lock round on our autocommit
            # connections (a failed plan has rolled back already, and the pool
            # checks what comes back)
            self._gate.acquire()
            kept: psycopg.Connection[Any] | None = self._kept.take()
            if kept is not None:
                return kept
            try:
                pooled: psycopg.Connection[Any] = self.conn.getconn()
            except BaseException:
                self._gate.release()
                raise
            return pooled
        self.lock.acquire()
        try:
            conn = self.conn
            if conn.closed and self.reconnect is not None:
                conn = self.conn = self.reconnect()
                configure_connection(conn)
            return conn
        except BaseException:
            self.lock.release()
            raise

    def _give_back(self, conn: psycopg.Connection[Any]) -> None:
        """Return what :meth:`_borrow` took (the pool's connection, or the lock)."""
        if isinstance(self.conn, ConnectionPool):
            try:
                if not self._kept.keep(conn):
                    self.conn.putconn(conn)
            finally:
                self._gate.release()
        else:
            self.lock.release()

    def run(
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
            if self._pool_to_check and isinstance(self.conn, ConnectionPool):
                self._pool_to_check = False
                self.conn.check()
            conn = self._borrow()  # as ``async with self.connection()``, inlined
            try:
                watch = Watchdog(conn, timeout)  # type: ignore[arg-type]
                try:
                    return self.run_on(conn, factory(), pipeline)
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
                    self._discard(conn)
                except psycopg.ProgrammingError as exc:
                    clear = pooler_misconfigured(exc)
                    if clear is None:
                        raise
                    raise clear from exc
                finally:
                    watch.stop()
            finally:
                self._give_back(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    def run_write(self, factory: PlanFactory[T]) -> T:
        """Run a checkpoint write: as :meth:`run` here; group commit groups them."""
        return self.run(factory)

    def run_read(self, factory: PlanFactory[T]) -> T:
        """Run a thread's read: as :meth:`run` here; group commit batches them."""
        return self.run(factory)

    def drain(self) -> None:
        """Wait for writes still in flight (none here; see group commit)."""

    def release(self) -> None:
        """Give a connection kept between plans back to the pool (``db.kept``)."""
        self._kept.release()

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
            fresh = self.reconnect()
            self.conn = fresh
            configure_connection(fresh)

    def run_on(
        self,
        conn: psycopg.Connection[Any],
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
                with conn.pipeline():
                    return _run_ops(conn, plan, first)
            if first is None:
                try:
                    first = plan.send(None)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            stmt = direct.usable(conn, first)
            if stmt is not None:
                result = conn.wait(direct.lone_gen(conn, stmt, first))
                try:
                    first = plan.send(result)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            return _run_ops(conn, plan, first)
        except BaseException:
            end_failed_transaction(conn)
            raise
        finally:
            plan.close()


def _run_ops(conn: psycopg.Connection[Any], plan: Plan[T], first: Op | None) -> T:
    cur = take_cursor(conn)
    reusable = True
    try:
        result: Any = None
        if first is not None:
            result = run_op(cur, first)
            reusable = not (result and first.fetch in KEEPS_ROWS and _holds_rows(cur))
        while True:
            try:
                op = plan.send(result)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            result = run_op(cur, op)
            if result and op.fetch in KEEPS_ROWS and _holds_rows(cur):
                reusable = False
    except BaseException:
        reusable = False
        raise
    finally:
        spare = give_back_cursor(conn, cur, reusable)
        if spare is not None:
            spare.close()


def _holds_rows(cur: Any) -> bool:
    """Whether ``cur`` keeps a result with rows (not when the op went direct: ``db.direct``)."""
    return cur.rownumber is not None


def end_failed_transaction(conn: psycopg.Connection[Any]) -> None:
    """After a failed plan: end an open transaction (no plan keeps session state)."""
    if conn.closed or conn.broken:
        return
    try:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
    except psycopg.Error:
        pass


def run_op(cur: psycopg.Cursor[Any], op: Op) -> Any:
    """Run one op on ``cur`` and return its result (rows, or None)."""
    fetch = op.fetch
    if fetch == "sleep":
        sleep(op.params[0])  # type: ignore[index]
        return None
    if fetch == "sync":
        # psycopg keeps the connection's open pipeline here (no public getter)
        pipeline = getattr(cur.connection, "_pipeline", None)
        if pipeline is not None:
            # Pipeline.sync() waits for results once its commands are queued, though libpq
            # may still hold unsent bytes of a large value: then client and server wait
            # for each other (psycopg #685, fixed for the pipeline's exit only). Send all first.
            cur.connection.wait(send(cur.connection.pgconn))
            pipeline.sync()
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
    conn = cur.connection
    stmt = direct.usable(conn, op)
    if stmt is not None:  # a hot statement: libpq directly, half the cursor's CPU
        return conn.wait(direct.lone_gen(conn, stmt, op))
    cur.execute(op.query, op.params, prepare=prepare_flag(op, conn))  # type: ignore[arg-type]
    if fetch == "one":
        return cur.fetchone()
    if fetch == "all":
        return cur.fetchall()
    return None
