"""The remote savers' and their lease keeper's gRPC channels, one class per world.

:class:`SyncChannels` and :class:`AsyncChannels` have matching method names, so
the generated sync remote saver (``_sync_remote.py``) opens its channel with the
same call as its async source. :class:`Targets` are the service's replicas a
client calls, and which one it calls now.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import grpc

from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["FAILOVER", "AsyncChannels", "SyncChannels", "Targets"]

logger = logging.getLogger("langgraph_actionckpt")

FAILOVER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
"""The codes of a replica that cannot be reached (refused, reset, or silent past the deadline)."""


class Targets:
    """The replicas of the service a client calls (``host:port`` each), and the current one.

    Every replica serves the same database (its leases too), so any of them
    answers any call. A client calls one until it is unreachable, then the next
    one in order (round robin), and stays there.

    Args:
        target: One ``host:port``, several separated by commas, or a sequence of them.
    """

    def __init__(self, target: str | Sequence[str]) -> None:
        names = target.split(",") if isinstance(target, str) else [str(t) for t in target]
        self.all = [t.strip() for t in names if t.strip()]
        if not self.all:
            raise ConfigurationError(f"no service target in {target!r}: give host:port")
        self.current = 0
        self._lock = threading.Lock()

    def __str__(self) -> str:
        return ",".join(self.all)

    def fail_over(self, at: int, error: grpc.RpcError) -> bool:
        """After a call of replica ``at`` failed: move on when it is unreachable.

        Calls that failed on the same replica at once move the client once.

        Returns:
            Whether another replica is there to call (the failed call may go there).
        """
        if len(self.all) < 2 or error.code() not in FAILOVER:
            return False
        with self._lock:
            if self.current == at:
                self.current = (at + 1) % len(self.all)
                logger.warning(
                    "service replica %s unreachable (%s): calling %s",
                    self.all[at],
                    error.code().name,
                    self.all[self.current],
                )
        return True


def _credentials(tls: bool | str | Path | bytes) -> grpc.ChannelCredentials | None:
    if tls is False:
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    roots = tls if isinstance(tls, bytes) else Path(tls).read_bytes()
    return grpc.ssl_channel_credentials(root_certificates=roots)


_OPTIONS = [("grpc.max_receive_message_length", -1), ("grpc.enable_retries", 0)]


class SyncChannels:
    """The sync world's channel."""

    @staticmethod
    def open(target: str, tls: bool | str | Path | bytes) -> grpc.Channel:
        """A channel to ``target`` (TLS when asked)."""
        creds = _credentials(tls)
        if creds is None:
            return grpc.insecure_channel(target, options=_OPTIONS)
        return grpc.secure_channel(target, creds, options=_OPTIONS)


class AsyncChannels:
    """The async world's channel (grpc.aio, bound to the running loop)."""

    @staticmethod
    def open(target: str, tls: bool | str | Path | bytes) -> grpc.aio.Channel:
        """A channel to ``target`` (TLS when asked)."""
        creds = _credentials(tls)
        if creds is None:
            return grpc.aio.insecure_channel(target, options=_OPTIONS)
        return grpc.aio.secure_channel(target, creds, options=_OPTIONS)
