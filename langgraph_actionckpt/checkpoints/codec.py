"""Values to stored bytes and back: the serializer, list deltas and compression.

A :class:`Codec` is what the plans get instead of the saver: the serializer of
the moment (``with_allowlist`` replaces it), the delta policy, the compression
threshold and read access to the latest list states. It holds no state of its
own, so a test builds one with a plain serializer and a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from langgraph_actionckpt._config import check_length
from langgraph_actionckpt.checkpoints.blobs import DELTA_TYPE, BlobRow, DeltaPolicy, ListState
from langgraph_actionckpt.checkpoints.budget import (
    DEFAULT_MAX_LOAD_BYTES,
    LoadBudget,
    load_errors,
    refused,
)
from langgraph_actionckpt.checkpoints.compress import pack_value, unpack_value
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.checkpoints.serde import (
    ESCAPED_TYPE,
    ActionSerializer,
    has_surrogates,
)
from langgraph_actionckpt.db.encoding import dumps, escape_text
from langgraph_actionckpt.errors import SerializationError

ListKey = tuple[str, str, str]
"""(thread_id, checkpoint_ns, channel), escaped: where a list state is cached."""


_MSGPACK_TYPES = frozenset(("msgpack", ESCAPED_TYPE))
_STRICT_SERDES = (
    ActionSerializer,
    JsonPlusSerializer,
)  # exactly these: a subclass may load otherwise
_END_VALUE = b"actionckpt:end"
_END = b"\xc4" + bytes([len(_END_VALUE)]) + _END_VALUE  # msgpack bin 8
"""Appended to a msgpack value as the second item of a pair: see ``Codec.loads``."""


def json_text(value: Any) -> str:
    """``value`` as JSON text for a ``::jsonb`` parameter."""
    return dumps(value).decode()


def _no_list_state(_key: ListKey) -> ListState | None:
    return None


@dataclass(frozen=True, slots=True)
class Codec:
    """Encodes and decodes stored values.

    Attributes:
        serde: The serializer (the saver's current one).
        delta_policy: When a list channel is stored as a delta of its last version.
        compress_min: Compress values at least this many bytes long.
        last_list: The latest cached :class:`ListState` of a list channel, or None.
        max_load_bytes: The decompression budget of one load (see :meth:`budget`).
    """

    serde: SerializerProtocol
    delta_policy: DeltaPolicy = field(default_factory=DeltaPolicy)
    compress_min: int = 256
    last_list: Callable[[ListKey], ListState | None] = _no_list_state
    max_load_bytes: int = DEFAULT_MAX_LOAD_BYTES

    def dumps(self, value: Any, what: str) -> tuple[str, bytes]:
        """Serialize ``value``; errors name ``what`` was being stored."""
        try:
            return self.serde.dumps_typed(value)
        except Exception as exc:  # the serializer raises many types; add context
            raise SerializationError(
                f"cannot serialize {what} ({type(value).__name__}): {exc}"
            ) from exc

    def budget(self) -> LoadBudget:
        """A fresh decompression budget for one load (``max_load_bytes``)."""
        return LoadBudget(self.max_load_bytes)

    def loads(
        self,
        type_: str,
        data: bytes | None,
        place: Place | None = None,
        budget: LoadBudget | None = None,
    ) -> Any:
        """Decompress and deserialize one stored value.

        Args:
            type_: The stored type.
            data: The stored bytes (untrusted).
            place: Where the value is stored: errors name it.
            budget: The load's decompression budget (one per ``get_tuple``, ``list`` page).

        Raises:
            SerializationError: The value cannot be loaded; the message names
                ``place`` and says the data was refused as untrusted.
        """
        with load_errors(place):
            type_, data = unpack_value(type_, data, budget, place)
            payload = data if data is not None else b""
            if type_ in _MSGPACK_TYPES and type(self.serde) in _STRICT_SERDES:
                # ormsgpack ignores bytes after the first object: a marker after the
                # value proves it ended where the stored bytes end
                pair = self.serde.loads_typed((type_, b"\x92" + payload + _END))
                if type(pair) is not list or len(pair) != 2 or pair[1] != _END_VALUE:
                    raise refused(place, f"stored {type_!r} value does not end where its bytes do")
                return pair[0]
            return self.serde.loads_typed((type_, payload))

    def pack(self, type_: str, data: bytes, *, checkpoint: bool = False) -> tuple[str, bytes]:
        """Compress ``data`` when it is long enough (see ``compress.pack_value``)."""
        return pack_value(type_, data, self.compress_min, checkpoint=checkpoint)

    def encode_blob(
        self, thread_id: str, ns: str, channel: str, version: str, value: Any
    ) -> tuple[BlobRow, ListState | None]:
        """The blob row of one channel version: a full value or a list delta.

        Returns:
            The row, and the list state to cache once it is stored (None when
            the value is no delta-able list).
        """
        serde = self.serde
        key = (thread_id, ns, channel)
        if not isinstance(serde, ActionSerializer):
            type_, data = self.dumps(value, f"channel {channel!r}")
            return self.delta_policy.encode(channel, version, type_, data, self.last_list(key))
        try:
            # the plain msgpack encoding: surrogates are checked below, only if needed
            type_, data = JsonPlusSerializer.dumps_typed(serde, value)
        except Exception as exc:
            raise SerializationError(
                f"cannot serialize channel {channel!r} ({type(value).__name__}): {exc}"
            ) from exc
        prev = self.last_list(key)
        row, state = self.delta_policy.encode(channel, version, type_, data, prev)
        # Surrogates come out of the encoder as "?": probe only what this version adds.
        if type_ == "msgpack" and row.blob is not None and b"?" in row.blob:
            added = value[prev.count :] if row.type == DELTA_TYPE and prev is not None else value
            if has_surrogates(added):
                etype, edata = serde.dumps_escaped(value)
                return BlobRow(channel, version, etype, edata), None
        return row, state


def thread_key(config: RunnableConfig) -> tuple[str, str]:
    """(thread_id, checkpoint_ns) of a config, escaped as stored.

    Raises:
        ConfigurationError: One is longer than its limit (``_config.LIMITS``).
    """
    conf = config["configurable"]
    thread_id = escape_text(str(conf["thread_id"]))
    ns = escape_text(conf.get("checkpoint_ns", "") or "")
    check_length("thread id", thread_id)
    check_length("checkpoint namespace", ns)
    return thread_id, ns
