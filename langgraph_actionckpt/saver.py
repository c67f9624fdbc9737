"""The synchronous saver, :class:`ActionSaver`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import (
    SettledWrites,
    connect_kwargs,
    in_thread,
    in_thread_iter,
    install_hooks,
    pool_options,
)
from langgraph_actionckpt._sync_saver import SyncActionLogIO
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.db.driver import SyncDriver

# Kept importable from here, where they were defined before.
__all__ = ["ActionSaver", "connect_kwargs", "install_hooks", "pool_options"]


class ActionSaver(SettledWrites, SyncActionLogIO):
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
            compress_min, replay, lease, lease_timeout, lease_ttl, metrics, defer_writes,
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

    # ------------------------------------------- async twins, in a worker thread
    # Each keeps its method's signature and docs (see _saver_base). The ignores:
    # mypy matches a twin of a BaseCheckpointSaver method against the base's
    # signature, whose ``self`` is the base class; ours take our own saver.

    alist = in_thread_iter(SyncActionLogIO.list)  # type: ignore[arg-type]
    asetup = in_thread(SyncActionLogIO.setup)
    aclose = in_thread(SyncActionLogIO.close)
    aflush_writes = in_thread(SyncActionLogIO.flush_writes)
    aput = in_thread(SyncActionLogIO.put)  # type: ignore[arg-type]
    adelete_thread = in_thread(SyncActionLogIO.delete_thread)  # type: ignore[arg-type]
    adelete_for_runs = in_thread(SyncActionLogIO.delete_for_runs)  # type: ignore[arg-type]
    acopy_thread = in_thread(SyncActionLogIO.copy_thread)  # type: ignore[arg-type]
    aprune = in_thread(SyncActionLogIO.prune)  # type: ignore[arg-type]
    aget_delta_channel_history = in_thread(SyncActionLogIO.get_delta_channel_history)  # type: ignore[arg-type]
    alist_actions = in_thread(SyncActionLogIO.list_actions)
    aget_action = in_thread(SyncActionLogIO.get_action)
    alast_action = in_thread(SyncActionLogIO.last_action)
    aexport_actions_jsonl = in_thread(SyncActionLogIO.export_actions_jsonl)
    arecord_actions = in_thread(SyncActionLogIO.record_actions)
    aresolve_action = in_thread(SyncActionLogIO.resolve_action)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Async :meth:`get_tuple`, after the thread's writes in flight (see ``SettledWrites``)."""
        await self._settle(config)
        return await asyncio.to_thread(self.get_tuple, config)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Async :meth:`put_writes`; finishes even if the caller is cancelled."""
        await self._shielded(
            config, asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)
        )


register_saver_class(ActionSaver)
