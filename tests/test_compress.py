"""The compression of stored values: round trips, what stays raw, untrusted input."""

from __future__ import annotations

import os

import pytest
import zstandard

from langgraph_actionckpt import SerializationError
from langgraph_actionckpt.checkpoints import compress as compress

TEXT = b"the same few words again and again, " * 40


def test_round_trip_and_prefixes() -> None:
    type_, packed = compress.pack_value("msgpack", TEXT, 256)
    assert type_ == "zv:msgpack" and len(packed) < len(TEXT) // 4
    assert compress.unpack_value(type_, packed) == ("msgpack", TEXT)
    ctype, cpacked = compress.pack_value("msgpack", TEXT, 256, checkpoint=True)
    assert ctype == "zc2:msgpack"
    assert compress.unpack_value(ctype, cpacked) == ("msgpack", TEXT)
    assert compress.is_compressed(type_) and not compress.is_compressed("msgpack")


def test_values_written_before_the_current_dictionaries_read_back() -> None:
    """Values of types "z:" (no dictionary) and "zc:" (first checkpoint dictionary) read back."""
    plain = zstandard.ZstdCompressor(level=3).compress(TEXT)
    assert compress.unpack_value("z:msgpack", plain) == ("msgpack", TEXT)
    first = zstandard.ZstdCompressionDict(
        compress.CHECKPOINT_DICT, dict_type=zstandard.DICT_TYPE_RAWCONTENT
    )
    old = zstandard.ZstdCompressor(level=3, dict_data=first).compress(TEXT)
    assert compress.unpack_value("zc:msgpack", old) == ("msgpack", TEXT)
    assert compress.is_compressed("zc:msgpack") and compress.is_compressed("z:json")


def test_small_incompressible_or_disabled_values_stay_raw() -> None:
    assert compress.pack_value("msgpack", TEXT[:100], 256) == ("msgpack", TEXT[:100])
    noise = os.urandom(4096)
    assert compress.pack_value("bytes", noise, 256) == ("bytes", noise)
    assert compress.pack_value("msgpack", TEXT, 0) == ("msgpack", TEXT)
    assert compress.unpack_value("msgpack", TEXT) == ("msgpack", TEXT)


def test_untrusted_compressed_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SerializationError):
        compress.unpack_value("z:msgpack", b"\xff\x00 not zstd")
    # a frame that does not declare its size (we always write it)
    sizeless = zstandard.ZstdCompressor(write_content_size=False).compress(TEXT)
    with pytest.raises(SerializationError, match="declares no size"):
        compress.unpack_value("z:msgpack", sizeless)
    # a frame declaring more than the limit is refused before it is decompressed
    monkeypatch.setattr(compress, "MAX_UNPACKED", 1000)
    _, packed = compress.pack_value("msgpack", TEXT, 256)
    with pytest.raises(SerializationError, match="more than 1000 bytes"):
        compress.unpack_value("z:msgpack", packed)
