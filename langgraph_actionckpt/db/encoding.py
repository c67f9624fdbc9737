"""Reversible JSON encoding for values stored in JSONB columns.

PostgreSQL's JSONB cannot hold ``\\u0000`` and JSON itself cannot hold lone
surrogates. LLM outputs, tool results and checkpoint metadata contain both, and
action inputs/outputs contain values JSON has no type for (bytes, datetimes,
pydantic models, LangChain messages, numpy scalars). This module turns any such
value into plain JSON and back, losslessly where a type is known:

* a string holding NUL, a lone surrogate, or starting with the escape marker is
  stored as ``MARK + escaped`` where backslash, NUL and surrogates are escaped;
* values JSON cannot express are stored as a tagged object ``{TAG: kind, ...}``;
* a user dict that happens to use ``TAG`` as a key is wrapped, so decoding
  never confuses user data with our tags.

Decoding rebuilds only a fixed allowlist of types (LangChain messages through
``messages_from_dict``, documents, datetimes, bytes, ...). Anything else comes
back as its plain JSON form: database content is treated as untrusted input and
never used to import or call code.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import enum
import math
import re
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from langgraph_actionckpt._limits import check_length
from langgraph_actionckpt.errors import ConfigurationError

MARK = "\ue000"
"""Private-use character that prefixes escaped strings."""

TAG = "__ack__"
"""Key that marks a tagged (non-JSON) value."""

_NEEDS_ESCAPE = re.compile("[\x00\\ud800-\\udfff]")
_ESCAPED = re.compile(r"\\(\\|0|u[0-9a-f]{4})")


def _escape_str(value: str) -> str:
    if not value:
        return value
    if value.isascii():  # fast path (C): only NUL can need escaping
        if "\x00" not in value:
            return value
    elif value[0] != MARK and _NEEDS_ESCAPE.search(value) is None:
        return value
    out = value.replace("\\", "\\\\").replace("\x00", "\\0")
    out = re.sub("[\\ud800-\\udfff]", lambda m: f"\\u{ord(m.group()):04x}", out)
    return MARK + out


def _unescape_str(value: str) -> str:
    if not value or value[0] != MARK:
        return value

    def repl(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == "\\":
            return "\\"
        if code == "0":
            return "\x00"
        return chr(int(code[1:], 16))

    return _ESCAPED.sub(repl, value[1:])


def escape_text(value: str) -> str:
    """Make a string storable in a ``text`` column (no NUL, no lone surrogate), reversibly.

    Raises:
        ConfigurationError: ``value`` is not a string (an action type of 123...).
    """
    try:
        # the common case inline: an ASCII string without NUL is stored as it is
        if value.isascii() and "\x00" not in value:
            return value
        return _escape_str(value)
    except AttributeError:
        raise ConfigurationError(
            f"a text field must be a string, not {type(value).__name__} ({str(value)[:40]!r})"
        ) from None


def stored_id(what: str, value: object) -> str:
    """The stored (escaped) form of an id or a name, checked against its limit.

    The one limit check of every path that reads or writes an id (savers,
    handlers, the lease, the service, the CLI, fork and copy), so each refuses
    the same value with the same error before any SQL.

    Args:
        what: A key of ``_config.LIMITS`` (``"thread id"``, ``"action id"``...).
        value: The id as the caller gave it.

    Raises:
        ConfigurationError: It is longer than its limit.
    """
    text = escape_text(str(value))
    check_length(what, text)
    return text


def plain_id(what: str, value: object) -> str:
    """A checkpoint id as stored: unescaped, so it must hold neither NUL nor a lone surrogate.

    Checkpoint ids are stored as given (they order the thread's history), so one
    a ``text`` column cannot hold is refused here, before any SQL, instead of
    failing in the database after the call was acknowledged.

    Args:
        what: A key of ``_config.LIMITS`` (``"checkpoint id"``).
        value: The id as the caller gave it.

    Raises:
        ConfigurationError: It holds NUL or a lone surrogate, or is longer than its limit.
    """
    text = str(value)
    if _NEEDS_ESCAPE.search(text) is not None:
        raise ConfigurationError(
            f"{what} {text[:40]!r} holds NUL or a lone surrogate, which a {what} cannot hold"
        )
    check_length(what, text)
    return text


def unescape_text(value: str) -> str:
    """Reverse :func:`escape_text`."""
    return _unescape_str(value)


def _is_message(value: Any) -> bool:
    try:
        from langchain_core.messages import BaseMessage
    except ImportError:  # pragma: no cover - langchain-core is a core dependency
        return False
    return isinstance(value, BaseMessage)


def _is_document(value: Any) -> bool:
    try:
        from langchain_core.documents import Document
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, Document)


MAX_DEPTH = 200
"""Nesting :func:`to_jsonable` follows; deeper values are stored as a ``repr`` tag."""


def to_jsonable(value: Any, *, _depth: int = 0) -> Any:
    """Convert ``value`` into a JSON value that :func:`from_jsonable` reverses.

    Never raises for unknown objects: they are stored as their ``repr`` under a
    ``repr`` tag (documented as lossy), so recording an action never fails the
    user's graph.

    Args:
        value: Any Python value.

    Returns:
        A value made of dict, list, str, int, float, bool and None only.
    """
    if _depth > MAX_DEPTH:
        return {TAG: "repr", "type": type(value).__qualname__, "repr": "<nested too deeply>"}
    # Exact built-in types first (an action's input and output are nearly always
    # these): the isinstance chain below, with its ABC checks, costs several
    # times more. Subclasses and everything else take the general path.
    cls = type(value)
    if cls is str:
        return _escape_str(value)
    if cls is dict and _depth < MAX_DEPTH:
        # Plain ASCII strings (no NUL), None and bools are stored as they are:
        # handled inline, they cost no call (a tool's input is such a dict).
        # (At the depth limit the general path below gives what the limit says.)
        d = _depth + 1
        encoded: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                break  # the general path below
            if not k.isascii() or "\x00" in k:
                k = _escape_str(k)
            cv = type(v)
            if cv is str:
                if not v.isascii() or "\x00" in v:
                    v = _escape_str(v)
            elif v is not None and cv is not bool:
                v = to_jsonable(v, _depth=d)
            encoded[k] = v
        else:
            return {TAG: "dict", "v": encoded} if TAG in value else encoded
    elif cls is list and _depth < MAX_DEPTH:
        d = _depth + 1
        return [
            v if type(v) is str and v.isascii() and "\x00" not in v else to_jsonable(v, _depth=d)
            for v in value
        ]
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _escape_str(value)
    if isinstance(value, int) and not isinstance(value, enum.Enum):
        if -(2**63) <= value < 2**63:
            return value
        return {TAG: "bigint", "v": str(value)}
    if isinstance(value, float) and not isinstance(value, enum.Enum):
        if math.isfinite(value):
            return value
        return {TAG: "float", "v": repr(value)}
    d = _depth + 1
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            encoded = {_escape_str(k): to_jsonable(v, _depth=d) for k, v in value.items()}
            if TAG in value:
                return {TAG: "dict", "v": encoded}
            return encoded
        return {
            TAG: "map",
            "v": [[to_jsonable(k, _depth=d), to_jsonable(v, _depth=d)] for k, v in value.items()],
        }
    if isinstance(value, list):
        return [to_jsonable(v, _depth=d) for v in value]
    if isinstance(value, tuple):
        if hasattr(value, "_fields"):  # NamedTuple: keep field names readable
            return {
                TAG: "namedtuple",
                "type": type(value).__qualname__,
                "v": {f: to_jsonable(getattr(value, f), _depth=d) for f in value._fields},
            }
        return {TAG: "tuple", "v": [to_jsonable(v, _depth=d) for v in value]}
    if isinstance(value, (set, frozenset)):
        try:
            members = sorted(value)
        except TypeError:
            members = list(value)
        return {TAG: "set", "v": [to_jsonable(v, _depth=d) for v in members]}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {TAG: "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dt.datetime):
        return {TAG: "datetime", "v": value.isoformat()}
    if isinstance(value, dt.date):
        return {TAG: "date", "v": value.isoformat()}
    if isinstance(value, dt.time):
        return {TAG: "time", "v": value.isoformat()}
    if isinstance(value, dt.timedelta):
        return {TAG: "timedelta", "v": value.total_seconds()}
    if isinstance(value, uuid.UUID):
        return {TAG: "uuid", "v": str(value)}
    if isinstance(value, decimal.Decimal):
        return {TAG: "decimal", "v": str(value)}
    if isinstance(value, enum.Enum):
        return {
            TAG: "enum",
            "type": type(value).__qualname__,
            "v": to_jsonable(value.value, _depth=d),
        }
    if _is_message(value):
        from langchain_core.messages import message_to_dict

        return {TAG: "message", "v": to_jsonable(message_to_dict(value), _depth=d)}
    if _is_document(value):
        return {
            TAG: "document",
            "v": to_jsonable(
                {"page_content": value.page_content, "metadata": value.metadata, "id": value.id},
                _depth=d,
            ),
        }
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":  # numpy scalar
        try:
            return {TAG: "numpy", "dtype": str(value.dtype), "v": to_jsonable(item(), _depth=d)}
        except (TypeError, ValueError):
            pass
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and type(value).__module__ == "numpy":  # numpy array
        return {
            TAG: "ndarray",
            "dtype": str(getattr(value, "dtype", "")),
            "v": to_jsonable(tolist(), _depth=d),
        }
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):  # pydantic v2 model
        try:
            dumped = model_dump(mode="python")
        except Exception:  # noqa: BLE001 - a broken model must not fail recording
            dumped = None
        if isinstance(dumped, dict):
            return {TAG: "model", "type": _qualname(value), "v": to_jsonable(dumped, _depth=d)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {TAG: "dataclass", "type": _qualname(value), "v": to_jsonable(fields, _depth=d)}
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__qualname__}>"
    return {TAG: "repr", "type": _qualname(value), "repr": _escape_str(text)}


def _qualname(value: Any) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def from_jsonable(value: Any) -> Any:
    """Reverse :func:`to_jsonable`.

    Only a fixed set of types is rebuilt; models, dataclasses and enums come
    back as their plain data (a dict or value), never by importing the stored
    type name.

    Args:
        value: A JSON value produced by :func:`to_jsonable` (or any JSON).

    Returns:
        The decoded value.
    """
    if isinstance(value, str):
        return _unescape_str(value)
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(TAG)
    if kind is None or not isinstance(kind, str):
        return {_unescape_str(k): from_jsonable(v) for k, v in value.items()}
    inner: Any = value.get("v")
    if kind == "dict":
        return {_unescape_str(k): from_jsonable(v) for k, v in inner.items()}
    if kind == "map":
        return {_hashable(from_jsonable(k)): from_jsonable(v) for k, v in inner}
    if kind == "tuple":
        return tuple(from_jsonable(v) for v in inner)
    if kind == "set":
        return {_hashable(from_jsonable(v)) for v in inner}
    if kind == "bytes":
        return base64.b64decode(inner)
    if kind == "datetime":
        return dt.datetime.fromisoformat(inner)
    if kind == "date":
        return dt.date.fromisoformat(inner)
    if kind == "time":
        return dt.time.fromisoformat(inner)
    if kind == "timedelta":
        return dt.timedelta(seconds=inner)
    if kind == "uuid":
        return uuid.UUID(inner)
    if kind == "decimal":
        return decimal.Decimal(inner)
    if kind == "bigint":
        return int(inner)
    if kind == "float":
        return float(inner)
    if kind == "message":
        from langchain_core.messages import messages_from_dict

        return messages_from_dict([from_jsonable(inner)])[0]
    if kind == "document":
        from langchain_core.documents import Document

        data = from_jsonable(inner)
        return Document(page_content=data["page_content"], metadata=data["metadata"], id=data["id"])
    if kind in ("numpy", "ndarray", "enum", "model", "dataclass", "namedtuple"):
        return from_jsonable(inner)
    if kind == "repr":
        return {
            TAG: "repr",
            "type": value.get("type"),
            "repr": _unescape_str(value.get("repr", "")),
        }
    return {_unescape_str(k): from_jsonable(v) for k, v in value.items()}


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def dumps(value: Any) -> bytes:
    """Encode ``value`` as JSON bytes suitable for a JSONB parameter."""
    return orjson.dumps(to_jsonable(value))


def loads(data: bytes | str | Any) -> Any:
    """Decode a JSONB column value (already parsed or raw text) back to Python."""
    if isinstance(data, (bytes, bytearray, memoryview, str)):
        data = orjson.loads(bytes(data) if not isinstance(data, str) else data)
    return from_jsonable(data)
