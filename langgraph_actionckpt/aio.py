"""The asynchronous saver, :class:`AsyncActionSaver`."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._async_saver import AsyncActionLogIO
from langgraph_actionckpt._bridges import with_sync_twins
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import SettledWrites
from langgraph_actionckpt.actions.writer import AsyncActionRows, AsyncActionWriter
from langgraph_actionckpt.db.driver import AsyncDriver
from langgraph_actionckpt.db.group_commit import GroupCommitDriver


@with_sync_twins
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
        self.driver = driver_class(conn, **self._driver_options(reconnect))
        self.action_rows = AsyncActionRows(self.driver, self.action_queries, self, self.metrics)
        self.writer = AsyncActionWriter(
            self.action_rows.write,
            self.loop,
            on_tick=self._aflush_writes_on_tick,
            **self._writer_options(),
        )

    async def asetup(self) -> None:
        """Same as :meth:`setup` (the name LangGraph's async savers also accept)."""
        await self.setup()


register_saver_class(AsyncActionSaver)
