"""The checkpoint serializer: LangGraph's msgpack serializer, strict and surrogate-exact.

LangGraph's ``JsonPlusSerializer`` encodes strings with
``OPT_REPLACE_SURROGATES``: a lone surrogate (``"\\ud800"``, which LLM outputs
and truncated UTF-16 data do contain) silently becomes ``"?"``. This subclass
keeps such values exact: when the encoded bytes contain ``?`` at all, a probe
encoding that refuses surrogates checks whether any were replaced; if so, the
value is stored as ``msgpack+esc`` with every affected string escaped (the
reversible escape of :mod:`langgraph_actionckpt.db.encoding`) and unescaped on
load. Values without surrogates are byte-for-byte what LangGraph stores.

Loading stays strict: only allowlisted types are revived (LangGraph adds the
graph's own state types when it compiles the graph), and pickle is never used.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ormsgpack
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer, _msgpack_default, _option

from langgraph_actionckpt.db.encoding import MARK, escape_text, unescape_text

ESCAPED_TYPE = "msgpack+esc"
_PROBE_OPTION = _option & ~ormsgpack.OPT_REPLACE_SURROGATES


def _probe_default(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dump()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    return _msgpack_default(obj)


def has_surrogates(obj: Any) -> bool:
    """Whether ``obj`` holds a string with a lone surrogate (walked by ormsgpack in C)."""
    try:
        ormsgpack.packb(obj, default=_probe_default, option=_PROBE_OPTION)
    except TypeError as exc:
        if "surrogates" in str(exc):
            return True
        return _walk_finds(obj)
    except Exception:  # noqa: BLE001 - the probe is best effort; walk instead
        return _walk_finds(obj)
    return False


def _needs(s: str) -> bool:
    return escape_text(s) != s


def _walk_finds(obj: Any, depth: int = 0) -> bool:
    if depth > 100:
        return False
    if isinstance(obj, str):
        return _needs(obj)
    if isinstance(obj, dict):
        return any(_walk_finds(k, depth + 1) or _walk_finds(v, depth + 1) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_walk_finds(v, depth + 1) for v in obj)
    fields = getattr(obj, "__dict__", None)
    if isinstance(fields, dict):
        return any(_walk_finds(v, depth + 1) for v in fields.values())
    return False


def _transform(obj: Any, fn: Any, depth: int = 0) -> Any:
    """Rebuild ``obj`` with ``fn`` applied to every string (containers, models, dataclasses)."""
    if depth > 100:
        return obj
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, dict):
        out = {_transform(k, fn, depth + 1): _transform(v, fn, depth + 1) for k, v in obj.items()}
        if type(obj) is dict:
            return out
        try:
            return type(obj)(out)
        except Exception:  # noqa: BLE001 - a dict subclass that cannot be rebuilt
            return out
    if isinstance(obj, list):
        return [_transform(v, fn, depth + 1) for v in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_transform(v, fn, depth + 1) for v in obj)
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_transform(v, fn, depth + 1) for v in obj)
    model_fields = getattr(type(obj), "model_fields", None)
    if isinstance(model_fields, dict) and hasattr(obj, "model_copy"):
        update = {}
        for name in model_fields:
            value = getattr(obj, name, None)
            new = _transform(value, fn, depth + 1)
            if new is not value:
                update[name] = new
        return obj.model_copy(update=update) if update else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            new = _transform(value, fn, depth + 1)
            if new is not value:
                changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj
    return obj


def _escape(s: str) -> str:
    return escape_text(s)


def _unescape(s: str) -> str:
    return unescape_text(s) if s.startswith(MARK) else s


class ActionSerializer(JsonPlusSerializer):
    """``JsonPlusSerializer`` in strict allowlist mode that keeps lone surrogates exact."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize; values with lone surrogates get the ``msgpack+esc`` encoding."""
        type_, data = super().dumps_typed(obj)
        if type_ == "msgpack" and b"?" in data and has_surrogates(obj):
            return self.dumps_escaped(obj)
        return type_, data

    def dumps_escaped(self, obj: Any) -> tuple[str, bytes]:
        """Serialize with every string that needs it escaped (see module docstring)."""
        _, data = super().dumps_typed(_transform(obj, _escape))
        return ESCAPED_TYPE, data

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Load, unescaping ``msgpack+esc`` values."""
        type_, payload = data
        if type_ == ESCAPED_TYPE:
            return _transform(super().loads_typed(("msgpack", payload)), _unescape)
        return super().loads_typed(data)
