"""The synchronous saver, :class:`ActionSaver`."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._bridges import with_async_twins
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import (
    SettledWrites,
    connect_kwargs,
    install_hooks,
    pool_options,
)
from langgraph_actionckpt._sync_saver import SyncActionLogIO
from langgraph_actionckpt.actions.writer import SyncActionRows, SyncActionWriter
from langgraph_actionckpt.db.driver import SyncDriver

# Kept importable from here, where they were defined before.
__all__ = ["ActionSaver", "connect_kwargs", "install_hooks", "pool_options"]


@with_async_twins
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
            group_commit, io_timeout, encryption, max_load_bytes, reuse: The saver
            options, each documented on
            :class:`~langgraph_actionckpt.SaverOptions` (same defaults).
            ``group_commit`` is accepted so both savers take the same options;
            this saver stores each checkpoint on its caller's thread.
    """

    def _open(self, conn: psycopg.Connection[Any] | ConnectionPool[Any], reconnect: Any) -> None:
        self.driver = SyncDriver(conn, **self._driver_options(reconnect))
        self.action_rows = SyncActionRows(self.driver, self.action_queries, self, self.metrics)
        self.writer = SyncActionWriter(
            self.action_rows.write, on_tick=self._flush_writes_on_tick, **self._writer_options()
        )


register_saver_class(ActionSaver)
