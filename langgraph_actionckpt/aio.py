"""The asynchronous saver, :class:`AsyncActionSaver`."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._async_saver import AsyncSaverBody
from langgraph_actionckpt._bridges import with_sync_twins
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import driver_options, writer_options
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.db.driver import AsyncDriver
from langgraph_actionckpt.db.group_commit import GroupCommitDriver


@with_sync_twins
class AsyncActionSaver(AsyncSaverBody):
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
        schema: The PostgreSQL schema. It, the groups ``lease=``
            (:class:`~langgraph_actionckpt.LeaseOptions`), ``writer=``
            (:class:`~langgraph_actionckpt.WriterOptions`) and ``limits=``
            (:class:`~langgraph_actionckpt.Limits`), every other field of
            :class:`~langgraph_actionckpt.SaverOptions` and the grouped options'
            flat keywords are those of ``ActionSaver``, with the same defaults.
            With a pool, ``WriterOptions.group_commit`` lets checkpoints stored
            while others are being written share one transaction.
    """

    def _open_driver(
        self, conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any], reconnect: Any
    ) -> AsyncDriver:
        self.loop = asyncio.get_running_loop()
        self.group_commit = self.options.group_commit
        grouped = self.group_commit and isinstance(conn, AsyncConnectionPool)
        driver_class = GroupCommitDriver if grouped else AsyncDriver
        return driver_class(conn, **driver_options(self.options, reconnect))

    def _open_writer(self, write: Any, on_tick: Any) -> AsyncActionWriter:
        options = writer_options(self.options, self.metrics)
        return AsyncActionWriter(write, self.loop, on_tick=on_tick, **options)

    async def asetup(self) -> None:
        """Same as :meth:`setup` (the name LangGraph's async savers also accept)."""
        await self.setup()


register_saver_class(AsyncActionSaver)
