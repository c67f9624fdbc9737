"""The remote savers: :class:`RemoteActionSaver` and :class:`AsyncRemoteActionSaver`.

Full ``BaseCheckpointSaver``s whose storage is the checkpoint service. The
callback handlers, replay, ``@action``, ``resolve_action`` and
``list_actions`` use them as they use the direct savers: they are registered
with ``_contracts`` and have the members the hooks need.
"""

from __future__ import annotations

import asyncio

from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt._saver_base import in_thread, in_thread_iter, on_loop, on_loop_iter
from langgraph_actionckpt.actions.writer import AsyncActionWriter, SyncActionWriter
from langgraph_actionckpt.service._async_remote import AsyncRemoteIO
from langgraph_actionckpt.service._sync_remote import SyncRemoteIO

__all__ = ["AsyncRemoteActionSaver", "RemoteActionSaver"]


class RemoteActionSaver(SyncRemoteIO):
    """A saver whose storage is the checkpoint service (``actionckpt serve``).

    Build it with :meth:`from_target` (a context manager); ``setup()`` checks
    that the service is reachable and compatible. Every call has a deadline
    (``timeout``); calls that are safe to repeat are retried with backoff
    while the service is unreachable. Async methods run in worker threads.

    Args:
        target: ``host:port`` of the service.
        token: A bearer token of the service's token file (None: open service).
        tls: ``False``, ``True`` (system roots) or the root certificate to trust.
        timeout: Deadline of every call (seconds).
        retries: Attempts of a safe call while the service is unreachable.
    """

    def _open(self) -> None:
        self.writer = SyncActionWriter(
            self.record_actions, interval=self.writer_interval, on_tick=self._flush_writes_on_tick
        )

    aget_tuple = in_thread(SyncRemoteIO.get_tuple)  # type: ignore[arg-type]
    alist = in_thread_iter(SyncRemoteIO.list)  # type: ignore[arg-type]
    aput = in_thread(SyncRemoteIO.put)  # type: ignore[arg-type]
    aput_writes = in_thread(SyncRemoteIO.put_writes)  # type: ignore[arg-type]
    adelete_thread = in_thread(SyncRemoteIO.delete_thread)  # type: ignore[arg-type]
    adelete_for_runs = in_thread(SyncRemoteIO.delete_for_runs)  # type: ignore[arg-type]
    acopy_thread = in_thread(SyncRemoteIO.copy_thread)  # type: ignore[arg-type]
    aprune = in_thread(SyncRemoteIO.prune)  # type: ignore[arg-type]
    alist_actions = in_thread(SyncRemoteIO.list_actions)
    aget_action = in_thread(SyncRemoteIO.get_action)
    alast_action = in_thread(SyncRemoteIO.last_action)
    aexport_actions_jsonl = in_thread(SyncRemoteIO.export_actions_jsonl)
    arecord_actions = in_thread(SyncRemoteIO.record_actions)
    aresolve_action = in_thread(SyncRemoteIO.resolve_action)
    aflush_writes = in_thread(SyncRemoteIO.flush_writes)
    aarchive_thread = in_thread(SyncRemoteIO.archive_thread)
    aclose = in_thread(SyncRemoteIO.close)


class AsyncRemoteActionSaver(AsyncRemoteIO):
    """The async twin of :class:`RemoteActionSaver` (grpc.aio on the running loop).

    Make it inside the event loop it will serve (``async with
    AsyncRemoteActionSaver.from_target(...)``). Sync methods may be called from
    other threads while that loop runs, as LangGraph does for ``get_state``.
    """

    def _open(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.writer = AsyncActionWriter(
            self.arecord_actions,
            self.loop,
            interval=self.writer_interval,
            on_tick=self._aflush_writes_on_tick,
        )

    async def asetup(self) -> None:
        """Same as :meth:`setup`."""
        await self.setup()

    get_tuple = on_loop(AsyncRemoteIO.aget_tuple)  # type: ignore[arg-type]
    list = on_loop_iter(AsyncRemoteIO.alist)  # type: ignore[arg-type]
    put = on_loop(AsyncRemoteIO.aput)  # type: ignore[arg-type]
    put_writes = on_loop(AsyncRemoteIO.aput_writes)  # type: ignore[arg-type]
    delete_thread = on_loop(AsyncRemoteIO.adelete_thread)  # type: ignore[arg-type]
    delete_for_runs = on_loop(AsyncRemoteIO.adelete_for_runs)  # type: ignore[arg-type]
    copy_thread = on_loop(AsyncRemoteIO.acopy_thread)  # type: ignore[arg-type]
    prune = on_loop(AsyncRemoteIO.aprune)  # type: ignore[arg-type]
    list_actions = on_loop(AsyncRemoteIO.alist_actions)
    get_action = on_loop(AsyncRemoteIO.aget_action)
    last_action = on_loop(AsyncRemoteIO.alast_action)
    export_actions_jsonl = on_loop(AsyncRemoteIO.aexport_actions_jsonl)
    record_actions = on_loop(AsyncRemoteIO.arecord_actions)
    resolve_action = on_loop(AsyncRemoteIO.aresolve_action)
    flush_writes = on_loop(AsyncRemoteIO.aflush_writes)
    archive_thread = on_loop(AsyncRemoteIO.aarchive_thread)
    close = on_loop(AsyncRemoteIO.aclose)


register_saver_class(RemoteActionSaver)
register_saver_class(AsyncRemoteActionSaver)
