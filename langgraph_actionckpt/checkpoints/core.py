"""The checkpoint store: the direct savers' state, and adapters from their calls to plans.

A direct saver (sync or async) has one :class:`CheckpointStore`, and no I/O of
its own is in it: the saver hands the store's plans to its driver. The plans
(``plans_write``, ``plans_read``, ``maintenance``, ``history``, ``setup``) are
free functions that hold no state. Each ``plan_*`` method here gathers their
inputs, runs them with ``yield from`` (so the sync and async savers still hand
one generator to their driver) and applies the state changes only after the
plan finished or failed: held writes taken out of the buffer are put back on
failure, checkpoints are marked durable and list states cached on success.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.serde.base import SerializerProtocol, maybe_add_typed_methods

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt.actions.reads import plan_get, plan_list
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.actions.settle import Resolution
from langgraph_actionckpt.checkpoints import maintenance as m
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy, ListCache
from langgraph_actionckpt.checkpoints.codec import Codec, thread_key
from langgraph_actionckpt.checkpoints.durability import DurabilityBarrier
from langgraph_actionckpt.checkpoints.fork import plan_fork
from langgraph_actionckpt.checkpoints.held import HeldWrites
from langgraph_actionckpt.checkpoints.history import empty_history, plan_delta_history
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.checkpoints.plans_read import (
    Cursor,
    list_pages,
    plan_get_tuple,
    plan_list_page,
)
from langgraph_actionckpt.checkpoints.plans_write import plan_put
from langgraph_actionckpt.checkpoints.setup import (
    DEFAULT_SCHEMA,
    default_serde,
    env_distributed,
    env_dsn,
    validate_schema,
)
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import Plan, PlanFactory
from langgraph_actionckpt.db.migrations import plan_migrate

__all__ = ["DEFAULT_SCHEMA", "CheckpointStore", "default_serde", "env_dsn", "validate_schema"]

_MAX_STEPS = 10_000  # cached checkpoint steps; cleared, not evicted, past this


class CheckpointStore:
    """A direct saver's state, and its calls turned into plans (no I/O here).

    It owns the serializer and the codec made from it, the cached list states and
    checkpoint steps, the durability marks, and (in :attr:`held`) the held
    writes with their lease fencing. The saver runs the plans it returns.
    """

    def __init__(self, options: SaverOptions, on_pending: Callable[[], None]) -> None:
        self.options = options
        self.schema = options.schema  # checked by SaverOptions
        self.queries = Queries(self.schema)
        self.action_queries = ActionQueries(self.schema, options.encryption)
        self.serde: SerializerProtocol = maybe_add_typed_methods(options.serde or default_serde())
        self.delta_policy = options.delta_policy or DeltaPolicy()
        self.is_setup = False
        self.durable = DurabilityBarrier()
        self._lists = ListCache(options.delta_cache_bytes)
        # checkpoint id -> step, so node rows get their step without a lookup
        self._steps: dict[tuple[str, str, str], int] = {}
        self._codec: Codec | None = None
        self.held = HeldWrites(
            options, self.queries, self.action_queries, lambda: self.codec, self._steps, on_pending
        )

    @property
    def codec(self) -> Codec:
        """The plans' view of the serializer, delta policy and cached list states."""
        codec = self._codec
        # made again only when ``with_allowlist`` (or a caller) replaced the serializer
        if codec is None or codec.serde is not self.serde:
            codec = self._codec = Codec(
                self.serde,
                self.delta_policy,
                self.options.compress_min,
                self._lists.get,
                self.schema,
                self.options.encryption,
                max_load_bytes=self.options.max_load_bytes,
            )
        return codec

    # ------------------------------------------------------------------ writes

    def plan_setup(self, distributed: bool | None = None) -> Plan[int]:
        """Apply pending migrations (the one runner, :func:`plan_migrate`), then distribute.

        ``distributed``: ``None`` distributes as ``ACTIONCKPT_DISTRIBUTED`` says.
        """
        spread = env_distributed() if distributed is None else distributed
        return (yield from plan_migrate(self.schema, distributed=spread))

    def plan_put(
        self,
        where: tuple[str, str],
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
        taken: list[list[WriteCall]] | None = None,
    ) -> Plan[RunnableConfig]:
        """Store a checkpoint with its thread's held writes (``where``: its thread key).

        ``taken``: a box with the writes :meth:`take_put_writes` took when ``put``
        was called (emptied by the first plan that runs; a failed plan puts them
        back in the buffer). The plan takes again when it starts: with
        durability="async" more of the thread's writes may be due by then.
        """
        held = taken.pop() if taken else None
        pending = self.held.pending
        try:
            if self.held.refused:
                self.held.raise_refused(where[0])
            fence = self.held.fencing.fence(where[0])  # a lost lease: raise before storing
        except BaseException:
            pending.restore(held or [])
            raise
        held = (held or []) + self.take_put_writes(where, checkpoint)
        try:
            done = yield from plan_put(
                self.queries, self.action_queries, self.codec, config, checkpoint, metadata,
                new_versions, held, fence, where,
            )  # fmt: skip
        except BaseException:
            pending.restore(held)
            raise
        self.durable.mark(done.checkpoint_id)
        for key, state in done.lists:
            self._lists.put(key, state)
        if done.step is not None:
            if len(self._steps) > _MAX_STEPS:
                self._steps.clear()
            self._steps[done.step_key] = done.step
        return done.config

    def take_put_writes(self, where: tuple[str, str], checkpoint: Checkpoint) -> list[WriteCall]:
        """The thread's held writes that a put of ``checkpoint`` stores.

        Writes of this checkpoint or later ones (with durability="async" they can
        arrive before it) wait for a later put, unless the writer's tick is due
        to store them on their own (when puts lag behind, as with many graphs).
        """
        old = time.monotonic() - self.options.writer_interval / 2
        return self.held.pending.take(where, keep_from=checkpoint["id"], held_before=old)

    # ------------------------------------------------------------------- reads
    # Reads first write any held writes, so they see every write and node row.

    def plan_get_tuple(self, config: RunnableConfig) -> Plan[CheckpointTuple | None]:
        """Load a checkpoint tuple (the thread's latest when the config names none)."""
        thread_id, ns = thread_key(config)
        # only its own thread's: it reads nothing else, and with many graphs
        # running at once (each starts with this read) the others' held writes
        # would leave their checkpoints' statements for one of their own
        yield from self.held.plan_flush_pending(thread_id)
        loaded = yield from plan_get_tuple(self.queries, self.codec, config)
        if loaded is None:
            return None
        if config["configurable"].get("checkpoint_id") is None:  # the thread's latest
            for channel, state in loaded.lists.items():
                self._lists.put((thread_id, ns, channel), state)
        self.durable.mark(loaded.tuple.config["configurable"]["checkpoint_id"])
        return loaded.tuple

    def plan_list(
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
        yield from self.held.plan_flush_pending()
        tuples, cursor = yield from plan_list_page(self.queries, self.codec, query, params, page)
        if cursor is not None:
            cursor_out.append(cursor)
        return tuples, cursor is not None

    def plan_delta_history(
        self, config: RunnableConfig, channels: Sequence[str]
    ) -> Plan[dict[str, DeltaChannelHistory]]:
        """Per-channel writes and seed along the parent chain of ``config``'s checkpoint."""
        if not channels:
            return {}
        yield from self.held.plan_flush_pending()
        target = config["configurable"].get("checkpoint_id")
        if target is None:
            latest = yield from self.plan_get_tuple(config)
            if latest is None:
                return empty_history(channels)
            target = latest.config["configurable"]["checkpoint_id"]
        return (yield from plan_delta_history(self.queries, self.codec, config, target, channels))

    def plan_list_actions(self, thread_id: str | None, **filters: Any) -> Plan[list[ActionRecord]]:
        """The action rows ``list_actions`` asks for."""
        yield from self.held.plan_flush_pending()
        return (yield from plan_list(self.action_queries, thread_id, **filters))

    def plan_get_action(self, thread_id: str, action_id: str) -> Plan[ActionRecord | None]:
        """One action row by its idempotency key."""
        yield from self.held.plan_flush_pending()
        return (yield from plan_get(self.action_queries, thread_id, action_id))

    def plan_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> Plan[ActionRecord | None]:
        """The thread's newest action row (of the given status)."""
        rows = yield from self.plan_list_actions(
            thread_id, status=status, limit=1, newest_first=True
        )
        return rows[0] if rows else None

    # ------------------------------------------------------------- maintenance

    def plan_resolve(self, resolution: Resolution) -> Plan[None]:
        """Settle an action whose outcome is unknown (``resolve_action``)."""
        m.check_resolution(resolution)  # before the held writes are flushed
        yield from self.held.plan_flush_pending()
        yield from m.plan_resolve(self.action_queries, resolution)

    def plan_delete_thread(self, thread_id: str) -> Plan[None]:
        """Delete a thread's rows."""
        yield from self.held.plan_flush_pending()
        self.forget((yield from m.plan_delete_thread(self.queries, thread_id)))

    def plan_delete_for_runs(self, run_ids: Sequence[str]) -> Plan[None]:
        """Delete the rows the given runs created."""
        if not run_ids:
            return
        yield from self.held.plan_flush_pending()
        self.forget((yield from m.plan_delete_for_runs(self.queries, run_ids)))

    def plan_copy_thread(self, source_thread_id: str, target_thread_id: str) -> Plan[None]:
        """Copy a thread's rows to a new thread id."""
        yield from self.held.plan_flush_pending()
        yield from m.plan_copy_thread(self.queries, source_thread_id, target_thread_id, self.codec)

    def plan_fork(
        self, thread_id: str, action_id: str, output: Any, new_thread_id: str
    ) -> Plan[str]:
        """Fork a thread at one action (``fork_at_action``)."""
        yield from self.held.plan_flush_pending()
        args = (thread_id, action_id, output, new_thread_id)
        return (yield from plan_fork(self.queries, self.action_queries, *args, self.codec))

    def plan_prune(self, thread_ids: Sequence[str], strategy: str) -> Plan[None]:
        """Prune the threads' checkpoints (``prune``)."""
        m.check_strategy(strategy)
        if not thread_ids:
            return
        yield from self.held.plan_flush_pending()
        self.forget((yield from m.plan_prune(self.queries, thread_ids, strategy)))

    def forget(self, thread_ids: Sequence[str]) -> None:
        """Drop cached list states of threads whose rows were deleted."""
        # a cached list state would make the next put a delta of nothing
        for thread_id in thread_ids:
            self._lists.forget_thread(thread_id)
