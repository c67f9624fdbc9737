"""The remote savers' leases: the service's ``AcquireLease``, a heartbeat, fencing tokens.

With ``lease="wait"`` or ``"error"`` a remote saver takes the service's lease
of a thread where a direct saver takes its database lease (the callback
handler at a root run's start, the replay layer before a task's first live
action), renews it every ``ttl / 3`` seconds, and sends its fencing token with
every ``Put``/``PutWrites`` of that thread: once another worker has taken the
thread over (this worker stalled past the ttl, or its process died), this
worker's writes are refused with ``LeaseLostError`` and nothing of them is
stored. The keeper uses sync channels of its own, so both worlds share it. The
leases live in the service's database, so every replica of the service sees
the same ones: a lease call that finds its replica unreachable is repeated on
the next one (taking or renewing a lease of one's own again returns the same
token).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from langgraph_actionckpt._limits import LEASE_TIMEOUT
from langgraph_actionckpt.db.fence import HeldLease, HeldLeases
from langgraph_actionckpt.errors import LeaseLostError, ServiceError, ThreadBusyError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service._pb import checkpoint_pb2_grpc as pb_grpc
from langgraph_actionckpt.service.remote_channels import SyncChannels, Targets

__all__ = ["RemoteLeaseKeeper"]

logger = logging.getLogger("langgraph_actionckpt")


class RemoteLeaseKeeper(HeldLeases):
    """The service leases one remote saver holds.

    Args:
        targets: The service's replicas (shared with the saver: they move together).
        tls: As for the saver.
        metadata: The saver's call metadata (protocol version, token, tenant).
        mode: ``wait`` (poll until free or ``timeout``) or ``error`` (raise at once).
        timeout: Seconds to wait for a busy thread.
        ttl: Seconds a lease lives without a heartbeat.
        deadline: The deadline of each lease call.
    """

    _beat_name = "actionckpt-remote-lease"

    def __init__(
        self,
        targets: Targets,
        tls: bool | str | Path | bytes,
        metadata: tuple[tuple[str, str], ...],
        *,
        mode: str = "wait",
        timeout: float = LEASE_TIMEOUT,
        ttl: float = 10.0,
        deadline: float = 10.0,
    ) -> None:
        super().__init__(mode=mode, timeout=timeout, ttl=ttl)
        self.targets = targets
        self.tls = tls
        self.deadline = deadline
        self.metadata = metadata
        self._channels: dict[int, grpc.Channel] = {}
        self._lock = threading.Lock()

    def acquire(self, thread_id: str) -> bool:
        """Take the lease; True when taken now, False when this saver already holds it.

        Raises:
            ThreadBusyError: Another worker holds it (``error`` mode), or it stayed
                busy for ``timeout`` seconds (``wait`` mode).
        """
        if self.holds(thread_id):
            return False
        stop = time.monotonic() + self.timeout
        while True:
            res = self._call(
                "AcquireLease",
                pb.AcquireLeaseRequest(
                    thread_id=thread_id, holder=self.holder, ttl_seconds=self.ttl
                ),
            )
            if res.held:
                with self._lock:
                    self._held[thread_id] = HeldLease(int(res.token))
                self._start_heartbeat()
                return True
            if self.mode == "error" or time.monotonic() >= stop:
                raise ThreadBusyError(thread_id)
            time.sleep(min(0.05 + self.ttl / 100, 0.5))

    def release(self, thread_id: str) -> bool:
        """Give the lease back (False when not held or lost)."""
        with self._lock:
            held = self._held.pop(thread_id, None)
        if held is None or held.lost:
            return False
        try:
            res = self._call(
                "ReleaseLease",
                pb.ReleaseLeaseRequest(thread_id=thread_id, holder=self.holder, token=held.token),
            )
        except ServiceError:
            return False  # it expires by itself
        return bool(res.token)

    async def aacquire(self, thread_id: str) -> bool:
        """:meth:`acquire` for async callers (in a worker thread)."""
        if self.holds(thread_id):
            return False
        return await asyncio.to_thread(self.acquire, thread_id)

    def _close_io(self) -> None:
        for channel in self._channels.values():
            with contextlib.suppress(Exception):
                channel.close()
        self._channels.clear()

    def renew_now(self) -> None:
        """Renew every held lease once (the heartbeat's step)."""
        for thread_id, held in list(self._held.items()):
            if held.lost:
                continue
            req = pb.RenewLeaseRequest(
                thread_id=thread_id, holder=self.holder, token=held.token, ttl_seconds=self.ttl
            )
            try:
                self._call("RenewLease", req)
            except LeaseLostError:
                held.lost = True
                logger.error("lease on thread %r was taken over by another worker", thread_id)
            except ServiceError as error:  # not lost yet: the fence decides
                logger.warning("lease heartbeat for thread %r failed: %s", thread_id, error)

    def _stub(self, at: int) -> Any:
        with self._lock:
            channel = self._channels.get(at)
            if channel is None:
                channel = SyncChannels.open(self.targets.all[at], self.tls)
                self._channels[at] = channel
        return pb_grpc.CheckpointServiceStub(channel)  # type: ignore[no-untyped-call]

    def _call(self, name: str, request: Any) -> Any:
        for _ in self.targets.all:  # each replica once at most
            at = self.targets.current
            try:
                return getattr(self._stub(at), name)(
                    request, timeout=self.deadline, metadata=self.metadata
                )
            except grpc.RpcError as error:
                if self.targets.fail_over(at, error):
                    failed = error
                    continue
                raise self._error(name, request, error, at) from None
        raise self._error(name, request, failed, at) from None

    def _error(self, name: str, request: Any, error: grpc.RpcError, at: int) -> Exception:
        details = error.details() or ""
        if error.code() == grpc.StatusCode.FAILED_PRECONDITION and "lease on thread" in details:
            return LeaseLostError(request.thread_id, getattr(request, "token", None))
        code = error.code()
        return ServiceError(
            code.name if code is not None else "UNKNOWN", f"{name}: {details}", self.targets.all[at]
        )
