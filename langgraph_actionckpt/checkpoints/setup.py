"""Saver defaults that need no saver: the schema name, the serializer, the DSN variable."""

from __future__ import annotations

import os
import threading
from collections.abc import Collection
from typing import Self

from langgraph.checkpoint.base import BaseCheckpointSaver
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


class InPlaceAllowlist(BaseCheckpointSaver[str]):
    """``with_allowlist`` that changes this saver's serializer in place.

    LangGraph calls ``with_allowlist`` with a compiled graph's state types (see
    ``allowlist``). The base class returns a clone; changing the serializer in
    place keeps one saver (its held writes, leases and durability marks) per
    graph, and every graph compiled with it is allowed its own types.
    """

    _allowed_types: set[tuple[str, ...]]
    _serde_lock: threading.Lock

    def _init_allowlist(self) -> None:
        self._allowed_types = set()
        self._serde_lock = threading.Lock()

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> Self:
        """Allow the graph's own types to be loaded; this saver, changed in place."""
        # called on every graph run with the graph's cached set: no copy needed
        extra = extra_allowlist if isinstance(extra_allowlist, set) else set(extra_allowlist)
        if extra <= self._allowed_types:
            return self
        with self._serde_lock:  # two graphs resolving at once must not lose a merge
            derived = super().with_allowlist(extra)
            if derived is not self:
                self.serde = derived.serde
            self._allowed_types = self._allowed_types | extra
        return self
