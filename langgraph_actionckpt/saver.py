"""The synchronous saver, :class:`ActionSaver`."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from langgraph_actionckpt._bridges import with_async_twins
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import (
    connect_kwargs,
    driver_options,
    install_hooks,
    pool_options,
    writer_options,
)
from langgraph_actionckpt._sync_saver import SyncSaverBody
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.db.driver import SyncDriver

# Kept importable from here, where they were defined before.
__all__ = ["ActionSaver", "connect_kwargs", "install_hooks", "pool_options"]


@with_async_twins
class ActionSaver(SyncSaverBody):
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
        schema: The PostgreSQL schema holding the tables.
        serde: The serializer (default: LangGraph's msgpack one, strict allowlist).
        lease: One worker per thread: a :class:`~langgraph_actionckpt.LeaseOptions`
            (``mode``, ``timeout``, ``ttl``), or the mode alone (``"wait"``).
        writer: A :class:`~langgraph_actionckpt.WriterOptions`: held writes and
            the action writer (``defer_writes``, ``durable_writes``,
            ``durable_timeout``, ``batch_size``, ``interval``, ``group_commit``;
            this saver accepts ``group_commit`` and stores each checkpoint on
            its caller's thread).
        limits: A :class:`~langgraph_actionckpt.Limits`: ``io_timeout``,
            ``max_load_bytes``, ``compress_min``, ``delta_cache_bytes``.
        replay, reuse, record_nodes, metrics, encryption, pipeline, delta_policy:
            Each documented on :class:`~langgraph_actionckpt.SaverOptions`.
        **flat: The grouped options' flat keywords, as before groups (``lease_timeout``,
            ``lease_ttl``, ``defer_writes``, ``durable_writes``, ``durable_timeout``,
            ``writer_batch_size``, ``writer_interval``, ``group_commit``,
            ``io_timeout``, ``max_load_bytes``, ``compress_min``,
            ``delta_cache_bytes``): each the same as its group's field, and not
            given together with that group. Any other name raises ``TypeError``
            naming the closest option.

    Example:
        ``ActionSaver(conn, lease=LeaseOptions(ttl=60), writer=WriterOptions(batch_size=1000))``
        is ``ActionSaver(conn, lease_ttl=60, writer_batch_size=1000)``.
    """

    def _open_driver(
        self, conn: psycopg.Connection[Any] | ConnectionPool[Any], reconnect: Any
    ) -> SyncDriver:
        return SyncDriver(conn, **driver_options(self.options, reconnect))

    def _open_writer(self, write: Any, on_tick: Any) -> SyncActionWriter:
        return SyncActionWriter(
            write, on_tick=on_tick, **writer_options(self.options, self.metrics)
        )


register_saver_class(ActionSaver)
