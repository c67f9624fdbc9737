"""The state both savers share, and adapters from their calls to the plans.

The plans (``plans_write``, ``plans_read``, ``maintenance``, ``history``,
``setup``) are free functions that hold no state. Each ``_plan_*`` method here
gathers their inputs, runs them with ``yield from`` (so the sync and async
savers still hand one generator to their driver) and applies the state
changes only after the plan finished or failed: held writes taken out of the
buffer are put back on failure, checkpoints are marked durable and list states
cached on success.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt._contracts import MetricsSink, NullMetrics
from langgraph_actionckpt.actions.reads import plan_get, plan_list
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.checkpoints import maintenance as m
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy, ListCache
from langgraph_actionckpt.checkpoints.codec import Codec, thread_key
from langgraph_actionckpt.checkpoints.durability import DurabilityBarrier
from langgraph_actionckpt.checkpoints.fork import plan_fork
from langgraph_actionckpt.checkpoints.held import HeldWrites
from langgraph_actionckpt.checkpoints.history import empty_history, plan_delta_history
from langgraph_actionckpt.checkpoints.pending import PendingWrites, WriteCall
from langgraph_actionckpt.checkpoints.plans_read import (
    Cursor,
    list_pages,
    plan_get_tuple,
    plan_list_page,
)
from langgraph_actionckpt.checkpoints.plans_write import (
    next_version,
    plan_put,
)
from langgraph_actionckpt.checkpoints.setup import (
    DEFAULT_SCHEMA,
    InPlaceAllowlist,
    default_serde,
    env_dsn,
    validate_schema,
)
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import Plan, PlanFactory
from langgraph_actionckpt.db.fence import LeaseKeeper
from langgraph_actionckpt.db.migrations import plan_migrate
from langgraph_actionckpt.errors import SerializationError

logger = logging.getLogger("langgraph_actionckpt")

__all__ = ["DEFAULT_SCHEMA", "SaverCore", "default_serde", "env_dsn", "validate_schema"]

logger = logging.getLogger("langgraph_actionckpt")

_MAX_STEPS = 10_000  # cached checkpoint steps; cleared, not evicted, past this


class SaverCore(HeldWrites, InPlaceAllowlist):
    """Shared state and plan adapters of both savers. Not used directly."""

    # Provided by the sync and async subclasses (declared for the shared code).
    writer: Any

    def __init__(self, options: SaverOptions) -> None:
        super().__init__(serde=options.serde or default_serde())
        self.options = options
        self.schema = options.schema  # checked by SaverOptions
        self.queries = Queries(self.schema)
        self.encryption = options.encryption
        self.action_queries = ActionQueries(self.schema, options.encryption)
        self.record_nodes = options.record_nodes
        self.delta_policy = options.delta_policy or DeltaPolicy()
        self.compress_min = options.compress_min
        self.replay = options.replay
        self.reuse = options.reuse
        self.durable_timeout = options.durable_timeout
        self.durable_writes = options.durable_writes
        self.defer_writes = options.defer_writes
        self.lease_mode = options.lease
        self.lease_timeout = options.lease_timeout
        self.lease_ttl = options.lease_ttl
        self.leases: LeaseKeeper | None = None  # made on a first lease (db/lease.py)
        self.conninfo: str | None = None  # set by the subclasses, for dedicated connections
        self.metrics: MetricsSink = (
            options.metrics if options.metrics is not None else NullMetrics()
        )
        self._is_setup = False
        self._lists = ListCache(options.delta_cache_bytes)
        # checkpoint id -> step, so node rows get their step without a lookup
        self._steps: dict[tuple[str, str, str], int] = {}
        self._pending = PendingWrites()
        self._durable = DurabilityBarrier()
        self._init_allowlist()
        self._codec: Codec | None = None
        # escaped thread id -> why its held writes were refused (raised on its next call)
        self._refused: dict[str, SerializationError] = {}

    @property
    def codec(self) -> Codec:
        """The plans' view of the serializer, delta policy and cached list states."""
        codec = self._codec
        # made again only when ``with_allowlist`` (or a caller) replaced the serializer
        if codec is None or codec.serde is not self.serde:
            codec = self._codec = Codec(
                self.serde,
                self.delta_policy,
                self.compress_min,
                self._lists.get,
                self.schema,
                self.encryption,
                max_load_bytes=self.options.max_load_bytes,
            )
        return codec

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        """The version after ``current`` (see ``plans_write.next_version``)."""
        return next_version(current)

    # --------------------------------------------------------------- durability

    def wait_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Block until the given checkpoints are committed (see ``durability``).

        Returns:
            True when every checkpoint is known to be durable.
        """
        return durability != "async" or self._durable.wait(ids, self.durable_timeout)

    async def await_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Async :meth:`wait_durable` (never blocks the event loop)."""
        return durability != "async" or await self._durable.await_(ids, self.durable_timeout)

    # ------------------------------------------------------------------ writes

    def _plan_setup(self) -> Plan[int]:
        """Apply pending migrations (the one runner, :func:`plan_migrate`)."""
        return (yield from plan_migrate(self.schema))

    def _plan_put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
        taken: list[list[WriteCall]] | None = None,
    ) -> Plan[RunnableConfig]:
        """Store a checkpoint with its thread's held writes.

        ``taken``: a box with the writes :meth:`_take_put_writes` took when ``put``
        was called (emptied by the first plan that runs; a failed plan puts them
        back in the buffer). The plan takes again when it starts: with
        durability="async" more of the thread's writes may be due by then.
        """
        where = thread_key(config)
        held = taken.pop() if taken else None
        try:
            if self._refused:
                self._raise_refused(where[0])
            fence = self._fence(where[0])  # a lost lease: raise before anything is stored
        except BaseException:
            self._pending.restore(held or [])
            raise
        held = (held or []) + self._take_put_writes(config, checkpoint)
        try:
            done = yield from plan_put(
                self.queries, self.action_queries, self.codec, config, checkpoint, metadata,
                new_versions, held, fence,
            )  # fmt: skip
        except BaseException:
            self._pending.restore(held)
            raise
        self._durable.mark(done.checkpoint_id)
        for key, state in done.lists:
            self._lists.put(key, state)
        if done.step is not None:
            if len(self._steps) > _MAX_STEPS:
                self._steps.clear()
            self._steps[done.step_key] = done.step
        return done.config

    def _take_put_writes(self, config: RunnableConfig, checkpoint: Checkpoint) -> list[WriteCall]:
        """The thread's held writes that a put of ``checkpoint`` stores.

        Writes of this checkpoint or later ones (with durability="async" they can
        arrive before it) wait for a later put, unless the writer's tick is due
        to store them on their own (when puts lag behind, as with many graphs).
        """
        old = time.monotonic() - self.options.writer_interval / 2
        return self._pending.take(thread_key(config), keep_from=checkpoint["id"], held_before=old)

    # ------------------------------------------------------------------- reads
    # Reads first write any held writes, so they see every write and node row.

    def _plan_get_tuple(self, config: RunnableConfig) -> Plan[CheckpointTuple | None]:
        # only its own thread's: it reads nothing else, and with many graphs
        # running at once (each starts with this read) the others' held writes
        # would leave their checkpoints' statements for one of their own
        yield from self._plan_flush_pending(thread_key(config)[0])
        loaded = yield from plan_get_tuple(self.queries, self.codec, config)
        if loaded is None:
            return None
        if config["configurable"].get("checkpoint_id") is None:  # the thread's latest
            thread_id, ns = thread_key(config)
            for channel, state in loaded.lists.items():
                self._lists.put((thread_id, ns, channel), state)
        self._durable.mark(loaded.tuple.config["configurable"]["checkpoint_id"])
        return loaded.tuple

    def _plan_list(
        self,
        config: RunnableConfig | None,
        filter: Mapping[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[PlanFactory[tuple[list[CheckpointTuple], bool]]]:
        """Yield one plan factory per page; each plan returns ``(tuples, more_pages)``."""
        return list_pages(self.queries, config, filter, before, limit, self._plan_list_page)

    def _plan_list_page(
        self, query: Any, params: dict[str, Any], page: int, cursor_out: list[Cursor]
    ) -> Plan[tuple[list[CheckpointTuple], bool]]:
        yield from self._plan_flush_pending()
        tuples, cursor = yield from plan_list_page(self.queries, self.codec, query, params, page)
        if cursor is not None:
            cursor_out.append(cursor)
        return tuples, cursor is not None

    def _plan_delta_history(
        self, config: RunnableConfig, channels: Sequence[str]
    ) -> Plan[dict[str, DeltaChannelHistory]]:
        if not channels:
            return {}
        yield from self._plan_flush_pending()
        target = config["configurable"].get("checkpoint_id")
        if target is None:
            latest = yield from self._plan_get_tuple(config)
            if latest is None:
                return empty_history(channels)
            target = latest.config["configurable"]["checkpoint_id"]
        return (yield from plan_delta_history(self.queries, self.codec, config, target, channels))

    def _plan_list_actions(self, thread_id: str | None, **filters: Any) -> Plan[list[ActionRecord]]:
        yield from self._plan_flush_pending()
        return (yield from plan_list(self.action_queries, thread_id, **filters))

    def _plan_get_action(self, thread_id: str, action_id: str) -> Plan[ActionRecord | None]:
        yield from self._plan_flush_pending()
        return (yield from plan_get(self.action_queries, thread_id, action_id))

    def _plan_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> Plan[ActionRecord | None]:
        rows = yield from self._plan_list_actions(
            thread_id, status=status, limit=1, newest_first=True
        )
        return rows[0] if rows else None

    # ------------------------------------------------------------- maintenance

    def _plan_resolve(
        self,
        thread_id: str,
        action_id: str,
        output: Any,
        retry: bool,
        note: str | None,
        override: bool = False,
    ) -> Plan[None]:
        m.check_resolution(output, retry)
        yield from self._plan_flush_pending()
        yield from m.plan_resolve(
            self.action_queries, thread_id, action_id, output, retry, note, override
        )

    def _plan_delete_thread(self, thread_id: str) -> Plan[None]:
        yield from self._plan_flush_pending()
        self._forget((yield from m.plan_delete_thread(self.queries, thread_id)))

    def _plan_delete_for_runs(self, run_ids: Sequence[str]) -> Plan[None]:
        if not run_ids:
            return
        yield from self._plan_flush_pending()
        self._forget((yield from m.plan_delete_for_runs(self.queries, run_ids)))

    def _plan_copy_thread(self, source_thread_id: str, target_thread_id: str) -> Plan[None]:
        yield from self._plan_flush_pending()
        yield from m.plan_copy_thread(self.queries, source_thread_id, target_thread_id, self.codec)

    def _plan_fork(
        self, thread_id: str, action_id: str, output: Any, new_thread_id: str
    ) -> Plan[str]:
        yield from self._plan_flush_pending()
        args = (thread_id, action_id, output, new_thread_id)
        return (yield from plan_fork(self.queries, self.action_queries, *args, self.codec))

    def _plan_prune(self, thread_ids: Sequence[str], strategy: str) -> Plan[None]:
        m.check_strategy(strategy)
        if not thread_ids:
            return
        yield from self._plan_flush_pending()
        self._forget((yield from m.plan_prune(self.queries, thread_ids, strategy)))

    def _forget(self, thread_ids: Sequence[str]) -> None:
        # deleted rows: cached list states would make the next put a delta of nothing
        for thread_id in thread_ids:
            self._lists.forget_thread(thread_id)
