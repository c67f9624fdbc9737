"""The synchronous saver, :class:`ActionSaver`."""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
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
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._contracts import NullMetrics, register_saver_class
from langgraph_actionckpt.actions.records import ActionRecord, plan_upsert, records_to_jsonl
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, SaverCore, env_dsn
from langgraph_actionckpt.db.driver import PlanFactory as _PlanFactory
from langgraph_actionckpt.db.driver import SyncDriver, T, configure_connection
from langgraph_actionckpt.db.lease import release_all
from langgraph_actionckpt.embedded import embedded_dsn


def _configure_sync(conn: psycopg.Connection[Any]) -> None:
    configure_connection(conn)


def connect_kwargs(prepare_threshold: int | None) -> dict[str, Any]:
    """Connection settings every saver connection uses."""
    return {"autocommit": True, "prepare_threshold": prepare_threshold}


def pool_options(
    pool_size: int, ckw: dict[str, Any], max_idle: float, max_lifetime: float
) -> dict[str, Any]:
    """Settings of the pool ``from_conn_string`` opens (sync and async alike)."""
    return {
        "min_size": 1,
        "max_size": pool_size,
        "kwargs": ckw,
        "max_idle": max_idle,
        "max_lifetime": max_lifetime,
        "open": False,
    }


def _conninfo_of(conn: Any) -> str | None:
    conninfo = getattr(conn, "conninfo", None)  # pools
    if isinstance(conninfo, str):
        return conninfo
    info = getattr(conn, "info", None)  # connections (the password is not kept by libpq here)
    dsn = getattr(info, "dsn", None)
    return dsn if isinstance(dsn, str) else None


class ActionSaver(SaverCore):
    """A LangGraph checkpoint saver on PostgreSQL that also keeps the action log.

    Pass it as ``builder.compile(checkpointer=saver)``. It implements every
    capability of ``BaseCheckpointSaver`` (put, put_writes, get_tuple, list,
    delete_thread, delete_for_runs, copy_thread, prune, and the delta-channel
    history fast path) and writes one ``node`` action per finished task.

    Async methods (``aget_tuple``...) run the sync ones in a worker thread; use
    :class:`AsyncActionSaver` in async applications.

    Args:
        conn: A psycopg ``Connection`` (autocommit) or ``ConnectionPool``.
        schema: PostgreSQL schema holding the tables (default ``actionckpt``).
        serde: Serializer; defaults to LangGraph's msgpack serializer in strict
            allowlist mode.
        pipeline: Run multi-statement operations in psycopg pipeline mode.
        record_nodes: Write a ``node`` action (with its routing decision) per finished task.
        delta_policy: When list channels are stored as deltas vs snapshots.
        compress_min: Compress checkpoints and channel values of at least this many
            bytes (PostgreSQL only compresses rows over ~2 KB); 0 turns it off.
        replay: Serve completed actions from the log when a task runs again.
        lease: One worker per thread: ``wait`` for, or ``error`` on, a busy
            thread, or ``off``.
        lease_timeout: Seconds to wait for a busy thread's lease.
        metrics: A :class:`~langgraph_actionckpt.Metrics` to update.
        defer_writes: Hold pending writes for the thread's next checkpoint.
        durable_writes: Wait for the WAL flush when held writes are flushed alone.
        durable_timeout: Seconds the replay barrier waits for a checkpoint.
        writer_batch_size: Action rows per group commit.
        writer_interval: Seconds between background flushes.
    """

    def __init__(
        self,
        conn: psycopg.Connection[Any] | ConnectionPool[Any],
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
        self.driver = SyncDriver(conn, pipeline=pipeline, reconnect=_reconnect)
        self.writer = SyncActionWriter(
            self.record_actions,
            batch_size=writer_batch_size,
            interval=writer_interval,
            on_depth=self.metrics.set_queue_depth,
            on_tick=self._flush_writes_on_tick,
        )

    @classmethod
    @contextmanager
    def from_conn_string(
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
    ) -> Iterator[ActionSaver]:
        """Open a saver from a connection string.

        Args:
            dsn: libpq connection string or URL. ``None`` uses ``ACTIONCKPT_DSN``
                and, when that is unset, the embedded PostgreSQL.
            schema: PostgreSQL schema for the tables.
            pool_size: Connections in the pool; ``0`` uses one connection.
            pool_check: Check a pooled connection before handing it out (a round
                trip per operation). Off by default: an operation that finds its
                connection dead (reaped while idle, server restarted) is retried
                once on a fresh connection anyway.
            max_idle: Seconds a pooled connection may stay idle.
            max_lifetime: Seconds before a pooled connection is replaced.
            prepare_threshold: psycopg's server-side prepare threshold; ``None``
                disables prepared statements (transaction-mode pgbouncer).
            pipeline: Use psycopg pipeline mode for multi-statement operations.
            serde: Serializer override.
            setup: Run :meth:`setup` before yielding.
            **kwargs: Passed to :class:`ActionSaver`.
        """
        conninfo = dsn or env_dsn() or embedded_dsn()
        ckw = connect_kwargs(prepare_threshold)
        with ExitStack() as stack:
            if pool_size <= 0:

                def reconnect() -> psycopg.Connection[Any]:
                    return psycopg.Connection.connect(conninfo, **ckw)

                saver = cls(
                    reconnect(),
                    schema=schema,
                    serde=serde,
                    pipeline=pipeline,
                    _reconnect=reconnect,
                    **kwargs,
                )
                # the driver's connection: the first one, or its replacement
                stack.callback(lambda: saver.driver.conn.close())
            else:
                pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
                    conninfo,
                    connection_class=psycopg.Connection,
                    check=ConnectionPool.check_connection if pool_check else None,
                    configure=_configure_sync,
                    **pool_options(pool_size, ckw, max_idle, max_lifetime),
                )
                stack.enter_context(pool)
                saver = cls(pool, schema=schema, serde=serde, pipeline=pipeline, **kwargs)
            saver.conninfo = conninfo
            try:
                if setup:
                    saver.setup()
                yield saver
            finally:
                saver.close()

    def _run(self, factory: _PlanFactory[T]) -> T:
        return self.driver.run(factory)

    # ------------------------------------------------------------------ API

    def setup(self) -> None:
        """Create or migrate the schema. Idempotent and safe to run from many processes."""
        if self._is_setup:
            return
        # CREATE INDEX CONCURRENTLY cannot run in a pipeline's implicit transaction
        self.driver.run(self._plan_setup, pipeline=False)
        self._is_setup = True

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self.metrics.observe_get()
        return self._run(lambda: self._plan_get_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """List checkpoints newest first, fetched in pages with one blob query per page."""
        for plan in self._plan_list(config, filter, before, limit):
            tuples, _more = self._run(plan)
            yield from tuples

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint and the channel values that changed (one statement)."""
        if isinstance(self.metrics, NullMetrics):
            return self._run(lambda: self._plan_put(config, checkpoint, metadata, new_versions))
        t0 = time.perf_counter()
        out = self._run(lambda: self._plan_put(config, checkpoint, metadata, new_versions))
        self.metrics.observe_put(time.perf_counter() - t0)
        return out

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes and its ``node`` action row.

        Regular writes are held and stored with the thread's next checkpoint (one
        round trip per superstep); see ``SaverCore._prepare_writes``.
        """
        call = self._prepare_writes(config, writes, task_id, task_path)
        if call is not None:
            self._run(lambda: self._plan_write_call(call))

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write, blob and action of a thread."""
        self._run(lambda: self._plan_delete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints, writes and actions created by the given runs."""
        self._run(lambda: self._plan_delete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread (checkpoints, blobs, writes and actions) to a new thread id."""
        self._run(lambda: self._plan_copy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune checkpoints: ``keep_latest`` per namespace, or ``delete`` all.

        Blobs that a kept checkpoint needs, delta chains included, are kept.
        """
        self._run(lambda: self._plan_prune(thread_ids, strategy))

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Per-channel writes and seed along the parent chain (one ancestor query)."""
        return self._run(lambda: self._plan_delta_history(config, channels))

    # ------------------------------------------------------------ action log

    def list_actions(
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
        """Actions of a thread (or all threads) in the order they were recorded.

        Args:
            thread_id: The thread; ``None`` for every thread.
            action_type: One type or several (``llm_completion``, ``tool_call``...).
            status: One status or several (``completed``, ``failed``...).
            node: Only actions taken inside this graph node.
            since: A datetime (started at or after) or a ``step_index`` (after).
            run_id: Only actions of this run.
            task_id: Only actions of this task.
            limit: At most this many rows.
        """
        self.writer.flush()  # reads see every row recorded so far
        filters = dict(
            action_type=action_type,
            status=status,
            node=node,
            since=since,
            run_id=run_id,
            task_id=task_id,
            limit=limit,
        )
        rows = self._run(lambda: self._plan_list_actions(thread_id, **filters))
        if rows:
            self.metrics.observe_actions_read(rows)
        return rows

    def get_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """One action by its idempotency key, or None."""
        self.writer.flush()
        return self._run(lambda: self._plan_get_action(thread_id, action_id))

    def last_action(
        self, thread_id: str, *, status: str | Sequence[str] | None = "completed"
    ) -> ActionRecord | None:
        """The last recorded action of a thread (by default the last completed one)."""
        self.writer.flush()
        return self._run(lambda: self._plan_last_action(thread_id, status))

    def export_actions_jsonl(self, thread_id: str, *, run_id: str | None = None) -> str:
        """A thread's (or one run's) actions as JSON Lines, one action per line."""
        return records_to_jsonl(self.list_actions(thread_id, run_id=run_id))

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one statement (used by the recorder)."""
        t0 = time.perf_counter()
        self._run(lambda: plan_upsert(self.action_queries, records))
        self.metrics.observe_actions_written(records, time.perf_counter() - t0)

    def resolve_action(
        self,
        thread_id: str,
        action_id: str,
        *,
        output: Any = None,
        retry: bool = False,
        note: str | None = None,
    ) -> None:
        """Settle an action whose outcome is unknown (see :class:`InFlightActionError`).

        Args:
            thread_id: The thread.
            action_id: The action's idempotency key (from the error).
            output: The result the action had: it is marked ``completed`` and the
                resumed run receives this output instead of executing it.
            retry: Allow one more execution instead (marks it ``failed``).
            note: Free text stored in ``meta.resolution``.

        Raises:
            ConfigurationError: Neither or both of ``output`` and ``retry`` given,
                or no such action.
        """
        self.writer.flush()
        self._run(lambda: self._plan_resolve(thread_id, action_id, output, retry, note))

    def flush_writes(self) -> None:
        """Write pending writes held for the next checkpoint now (see ``put_writes``)."""
        if self._pending:
            self._run(self._plan_flush_pending)

    def _flush_writes_on_tick(self) -> None:
        if self._pending:
            self._run(self._plan_flush_on_tick)

    def _on_pending(self) -> None:
        self.writer.start()

    def close(self) -> None:
        """Write held writes and queued action rows, and stop the writer thread."""
        try:
            self.flush_writes()
        finally:
            self.writer.close()
            release_all(self)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        await asyncio.to_thread(self.close)

    async def aflush_writes(self) -> None:
        """Async :meth:`flush_writes`."""
        await asyncio.to_thread(self.flush_writes)

    # ------------------------------------------- async twins (worker thread)

    async def aresolve_action(self, thread_id: str, action_id: str, **kwargs: Any) -> None:
        """Async :meth:`resolve_action`."""
        await asyncio.to_thread(lambda: self.resolve_action(thread_id, action_id, **kwargs))

    async def alist_actions(
        self, thread_id: str | None = None, **kwargs: Any
    ) -> builtins.list[ActionRecord]:
        """Async :meth:`list_actions`."""
        return await asyncio.to_thread(lambda: self.list_actions(thread_id, **kwargs))

    async def aget_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """Async :meth:`get_action`."""
        return await asyncio.to_thread(self.get_action, thread_id, action_id)

    async def alast_action(self, thread_id: str, **kwargs: Any) -> ActionRecord | None:
        """Async :meth:`last_action`."""
        return await asyncio.to_thread(lambda: self.last_action(thread_id, **kwargs))

    async def aexport_actions_jsonl(self, thread_id: str, **kwargs: Any) -> str:
        """Async :meth:`export_actions_jsonl`."""
        return await asyncio.to_thread(lambda: self.export_actions_jsonl(thread_id, **kwargs))

    async def arecord_actions(self, records: Sequence[ActionRecord]) -> None:
        """Async :meth:`record_actions`."""
        await asyncio.to_thread(self.record_actions, records)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Async :meth:`get_tuple` (runs in a worker thread)."""
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Any:
        """Async :meth:`list` (pages fetched in a worker thread)."""
        for plan in self._plan_list(config, filter, before, limit):
            tuples, _more = await asyncio.to_thread(self._run, plan)
            for tup in tuples:
                yield tup

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Async :meth:`put` (runs in a worker thread)."""
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Async :meth:`put_writes` (runs in a worker thread)."""
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """Async :meth:`delete_thread`."""
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Async :meth:`delete_for_runs`."""
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Async :meth:`copy_thread`."""
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Async :meth:`prune`."""
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Async :meth:`get_delta_channel_history`."""
        return await asyncio.to_thread(
            lambda: self.get_delta_channel_history(config=config, channels=channels)
        )

    async def asetup(self) -> None:
        """Async :meth:`setup`."""
        await asyncio.to_thread(self.setup)


def install_hooks(replay: bool) -> None:
    """Install the process-wide hooks our savers need (idempotent).

    Only the saver constructors call this, so importing the package, running a
    migration or reading reports patches nothing.
    """
    from langgraph_actionckpt.checkpoints import allowlist

    allowlist.install()
    if replay:
        from langgraph_actionckpt import replay as replay_hooks

        replay_hooks.install()


register_saver_class(ActionSaver)
