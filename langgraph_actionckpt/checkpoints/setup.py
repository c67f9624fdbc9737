"""Saver defaults that need no saver (the schema name, the serializer, the DSN variable),
and the allowlist of types a saver's graphs may load."""

from __future__ import annotations

import os
import threading
from collections.abc import Collection
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt._config import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.checkpoints.serde import ActionSerializer

__all__ = [
    "DEFAULT_SCHEMA",
    "Allowlist",
    "default_serde",
    "env_distributed",
    "env_dsn",
    "validate_schema",
]


def default_serde() -> SerializerProtocol:
    """Strict msgpack serializer: only allowlisted types are revived on load.

    LangGraph adds the graph's own state types to the allowlist when it compiles
    a graph with this saver (``with_allowlist``). Pickle is never used.
    """
    return ActionSerializer(allowed_msgpack_modules=None)


def env_dsn() -> str | None:
    """The DSN from ``ACTIONCKPT_DSN``, if set and not empty."""
    return os.environ.get("ACTIONCKPT_DSN") or None


def env_distributed() -> bool:
    """Whether ``ACTIONCKPT_DISTRIBUTED`` asks ``setup()`` to distribute the schema (``1``)."""
    return os.environ.get("ACTIONCKPT_DISTRIBUTED", "").strip().lower() in ("1", "true", "yes")


class Allowlist:
    """The types a saver's graphs allowed: ``with_allowlist`` changing its serializer in place.

    LangGraph calls ``with_allowlist`` with a compiled graph's state types (see
    ``allowlist``). The base class returns a clone; changing the serializer in
    place keeps one saver (its held writes, leases and durability marks) per
    graph, and every graph compiled with it is allowed its own types.
    """

    def __init__(self) -> None:
        self.types: set[tuple[str, ...]] = set()
        self._lock = threading.Lock()

    def widen(self, saver: Any, extra_allowlist: Collection[tuple[str, ...]]) -> None:
        """Allow ``saver`` (a ``BaseCheckpointSaver``) to load the graph's own types too."""
        # called on every graph run with the graph's cached set: no copy needed
        extra = extra_allowlist if isinstance(extra_allowlist, set) else set(extra_allowlist)
        if extra <= self.types:
            return
        with self._lock:  # two graphs resolving at once must not lose a merge
            derived = BaseCheckpointSaver.with_allowlist(saver, extra)
            if derived is not saver:
                saver.serde = derived.serde
            self.types = self.types | extra
