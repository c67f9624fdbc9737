"""Values to stored bytes and back: the serializer, list deltas and compression.

A :class:`Codec` is what the plans get instead of the saver: the serializer of
the moment (``with_allowlist`` replaces it), the delta policy, the compression
threshold and read access to the latest list states. It holds no state of its
own, so a test builds one with a plain serializer and a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from langgraph_actionckpt.checkpoints.blobs import (
    DELTA_TYPE,
    VERSION_LEN,
    BlobRow,
    DeltaPolicy,
    ListState,
)
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
from langgraph_actionckpt.crypto import SEALED_PREFIX as SEALED
from langgraph_actionckpt.crypto import no_key_message, plaintext_message
from langgraph_actionckpt.db.encoding import dumps, stored_id
from langgraph_actionckpt.errors import DecryptionError, SerializationError

if TYPE_CHECKING:
    from langgraph_actionckpt.crypto import KeyRing

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
        schema: The saver's schema (the first part of every value's :class:`Place`).
        keyring: Encrypt stored values with it (``None``: stored in plain text).
        max_load_bytes: The decompression budget of one load (see :meth:`budget`).
    """

    serde: SerializerProtocol
    delta_policy: DeltaPolicy = field(default_factory=DeltaPolicy)
    compress_min: int = 256
    last_list: Callable[[ListKey], ListState | None] = _no_list_state
    schema: str = ""
    keyring: KeyRing | None = None
    max_load_bytes: int = DEFAULT_MAX_LOAD_BYTES

    def dumps(self, value: Any, what: str, name: str | None = None) -> tuple[str, bytes]:
        """Serialize ``value``; errors name what was being stored (``what``, then
        ``name`` quoted: the text is made only on failure, as this runs per value)."""
        try:
            return self.serde.dumps_typed(value)
        except Exception as exc:  # the serializer raises many types; add context
            subject = what if name is None else f"{what} {name!r}"
            raise SerializationError(
                f"cannot serialize {subject} ({type(value).__name__}): {exc}"
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
        *,
        opened: bool = False,
    ) -> Any:
        """Decrypt, decompress and deserialize one stored value.

        Args:
            type_: The stored type.
            data: The stored bytes (untrusted).
            place: Where the value is stored: errors name it, and an encrypted
                value is bound to it.
            budget: The load's decompression budget (one per ``get_tuple``, ``list`` page).
            opened: The value was decrypted and decompressed already (:meth:`open`).

        Raises:
            SerializationError: The value cannot be loaded; the message names
                ``place`` and says the data was refused as untrusted
                (:class:`~langgraph_actionckpt.errors.DecryptionError` when it
                does not decrypt there).
        """
        with load_errors(place):
            if not opened:
                type_, data = self.open(type_, data, place, budget)
            payload = data if data is not None else b""
            if type_ in _MSGPACK_TYPES and type(self.serde) in _STRICT_SERDES:
                # ormsgpack ignores bytes after the first object: a marker after the
                # value proves it ended where the stored bytes end
                pair = self.serde.loads_typed((type_, b"\x92" + payload + _END))
                if type(pair) is not list or len(pair) != 2 or pair[1] != _END_VALUE:
                    raise refused(place, f"stored {type_!r} value does not end where its bytes do")
                return pair[0]
            return self.serde.loads_typed((type_, payload))

    # ---------------------------------------------------------------- encryption

    def place(self, table: str, thread_id: str, ns: str | None, **ids: str | None) -> Place | None:
        """The :class:`Place` of a value of this schema (escaped ids) when encryption is on.

        None without encryption: no place is built on the plain-text hot paths.
        """
        if self.keyring is None:
            return None
        return Place(self.schema, table, thread_id, ns, **ids)

    def seal(self, type_: str, data: bytes, place: Place | None) -> tuple[str, bytes]:
        """Encrypt packed ``data`` for ``place`` when encryption is on (else unchanged)."""
        ring = self.keyring
        if ring is None or place is None:
            return type_, data
        return SEALED + type_, ring.seal(data, _aad(place, type_))

    def open(
        self, type_: str, data: bytes | None, place: Place | None, budget: LoadBudget | None = None
    ) -> tuple[str, bytes | None]:
        """Undo :meth:`seal` and compression: the serializer type and bytes.

        Raises:
            DecryptionError: The value does not open at ``place`` (see
                ``KeyRing.open``), or it is plain text and encryption is on
                without ``allow_plaintext``.
        """
        ring = self.keyring
        if type_.startswith(SEALED):
            return unpack_value(*self.unseal(type_, data or b"", place), budget, place)
        if ring is not None and data is not None and not ring.allow_plaintext:
            where = _where(place)
            raise DecryptionError(plaintext_message(where), where)
        return unpack_value(type_, data, budget, place)

    def unseal(self, type_: str, data: bytes, place: Place | None) -> tuple[str, bytes]:
        """Undo :meth:`seal` only (a plain-text value passes): the packed type and bytes."""
        if not type_.startswith(SEALED):
            return type_, data
        ring = self.keyring
        where = _where(place)
        if ring is None or place is None:
            raise DecryptionError(no_key_message(where), where)
        inner = type_[len(SEALED) :]
        return inner, ring.open(data, _aad(place, inner), where)

    def seal_ref(self, version: str, place: Place | None) -> bytes:
        """A write reference's bytes: the delta's version, then a tag binding it to ``place``.

        Without encryption, the version alone. The tag keeps a reference from
        being pointed at another delta of the channel unnoticed.
        """
        ring = self.keyring
        if ring is None or place is None:
            return version.encode()
        return version.encode() + ring.seal(b"", _aad(place, "ref:" + version))

    def open_ref(self, data: bytes, place: Place | None) -> str:
        """The delta version a write reference names, its tag checked when encryption is on.

        Raises:
            DecryptionError: The tag does not authenticate here, or there is none
                and plain text is not allowed.
        """
        version, token = bytes(data[:VERSION_LEN]).decode(), bytes(data[VERSION_LEN:])
        ring = self.keyring
        if ring is not None and place is not None:
            if token:
                ring.open(token, _aad(place, "ref:" + version), place.describe())
            elif not ring.allow_plaintext:
                raise DecryptionError(plaintext_message(place.describe()), place.describe())
        return version

    def seal_json(self, text: str | None, place: Place | None) -> str | None:
        """Seal JSON text for a JSONB column (``None`` stays ``None``)."""
        ring = self.keyring
        if ring is None or text is None or place is None:
            return text
        return ring.seal_json(text, place.associated_data())

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
            type_, data = self.dumps(value, "channel", channel)
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


def _where(place: Place | None) -> str:
    return place.describe() if place is not None else "a stored value"


def _aad(place: Place, type_: str) -> bytes:
    # the stored type is bound too: "z:msgpack" relabelled "msgpack" does not open
    return place.associated_data() + b"\x00" + type_.encode()


def thread_key(config: RunnableConfig) -> tuple[str, str]:
    """(thread_id, checkpoint_ns) of a config, escaped as stored.

    Raises:
        ConfigurationError: One is longer than its limit (``_config.LIMITS``).
    """
    conf = config["configurable"]
    return (
        stored_id("thread id", conf["thread_id"]),
        stored_id("checkpoint namespace", conf.get("checkpoint_ns", "") or ""),
    )
