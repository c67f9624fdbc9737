"""The remote savers' and their lease keeper's gRPC channels, one class per world.

:class:`SyncChannels` and :class:`AsyncChannels` have matching method names, so
the generated sync remote saver (``_sync_remote.py``) opens its channel with the
same call as its async source.
"""

from __future__ import annotations

from pathlib import Path

import grpc

__all__ = ["AsyncChannels", "SyncChannels"]


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
