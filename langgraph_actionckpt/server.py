"""The former name of :mod:`langgraph_actionckpt.agent_server`, kept for ``langgraph.json`` files.

``langgraph_actionckpt.server.checkpointer`` keeps working, with a
``DeprecationWarning`` naming the new path: write
``langgraph_actionckpt.agent_server.checkpointer`` (the module's new name says which of
the project's servers it is for: LangGraph's Agent Server, not the gRPC checkpoint service
of :mod:`langgraph_actionckpt.service` nor the embedded PostgreSQL of
:mod:`langgraph_actionckpt.embedded_postgres`).
"""

from __future__ import annotations

import warnings

from langgraph_actionckpt.agent_server import (
    action_callbacks,
    checkpointer,
    current_saver,
    with_action_log,
)

__all__ = ["action_callbacks", "checkpointer", "current_saver", "with_action_log"]

warnings.warn(
    "langgraph_actionckpt.server is now langgraph_actionckpt.agent_server: point langgraph.json at "
    '"langgraph_actionckpt.agent_server.checkpointer"',
    DeprecationWarning,
    stacklevel=2,
)
