"""Action-level checkpoints for LangGraph on PostgreSQL.

Every node transition, LLM completion and tool call becomes a row with a
deterministic idempotency key; after a crash, completed actions are served from
the log instead of being executed again.

Quick start::

    from langgraph_actionckpt import ActionSaver, ActionCallbackHandler

    with ActionSaver.from_conn_string() as saver:  # no DSN: embedded PostgreSQL
        saver.setup()
        graph = builder.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t1"}, "callbacks": [ActionCallbackHandler(saver)]}
        graph.invoke(inputs, config)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_actionckpt._lazy import lazy_attributes
from langgraph_actionckpt.errors import (
    ActionCkptError,
    ConfigurationError,
    ConnectionFailedError,
    DecryptionError,
    EmbeddedServerError,
    InFlightActionError,
    LeaseLostError,
    MigrationError,
    NotReplayableError,
    OutcomeKnownError,
    SerializationError,
    ServiceError,
    ThreadBusyError,
    VectorUnavailableError,
)

if TYPE_CHECKING:
    from langgraph_actionckpt._config import LeaseOptions, Limits, SaverOptions, WriterOptions
    from langgraph_actionckpt.actions.callbacks import (
        ActionCallbackHandler,
        AsyncActionCallbackHandler,
    )
    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.aio import AsyncActionSaver
    from langgraph_actionckpt.crypto import KeyRing
    from langgraph_actionckpt.embedded_postgres import embedded_dsn, stop_embedded
    from langgraph_actionckpt.ops.metrics import Metrics
    from langgraph_actionckpt.ops.vector import BackgroundEmbedder, VectorIndex
    from langgraph_actionckpt.replay.decorator import action, current_action
    from langgraph_actionckpt.replay.progress import AgentProgress, RunProgress
    from langgraph_actionckpt.replay.run import ActionRun, arun_progress, run_progress
    from langgraph_actionckpt.saver import ActionSaver
    from langgraph_actionckpt.service.remote import AsyncRemoteActionSaver, RemoteActionSaver

from langgraph_actionckpt._version import __version__ as __version__

# Public names that live in submodules, imported on first use so that
# `import langgraph_actionckpt` stays cheap and optional extras stay optional.
_LAZY = {
    "ActionRecord": ".actions.records",
    "ActionCallbackHandler": ".actions.callbacks",
    "AsyncActionCallbackHandler": ".actions.callbacks",
    "action": ".replay",
    "current_action": ".replay",
    "ActionRun": ".replay.run",
    "run_progress": ".replay.run",
    "arun_progress": ".replay.run",
    "RunProgress": ".replay.progress",
    "AgentProgress": ".replay.progress",
    "ActionSaver": ".saver",
    "SaverOptions": "._config",
    "LeaseOptions": "._config",
    "WriterOptions": "._config",
    "Limits": "._config",
    "KeyRing": ".crypto",
    "Metrics": ".ops.metrics",
    "VectorIndex": ".ops.vector",
    "BackgroundEmbedder": ".ops.vector",
    "AsyncActionSaver": ".aio",
    # the service extra (grpcio): imported only when used
    "RemoteActionSaver": ".service.remote",
    "AsyncRemoteActionSaver": ".service.remote",
    "embedded_dsn": ".embedded_postgres",
    "stop_embedded": ".embedded_postgres",
}

__all__ = [
    "ActionCallbackHandler",
    "ActionCkptError",
    "ActionRecord",
    "ActionRun",
    "ActionSaver",
    "AgentProgress",
    "AsyncActionCallbackHandler",
    "BackgroundEmbedder",
    "AsyncActionSaver",
    "ConfigurationError",
    "ConnectionFailedError",
    "DecryptionError",
    "KeyRing",
    "LeaseLostError",
    "LeaseOptions",
    "Limits",
    "EmbeddedServerError",
    "InFlightActionError",
    "NotReplayableError",
    "OutcomeKnownError",
    "RunProgress",
    "Metrics",
    "MigrationError",
    "SaverOptions",
    "SerializationError",
    "RemoteActionSaver",
    "AsyncRemoteActionSaver",
    "ServiceError",
    "ThreadBusyError",
    "VectorIndex",
    "VectorUnavailableError",
    "WriterOptions",
    "action",
    "arun_progress",
    "current_action",
    "embedded_dsn",
    "run_progress",
    "stop_embedded",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
