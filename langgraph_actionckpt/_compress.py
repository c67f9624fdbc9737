"""Compression of stored values too small for PostgreSQL's own (TOAST).

PostgreSQL compresses a row only once it passes about 2 KB, so the values a
saver writes every superstep (a checkpoint of a few hundred bytes, a 1 KB
message appended to a list) are stored raw. Values of at least ``min_size``
bytes are deflated here (zlib, level 1: ~20 us per KB) and kept only when that
saves at least an eighth. A compressed value's type gets a prefix, so rows
written before, or by a saver with compression off, read back unchanged.

Checkpoints are deflated with a preset dictionary of the keys LangGraph writes
in every checkpoint, which roughly halves them.
"""

from __future__ import annotations

import zlib

from .errors import SerializationError

PLAIN_PREFIX = "z:"
"""Type prefix of a value deflated without a dictionary."""

CHECKPOINT_PREFIX = "zc:"
"""Type prefix of a checkpoint deflated with :data:`CHECKPOINT_DICT`."""

CHECKPOINT_DICT = (
    b"\xa1v\xa2ts\xa2id\xb0channel_versions\xadversions_seen\xb0updated_channels"
    b"\xaechannel_values\xa9__start__\xa9__input__\xaa__interrupt__\xa7__end__"
    b"\xa9__pregel_\xa8messages\xb0branch:to:\xb9000000000"
)
"""Byte strings found in most msgpack checkpoints (the most frequent last)."""

MAX_INFLATED = 1 << 30
"""Largest value a stored compressed value may inflate to (the database is untrusted)."""

_LEVEL = 1
_WBITS = -15  # raw deflate: no zlib header or checksum (PostgreSQL checksums pages)


def deflate(
    type_: str, data: bytes, min_size: int, *, checkpoint: bool = False
) -> tuple[str, bytes]:
    """Compress ``data`` when it is big enough and compressible; else return it as is."""
    if min_size <= 0 or len(data) < min_size:
        return type_, data
    if checkpoint:
        obj = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, zdict=CHECKPOINT_DICT)
    else:
        obj = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS)
    packed = obj.compress(data) + obj.flush()
    if len(packed) > len(data) - (len(data) >> 3):
        return type_, data
    return (CHECKPOINT_PREFIX if checkpoint else PLAIN_PREFIX) + type_, packed


def is_compressed(type_: str | None) -> bool:
    """Whether a stored type names a compressed value."""
    return type_ is not None and (
        type_.startswith(PLAIN_PREFIX) or type_.startswith(CHECKPOINT_PREFIX)
    )


def inflate(type_: str, data: bytes | None) -> tuple[str, bytes | None]:
    """Undo :func:`deflate`: the original type and bytes (other values pass through)."""
    if type_.startswith(PLAIN_PREFIX):
        inner, obj = type_[len(PLAIN_PREFIX) :], zlib.decompressobj(_WBITS)
    elif type_.startswith(CHECKPOINT_PREFIX):
        inner = type_[len(CHECKPOINT_PREFIX) :]
        obj = zlib.decompressobj(_WBITS, zdict=CHECKPOINT_DICT)
    else:
        return type_, data
    try:
        out = obj.decompress(data or b"", MAX_INFLATED)
    except zlib.error as exc:
        raise SerializationError(f"stored {inner!r} value does not inflate: {exc}") from exc
    if obj.unconsumed_tail or not obj.eof:
        raise SerializationError(
            f"stored {inner!r} value is truncated or inflates past {MAX_INFLATED} bytes"
        )
    return inner, out
