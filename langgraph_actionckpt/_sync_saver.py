# Generated from langgraph_actionckpt/_async_saver.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The savers' body: their constructor and I/O methods, written once.

``_async_saver.py`` is the source (:class:`AsyncActionLogIO`, the body of
:class:`~langgraph_actionckpt.AsyncActionSaver`); ``.ci/gen_sync.py`` generates
``_sync_saver.py`` (:class:`SyncActionLogIO`, the body of
:class:`~langgraph_actionckpt.ActionSaver`) from it: ``async`` and ``await``
dropped, ``aput`` -> ``put`` and the other names of its ``REPLACEMENTS``. Edit the
async file, then run ``python .ci/gen_sync.py``; docstrings here are read in both
worlds. The public classes (``aio.py``, ``saver.py``) add what differs: the
driver and writer they use, and their bridges to the other world.
"""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from functools import partial
from typing import Any, Self

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._config import DEFAULTS, SaverOptions
from langgraph_actionckpt._contracts import MetricsSink, NullMetrics
from langgraph_actionckpt._saver_base import (
    check_dsn,
    connect_kwargs,
    conninfo_of,
    describe_target,
    embedded_dsn,
    install_hooks,
    pool_options,
    recent_first,
)
from langgraph_actionckpt.actions._sync_api import SyncActionLogAPI
from langgraph_actionckpt.actions.limits import check_record
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.writer import SyncActionRows, SyncActionWriter
from langgraph_actionckpt.checkpoints._sync_api import (
    ListQuery,
    PutCall,
    SyncCheckpointAPI,
    opened,
)
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.checkpoints.core import SaverCore, env_dsn
from langgraph_actionckpt.checkpoints.fork import new_fork_id
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db.driver import (
    Plan,
    PlanFactory,
    SyncDriver,
    T,
    configure_connection,
    is_data_error,
)
from langgraph_actionckpt.db.lease import release_all
from langgraph_actionckpt.errors import ConnectionFailedError, SerializationError

logger = logging.getLogger("langgraph_actionckpt")

_D = DEFAULTS  # the keyword defaults below are SaverOptions' own


def _configure(conn: psycopg.Connection[Any]) -> None:
    configure_connection(conn)


class SyncPlanRunner(SaverCore):
    """Runs the saver's plans; held writes the database refuses never block the others.

    The I/O half of :class:`AsyncSaverBase`: ``self.driver`` is set by the saver's
    ``_open``.
    """

    driver: SyncDriver
    action_rows: SyncActionRows  # the writer's batch write, also arecord_actions'

    def _run(
        self, factory: PlanFactory[T], *, read: bool = False, pipeline: bool | None = None
    ) -> T:
        """Run a plan; held writes the database refuses never block the others.

        Plans store every thread's held writes in one statement before they read
        (and flushes do). When the fence refuses one thread's (its lease was lost,
        see ``refusal``) they are dropped and the plan runs again for the
        others. When the database refuses one thread's write as data (a key over
        the index limit, a malformed value), the held writes are stored thread by
        thread, the refused ones dropped (their thread's next call raises why,
        see ``_refuse_held``) and the plan runs again.
        """
        isolated = False
        for attempt in (1, 2, 3):
            try:
                if read:  # a thread's read: batched with others' (group commit)
                    return self.driver.run_read(factory)
                return self.driver.run(factory, pipeline=pipeline)
            except psycopg.Error as error:
                lost = self.refusal(error)
                if lost is None:
                    if isolated or not (self._pending and is_data_error(error)):
                        raise
                    if not self._aisolate_held():
                        raise  # no held write was the cause
                    isolated = True
                    continue
                if attempt == 3:
                    raise lost from None
                logger.error("dropped held writes: %s", lost)
        raise AssertionError("unreachable")  # pragma: no cover

    def _run_fenced(
        self, factory: PlanFactory[T], *, write: bool = False, pipeline: bool | None = None
    ) -> T:
        """Run a write of the caller's; the fence's refusal comes back as ``LeaseLostError``."""
        try:
            if write:
                return self.driver.run_write(factory)
            return self.driver.run(factory, pipeline=pipeline)
        except psycopg.Error as error:
            lost = self.refusal(error)
            if lost is None:
                raise
            raise lost from None

    def _aisolate_held(self) -> bool:
        """Store held writes one thread at a time; drop the threads' the database refuses.

        Returns:
            Whether some thread's held writes were refused.
        """
        refused = False
        for thread_id in self._pending.threads():
            try:
                self.driver.run(partial(self._plan_flush_pending, thread_id))
            except Exception as exc:
                if not is_data_error(exc):
                    raise
                self._refuse_held(thread_id, exc)
                refused = True
        return refused


class SyncSaverBase(SyncCheckpointAPI, SyncPlanRunner):
    """The constructor and the checkpoint I/O methods of a saver.

    The public saver subclasses it (through :class:`AsyncActionLogIO`) and
    provides :meth:`_open` (its driver and action writer).
    """

    driver: SyncDriver
    writer: SyncActionWriter

    def __init__(
        self,
        conn: psycopg.Connection[Any] | ConnectionPool[Any],
        *,
        options: SaverOptions | None = None,
        schema: str = _D.schema,
        serde: SerializerProtocol | None = _D.serde,
        pipeline: bool = _D.pipeline,
        record_nodes: bool = _D.record_nodes,
        delta_policy: DeltaPolicy | None = _D.delta_policy,
        delta_cache_bytes: int = _D.delta_cache_bytes,
        compress_min: int = _D.compress_min,
        replay: bool = _D.replay,
        lease: str = _D.lease,
        lease_timeout: float = _D.lease_timeout,
        lease_ttl: float = _D.lease_ttl,
        metrics: MetricsSink | None = _D.metrics,
        defer_writes: bool = _D.defer_writes,
        durable_writes: bool = _D.durable_writes,
        durable_timeout: float = _D.durable_timeout,
        writer_batch_size: int = _D.writer_batch_size,
        writer_interval: float = _D.writer_interval,
        group_commit: bool = _D.group_commit,
        io_timeout: float | None = _D.io_timeout,
        encryption: KeyRing | None = _D.encryption,
        max_load_bytes: int = _D.max_load_bytes,
        reuse: Any = _D.reuse,
        _reconnect: Any = None,
    ) -> None:
        # every keyword above but conn, options and _reconnect is a SaverOptions field
        opts = SaverOptions.of(options, locals())
        super().__init__(opts)
        install_hooks(opts.replay)
        self.conninfo = conninfo_of(conn)
        self.conn = conn
        self._open(conn, _reconnect)

    def _open(self, conn: psycopg.Connection[Any] | ConnectionPool[Any], reconnect: Any) -> None:
        """Set ``self.driver``, ``self.action_rows`` and ``self.writer`` (each saver its own)."""
        raise NotImplementedError

    def _driver_options(self, reconnect: Any) -> dict[str, Any]:
        """The driver's settings, from the options."""
        return {
            "pipeline": self.options.pipeline,
            "reconnect": reconnect,
            "io_timeout": self.options.io_timeout,
        }

    def _writer_options(self) -> dict[str, Any]:
        """The action writer's settings, from the options."""
        return {
            "batch_size": self.options.writer_batch_size,
            "interval": self.options.writer_interval,
            "on_depth": self.metrics.set_queue_depth,
        }

    @classmethod
    @contextmanager
    def from_conn_string(
        cls,
        dsn: str | None = None,
        *,
        pool_size: int = 10,
        pool_check: bool = False,
        max_idle: float = 300.0,
        max_lifetime: float = 3600.0,
        prepare_threshold: int | None = 5,
        setup: bool = False,
        connect_timeout: float = 3.0,
        **options: Any,
    ) -> Iterator[Self]:
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
            **options: The saver's options (``schema=``, ``serde=``,
                ``pipeline=``... each a field of
                :class:`~langgraph_actionckpt.SaverOptions`), or ``options=``.
        """
        conninfo = check_dsn(dsn or env_dsn() or embedded_dsn())
        ckw = connect_kwargs(prepare_threshold)
        try:  # one direct attempt first: a pool would retry quietly until its timeout
            first = psycopg.Connection.connect(
                conninfo, connect_timeout=max(1, round(connect_timeout)), **ckw
            )
        except psycopg.OperationalError as error:
            raise ConnectionFailedError(describe_target(conninfo), error) from None
        with ExitStack() as stack:
            if pool_size <= 0:

                def reconnect() -> psycopg.Connection[Any]:
                    return psycopg.Connection.connect(conninfo, **ckw)

                # the probe is the saver's connection: no second connect
                saver = cls(first, _reconnect=reconnect, **options)
                # the driver's connection: the first one, or its replacement
                stack.callback(lambda: saver.driver.conn.close())
            else:
                first.close()
                pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
                    conninfo,
                    connection_class=psycopg.Connection,
                    check=ConnectionPool.check_connection if pool_check else None,
                    configure=_configure,
                    **pool_options(pool_size, ckw, max_idle, max_lifetime),
                )
                recent_first(pool)
                stack.enter_context(pool)
                saver = cls(pool, **options)
            saver.conninfo = conninfo
            with opened(saver, setup):
                yield saver

    # ------------------------------------------------------------------ API

    def setup(self) -> None:
        """Create or migrate the schema. Idempotent and safe to run from many processes."""
        if self._is_setup:
            return
        # CREATE INDEX CONCURRENTLY cannot run in a pipeline's implicit transaction
        self.driver.run(self._plan_setup, pipeline=False, io_timeout=None)
        self._is_setup = True

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self.metrics.observe_get()
        return self._run(lambda: self._plan_get_tuple(config), read=True)

    def _list_tuples(self, query: ListQuery) -> Iterator[CheckpointTuple]:
        # fetched in pages, with one blob query per page
        for plan in self._plan_list(*query):
            tuples, _more = self._run(plan)
            yield from tuples

    def _put(self, call: PutCall) -> RunnableConfig:
        # one statement: the checkpoint, its changed channel values, the held writes
        config, checkpoint, metadata, new_versions = call
        # The held writes are taken now, not when a group commit starts the plan:
        # while the put waits for its group, the writer's tick would find them
        # old enough to store them in a statement of their own.
        taken = [self._take_put_writes(config, checkpoint)]
        run = self._run_fenced

        def plan() -> Plan[RunnableConfig]:
            return self._plan_put(config, checkpoint, metadata, new_versions, taken)

        try:
            if isinstance(self.metrics, NullMetrics):
                return run(plan, write=True)
            t0 = time.perf_counter()
            out = run(plan, write=True)
        except Exception as exc:
            if is_data_error(exc):
                raise self._write_refused(config, "checkpoint", exc) from exc
            raise
        finally:
            if taken:  # no plan ran (it never got a connection): back to the buffer
                self._pending.restore(taken.pop())
        self.metrics.observe_put(time.perf_counter() - t0)
        return out

    def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        # held writes: see SaverCore._prepare_writes
        try:
            call = self._prepare_writes(config, writes, task_id, path)
        except SerializationError as exc:  # the task fails: its node row says so
            failed = self._failed_node_call(config, exc, task_id, path)
            if failed is not None:
                self._write_call(config, failed)
            raise
        if call is not None:
            self._write_call(config, call)

    def _write_call(self, config: RunnableConfig, call: WriteCall) -> None:
        """Write a call of ``aput_writes`` that is not held (the only part with I/O)."""
        try:
            self._run_fenced(lambda: self._plan_write_call(call))
        except Exception as exc:
            if is_data_error(exc):
                size = sum(len(row.blob) for row in call.rows)
                raise self._write_refused(config, f"writes ({size} bytes)", exc) from exc
            raise

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

    # ------------------------------------------------- held writes, closing

    def flush_writes(self) -> None:
        """Write pending writes held for the next checkpoint now (see ``put_writes``)."""
        if self._pending:
            self._run(self._plan_flush_pending)

    def _flush_writes_on_tick(self) -> None:
        if self._pending:
            # a statement per few calls: sent together, one round trip
            self._run(self._plan_flush_on_tick, pipeline=True)

    def _on_pending(self) -> None:
        self.writer.start()

    def close(self) -> None:
        """Write held writes and queued action rows, and stop the background writer."""
        try:
            self.driver.drain()
            self.flush_writes()
        finally:
            self.writer.close()
            release_all(self)


class SyncActionLogIO(SyncSaverBase, SyncActionLogAPI):
    """The action log's reads and writes (the public reads: :class:`AsyncActionLogAPI`)."""

    def _query_actions(
        self, thread_id: str | None, filters: dict[str, Any]
    ) -> builtins.list[ActionRecord]:
        rows = self._run(lambda: self._plan_list_actions(thread_id, **filters))
        if rows:
            self.metrics.observe_actions_read(rows)
        return rows

    def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        return self._run(lambda: self._plan_get_action(thread_id, action_id))

    def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        return self._run(lambda: self._plan_last_action(thread_id, status))

    def _settle_action(
        self,
        thread_id: str,
        action_id: str,
        output: Any,
        retry: bool,
        note: str | None,
        override: bool,
    ) -> None:
        self._run(lambda: self._plan_resolve(thread_id, action_id, output, retry, note, override))

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one statement (used by the recorder).

        Raises:
            ConfigurationError: A record's id or name is longer than its limit
                (``LIMITS``); nothing is written.
        """
        for record in records:
            check_record(record)
        self.action_rows.write(records)

    def fork_at_action(
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
        self.writer.flush()  # the task's rows recorded so far are copied
        target = new_thread_id or new_fork_id()
        return self._run(lambda: self._plan_fork(thread_id, action_id, output, target))
