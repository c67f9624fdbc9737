"""The ``to_dict()`` of the ops results: dataclasses as dicts ready for ``json.dumps``."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

__all__ = ["Jsonable"]


def _iso(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def _jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return _iso(obj)


class Jsonable:
    """A dataclass result with a ``to_dict()``."""

    def to_dict(self) -> dict[str, Any]:
        """A dict ready for ``json.dumps`` (datetimes as ISO 8601 strings)."""
        out = _jsonable(self)
        assert isinstance(out, dict)
        return out
