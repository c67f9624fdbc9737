"""A graph's own state types for the strict loader, whatever LangGraph's mode.

Our savers load stored values in strict msgpack mode: only allowlisted types are
revived, because reviving a type means calling code named by the database (the
CVE-2026-28277 class of bugs). LangGraph derives each compiled graph's allowlist
(its state, input, output, context and node schemas and its channels' value
types) and hands it to the checkpointer through ``with_allowlist``, but only when
``LANGGRAPH_STRICT_MSGPACK`` is set; otherwise it loads any type with a warning.
Without help, a graph whose state holds a pydantic model or a dataclass would get
plain dicts back from our savers after a resume.

So for our savers only, :func:`install` makes LangGraph do in every mode what it
does in strict mode: when a compiled graph resolves its checkpointer and that is
one of ours, the allowlist LangGraph builds at compile time in strict mode is
built (once per compiled graph, with LangGraph's own helper) and merged into the
saver's serializer. Other checkpointers are left alone.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

logger = logging.getLogger(__name__)

_ATTR = "_actionckpt_allowlist"
_lock = threading.Lock()
_installed = False


def state_graph_allowlist(builder: Any) -> set[tuple[str, ...]]:
    """The allowlist LangGraph's ``StateGraph.compile`` builds in strict mode."""
    from langgraph._internal import _serde

    schemas: list[type[Any]] = [builder.state_schema, builder.input_schema, builder.output_schema]
    if builder.context_schema is not None:
        schemas.append(builder.context_schema)
    for node in builder.nodes.values():
        schemas.append(node.input_schema)
    for branches in builder.branches.values():
        for branch in branches.values():
            if branch.input_schema is not None:
                schemas.append(branch.input_schema)
    allowlist: set[tuple[str, ...]] = _serde.build_serde_allowlist(
        schemas=schemas, channels=builder.channels
    )
    return allowlist


def graph_allowlist(graph: Any) -> set[tuple[str, ...]]:
    """The compiled graph's allowlist (LangGraph's, or built as strict mode would)."""
    cached: set[tuple[str, ...]] | None = graph.__dict__.get(_ATTR)
    if cached is not None:
        return cached
    allowlist: set[tuple[str, ...]] | None = getattr(graph, "_serde_allowlist", None)
    if allowlist is None:
        from langgraph.graph import StateGraph

        builder = getattr(graph, "builder", None)
        allowlist = set()
        if isinstance(builder, StateGraph):
            try:
                allowlist = state_graph_allowlist(builder)
            except Exception as exc:  # noqa: BLE001 - LangGraph internals moved; stay strict
                logger.warning(
                    "could not derive the state types of graph %r for the checkpoint "
                    "loader (%s); values of custom types load as plain data",
                    getattr(graph, "name", graph),
                    exc,
                )
    graph.__dict__[_ATTR] = allowlist
    return allowlist


def install() -> None:
    """Wrap ``Pregel._apply_checkpointer_allowlist`` once (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        from langgraph.pregel import Pregel

        from langgraph_actionckpt.checkpoints.core import SaverCore

        original = getattr(Pregel, "_apply_checkpointer_allowlist", None)
        if original is None:
            logger.warning(
                "this LangGraph version has no Pregel._apply_checkpointer_allowlist; "
                "graphs' custom state types load as plain data unless "
                "LANGGRAPH_STRICT_MSGPACK is set"
            )
            return

        def _apply_checkpointer_allowlist(self: Any, checkpointer: Any) -> Any:
            resolved = original(self, checkpointer)
            if isinstance(checkpointer, SaverCore):
                allowlist = graph_allowlist(self)
                if allowlist:
                    checkpointer.with_allowlist(allowlist)
            return resolved

        Pregel._apply_checkpointer_allowlist = _apply_checkpointer_allowlist  # type: ignore[method-assign]
