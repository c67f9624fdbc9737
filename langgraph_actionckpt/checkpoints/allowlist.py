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

The functional API gets more than LangGraph gives it even in strict mode: a
``@task``'s result is stored as a pending write and read back when the
entrypoint runs again after an ``interrupt()``, so the types a task declares
(its return annotation and parameters) and the entrypoint's input, output and
save types (resolved from string annotations too) join the allowlist. Tasks are
found by name: those the entrypoint (or a graph node) refers to through its
globals, its closure or its nested functions, and the tasks those call.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import types
import typing
from collections.abc import Iterator
from typing import Any, cast

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


def _node_functions(graph: Any) -> Iterator[Any]:
    """The user functions behind a compiled graph's nodes (plain callables only)."""
    for node in getattr(graph, "nodes", {}).values():
        bound = getattr(node, "bound", None)
        for attr in ("func", "afunc"):
            fn = getattr(bound, attr, None)
            if fn is None:
                continue
            fn = inspect.unwrap(fn)  # a sync entrypoint's afunc wraps it for the executor
            if isinstance(fn, functools.partial):
                fn = fn.func
            if isinstance(fn, types.FunctionType):
                yield fn


def _referenced(fn: types.FunctionType) -> Iterator[Any]:
    """Objects a function names: closure cells, then globals (nested code included)."""
    closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False))
    codes = [fn.__code__]
    while codes:
        code = codes.pop()
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for name in (*code.co_freevars, *code.co_names):
            cell = closure.get(name)
            if cell is not None:
                try:
                    yield cell.cell_contents
                except ValueError:  # an empty cell: not assigned yet
                    pass
            elif name in fn.__globals__:
                yield fn.__globals__[name]


def _tasks(roots: list[types.FunctionType]) -> list[Any]:
    """The ``@task`` objects reachable by name from ``roots`` (and from those tasks)."""
    from langgraph.func import _TaskFunction

    found: dict[int, Any] = {}
    queue, seen = list(roots), set()
    while queue:
        fn = queue.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        for obj in _referenced(fn):
            if isinstance(obj, _TaskFunction) and id(obj) not in found:
                found[id(obj)] = obj
                inner = inspect.unwrap(obj.func)
                if isinstance(inner, types.FunctionType):
                    queue.append(inner)
    return list(found.values())


def _hints(fn: Any) -> dict[str, Any]:
    """A callable's resolved annotations (string ones included); empty if unresolvable."""
    try:
        return typing.get_type_hints(inspect.unwrap(fn))
    except Exception as exc:  # noqa: BLE001 - a forward ref that does not resolve
        logger.debug("annotations of %r not resolved (%s)", fn, exc)
        return {}


def _entrypoint_types(fn: types.FunctionType) -> list[Any]:
    """An entrypoint's input type and its output and save types (``entrypoint.final``)."""
    from langgraph.func import entrypoint

    hints = _hints(fn)
    params = list(inspect.signature(fn).parameters)
    out = [hints[params[0]]] if params and params[0] in hints else []
    ret = hints.get("return")
    if ret is not None:
        out.extend(typing.get_args(ret) if typing.get_origin(ret) is entrypoint.final else [ret])
    return out


def functional_allowlist(graph: Any) -> set[tuple[str, ...]]:
    """Types the functional API stores: tasks' declared types, an entrypoint's own.

    Empty when the graph neither is an entrypoint nor calls tasks.
    """
    from langgraph._internal import _serde
    from langgraph._internal._constants import PREVIOUS

    roots = list(_node_functions(graph))
    schemas: list[Any] = []
    is_entrypoint = getattr(graph, "builder", None) is None and PREVIOUS in graph.channels
    if is_entrypoint:
        for fn in roots:
            schemas.extend(_entrypoint_types(fn))
    for t in _tasks(roots):
        schemas.extend(_hints(t.func).values())
    schemas = [s for s in schemas if s is not Any and s is not None]
    if not schemas:
        return set()
    allowlist: set[tuple[str, ...]] = _serde.build_serde_allowlist(schemas=schemas)
    return allowlist


def graph_allowlist(graph: Any) -> set[tuple[str, ...]]:
    """The compiled graph's allowlist (LangGraph's, or built as strict mode would).

    Plus, for the functional API, the types its tasks and entrypoint declare.
    """
    cached: set[tuple[str, ...]] | None = graph.__dict__.get(_ATTR)
    if cached is not None:
        return cached
    from langgraph.graph import StateGraph

    given: set[tuple[str, ...]] | None = getattr(graph, "_serde_allowlist", None)
    allowlist: set[tuple[str, ...]] = set(given or ())
    builder = getattr(graph, "builder", None)
    try:
        if given is None and isinstance(builder, StateGraph):
            allowlist |= state_graph_allowlist(builder)
        allowlist |= functional_allowlist(graph)
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

        from langgraph_actionckpt._contracts import is_action_saver

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
            # any of our savers, the remote ones (langgraph_actionckpt.service) too
            if is_action_saver(checkpointer):
                allowlist = graph_allowlist(self)
                if allowlist:
                    cast(Any, checkpointer).with_allowlist(allowlist)
            return resolved

        Pregel._apply_checkpointer_allowlist = _apply_checkpointer_allowlist  # type: ignore[method-assign]
