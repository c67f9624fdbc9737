"""Group commit: concurrent checkpoint writes of the async saver share one transaction.

With many graphs running at once on a pool, every checkpoint would pay its own
pool borrow, round trip and WAL flush. :class:`GroupCommitDriver` queues the
writes that arrive while others are being written and sends their first
statements in one pipelined transaction. Only the async saver groups (its
graphs share one event loop); the sync saver writes on its callers' threads.
Reads of a thread's checkpoint (``get_tuple``, with which every graph starts)
are batched the same way: one round trip for those that arrive meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt.db import direct
from langgraph_actionckpt.db._async_driver import AsyncDriver, end_failed_transaction
from langgraph_actionckpt.db._driver_base import (
    KEEPS_ROWS,
    give_back_cursor,
    logger,
    prepare_flag,
    take_cursor,
)
from langgraph_actionckpt.db.plan import Op, Plan, PlanFactory, T

__all__ = ["MAX_GROUP", "GroupCommitDriver"]


class GroupCommitDriver(AsyncDriver):
    """An :class:`AsyncDriver` whose checkpoint writes (``run_write``) are grouped.

    Args:
        conn: A psycopg AsyncConnectionPool (on a bare connection nothing can be
            grouped and every write takes the ordinary path).
        **driver_options: As for :class:`AsyncDriver` (``pipeline``, ``reconnect``).

    Attributes:
        grouped: Plans committed as part of a group (observability, tests).
        batched_reads: Read plans whose first statement went out in a batch.
    """

    def __init__(
        self, conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any], **driver_options: Any
    ) -> None:
        super().__init__(conn, **driver_options)
        # queued plans and the flushers draining them
        self._groups: list[tuple[PlanFactory[Any], asyncio.Future[Any]]] = []
        self._flushers = 0
        self._max_flushers = (
            max(1, conn.max_size // 2) if isinstance(conn, AsyncConnectionPool) else 0
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self.grouped = 0
        # queued reads and whether one is in flight (see run_read)
        self._reads: list[tuple[PlanFactory[Any], asyncio.Future[Any]]] = []
        self._reading = False
        self.batched_reads = 0

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

        One write is in flight at a time (a lone plan or a group), and another
        only for a full group's worth queued: a round trip costs the client
        more CPU (send, poll, pool borrow) than a statement of a group does, so
        with many graphs the writes that come while one is in flight wait for
        it and go out together, instead of each on its own connection.
        """
        if not self._max_flushers:
            return await self.run(factory)
        if not self._flushers and not self._groups:
            # Nothing in flight: write it now, in this task (no hand-off, so a
            # lone graph pays nothing); what arrives meanwhile queues up.
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
        queued = len(self._groups)
        # none in flight: one drain per group's worth queued (rounded up); else
        # only for full groups (a running drain takes the rest when it is done)
        wanted = queued // MAX_GROUP if self._flushers else -(-queued // MAX_GROUP)
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

    async def _start(
        self, batch: list[tuple[PlanFactory[Any], asyncio.Future[Any]]], *, reads: bool
    ) -> list[tuple[Plan[Any], Op, PlanFactory[Any], asyncio.Future[Any]]]:
        """Each plan's first statement, for a group of writes or a batch of reads.

        A plan that ends or fails before it (the caller's error, not the group's) is
        settled here; one whose first statement does not fit the group (a write that
        reads rows, a read that keeps none) runs on its own.
        """
        started: list[tuple[Plan[Any], Op, PlanFactory[Any], asyncio.Future[Any]]] = []
        for factory, future in batch:
            plan = factory()
            try:
                op = next(plan)
            except StopIteration as stop:
                _resolve(future, stop.value)
                continue
            except Exception as exc:  # noqa: BLE001 - the caller's error, not the group's
                _fail(future, exc)
                continue
            if (op.fetch in KEEPS_ROWS) if reads else (op.fetch == "none"):
                started.append((plan, op, factory, future))
                continue
            plan.close()
            await _settle(future, self.run(factory))
        return started

    async def _write_group(self, group: list[tuple[PlanFactory[Any], asyncio.Future[Any]]]) -> None:
        started = await self._start(group, reads=False)
        if not started:
            return
        # Row locks are taken thread by thread in ascending order, as every
        # multi-thread write of this package takes them: no two can deadlock.
        started.sort(key=lambda item: item[1].lock_key)
        try:
            async with self.connection() as conn:
                ops = [op for _p, op, _f, _u in started]
                if await _direct_group(conn, ops, reads=False) is None:
                    await _cursor_group(conn, ops)
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
            await self._resume(plan, future)

    async def _resume(
        self, plan: Plan[Any], future: asyncio.Future[Any], result: Any = None
    ) -> None:
        """Go on with a plan whose first op ran in a group (``result``: its rows).

        Most plans end right after their first op: they are settled here without a
        coroutine of their own (a group settles up to ``MAX_GROUP`` of them in a row).
        """
        try:
            op = plan.send(result)
        except StopIteration as stop:  # the common case: nothing more to do
            _resolve(future, stop.value)
            return
        except Exception as exc:  # noqa: BLE001 - delivered to the caller
            plan.close()
            _fail(future, exc)
            return
        await _settle(future, self._run_rest(plan, op))

    async def _run_rest(self, plan: Plan[T], op: Op) -> T:
        """Run the ops a plan yields after its first, on a connection of its own."""
        try:
            async with self.connection() as conn:
                return await self.run_on(conn, plan, first=op)
        finally:
            plan.close()

    run_write = run_grouped

    # ------------------------------------------------------------------ reads

    async def run_read(self, factory: PlanFactory[T]) -> T:
        """Run a read plan; the reads that arrive while one is in flight share a round trip.

        Many graphs starting at once each read their thread first. One read is
        in flight at a time; those queued meanwhile send their first statements
        together in one pipeline on one connection, and each plan goes on with
        its own rows. Plans whose first op fetches no rows (held writes to
        store first), and every plan of a batch that fails, run as by :meth:`run`.
        """
        if not self._max_flushers:
            return await self.run(factory)
        if not self._reading:
            self._reading = True
            try:
                return await self.run(factory)
            finally:
                self._reading = False
                self._start_reads()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._reads.append((factory, future))
        return await future

    def _start_reads(self) -> None:
        if self._reads and not self._reading:
            self._reading = True
            task = asyncio.get_running_loop().create_task(self._drain_reads())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _drain_reads(self) -> None:
        try:
            while self._reads:
                batch, self._reads = self._reads[:MAX_GROUP], self._reads[MAX_GROUP:]
                await self._read_batch(batch)
        finally:
            self._reading = False

    async def _read_batch(self, batch: list[tuple[PlanFactory[Any], asyncio.Future[Any]]]) -> None:
        if len(batch) == 1:
            factory, future = batch[0]
            await _settle(future, self.run(factory))
            return
        started = await self._start(batch, reads=True)
        if not started:
            return
        try:
            async with self.connection() as conn:
                ops = [op for _p, op, _f, _u in started]
                rows = await _direct_group(conn, ops, reads=True)
                if rows is None:
                    rows = await _cursor_reads(conn, ops)
        except Exception as exc:  # noqa: BLE001 - run one by one below
            logger.debug(
                "batch of %d reads failed (%s); running them one by one", len(started), exc
            )
            for plan, _op, factory, future in started:
                plan.close()
                await _settle(future, self.run(factory))
            return
        self.batched_reads += len(started)
        for (plan, _op, _factory, future), result in zip(started, rows, strict=True):
            await self._resume(plan, future, result)


MAX_GROUP = 32
"""At most this many plans share one group commit (each waits for the whole group)."""


async def _direct_group(
    conn: psycopg.AsyncConnection[Any], ops: list[Op], *, reads: bool
) -> list[Any] | None:
    """Send a group's first statements in one libpq pipeline (``db.direct``).

    Writes run between BEGIN and COMMIT (one commit for the group); reads each on
    their own. Returns each op's rows for reads (``[]`` for writes), or None when
    an op does not qualify: the caller then sends them with psycopg's pipeline
    (test the result with ``is None``: ``[]`` is a group written).
    """
    items = []
    for op in ops:
        stmt = direct.usable(conn, op)
        if stmt is None:
            return None
        items.append((stmt, op))
    state = direct.state_of(conn)
    try:
        results = await conn.wait(direct.group_gen(conn, state, items, transaction=not reads))
    except BaseException:
        await _end_failed_pipeline(conn)
        raise
    if not reads:
        return []
    return [direct.rows_of(state, res, op.fetch) for res, op in zip(results, ops, strict=True)]


async def _end_failed_pipeline(conn: psycopg.AsyncConnection[Any]) -> None:
    """After a failed direct pipeline: roll back, or close a connection left mid-pipeline."""
    if conn.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF:
        await conn.close()  # results still unread: the pool drops a closed connection
        return
    await end_failed_transaction(conn)


async def _cursor_group(conn: psycopg.AsyncConnection[Any], ops: list[Op]) -> None:
    """A group's first statements in psycopg's pipeline, between BEGIN and COMMIT."""
    cur = take_cursor(conn)
    reusable = False
    try:
        # BEGIN and COMMIT as plain statements of the pipeline: psycopg's
        # transaction() block costs as much CPU as the statements do
        async with conn.pipeline():
            await cur.execute("BEGIN")
            for op in ops:
                await cur.execute(op.query, op.params, prepare=prepare_flag(op, conn))  # type: ignore[arg-type]
            await cur.execute("COMMIT")
        reusable = True
    except BaseException:
        await end_failed_transaction(conn)
        raise
    finally:
        spare = give_back_cursor(conn, cur, reusable)
        if spare is not None:
            await spare.close()


async def _cursor_reads(conn: psycopg.AsyncConnection[Any], ops: list[Op]) -> list[Any]:
    """A batch of reads in psycopg's pipeline, a cursor each; their rows in order."""
    cursors = [conn.cursor(binary=True) for _ in ops]
    try:
        async with conn.pipeline():
            for cur, op in zip(cursors, ops, strict=True):
                await cur.execute(op.query, op.params, prepare=prepare_flag(op, conn))  # type: ignore[arg-type]
        return [
            await (cur.fetchone() if op.fetch == "one" else cur.fetchall())
            for cur, op in zip(cursors, ops, strict=True)
        ]
    except BaseException:
        await end_failed_transaction(conn)
        raise
    finally:
        for cur in cursors:
            await cur.close()


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
