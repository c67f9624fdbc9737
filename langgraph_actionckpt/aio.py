"""The asynchronous saver, :class:`AsyncActionSaver`."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._async_saver import AsyncSaverBase
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.db.driver import AsyncDriver
from langgraph_actionckpt.db.group_commit import GroupCommitDriver

R = TypeVar("R")


class AsyncActionSaver(AsyncSaverBase):
    """The async twin of :class:`~langgraph_actionckpt.ActionSaver`.

    Same schema, same SQL, same options; I/O runs on psycopg's async
    connections. Its constructor and I/O methods are written once, in
    ``_async_saver.py``, from which the sync saver's are generated; this class
    adds group commit and the sync methods. Sync methods (``get_tuple``...)
    may be called from other threads while the saver's event loop runs (as
    LangGraph does for sync graph APIs like ``get_state``); calling them from
    the loop's own thread raises, since that would block the loop. Make the
    saver inside the event loop it will serve.

    Args:
        conn: A psycopg ``AsyncConnection`` (autocommit) or ``AsyncConnectionPool``.
        options: All options at once, as a :class:`~langgraph_actionckpt.SaverOptions`
            (then pass none of the keywords below).
        schema, serde, pipeline, record_nodes, delta_policy, delta_cache_bytes,
            compress_min, replay, lease, lease_timeout, metrics, defer_writes,
            durable_writes, durable_timeout, writer_batch_size, writer_interval,
            group_commit: The saver options, each documented on
            :class:`~langgraph_actionckpt.SaverOptions` (same defaults).
            ``group_commit`` applies with a pool: checkpoints stored while
            others are being written share one transaction.
    """

    def _open(
        self, conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any], reconnect: Any
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.group_commit = self.options.group_commit
        grouped = self.group_commit and isinstance(conn, AsyncConnectionPool)
        driver_class = GroupCommitDriver if grouped else AsyncDriver
        self.driver = driver_class(conn, pipeline=self.options.pipeline, reconnect=reconnect)
        self.writer = AsyncActionWriter(
            self.arecord_actions,
            self.loop,
            on_tick=self._aflush_writes_on_tick,
            **self._writer_options(),
        )

    async def asetup(self) -> None:
        """Same as :meth:`setup` (the name LangGraph's async savers also accept)."""
        await self.setup()

    # ------------------------------------------- sync twins (from other threads)

    def _sync(self, coro: Coroutine[Any, Any, R]) -> R:
        """Run ``coro`` on the saver's loop and wait for it, from another thread."""
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
        return self._sync(self.alist_actions(thread_id, **kwargs))

    def get_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """Sync :meth:`aget_action`."""
        return self._sync(self.aget_action(thread_id, action_id))

    def last_action(self, thread_id: str, **kwargs: Any) -> ActionRecord | None:
        """Sync :meth:`alast_action`."""
        return self._sync(self.alast_action(thread_id, **kwargs))

    def export_actions_jsonl(self, thread_id: str, **kwargs: Any) -> str:
        """Sync :meth:`aexport_actions_jsonl`."""
        return self._sync(self.aexport_actions_jsonl(thread_id, **kwargs))

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Sync :meth:`arecord_actions`."""
        self._sync(self.arecord_actions(records))

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Sync :meth:`aget_tuple`, for use from threads other than the loop's."""
        return self._sync(self.aget_tuple(config))

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
        return self._sync(self.aput(config, checkpoint, metadata, new_versions))

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
        return self._sync(self.aget_delta_channel_history(config=config, channels=channels))


register_saver_class(AsyncActionSaver)
