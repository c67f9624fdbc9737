"""Exact replay: a logged result comes back as the same type and value, or not at all.

An action's result is stored in the ``output`` column with the package's
readable JSON encoding (:mod:`langgraph_actionckpt.db.encoding`), which people
and tools read. That form rebuilds JSON, LangChain messages and documents,
bytes, datetimes, UUIDs, decimals and sets, but not pydantic models,
dataclasses, enums, named tuples or numpy arrays. So when a ``@action`` or tool
completes, :func:`seal` checks that the readable form gives the value back
(:func:`faithful`); if not, it stores the saver's own serializer's form of the
value in ``meta.typed``, checked the same way. That serializer loads only types
on its allowlist (LangGraph's safe types, the graph's state types) plus the
classes the action's return annotation names (:func:`declared_types`); nothing
is ever unpickled or imported by a name the database holds otherwise.

A value neither form gives back (an open file, an unannotated class) is logged
as its ``repr`` for people, marked not replayable with the reason, and warned
about once per action name: an idempotent action then runs again on resume, a
non-idempotent one stops the resume with
:class:`~langgraph_actionckpt.NotReplayableError`. Never a lookalike.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import math
import typing
import warnings
from collections.abc import Callable
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db.encoding import from_jsonable, to_jsonable
from langgraph_actionckpt.replay.core import NOT_REPLAYABLE

__all__ = ["TYPED", "declared_types", "faithful", "rebuild", "seal", "tool_types"]

TYPED = "typed"
"""``meta`` key holding the serializer's form of a result the readable form loses."""

Types = frozenset[tuple[str, ...]]
_NONE: Types = frozenset()
_PLAIN = (str, int, bool, type(None))
_warned: set[str] = set()


@functools.lru_cache(maxsize=1024)
def declared_types(fn: Callable[..., Any] | None) -> Types:
    """The classes ``fn``'s return annotation names, as allowlist entries (nested too)."""
    if fn is None:
        return _NONE
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # noqa: BLE001 - an unresolvable annotation allows nothing more
        return _NONE
    return _types_of(hint)


def _types_of(hint: Any) -> Types:
    if hint is None:
        return _NONE
    from langgraph._internal._serde import build_serde_allowlist

    found: set[tuple[str, ...]] = set()
    _walk(hint, found, 0)
    try:
        found |= build_serde_allowlist(schemas=[hint])
    except Exception:  # noqa: BLE001 - LangGraph's walk is best effort; ours stands
        pass
    return frozenset(found)


def _walk(hint: Any, found: set[tuple[str, ...]], depth: int) -> None:
    if depth > 20:
        return
    if isinstance(hint, type) and hint.__module__ != "builtins":
        found.add((hint.__module__, hint.__qualname__))
        if dataclasses.is_dataclass(hint) or hasattr(hint, "_fields"):
            try:
                for sub in typing.get_type_hints(hint).values():
                    _walk(sub, found, depth + 1)
            except Exception:  # noqa: BLE001
                pass
    for arg in typing.get_args(hint):
        _walk(arg, found, depth + 1)


def tool_types(tool: BaseTool) -> Types:
    """The classes a tool's function (or ``_run``) declares it returns."""
    fn = getattr(tool, "coroutine", None) or getattr(tool, "func", None)
    if fn is None:
        fn = getattr(type(tool), "_arun" if _own(tool, "_arun") else "_run", None)
    return declared_types(fn)


def _own(tool: BaseTool, name: str) -> bool:
    return getattr(type(tool), name, None) is not getattr(BaseTool, name, None)


def faithful(value: Any, back: Any, depth: int = 0) -> bool:
    """Whether ``back`` is ``value`` again: the same types all the way down, equal values."""
    if type(value) is not type(back):
        return False
    if depth > 100:
        return True
    if isinstance(value, float):
        return value == back or (math.isnan(value) and math.isnan(back))
    if isinstance(value, dict):
        return value.keys() == back.keys() and all(
            faithful(v, back[k], depth + 1) for k, v in value.items()
        )
    if isinstance(value, (list, tuple)):
        return len(value) == len(back) and all(
            faithful(a, b, depth + 1) for a, b in zip(value, back, strict=True)
        )
    if type(value).__module__ == "numpy":
        import numpy as np

        return bool(
            np.shape(value) == np.shape(back)
            and getattr(value, "dtype", None) == getattr(back, "dtype", None)
            and np.array_equal(value, back, equal_nan=value.dtype.kind in "fc")
        )
    try:
        return bool(value == back)
    except Exception:  # noqa: BLE001 - a type that cannot compare is not known to be equal
        return False


@functools.lru_cache(maxsize=64)
def _serde_with(serde: Any, types: Types) -> Any:
    """The saver's serializer, allowed the action's declared types too."""
    widen = getattr(serde, "with_msgpack_allowlist", None)
    return widen(types) if types and callable(widen) else serde


def seal(record: ActionRecord, output: Any, serde: Any, types: Types) -> dict[str, Any]:
    """The fields a completed action's row needs so its replay returns ``output`` exactly.

    Args:
        record: The live action's row (its name, attempt and meta).
        output: The result.
        serde: The saver's serializer.
        types: The classes the action declares it returns.

    Returns:
        Extra row fields: nothing when the readable form is exact; ``meta``
        with the serializer's form; or ``meta`` with the reason and
        ``replayable=False`` (warned about once per action name).
    """
    # A retry's row replaces what an earlier attempt noted (meta merges otherwise)
    reset: dict[str, Any] = {TYPED: None, NOT_REPLAYABLE: None} if record.attempt > 1 else {}
    if isinstance(record.meta, dict):
        reset = {**record.meta, **reset}
    if _exact_as_json(output):
        return {"meta": reset} if reset else {}
    kind = f"{type(output).__module__}.{type(output).__qualname__}"
    try:
        ser = _serde_with(serde, types)
        form, data = ser.dumps_typed(output)
        if faithful(output, ser.loads_typed((form, data))):
            typed = {"form": form, "type": kind, "data": base64.b64encode(data).decode("ascii")}
            return {"meta": {**reset, TYPED: typed}}
        why = f"a {kind} is not rebuilt by the serializer's allowlist"
    except Exception as exc:  # noqa: BLE001 - an unserializable result is logged, not raised
        why = f"a {kind} cannot be serialized ({type(exc).__name__})"
    reason = f"{why}; declare its class in the action's return annotation, or return plain data"
    name = str(record.name)
    if name not in _warned:
        _warned.add(name)
        warnings.warn(
            f"the result of action {name!r} is logged but cannot be replayed: {reason}",
            RuntimeWarning,
            stacklevel=2,
        )
    return {"meta": {**reset, NOT_REPLAYABLE: reason}, "replayable": False}


def _exact_as_json(output: Any) -> bool:
    """Whether the readable JSON form gives ``output`` back as it is."""
    cls = type(output)
    if cls in _PLAIN:
        return True
    if cls is ToolMessage and type(output.content) is str and output.artifact is None:
        return True  # a tool called with its tool call id: LangChain's own message form
    return faithful(output, from_jsonable(to_jsonable(output)))


def rebuild(record: ActionRecord, serde: Any, types: Types) -> ActionRecord | str:
    """The row to serve with its exact result, or why its result cannot come back."""
    meta = record.meta
    typed = meta.get(TYPED) if isinstance(meta, dict) else None
    if not isinstance(typed, dict):
        return record
    try:
        data = base64.b64decode(typed["data"])
        value = _serde_with(serde, types).loads_typed((typed["form"], data))
    except Exception as exc:  # noqa: BLE001 - a damaged envelope is not served
        return f"its stored {typed.get('type')} did not load ({type(exc).__name__})"
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if kind != typed.get("type"):
        return f"its stored {typed.get('type')} came back as a {kind} (not on the allowlist)"
    return dataclasses.replace(record, output=value)
