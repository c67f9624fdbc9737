"""Array parameters whose element type is known: ``text[]`` and ``bytea[]`` in binary.

psycopg binds a plain ``list`` by looking at its elements first (which type,
which dimensions), again for every list; the store statement binds five
lists per superstep (the checkpoint's channels and versions, a task's write
channels, types and values). A :class:`TextArray` or :class:`ByteaArray` is a
``list`` that says its type, dumped straight into PostgreSQL's binary array
format. Where the dumpers are not registered (a connection whose adapters were
copied before this module was imported), psycopg dumps them as the lists they
are, with the same result.
"""

from __future__ import annotations

import struct
from typing import Any

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format

__all__ = ["ArrayLiteral", "ByteaArray", "TextArray", "register"]

TEXT_ARRAY_OID = 1009
BYTEA_ARRAY_OID = 1001
_TEXT_OID = 25
_BYTEA_OID = 17

_HEAD = struct.Struct("!iiIii")  # ndim, has_null, element oid, length, lower bound
_EMPTY = struct.Struct("!iiI")  # ndim 0
_LEN = struct.Struct("!i")
_NULL = _LEN.pack(-1)


class TextArray(list[str]):
    """A list of strings bound as ``text[]`` (a None item is bound as NULL)."""

    __slots__ = ()


class ByteaArray(list[bytes]):
    """A list of byte strings bound as ``bytea[]``."""

    __slots__ = ()


def _dump(items: list[Any], element_oid: int, encoding: str | None) -> bytes:
    """The binary array of ``items``: strings encoded in ``encoding``, or bytes (``None``)."""
    if not items:
        return _EMPTY.pack(0, 0, element_oid)
    parts = [b""]
    has_null = 0
    pack = _LEN.pack
    for item in items:
        if item is None:
            parts.append(_NULL)
            has_null = 1
            continue
        # inline, not a function per item: a superstep dumps a dozen of them
        data = bytes(item) if encoding is None else item.encode(encoding)
        parts.append(pack(len(data)))
        parts.append(data)
    parts[0] = _HEAD.pack(1, has_null, element_oid, len(items), 1)
    return b"".join(parts)


class TextArrayDumper(Dumper):
    """Binary ``text[]`` from a :class:`TextArray` (strings in the connection's encoding)."""

    format = Format.BINARY
    oid = TEXT_ARRAY_OID

    def __init__(self, cls: type, context: Any = None) -> None:
        super().__init__(cls, context)
        conn = self.connection
        self._encoding = conn.info.encoding if conn is not None else "utf-8"

    def dump(self, obj: Any) -> bytes:
        return _dump(obj, _TEXT_OID, self._encoding)


class ByteaArrayDumper(Dumper):
    """Binary ``bytea[]`` from a :class:`ByteaArray`."""

    format = Format.BINARY
    oid = BYTEA_ARRAY_OID

    def dump(self, obj: Any) -> bytes:
        return _dump(obj, _BYTEA_OID, None)


def register(context: Any = None) -> None:
    """Register the dumpers on ``context`` (a connection), or process-wide when ``None``."""
    adapters = psycopg.adapters if context is None else context.adapters
    adapters.register_dumper(TextArray, TextArrayDumper)
    adapters.register_dumper(ByteaArray, ByteaArrayDumper)
    adapters.register_dumper(ArrayLiteral, ArrayLiteralDumper)


class ArrayLiteral(bytes):
    """An array literal (``{...}``, UTF-8), bound as text of unknown type.

    The statement casts it (``%s::int[]``): the server reads it with the
    array type's input function, and psycopg sends the bytes as they are.
    """

    __slots__ = ()


class ArrayLiteralDumper(Dumper):
    """The bytes of an :class:`ArrayLiteral`, in text format (type left to the statement)."""

    format = Format.TEXT
    oid = 0

    def dump(self, obj: Any) -> bytes:
        return obj  # type: ignore[no-any-return]


register()
