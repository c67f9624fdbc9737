"""The asynchronous saver, :class:`AsyncActionSaver`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._async_saver import AsyncActionLogIO
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import SettledWrites, on_loop, on_loop_iter
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.db.driver import AsyncDriver
from langgraph_actionckpt.db.group_commit import GroupCommitDriver


class AsyncActionSaver(SettledWrites, AsyncActionLogIO):
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
        options: A :class:`~langgraph_actionckpt.SaverOptions`, in place of the
            option keywords.
        schema: The PostgreSQL schema. It and every other field of
            :class:`~langgraph_actionckpt.SaverOptions` is a keyword argument with
            the same default (the keywords of ``ActionSaver``). With a pool,
            ``group_commit`` lets checkpoints stored while others are being
            written share one transaction.
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

    # ----------------------------- sync twins, for threads other than the loop's
    # Each keeps its method's signature and docs (see _saver_base). The ignores:
    # mypy matches a twin of a BaseCheckpointSaver method against the base's
    # signature, whose ``self`` is the base class; ours take our own saver.

    list = on_loop_iter(AsyncActionLogIO.alist)  # type: ignore[arg-type]
    get_tuple = on_loop(AsyncActionLogIO.aget_tuple)  # type: ignore[arg-type]
    put = on_loop(AsyncActionLogIO.aput)  # type: ignore[arg-type]
    put_writes = on_loop(AsyncActionLogIO.aput_writes)  # type: ignore[arg-type]
    delete_thread = on_loop(AsyncActionLogIO.adelete_thread)  # type: ignore[arg-type]
    delete_for_runs = on_loop(AsyncActionLogIO.adelete_for_runs)  # type: ignore[arg-type]
    copy_thread = on_loop(AsyncActionLogIO.acopy_thread)  # type: ignore[arg-type]
    prune = on_loop(AsyncActionLogIO.aprune)  # type: ignore[arg-type]
    get_delta_channel_history = on_loop(AsyncActionLogIO.aget_delta_channel_history)  # type: ignore[arg-type]
    list_actions = on_loop(AsyncActionLogIO.alist_actions)
    get_action = on_loop(AsyncActionLogIO.aget_action)
    last_action = on_loop(AsyncActionLogIO.alast_action)
    export_actions_jsonl = on_loop(AsyncActionLogIO.aexport_actions_jsonl)
    record_actions = on_loop(AsyncActionLogIO.arecord_actions)
    resolve_action = on_loop(AsyncActionLogIO.aresolve_action)
    fork_at_action = on_loop(AsyncActionLogIO.afork_at_action)
    flush_writes = on_loop(AsyncActionLogIO.aflush_writes)
    close = on_loop(AsyncActionLogIO.aclose)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple, after the thread's writes in flight (``SettledWrites``)."""
        await self._settle(config)
        return await super().aget_tuple(config)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes; they finish even if the caller is cancelled."""
        await self._shielded(config, super().aput_writes(config, writes, task_id, task_path))


register_saver_class(AsyncActionSaver)
