"""The remote savers: :class:`RemoteActionSaver` and :class:`AsyncRemoteActionSaver`.

Full ``BaseCheckpointSaver``s whose storage is the checkpoint service. The
callback handlers, replay, ``@action``, ``resolve_action`` and
``list_actions`` use them as they use the direct savers: they are registered
with ``_contracts`` and have the members the hooks need.
"""

from __future__ import annotations

import asyncio

from langgraph_actionckpt._bridges import BRIDGED, ITERATORS, add_async_twins, add_sync_twins
from langgraph_actionckpt._contracts import register_saver_class
from langgraph_actionckpt.actions.writer import AsyncActionWriter, SyncActionWriter
from langgraph_actionckpt.service._async_remote import AsyncRemoteBody
from langgraph_actionckpt.service._sync_remote import SyncRemoteBody

__all__ = ["AsyncRemoteActionSaver", "RemoteActionSaver"]


class RemoteActionSaver(SyncRemoteBody):
    """A saver whose storage is the checkpoint service (``actionckpt serve``).

    Build it with :meth:`from_target` (a context manager); ``setup()`` checks
    that the service is reachable and compatible. Every call has a deadline
    (``timeout``); calls that are safe to repeat are retried with backoff
    while the service is unreachable. Given several replicas of the service
    (on one database), it calls one until it is unreachable, then the next.
    Async methods run in worker threads.

    Args:
        target: ``host:port`` of the service, or of its replicas (a sequence, or
            separated by commas: ``"10.0.0.1:50051,10.0.0.2:50052"``).
        token: A bearer token of the service's token file (None: open service).
        tls: ``False``, ``True`` (system roots) or the root certificate to trust.
        timeout: Deadline of every call (seconds).
        retries: Attempts of a safe call while the service is unreachable.
        lease: A :class:`~langgraph_actionckpt.LeaseOptions` (or a mode alone:
            ``lease="wait"``); off by default, unlike the direct savers, since
            only its expiry frees a lease taken through the service.
        writer: A :class:`~langgraph_actionckpt.WriterOptions`, with the direct
            savers' defaults but ``durable_timeout`` (30 seconds here).

    The other keywords (``backoff``, ``tenant``, ``serde``, ``replay``,
    ``metrics``, and the lease and writer options' flat keywords such as
    ``lease_ttl=``) are those of :class:`~langgraph_actionckpt.service.remote_base.RemoteCore`.
    """

    def _open_writer(self) -> SyncActionWriter:
        remote = self.remote
        return SyncActionWriter(
            self.record_actions,
            batch_size=remote.writer_batch_size,
            interval=remote.writer_interval,
            on_tick=self._flush_writes_on_tick,
        )


class AsyncRemoteActionSaver(AsyncRemoteBody):
    """The async twin of :class:`RemoteActionSaver` (grpc.aio on the running loop).

    Make it inside the event loop it will serve (``async with
    AsyncRemoteActionSaver.from_target(...)``). Sync methods may be called from
    other threads while that loop runs, as LangGraph does for ``get_state``.
    """

    def _open_writer(self) -> AsyncActionWriter:
        self.loop = asyncio.get_running_loop()
        return AsyncActionWriter(
            self.arecord_actions,
            self.loop,
            batch_size=self.remote.writer_batch_size,
            interval=self.remote.writer_interval,
            on_tick=self._aflush_writes_on_tick,
        )

    async def asetup(self) -> None:
        """Same as :meth:`setup`."""
        await self.setup()


# The remote savers bridge the direct savers' I/O methods (see ``_bridges``) but
# setup (both are named ``setup``) and those the service does not offer, plus the
# cold tier's archive_thread.
_NOT_REMOTE = ("setup", "get_delta_channel_history", "fork_at_action")
REMOTE_BRIDGED = (*(n for n in BRIDGED if n not in _NOT_REMOTE), "archive_thread")
add_async_twins(RemoteActionSaver, REMOTE_BRIDGED, ITERATORS)
add_sync_twins(AsyncRemoteActionSaver, REMOTE_BRIDGED, ITERATORS)

register_saver_class(RemoteActionSaver)
register_saver_class(AsyncRemoteActionSaver)
