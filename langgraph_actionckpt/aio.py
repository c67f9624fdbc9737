"""The asynchronous saver, :class:`AsyncActionSaver`."""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime
from typing import Any

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._contracts import NullMetrics, register_saver_class
from langgraph_actionckpt.actions.records import ActionRecord, plan_upsert, records_to_jsonl
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, SaverCore, env_dsn
from langgraph_actionckpt.db.driver import AsyncDriver, PlanFactory, T, configure_connection
from langgraph_actionckpt.db.lease import release_all
from langgraph_actionckpt.embedded import embedded_dsn
from langgraph_actionckpt.saver import connect_kwargs, install_hooks, pool_options


async def _configure_async(conn: psycopg.AsyncConnection[Any]) -> None:
    configure_connection(conn)


def _conninfo_of(conn: Any) -> str | None:
    conninfo = getattr(conn, "conninfo", None)  # pools
    if isinstance(conninfo, str):
        return conninfo
    info = getattr(conn, "info", None)  # connections (the password is not kept by libpq here)
    dsn = getattr(info, "dsn", None)
    return dsn if isinstance(dsn, str) else None


class AsyncActionSaver(SaverCore):
    """The async twin of :class:`~langgraph_actionckpt.ActionSaver`.

    Same schema, same SQL, same options; I/O runs on psycopg's async
    connections. Sync methods (``get_tuple``...) may be called from other
    threads while the saver's event loop runs (as LangGraph does for sync
    graph APIs like ``get_state``); calling them from the loop's own thread
    raises, since that would block the loop.

    Args:
        conn: A psycopg ``AsyncConnection`` (autocommit) or ``AsyncConnectionPool``.
        schema: PostgreSQL schema holding the tables (default ``actionckpt``).
        serde: Serializer override.
        pipeline: Run multi-statement operations in psycopg pipeline mode.
        record_nodes: Write a ``node`` action per finished task.
        delta_policy: When list channels are stored as deltas vs snapshots.
        compress_min: Compress checkpoints and channel values of at least this many
            bytes (PostgreSQL only compresses rows over ~2 KB); 0 turns it off.
        group_commit: With a pool, checkpoints of graphs running at once that
            are stored while others are being written share one transaction
            (one round trip and one WAL flush); each ``aput`` still returns only
            once its checkpoint is committed.
    """

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any],
        *,
        schema: str = DEFAULT_SCHEMA,
        serde: SerializerProtocol | None = None,
        pipeline: bool = False,
        record_nodes: bool = True,
        delta_policy: DeltaPolicy | None = None,
        compress_min: int = 256,
        replay: bool = True,
        lease: str = "wait",
        lease_timeout: float = 300.0,
        metrics: Any = None,
        defer_writes: bool = True,
        durable_writes: bool = False,
        durable_timeout: float = 5.0,
        writer_batch_size: int = 500,
        writer_interval: float = 0.05,
        group_commit: bool = True,
        _reconnect: Any = None,
    ) -> None:
        super().__init__(
            schema=schema,
            serde=serde,
            record_nodes=record_nodes,
            delta_policy=delta_policy,
            compress_min=compress_min,
            replay=replay,
            lease=lease,
            lease_timeout=lease_timeout,
            metrics=metrics,
            defer_writes=defer_writes,
            durable_writes=durable_writes,
            durable_timeout=durable_timeout,
        )
        install_hooks(replay)
        self.conninfo = _conninfo_of(conn)
        self.conn = conn
        self.driver = AsyncDriver(conn, pipeline=pipeline, reconnect=_reconnect)
        self.group_commit = group_commit
        self.loop = asyncio.get_running_loop()
        self.writer = AsyncActionWriter(
            self.arecord_actions,
            self.loop,
            batch_size=writer_batch_size,
            interval=writer_interval,
            on_depth=self.metrics.set_queue_depth,
            on_tick=self._aflush_writes_on_tick,
        )

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls,
        dsn: str | None = None,
        *,
        schema: str = DEFAULT_SCHEMA,
        pool_size: int = 10,
        pool_check: bool = False,
        max_idle: float = 300.0,
        max_lifetime: float = 3600.0,
        prepare_threshold: int | None = 5,
        pipeline: bool = False,
        serde: SerializerProtocol | None = None,
        setup: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[AsyncActionSaver]:
        """Open a saver from a connection string (see ``ActionSaver.from_conn_string``)."""
        conninfo = dsn or env_dsn() or await asyncio.to_thread(embedded_dsn)
        assert conninfo is not None
        ckw = connect_kwargs(prepare_threshold)
        async with AsyncExitStack() as stack:
            if pool_size <= 0:

                async def reconnect() -> psycopg.AsyncConnection[Any]:
                    return await psycopg.AsyncConnection.connect(conninfo, **ckw)

                saver = cls(
                    await reconnect(),
                    schema=schema,
                    serde=serde,
                    pipeline=pipeline,
                    _reconnect=reconnect,
                    **kwargs,
                )
                # the driver's connection: the first one, or its replacement
                stack.push_async_callback(lambda: saver.driver.conn.close())
            else:
                pool = AsyncConnectionPool(
                    conninfo,
                    check=AsyncConnectionPool.check_connection if pool_check else None,
                    configure=_configure_async,
                    **pool_options(pool_size, ckw, max_idle, max_lifetime),
                )
                await stack.enter_async_context(pool)
                saver = cls(pool, schema=schema, serde=serde, pipeline=pipeline, **kwargs)
            saver.conninfo = conninfo
            try:
                if setup:
                    await saver.setup()
                yield saver
            finally:
                await saver.aclose()

    async def _run(self, factory: PlanFactory[T]) -> T:
        return await self.driver.run(factory)

    # ------------------------------------------------------------------ API

    async def setup(self) -> None:
        """Create or migrate the schema. Idempotent and safe to run from many processes."""
        if self._is_setup:
            return
        await self.driver.run(self._plan_setup, pipeline=False)
        self._is_setup = True

    async def asetup(self) -> None:
        """Same as :meth:`setup` (the name LangGraph's async savers also accept)."""
        await self.setup()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self.metrics.observe_get()
        return await self._run(lambda: self._plan_get_tuple(config))

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """List checkpoints newest first, fetched in pages with one blob query per page."""
        for plan in self._plan_list(config, filter, before, limit):
            tuples, _more = await self._run(plan)
            for tup in tuples:
                yield tup

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint and the channel values that changed (one statement)."""
        run = self.driver.run_grouped if self.group_commit else self.driver.run
        if isinstance(self.metrics, NullMetrics):
            return await run(lambda: self._plan_put(config, checkpoint, metadata, new_versions))
        t0 = time.perf_counter()
        out = await run(lambda: self._plan_put(config, checkpoint, metadata, new_versions))
        self.metrics.observe_put(time.perf_counter() - t0)
        return out

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes and its ``node`` action row (see ``ActionSaver.put_writes``)."""
        call = self._prepare_writes(config, writes, task_id, task_path)
        if call is not None:
            await self._run(lambda: self._plan_write_call(call))

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write, blob and action of a thread."""
        await self._run(lambda: self._plan_delete_thread(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints, writes and actions created by the given runs."""
        await self._run(lambda: self._plan_delete_for_runs(run_ids))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread (checkpoints, blobs, writes and actions) to a new thread id."""
        await self._run(lambda: self._plan_copy_thread(source_thread_id, target_thread_id))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune checkpoints: ``keep_latest`` per namespace, or ``delete`` all."""
        await self._run(lambda: self._plan_prune(thread_ids, strategy))

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Per-channel writes and seed along the parent chain."""
        return await self._run(lambda: self._plan_delta_history(config, channels))

    # ------------------------------------------------------------ action log

    async def alist_actions(
        self,
        thread_id: str | None = None,
        *,
        action_type: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        node: str | None = None,
        since: datetime | int | None = None,
        run_id: str | None = None,
        task_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[ActionRecord]:
        """Actions of a thread (or all threads) in recorded order (see ``ActionSaver``)."""
        await self.writer.aflush()  # reads see every row recorded so far
        filters = dict(
            action_type=action_type,
            status=status,
            node=node,
            since=since,
            run_id=run_id,
            task_id=task_id,
            limit=limit,
        )
        rows = await self._run(lambda: self._plan_list_actions(thread_id, **filters))
        if rows:
            self.metrics.observe_actions_read(rows)
        return rows

    async def aget_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """One action by its idempotency key, or None."""
        await self.writer.aflush()
        return await self._run(lambda: self._plan_get_action(thread_id, action_id))

    async def alast_action(
        self, thread_id: str, *, status: str | Sequence[str] | None = "completed"
    ) -> ActionRecord | None:
        """The last recorded action of a thread (by default the last completed one)."""
        await self.writer.aflush()
        return await self._run(lambda: self._plan_last_action(thread_id, status))

    async def aexport_actions_jsonl(self, thread_id: str, *, run_id: str | None = None) -> str:
        """A thread's (or one run's) actions as JSON Lines, one action per line."""
        return records_to_jsonl(await self.alist_actions(thread_id, run_id=run_id))

    async def arecord_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one statement (used by the recorder)."""
        t0 = time.perf_counter()
        await self._run(lambda: plan_upsert(self.action_queries, records))
        self.metrics.observe_actions_written(records, time.perf_counter() - t0)

    async def aresolve_action(
        self,
        thread_id: str,
        action_id: str,
        *,
        output: Any = None,
        retry: bool = False,
        note: str | None = None,
    ) -> None:
        """Settle an action whose outcome is unknown (see ``ActionSaver.resolve_action``)."""
        await self.writer.aflush()
        await self._run(lambda: self._plan_resolve(thread_id, action_id, output, retry, note))

    async def aflush_writes(self) -> None:
        """Write pending writes held for the next checkpoint now (see ``aput_writes``)."""
        if self._pending:
            await self._run(self._plan_flush_pending)

    async def _aflush_writes_on_tick(self) -> None:
        if self._pending:
            await self._run(self._plan_flush_on_tick)

    def _on_pending(self) -> None:
        self.writer.start()

    async def aclose(self) -> None:
        """Write held writes and queued action rows, and stop the writer task."""
        try:
            await self.driver.drain()
            await self.aflush_writes()
        finally:
            await self.writer.aclose()
            release_all(self)

    # ------------------------------------------- sync twins (from other threads)

    def flush_writes(self) -> None:
        """Sync :meth:`aflush_writes`, for use from threads other than the loop's."""
        self._sync(self.aflush_writes())

    def close(self) -> None:
        """Sync :meth:`aclose`, for use from threads other than the loop's."""
        self._sync(self.aclose())

    def resolve_action(self, thread_id: str, action_id: str, **kwargs: Any) -> None:
        """Sync :meth:`aresolve_action`."""
        self._sync(self.aresolve_action(thread_id, action_id, **kwargs))

    def list_actions(
        self, thread_id: str | None = None, **kwargs: Any
    ) -> builtins.list[ActionRecord]:
        """Sync :meth:`alist_actions`, for use from threads other than the loop's."""
        return self._sync(self.alist_actions(thread_id, **kwargs))  # type: ignore[no-any-return]

    def get_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """Sync :meth:`aget_action`."""
        return self._sync(self.aget_action(thread_id, action_id))  # type: ignore[no-any-return]

    def last_action(self, thread_id: str, **kwargs: Any) -> ActionRecord | None:
        """Sync :meth:`alast_action`."""
        return self._sync(self.alast_action(thread_id, **kwargs))  # type: ignore[no-any-return]

    def export_actions_jsonl(self, thread_id: str, **kwargs: Any) -> str:
        """Sync :meth:`aexport_actions_jsonl`."""
        return self._sync(self.aexport_actions_jsonl(thread_id, **kwargs))  # type: ignore[no-any-return]

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Sync :meth:`arecord_actions`."""
        self._sync(self.arecord_actions(records))

    def _sync(self, coro: Any) -> Any:
        try:
            if asyncio.get_running_loop() is self.loop:
                coro.close()
                raise asyncio.InvalidStateError(
                    "synchronous calls to AsyncActionSaver are only allowed from a thread "
                    "other than the event loop's; use the a-prefixed methods in async code, "
                    "or ActionSaver"
                )
        except RuntimeError:
            pass
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Sync :meth:`aget_tuple`, for use from threads other than the loop's."""
        return self._sync(self.aget_tuple(config))  # type: ignore[no-any-return]

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Sync :meth:`alist`, for use from threads other than the loop's."""
        for plan in self._plan_list(config, filter, before, limit):
            tuples, _more = self._sync(self._run(plan))
            yield from tuples

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Sync :meth:`aput`, for use from threads other than the loop's."""
        return self._sync(self.aput(config, checkpoint, metadata, new_versions))  # type: ignore[no-any-return]

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Sync :meth:`aput_writes`, for use from threads other than the loop's."""
        self._sync(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        """Sync :meth:`adelete_thread`."""
        self._sync(self.adelete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Sync :meth:`adelete_for_runs`."""
        self._sync(self.adelete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Sync :meth:`acopy_thread`."""
        self._sync(self.acopy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Sync :meth:`aprune`."""
        self._sync(self.aprune(thread_ids, strategy=strategy))

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Sync :meth:`aget_delta_channel_history`."""
        return self._sync(  # type: ignore[no-any-return]
            self.aget_delta_channel_history(config=config, channels=channels)
        )


register_saver_class(AsyncActionSaver)
