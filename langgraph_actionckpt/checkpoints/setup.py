"""Saver defaults that need no saver: the schema name, the serializer, the DSN variable."""

from __future__ import annotations

import os

from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt._config import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.checkpoints.serde import ActionSerializer

__all__ = ["DEFAULT_SCHEMA", "default_serde", "env_dsn", "validate_schema"]


def default_serde() -> SerializerProtocol:
    """Strict msgpack serializer: only allowlisted types are revived on load.

    LangGraph adds the graph's own state types to the allowlist when it compiles
    a graph with this saver (``with_allowlist``). Pickle is never used.
    """
    return ActionSerializer(allowed_msgpack_modules=None)


def env_dsn() -> str | None:
    """The DSN from ``ACTIONCKPT_DSN``, if set and not empty."""
    return os.environ.get("ACTIONCKPT_DSN") or None
