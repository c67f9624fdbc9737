"""Checkpointing as a service: a gRPC server over the async saver, and remote savers.

Needs the ``service`` extra (``pip install 'langgraph-actionckpt[service]'``)::

    from langgraph_actionckpt.service import serve
    from langgraph_actionckpt import RemoteActionSaver

    with serve(dsn, listen="127.0.0.1:0") as server:
        with RemoteActionSaver.from_target(server.target) as saver:
            saver.setup()  # checks the service is reachable and speaks our protocol

The contract is ``service/proto/actionckpt/v1/checkpoint.proto``.
"""

from __future__ import annotations

from langgraph_actionckpt._lazy import lazy_attributes

__all__ = [
    "AsyncRemoteActionSaver",
    "RemoteActionSaver",
    "Server",
    "ServiceOptions",
    "serve",
]

_LAZY = {
    "serve": ".runner",
    "Server": ".runner",
    "ServiceOptions": ".runner",
    "RemoteActionSaver": ".remote",
    "AsyncRemoteActionSaver": ".remote",
}

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
