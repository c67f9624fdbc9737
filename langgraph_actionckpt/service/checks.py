"""Checks of a request's values before the saver (and the database) sees them.

A value the database would refuse (a column's type, range or constraint) is
refused here with a message of ours naming the field, so the client never gets
PostgreSQL's text (which quotes the row) and the server logs nothing.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from collections.abc import Iterable
from typing import Any

from langgraph_actionckpt._config import check_length
from langgraph_actionckpt.actions.record import COLUMNS, STATUSES
from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["check_filter", "check_limit", "check_record_dict", "check_threads", "parse_time"]

_INT32 = frozenset(
    {
        "step",
        "attempt",
        "replayed",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cached_tokens",
        "reasoning_tokens",
    }
)
_INT64 = frozenset({"step_index"})
_BOOL = frozenset({"idempotent", "replayable"})
_FLOAT = frozenset({"latency_ms", "ttft_ms"})
_TIME = frozenset({"started_at", "completed_at"})
_JSON = frozenset({"input", "output", "error", "meta"})
_NOT_NULL = frozenset({"attempt", "idempotent", "replayable", "replayed", "checkpoint_ns"})
_TEXT = frozenset(COLUMNS) - _INT32 - _INT64 - _BOOL - _FLOAT - _TIME - _JSON - {"lc_run_id"}
_INT_RANGE = {32: (-(2**31), 2**31 - 1), 64: (-(2**63), 2**63 - 1)}


def check_record_dict(value: Any) -> dict[str, Any]:
    """Refuse an action record (the wire's decoded JSON) that its table would refuse.

    Raises:
        ConfigurationError: Not a mapping, a required field missing, or a field
            of the wrong type or out of its column's range (the message names it).
    """
    if not isinstance(value, dict):
        raise ConfigurationError(f"an action record must be a JSON object, not {_kind(value)}")
    for name in ("thread_id", "action_id", "action_type"):
        if not isinstance(value.get(name), str) or not value[name]:
            raise ConfigurationError(f"an action record needs {name} (a non-empty string)")
    status = value.get("status", "running")
    if status not in STATUSES:
        raise ConfigurationError(f"action record status must be one of {', '.join(STATUSES)}")
    for name in COLUMNS:
        field = value.get(name)
        if field is None:
            if name in _NOT_NULL and name in value:
                raise ConfigurationError(f"action record field {name} cannot be null")
            continue
        _check_field(name, field)
    return value


def _check_field(name: str, field: Any) -> None:
    if name in _TEXT:
        ok = isinstance(field, str)
    elif name in _INT32 or name in _INT64:
        low, high = _INT_RANGE[32 if name in _INT32 else 64]
        ok = isinstance(field, int) and not isinstance(field, bool) and low <= field <= high
    elif name in _BOOL:
        ok = isinstance(field, bool)
    elif name in _FLOAT:
        ok = isinstance(field, (int, float)) and not isinstance(field, bool)
        ok = ok and math.isfinite(field)
    elif name in _TIME:
        ok = isinstance(field, str) and _is_time(field)
    elif name == "lc_run_id":
        ok = isinstance(field, str) and _is_uuid(field)
    else:  # a JSON column holds any JSON value
        ok = True
    if not ok:
        raise ConfigurationError(
            f"action record field {name} has a bad value ({_kind(field)}); "
            f"expected {_EXPECTED.get(name, 'a string')}"
        )


_EXPECTED = {
    **dict.fromkeys(_INT32, "a 32-bit integer"),
    **dict.fromkeys(_INT64, "a 64-bit integer"),
    **dict.fromkeys(_BOOL, "true or false"),
    **dict.fromkeys(_FLOAT, "a finite number"),
    **dict.fromkeys(_TIME, "an ISO 8601 time"),
    "lc_run_id": "a UUID",
}


def _is_time(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def parse_time(text: str, what: str) -> dt.datetime:
    """An ISO 8601 time of a request.

    Raises:
        ConfigurationError: ``text`` is not one (the message names ``what``).
    """
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise ConfigurationError(f"{what} must be an ISO 8601 time") from None


def check_limit(limit: int, what: str = "limit") -> int:
    """A request's row limit (``LIMIT``: not negative).

    Raises:
        ConfigurationError: It is negative.
    """
    if limit < 0:
        raise ConfigurationError(f"{what} must not be negative, got {limit}")
    return limit


def check_threads(thread_ids: Iterable[str]) -> None:
    """Refuse a thread id over its limit (``LIMITS``; NUL and lone surrogates count escaped).

    Raises:
        ConfigurationError: One is too long (every path that names a thread, a
            copy's target and a lease's included).
    """
    for thread_id in thread_ids:
        check_length("thread id", escape_text(thread_id))


def check_filter(values: Iterable[str], what: str) -> None:
    """Refuse a filter value holding NUL (a ``text`` parameter cannot carry it).

    Raises:
        ConfigurationError: One does (the message names ``what``).
    """
    for value in values:
        if "\x00" in value:
            raise ConfigurationError(f"{what} cannot contain NUL")
