"""Compression of stored values too small for PostgreSQL's own (TOAST).

PostgreSQL compresses a row only once it passes about 2 KB, so the values a
saver writes every superstep (a checkpoint of a few hundred bytes, a 1 KB
message appended to a list) are stored raw. Values of at least ``min_size``
bytes are compressed here with Zstandard (level 3: ~6 us to pack and ~2 us to
unpack a KB of text, three times faster to read back than zlib at the same
ratio) and kept compressed only when that saves at least an eighth. A
compressed value's type gets a prefix, so rows stored raw (older ones, or by a
saver with compression off) read back unchanged.

Checkpoints are compressed with a preset dictionary of the keys LangGraph
writes in every checkpoint, which roughly halves them.
"""

from __future__ import annotations

import threading

import zstandard

from langgraph_actionckpt.checkpoints.budget import LoadBudget, refused
from langgraph_actionckpt.checkpoints.place import Place

PLAIN_PREFIX = "z:"
"""Type prefix of a value compressed without a dictionary."""

CHECKPOINT_PREFIX = "zc:"
"""Type prefix of a checkpoint compressed with :data:`CHECKPOINT_DICT`."""

CHECKPOINT_DICT = (
    b"\xa1v\xa2ts\xa2id\xb0channel_versions\xadversions_seen\xb0updated_channels"
    b"\xaechannel_values\xa9__start__\xa9__input__\xaa__interrupt__\xa7__end__"
    b"\xa9__pregel_\xa8messages\xb0branch:to:\xb9000000000"
)
"""Byte strings found in most msgpack checkpoints (the most frequent last)."""

MAX_UNPACKED = 1 << 30
"""Largest size a stored compressed value may declare (the database is untrusted)."""

_LEVEL = 3
_local = threading.local()  # zstandard's (de)compressor objects are not thread-safe


class _Codecs:
    __slots__ = ("pack", "pack_checkpoint", "unpack", "unpack_checkpoint")

    def __init__(self) -> None:
        ckpt_dict = zstandard.ZstdCompressionDict(
            CHECKPOINT_DICT, dict_type=zstandard.DICT_TYPE_RAWCONTENT
        )
        ckpt_dict.precompute_compress(level=_LEVEL)  # else it is loaded again per value
        self.pack = zstandard.ZstdCompressor(level=_LEVEL)
        self.pack_checkpoint = zstandard.ZstdCompressor(level=_LEVEL, dict_data=ckpt_dict)
        self.unpack = zstandard.ZstdDecompressor()
        self.unpack_checkpoint = zstandard.ZstdDecompressor(dict_data=ckpt_dict)


def _codecs() -> _Codecs:
    codecs: _Codecs | None = getattr(_local, "codecs", None)
    if codecs is None:
        codecs = _local.codecs = _Codecs()
    return codecs


def pack_value(
    type_: str, data: bytes, min_size: int, *, checkpoint: bool = False
) -> tuple[str, bytes]:
    """Compress ``data`` when it is big enough and compressible; else return it as is."""
    if min_size <= 0 or len(data) < min_size:
        return type_, data
    codecs = _codecs()
    packed = (codecs.pack_checkpoint if checkpoint else codecs.pack).compress(data)
    if len(packed) > len(data) - (len(data) >> 3):
        return type_, data
    return (CHECKPOINT_PREFIX if checkpoint else PLAIN_PREFIX) + type_, packed


def is_compressed(type_: str | None) -> bool:
    """Whether a stored type names a compressed value."""
    return type_ is not None and (
        type_.startswith(PLAIN_PREFIX) or type_.startswith(CHECKPOINT_PREFIX)
    )


def unpack_value(
    type_: str,
    data: bytes | None,
    budget: LoadBudget | None = None,
    place: Place | None = None,
) -> tuple[str, bytes | None]:
    """Undo :func:`pack_value`: the original type and bytes (other values pass through).

    Args:
        type_: The stored type.
        data: The stored bytes.
        budget: The load's decompression budget; the size a value declares is
            drawn from it before any memory is taken.
        place: Where the value is stored, for errors.

    Raises:
        SerializationError: The value does not decompress, declares no size or
            more than :data:`MAX_UNPACKED`, or would pass ``budget``.
    """
    if type_.startswith(PLAIN_PREFIX):
        inner, unpack = type_[len(PLAIN_PREFIX) :], _codecs().unpack
    elif type_.startswith(CHECKPOINT_PREFIX):
        inner, unpack = type_[len(CHECKPOINT_PREFIX) :], _codecs().unpack_checkpoint
    else:
        return type_, data
    packed = data or b""
    try:
        size = zstandard.frame_content_size(packed)
    except zstandard.ZstdError as exc:
        raise refused(place, f"stored {inner!r} value is no Zstandard frame: {exc}") from exc
    if size < 0 or size > MAX_UNPACKED:  # we always write the size; a bomb lies about it
        raise refused(
            place, f"stored {inner!r} value declares no size or more than {MAX_UNPACKED} bytes"
        )
    if budget is not None:
        budget.take(size, place)
    try:
        out = unpack.decompress(packed)
    except zstandard.ZstdError as exc:
        raise refused(place, f"stored {inner!r} value does not decompress: {exc}") from exc
    if len(out) != size:
        raise refused(place, f"stored {inner!r} value is not the size it declares")
    return inner, out
