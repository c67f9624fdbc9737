"""The synchronous saver, :class:`ActionSaver`."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Mapping, Sequence
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
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import connect_kwargs, install_hooks, pool_options
from langgraph_actionckpt._sync_saver import SyncSaverBase
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.db.driver import SyncDriver

# Kept importable from here, where they were defined before.
__all__ = ["ActionSaver", "connect_kwargs", "install_hooks", "pool_options"]


class ActionSaver(SyncSaverBase):
    """A LangGraph checkpoint saver on PostgreSQL that also keeps the action log.

    Pass it as ``builder.compile(checkpointer=saver)``. It implements every
    capability of ``BaseCheckpointSaver`` (put, put_writes, get_tuple, list,
    delete_thread, delete_for_runs, copy_thread, prune, and the delta-channel
    history fast path) and writes one ``node`` action per finished task.

    Its constructor and sync methods are generated (``_sync_saver.py``) from the
    async saver's (``_async_saver.py``); this hand-written class adds what only
    the sync saver has: its writer thread and the async methods
    (``aget_tuple``...), which run the sync ones in a worker thread. Use
    :class:`AsyncActionSaver` in async applications.

    Args:
        conn: A psycopg ``Connection`` (autocommit) or ``ConnectionPool``.
        options: All options at once, as a :class:`~langgraph_actionckpt.SaverOptions`
            (then pass none of the keywords below).
        schema, serde, pipeline, record_nodes, delta_policy, delta_cache_bytes,
            compress_min, replay, lease, lease_timeout, metrics, defer_writes,
            durable_writes, durable_timeout, writer_batch_size, writer_interval,
            group_commit: The saver options, each documented on
            :class:`~langgraph_actionckpt.SaverOptions` (same defaults).
            ``group_commit`` is accepted so both savers take the same options;
            this saver stores each checkpoint on its caller's thread.
    """

    def _open(self, conn: psycopg.Connection[Any] | ConnectionPool[Any], reconnect: Any) -> None:
        self.driver = SyncDriver(conn, pipeline=self.options.pipeline, reconnect=reconnect)
        self.writer = SyncActionWriter(
            self.record_actions, on_tick=self._flush_writes_on_tick, **self._writer_options()
        )

    # ------------------------------------------- async twins (worker thread)

    async def asetup(self) -> None:
        """Async :meth:`setup`."""
        await asyncio.to_thread(self.setup)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        await asyncio.to_thread(self.close)

    async def aflush_writes(self) -> None:
        """Async :meth:`flush_writes`."""
        await asyncio.to_thread(self.flush_writes)

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
    ) -> AsyncIterator[CheckpointTuple]:
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


register_saver_class(ActionSaver)
