"""The savers' body: their constructor and I/O methods, written once.

``_async_saver.py`` is the source (:class:`AsyncSaverBody`, the base of
:class:`~langgraph_actionckpt.AsyncActionSaver`); ``.ci/gen_sync.py`` generates
``_sync_saver.py`` (:class:`SyncSaverBody`, the base of
:class:`~langgraph_actionckpt.ActionSaver`) from it: ``async`` and ``await``
dropped, ``aput`` -> ``put`` and the other names of its ``REPLACEMENTS``. Edit the
async file, then run ``python .ci/gen_sync.py``; docstrings here are read in both
worlds. The public classes (``aio.py``, ``saver.py``) add what differs: the
driver and writer they use, and their bridges to the other world.

A saver has its parts rather than inheriting them: ``store`` (the
:class:`~langgraph_actionckpt.checkpoints.core.CheckpointStore`: state, and calls
turned into plans), ``driver`` (runs plans), ``runner`` (:class:`AsyncPlanRunner`:
the driver with the store's held writes and fencing), ``writer`` (the action
rows' background writer), ``thread_leases`` (the lease keeper, made on a first
lease, and the fencing tokens it gives the store's and the writer's writes)
and ``inflight`` (writes that finish when their caller is cancelled).
"""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from typing import Any, Self, TypeVar

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._async_runner import AsyncPlanRunner
from langgraph_actionckpt._config import (
    DEFAULTS,
    LeaseOptions,
    Limits,
    SaverOptions,
    WriterOptions,
)
from langgraph_actionckpt._contracts import MetricsSink, NullMetrics
from langgraph_actionckpt._saver_base import (
    POOL_MAX_IDLE,
    POOL_MAX_LIFETIME,
    InflightWrites,
    aembedded_dsn,
    check_dsn,
    connect_kwargs,
    conninfo_of,
    describe_target,
    install_hooks,
    pool_options,
    recent_first,
)
from langgraph_actionckpt.actions.limits import check_record
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.settle import Resolution
from langgraph_actionckpt.actions.writer import AsyncActionRows, AsyncActionWriter
from langgraph_actionckpt.checkpoints._async_api import (
    AsyncSaverAPI,
    ListQuery,
    PutCall,
    opened,
)
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.checkpoints.codec import thread_key
from langgraph_actionckpt.checkpoints.core import CheckpointStore, env_dsn
from langgraph_actionckpt.checkpoints.fork import new_fork_id
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.checkpoints.setup import Allowlist
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db.driver import (
    AsyncDriver,
    configure_connection,
)
from langgraph_actionckpt.db.fence import LeaseKeeper
from langgraph_actionckpt.db.lease import release_all
from langgraph_actionckpt.errors import ConnectionFailedError, SerializationError
from langgraph_actionckpt.replay import _async_run
from langgraph_actionckpt.replay.run import ActionRun

logger = logging.getLogger("langgraph_actionckpt")

_D = DEFAULTS  # the keyword defaults below are SaverOptions' own
S = TypeVar("S", bound="AsyncSaverBody")


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    configure_connection(conn)


@asynccontextmanager
async def _connected(
    cls: type[S],
    dsn: str | None,
    connect: tuple[int, bool, float, float, int | None],
    connect_timeout: float,
    options: dict[str, Any],
) -> AsyncIterator[S]:
    """A saver of ``cls`` on a pool (or one connection) to ``dsn``, closed at the end."""
    pool_size, pool_check, max_idle, max_lifetime, prepare_threshold = connect
    conninfo = check_dsn(dsn or env_dsn() or await aembedded_dsn())
    ckw = connect_kwargs(prepare_threshold)
    try:  # one direct attempt first: a pool would retry quietly until its timeout
        first = await psycopg.AsyncConnection.connect(
            conninfo, connect_timeout=max(1, round(connect_timeout)), **ckw
        )
    except psycopg.OperationalError as error:
        raise ConnectionFailedError(describe_target(conninfo), error) from None
    async with AsyncExitStack() as stack:
        if pool_size <= 0:

            async def reconnect() -> psycopg.AsyncConnection[Any]:
                return await psycopg.AsyncConnection.connect(conninfo, **ckw)

            # the probe is the saver's connection: no second connect
            saver = cls(first, _reconnect=reconnect, **options)
            # the driver's connection: the first one, or its replacement
            stack.push_async_callback(lambda: saver.driver.conn.close())
        else:
            await first.close()
            pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] = AsyncConnectionPool(
                conninfo,
                connection_class=psycopg.AsyncConnection,
                check=AsyncConnectionPool.check_connection if pool_check else None,
                configure=_configure,
                **pool_options(pool_size, ckw, max_idle, max_lifetime),
            )
            recent_first(pool)
            await stack.enter_async_context(pool)
            saver = cls(pool, **options)
        saver.conninfo = conninfo
        yield saver


class AsyncSaverBody(AsyncSaverAPI, BaseCheckpointSaver[str]):
    """The constructor and the I/O methods of a direct saver, each handing a plan of its
    store to its runner. The public saver subclasses it and provides its driver and
    action writer (:meth:`_open_driver`, :meth:`_open_writer`)."""

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any],
        *,
        options: SaverOptions | None = None,
        schema: str = _D.schema,
        serde: SerializerProtocol | None = _D.serde,
        lease: str | LeaseOptions = _D.lease,
        writer: WriterOptions | None = None,
        limits: Limits | None = None,
        replay: bool = _D.replay,
        reuse: Any = _D.reuse,
        record_nodes: bool = _D.record_nodes,
        metrics: MetricsSink | None = _D.metrics,
        encryption: KeyRing | None = _D.encryption,
        pipeline: bool = _D.pipeline,
        delta_policy: DeltaPolicy | None = _D.delta_policy,
        _reconnect: Any = None,
        **flat: Any,
    ) -> None:
        # ``flat``: the grouped options' old keywords (``lease_ttl=``...), see ``_config``
        opts = SaverOptions.of(options, locals(), flat)
        self.store = CheckpointStore(opts, on_pending=lambda: self.writer.start())
        super().__init__(serde=self.store.serde)
        install_hooks(opts.replay)
        # the options hooks read (replay, leases, reuse: see ``_contracts.ActionSaverLike``)
        self.options, self.schema, self.delta_policy = opts, opts.schema, self.store.delta_policy
        self.replay, self.reuse, self.encryption = opts.replay, opts.reuse, opts.encryption
        self.record_nodes, self.compress_min = opts.record_nodes, opts.compress_min
        self.lease_mode, self.lease_timeout = opts.lease, opts.lease_timeout
        self.lease_ttl, self.durable_timeout = opts.lease_ttl, opts.durable_timeout
        self.durable = self.store.durable
        self.metrics: MetricsSink = opts.metrics if opts.metrics is not None else NullMetrics()
        self.allowlist, self.inflight = Allowlist(), InflightWrites()
        self.conn, self.conninfo = conn, conninfo_of(conn)
        self.driver = self._open_driver(conn, _reconnect)
        self.runner = AsyncPlanRunner(self.driver, self.store)
        # the lease state, asked for tokens by the store's fencing and the action writer
        self.thread_leases = self.store.held.fencing.thread_leases
        queries = self.store.action_queries
        self.action_rows = AsyncActionRows(self.driver, queries, self.thread_leases, self.metrics)
        self.writer = self._open_writer(self.action_rows.write, self.runner.flush_on_tick)

    @property
    def serde(self) -> SerializerProtocol:  # type: ignore[override]
        """The serializer: the store's, which ``with_allowlist`` changes in place."""
        return self.store.serde

    @serde.setter
    def serde(self, value: SerializerProtocol) -> None:
        self.store.serde = value

    @property
    def leases(self) -> LeaseKeeper | None:
        """The lease keeper, made on a first lease (``db/lease.py``); None until then."""
        return self.thread_leases.keeper

    def _open_driver(
        self, conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any], reconnect: Any
    ) -> AsyncDriver:
        """The saver's driver (settings: ``driver_options``)."""
        raise NotImplementedError

    def _open_writer(self, write: Any, on_tick: Any) -> AsyncActionWriter:
        """The saver's action writer of ``write`` (settings: ``writer_options``)."""
        raise NotImplementedError

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls,
        dsn: str | None = None,
        *,
        pool_size: int = 10,
        pool_check: bool = False,
        max_idle: float = POOL_MAX_IDLE,
        max_lifetime: float = POOL_MAX_LIFETIME,
        prepare_threshold: int | None = 5,
        setup: bool = False,
        connect_timeout: float = 3.0,
        **options: Any,
    ) -> AsyncIterator[Self]:
        """Open a saver from a connection string; closing it closes its connections.

        Args:
            dsn: libpq connection string or URL. ``None`` uses ``ACTIONCKPT_DSN``
                and, when that is unset, the embedded PostgreSQL.
            pool_size: Connections in the pool; ``0`` uses one connection.
            pool_check: Check a pooled connection before handing it out (a round
                trip per operation). Off by default: an operation that finds its
                connection dead (reaped while idle, server restarted) is retried
                once on a fresh connection anyway.
            max_idle: Seconds a pooled connection may stay idle.
            max_lifetime: Seconds before a pooled connection is replaced.
            prepare_threshold: psycopg's server-side prepare threshold; ``None``
                disables prepared statements (transaction-mode pgbouncer).
            setup: Run :meth:`setup` before yielding.
            connect_timeout: Seconds to reach the server once before anything
                else; a wrong DSN, a missing database or a server that is down
                fails fast with :class:`~langgraph_actionckpt.errors.ConnectionFailedError`
                carrying the server's reason.
            **options: The saver's keywords (``schema=``, ``lease=LeaseOptions(...)``,
                ``writer=WriterOptions(...)``, ``limits=Limits(...)``, the flat
                keywords...), or ``options=``.
        """
        connect = (pool_size, pool_check, max_idle, max_lifetime, prepare_threshold)
        async with (
            _connected(cls, dsn, connect, connect_timeout, options) as saver,
            opened(saver, setup),
        ):
            yield saver

    # ------------------------------------------------------------------ API

    async def setup(self, *, distributed: bool | None = None) -> None:
        """Create or migrate the schema. Idempotent and safe to run from many processes.

        ``distributed``: then distribute it on Citus (``None``: ``ACTIONCKPT_DISTRIBUTED``).
        """
        if self.store.is_setup:
            return
        # CREATE INDEX CONCURRENTLY cannot run in a pipeline's implicit transaction
        setup = partial(self.store.plan_setup, distributed)
        await self.driver.run(setup, pipeline=False, io_timeout=None)
        self.store.is_setup = True

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self.metrics.observe_get()
        return await self.runner.run(lambda: self.store.plan_get_tuple(config), read=True)

    async def _list_tuples(self, query: ListQuery) -> AsyncIterator[CheckpointTuple]:
        # fetched in pages, with one blob query per page
        for plan in self.store.plan_list(*query):
            tuples, _more = await self.runner.run(plan)
            for tup in tuples:
                yield tup

    async def _put(self, call: PutCall) -> RunnableConfig:
        # one statement: the checkpoint, its changed channel values, the held writes
        if isinstance(self.metrics, NullMetrics):
            return await self.runner.put(call)
        t0 = time.perf_counter()
        out = await self.runner.put(call)
        self.metrics.observe_put(time.perf_counter() - t0)
        return out

    async def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        # held writes: see HeldWrites.prepare
        held = self.store.held
        try:
            call = held.prepare(thread_key(config), config, writes, task_id, path)
        except SerializationError as exc:  # the task fails: its node row says so
            failed = held.failed_node_call(config, exc, task_id, path)
            if failed is not None:
                await self._awrite_call(config, failed)
            raise
        if call is not None:
            await self._awrite_call(config, call)

    async def _awrite_call(self, config: RunnableConfig, call: WriteCall) -> None:
        """Write a call of ``aput_writes`` that is not held (the only part with I/O)."""
        await self.runner.write_call(config, call)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write, blob and action of a thread."""
        await self.runner.run(lambda: self.store.plan_delete_thread(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints, writes and actions created by the given runs."""
        await self.runner.run(lambda: self.store.plan_delete_for_runs(run_ids))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread (checkpoints, blobs, writes and actions) to a new thread id."""
        args = (source_thread_id, target_thread_id)
        await self.runner.run(lambda: self.store.plan_copy_thread(*args))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune checkpoints: ``keep_latest`` per namespace, or ``delete`` all.

        Blobs that a kept checkpoint needs, delta chains included, are kept.
        """
        await self.runner.run(lambda: self.store.plan_prune(thread_ids, strategy))

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Per-channel writes and seed along the parent chain (one ancestor query)."""
        return await self.runner.run(lambda: self.store.plan_delta_history(config, channels))

    # ------------------------------------------------- held writes, closing

    async def aflush_writes(self) -> None:
        """Write pending writes held for the next checkpoint now (see ``put_writes``)."""
        await self.runner.flush()

    async def aclose(self) -> None:
        """Write held writes and queued action rows, and stop the background writer."""
        try:
            await self.driver.drain()
            await self.aflush_writes()
        finally:
            try:
                await self.writer.aclose()
            finally:
                await self.driver.release()
                release_all(self)

    # ------------------------------------------------------------ the action log

    async def _query_actions(
        self, thread_id: str | None, filters: dict[str, Any]
    ) -> builtins.list[ActionRecord]:
        rows = await self.runner.run(lambda: self.store.plan_list_actions(thread_id, **filters))
        if rows:
            self.metrics.observe_actions_read(rows)
        return rows

    async def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        return await self.runner.run(lambda: self.store.plan_get_action(thread_id, action_id))

    async def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        return await self.runner.run(lambda: self.store.plan_last_action(thread_id, status))

    async def _settle_action(self, resolution: Resolution) -> None:
        await self.runner.run(lambda: self.store.plan_resolve(resolution))

    async def arecord_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one statement (used by the recorder).

        Raises:
            ConfigurationError: A record's id or name is longer than its limit
                (``LIMITS``); nothing is written.
        """
        for record in records:
            check_record(record)
        await self.action_rows.write(records)

    def run(self, run_id: str, *, agent_id: str | None = None) -> ActionRun:
        """``with saver.run(run_id, agent_id=...) as run:`` (or ``async with``): see ActionRun."""
        return ActionRun(self, run_id, agent_id)

    aruns_to_resume = _async_run.aruns_to_resume  # the runs left unfinished (recovery)

    async def afork_at_action(
        self,
        thread_id: str,
        action_id: str,
        *,
        output: Any,
        new_thread_id: str | None = None,
    ) -> str:
        """Fork a thread at one action, as if that action had returned ``output``.

        The new thread starts from the checkpoint the action's task was prepared
        from. Resume it with ``graph.invoke(None, {"configurable": {"thread_id":
        new}})``: the task runs again, its earlier actions are served from the
        log, this action is served ``output``, and everything after it runs
        live. The source thread is only read.

        Args:
            thread_id: The thread to fork.
            action_id: The action's idempotency key (``list_actions``, ``actionckpt show``).
            output: The action's new result: an ``AIMessage`` or a string for an
                LLM completion, the tool's result for a tool call (a logged
                ``ToolMessage`` keeps its ``tool_call_id``), the return value of
                an ``@action`` function.
            new_thread_id: The new thread's id (default: a fresh UUID).

        Returns:
            The new thread's id.

        Raises:
            ConfigurationError: No such action; the action is not completed, not
                taken inside a checkpointed task, or of a type replay does not
                serve (``node``); its checkpoint was pruned; ``new_thread_id``
                already exists; or ``output`` does not fit the action.
        """
        await self.writer.aflush()  # the task's rows recorded so far are copied
        target = new_thread_id or new_fork_id()
        return await self.runner.run(
            lambda: self.store.plan_fork(thread_id, action_id, output, target)
        )
