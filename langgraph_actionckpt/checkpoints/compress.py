"""Compression of stored values too small for PostgreSQL's own (TOAST).

PostgreSQL compresses a row only once it passes about 2 KB, so the values a
saver writes every superstep (a checkpoint of a few hundred bytes, a 1 KB
message appended to a list) are stored raw. Values of at least ``min_size``
bytes are compressed here with Zstandard (level 3: it reads back faster than
zlib at the same ratio) and kept compressed only when that saves at least an
eighth. A compressed value's type gets a prefix, so rows stored raw (older ones,
or by a saver with compression off) read back unchanged.

Checkpoints are compressed with a preset dictionary of the skeleton LangGraph
writes in every checkpoint (keys, the version, timestamp and id layouts), which
a lone checkpoint is too small to teach a compressor. Other values up to 16 KiB
(channel values, list deltas, pending writes) get a preset dictionary of the
envelope LangChain's serializer writes around every message: a delta appending
one message does not store the envelope again, and values without messages lose
nothing. A dictionary is part of the stored format: a new one needs a new type
prefix.
"""

from __future__ import annotations

import threading

import zstandard

from langgraph_actionckpt.checkpoints.budget import LoadBudget, refused
from langgraph_actionckpt.checkpoints.place import Place

PLAIN_PREFIX = "z:"
"""Type prefix of a value compressed without a dictionary (written before
:data:`VALUE_PREFIX`; still read)."""

VALUE_PREFIX = "zv:"
"""Type prefix of a value compressed with :data:`VALUE_DICT`."""

CHECKPOINT_PREFIX = "zc:"
"""Type prefix of a checkpoint compressed with :data:`CHECKPOINT_DICT` (written
before :data:`SKELETON_PREFIX`; still read)."""

SKELETON_PREFIX = "zc2:"
"""Type prefix of a checkpoint compressed with :data:`SKELETON_DICT`."""

CHECKPOINT_DICT = (
    b"\xa1v\xa2ts\xa2id\xb0channel_versions\xadversions_seen\xb0updated_channels"
    b"\xaechannel_values\xa9__start__\xa9__input__\xaa__interrupt__\xa7__end__"
    b"\xa9__pregel_\xa8messages\xb0branch:to:\xb9000000000"
)
"""Byte strings found in most msgpack checkpoints (the most frequent last)."""

_VERSION = b"\xb9000000000001.000000000000"  # a channel version (plans_write.next_version)

SKELETON_DICT = (
    b"\x87\xa1v\x04\xa2ts\xd9 2026-01-01T00:00:00.000000+00:00"
    b"\xa2id\xd9$00000000-0000-6000-8000-000000000000\xb0channel_versions"
    b"\xa9__start__" + _VERSION + b"\xa8messages" + _VERSION + b"\xadversions_seen\x83"
    b"\xa9__input__\x80\xa9__start__\x81\xa9__start__"
    + _VERSION
    + b"\xb0branch:to:"
    + _VERSION
    + b"\xb0updated_channels\x92\xa8messages\xaechannel_values"
    + CHECKPOINT_DICT
)
"""A msgpack checkpoint's skeleton (version, timestamp, id, channel versions with
their fixed-width numbers) and then :data:`CHECKPOINT_DICT`: smaller
checkpoints than :data:`CHECKPOINT_DICT` alone. Frozen, as :data:`VALUE_DICT`."""

VALUE_DICT = (
    b"\x05\x94\xbelangchain_core.messages.system\xadSystemMessage\x86\xa7content\xa0"
    b"\xb1additional_kwargs\x80\xb1response_metadata\x80\xa4type\xa6system\xa4name\xc0"
    b"\xa2id\xa0\xb3model_validate_json"
    b"\x05\x94\xbclangchain_core.messages.tool\xabToolMessage\x89\xa7content\xa0"
    b"\xb1additional_kwargs\x80\xb1response_metadata\x80\xa4type\xa4tool\xa4name\xc0"
    b"\xa2id\xa0\xactool_call_id\xa5call_\xa8artifact\xc0\xa6status\xa7success"
    b"\xb3model_validate_json"
    b"\x05\x94\xbalangchain_core.messages.ai\xa9AIMessage\x89\xa7content\xa0"
    b"\xb1additional_kwargs\x80\xb1response_metadata\x82\xaamodel_name\xa0"
    b"\xadfinish_reason\xa4stop\xa4type\xa2ai\xa4name\xc0\xa2id\xa4run-\xaatool_calls"
    b"\x91\x84\xa4name\xa0\xa4args\x80\xa2id\xa5call_\xa4type\xa9tool_call"
    b"\xb2invalid_tool_calls\x90\xaeusage_metadata\x83\xacinput_tokens\x00"
    b"\xadoutput_tokens\x00\xactotal_tokens\x00\xb3model_validate_json"
    b"\x05\x94\xbdlangchain_core.messages.human\xacHumanMessage\x86\xa7content\xa0"
    b"\xb1additional_kwargs\x80\xb1response_metadata\x80\xa4type\xa5human\xa4name\xc0"
    b"\xa2id\xa0\xb3model_validate_json"
)
"""The msgpack envelopes of LangChain's system, tool, AI and human messages as
``JsonPlusSerializer`` writes them (empty fields; the most frequent last).
Frozen: values stored with it decompress only with these exact bytes."""

_PREFIXES = (PLAIN_PREFIX, VALUE_PREFIX, CHECKPOINT_PREFIX, SKELETON_PREFIX)

MAX_UNPACKED = 1 << 30
"""Largest size a stored compressed value may declare (the database is untrusted)."""

_LEVEL = 3
# The dictionary codecs see small values (a checkpoint skeleton, a message, up to
# _VALUE_DICT_MAX): with the prepared dictionary, level 1 compresses them as well
# as level 3 does, in less time (figures: benchmarks/RESULTS.md).
_DICT_LEVEL = 1
# Big values compress worse with the prepared dictionary, and the envelopes only
# matter to small ones.
_VALUE_DICT_MAX = 16 * 1024
_local = threading.local()  # zstandard's (de)compressor objects are not thread-safe


class _Codecs:
    __slots__ = (
        "pack",
        "pack_checkpoint",
        "pack_value",
        "unpack",
        "unpack_checkpoint",
        "unpack_skeleton",
        "unpack_value",
    )

    def __init__(self) -> None:
        ckpt_dict = _raw_dict(CHECKPOINT_DICT)
        skeleton_dict = _raw_dict(SKELETON_DICT)
        value_dict = _raw_dict(VALUE_DICT)
        self.pack = zstandard.ZstdCompressor(level=_LEVEL)
        self.pack_checkpoint = zstandard.ZstdCompressor(level=_DICT_LEVEL, dict_data=skeleton_dict)
        self.pack_value = zstandard.ZstdCompressor(level=_DICT_LEVEL, dict_data=value_dict)
        self.unpack = zstandard.ZstdDecompressor()
        self.unpack_checkpoint = zstandard.ZstdDecompressor(dict_data=ckpt_dict)
        self.unpack_skeleton = zstandard.ZstdDecompressor(dict_data=skeleton_dict)
        self.unpack_value = zstandard.ZstdDecompressor(dict_data=value_dict)


def _raw_dict(content: bytes) -> zstandard.ZstdCompressionDict:
    dict_ = zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    dict_.precompute_compress(level=_DICT_LEVEL)  # else it is loaded again per value
    return dict_


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
    if checkpoint:
        prefix, packer = SKELETON_PREFIX, codecs.pack_checkpoint
    elif len(data) <= _VALUE_DICT_MAX:
        prefix, packer = VALUE_PREFIX, codecs.pack_value
    else:
        prefix, packer = PLAIN_PREFIX, codecs.pack
    packed = packer.compress(data)
    if len(packed) > len(data) - (len(data) >> 3):
        return type_, data
    return prefix + type_, packed


def is_compressed(type_: str | None) -> bool:
    """Whether a stored type names a compressed value."""
    return type_ is not None and type_.startswith(_PREFIXES)


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
    if type_.startswith(VALUE_PREFIX):
        inner, unpack = type_[len(VALUE_PREFIX) :], _codecs().unpack_value
    elif type_.startswith(PLAIN_PREFIX):
        inner, unpack = type_[len(PLAIN_PREFIX) :], _codecs().unpack
    elif type_.startswith(SKELETON_PREFIX):
        inner, unpack = type_[len(SKELETON_PREFIX) :], _codecs().unpack_skeleton
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
