"""Delta encoding of list-valued channels.

An append-only list channel (``operator.add``, ``add_messages``) serialized by
the msgpack serializer is an array header followed by the encodings of its
items, one after the other. When the encoding of a new version starts with the
encoding of the previous version's items, the new version is stored as the
bytes it added. This compares serialized bytes, so it is exact whatever the
reducer did (a replaced or edited message simply fails the prefix test and is
stored in full).

A version is read back as its nearest full snapshot plus the deltas after it.
A snapshot is taken once the chain is long (``min_chain`` deltas) *and* its
bytes outweigh the previous snapshot ``ratio`` times: each snapshot is then more
than ``ratio + 1`` times the one before, so all snapshots together stay under
``1 + 1/ratio`` times the list. A read fetches a snapshot and the deltas after
it, together exactly the list's bytes, concatenated on the server; lists of
small items also get a snapshot every ``cheap_chain`` deltas, which bounds the
rows such a read touches.
"""

from __future__ import annotations

import base64
import re
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from langgraph_actionckpt.checkpoints.budget import LoadBudget
from langgraph_actionckpt.checkpoints.compress import is_compressed, unpack_value
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.errors import SerializationError

DELTA_TYPE = "delta"
"""``blobs.type`` of a delta row: ``blob`` holds item encodings only."""

WRITE_REF_TYPE = "ref"
"""``writes.type`` of a pending write stored as a reference: its ``blob`` holds the
version of the delta row (same thread, namespace and channel) whose items are the
write's items, byte for byte."""

VERSION_RE = re.compile(r"^\d{12}\.[0-9a-f]{12}$")
"""Versions this saver makes: fixed width, so string order is version order."""

VERSION_LEN = 25
"""Length of a :data:`VERSION_RE` version: the first bytes of a write reference."""


_COUNTER_LEN = VERSION_LEN - 13
"""Digits of a :data:`VERSION_RE` version's counter (before the dot)."""


def stored_base(version: str, base: str) -> str:
    """The ``base_version`` a delta row stores: its base, in a shorter form when it can.

    The base of a delta is almost always the channel's previous version, whose
    counter is the row's own minus one: then only its random part (after the
    dot) is stored, as the base64 of its six bytes, and :func:`base_from_stored`
    rebuilds the rest from the row's version. Any other base is stored whole.
    """
    if VERSION_RE.match(version) and VERSION_RE.match(base):
        counter = int(version[:_COUNTER_LEN])
        if counter > 0 and int(base[:_COUNTER_LEN]) == counter - 1:
            return base64.b64encode(bytes.fromhex(base[_COUNTER_LEN + 1 :])).decode()
    return base


def base_from_stored(version: str, stored: str | None) -> str | None:
    """The base version of a row from what it stores (see :func:`stored_base`)."""
    if stored is None or "." in stored or not VERSION_RE.match(version):
        return stored
    random_part = base64.b64decode(stored).hex()
    return f"{int(version[:_COUNTER_LEN]) - 1:0{_COUNTER_LEN}d}.{random_part}"


def stored_snap(snap: str) -> str:
    """The ``snap_version`` a delta row stores: its counter without leading zeros.

    Statements read it back as ``lpad(snap_version, 25, '0')`` (:data:`VERSION_LEN`),
    which gives the version whole again and leaves a whole one unchanged.
    """
    if not VERSION_RE.match(snap):
        return snap
    return snap[:_COUNTER_LEN].lstrip("0").rjust(1, "0") + snap[_COUNTER_LEN:]


def array_header(data: bytes) -> tuple[int, int] | None:
    """Return ``(header_length, item_count)`` if ``data`` is a msgpack array, else None."""
    if not data:
        return None
    first = data[0]
    if 0x90 <= first <= 0x9F:
        return 1, first & 0x0F
    if first == 0xDC and len(data) >= 3:
        return 3, struct.unpack_from(">H", data, 1)[0]
    if first == 0xDD and len(data) >= 5:
        return 5, struct.unpack_from(">I", data, 1)[0]
    return None


def make_header(count: int) -> bytes:
    """The msgpack array header for ``count`` items."""
    if count < 16:
        return bytes([0x90 | count])
    if count < 2**16:
        return b"\xdc" + struct.pack(">H", count)
    return b"\xdd" + struct.pack(">I", count)


@dataclass(slots=True)
class ListState:
    """What the saver remembers of the last stored version of a list channel."""

    version: str
    body: bytes
    count: int
    snap_version: str | None  # None: this version is itself a full snapshot
    snap_bytes: int
    chain_bytes: int
    chain_len: int


@dataclass(slots=True)
class BlobRow:
    """One row for the ``blobs`` table."""

    channel: str
    version: str
    type: str
    blob: bytes | None
    base: str | None = None
    snap: str | None = None
    count: int | None = None
    list_len: int | None = None


class ListCache:
    """Bounded LRU of the latest :class:`ListState` per (thread, ns, channel)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._data: OrderedDict[tuple[str, str, str], ListState] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> ListState | None:
        """The cached state of a channel (marked recently used), or None."""
        with self._lock:
            state = self._data.get(key)
            if state is not None:
                self._data.move_to_end(key)
            return state

    def put(self, key: tuple[str, str, str], state: ListState) -> None:
        """Cache a channel's latest state, evicting the least recently used past the budget."""
        if self.max_bytes <= 0 or len(state.body) > self.max_bytes:
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= len(old.body)
            self._data[key] = state
            self._bytes += len(state.body)
            while self._bytes > self.max_bytes and self._data:
                _, evicted = self._data.popitem(last=False)
                self._bytes -= len(evicted.body)

    def forget_thread(self, thread_id: str) -> None:
        """Drop every state of a thread (its rows were deleted)."""
        with self._lock:
            for key in [k for k in self._data if k[0] == thread_id]:
                self._bytes -= len(self._data.pop(key).body)

    def clear(self) -> None:
        """Drop every state."""
        with self._lock:
            self._data.clear()
            self._bytes = 0


@dataclass(eq=False)  # compared and hashed by identity: SaverOptions, which holds one, hashes
class DeltaPolicy:
    """When to store a delta and when a full snapshot.

    Args:
        min_chain: A chain shorter than this never gets a new snapshot.
        ratio: A snapshot is taken only once the chain's bytes exceed ``ratio``
            times the previous snapshot's bytes (all snapshots stay under
            ``1 + 1/ratio`` times the list).
        cheap_chain: A chain this long gets a snapshot anyway when the list is
            made of small items (``cheap_item_bytes`` on average) and is itself
            small (``cheap_bytes``): such lists would otherwise be read back from
            thousands of tiny rows, and their snapshots cost little.
        cheap_bytes: Largest list that gets these extra snapshots.
        cheap_item_bytes: Largest average item size that counts as small.
    """

    min_chain: int = 512
    ratio: float = 3.0
    cheap_chain: int = 128
    cheap_bytes: int = 256 * 1024
    cheap_item_bytes: int = 256

    def _snapshot_due(
        self, chain_len: int, chain_bytes: int, snap_bytes: int, size: int, count: int
    ) -> bool:
        if chain_len >= self.min_chain and chain_bytes > self.ratio * snap_bytes:
            return True
        return (
            chain_len >= self.cheap_chain
            and size <= self.cheap_bytes
            and size <= self.cheap_item_bytes * max(count, 1)
        )

    def encode(
        self,
        channel: str,
        version: str,
        type_: str,
        data: bytes,
        prev: ListState | None,
    ) -> tuple[BlobRow, ListState | None]:
        """Make the blob row for one channel value, and the state to remember."""
        header = array_header(data) if type_ == "msgpack" else None
        if header is None:
            return BlobRow(channel, version, type_, data), None
        hlen, count = header
        body = data[hlen:]
        if (
            prev is not None
            and count >= prev.count
            and VERSION_RE.match(version) is not None
            and VERSION_RE.match(prev.version) is not None
            and version > prev.version
            and body.startswith(prev.body)
        ):
            delta = body[len(prev.body) :]
            chain_bytes = prev.chain_bytes + len(delta)
            chain_len = prev.chain_len + 1
            if not self._snapshot_due(chain_len, chain_bytes, prev.snap_bytes, len(body), count):
                snap = prev.snap_version or prev.version
                row = BlobRow(
                    channel,
                    version,
                    DELTA_TYPE,
                    delta,
                    prev.version,
                    snap,
                    count - prev.count,
                    count,
                )
                state = ListState(
                    version, body, count, snap, prev.snap_bytes, chain_bytes, chain_len
                )
                return row, state
        row = BlobRow(channel, version, type_, data, count=count, list_len=count)
        return row, ListState(version, body, count, None, len(body), 0, 0)


def write_refers_to(type_: str, data: bytes, delta: bytes, count: int) -> bool:
    """Whether a serialized write is exactly the list ``delta`` (``count`` items) appended."""
    if type_ != "msgpack" or len(data) < 64:  # a reference only pays off for bigger values
        return False
    header = array_header(data)
    return (
        header is not None
        and header[1] == count
        and len(data) - header[0] == len(delta)
        and data[header[0] :] == delta
    )


def write_from_ref(
    write_type: str,
    blob: bytes | None,
    ref_type: str | None,
    ref_count: int | None,
    budget: LoadBudget | None = None,
    place: Place | None = None,
) -> tuple[str, bytes | None]:
    """The serializer type and bytes of a stored write, following a reference.

    ``budget`` and ``place``: the load's decompression budget, and where the
    write is stored (for errors), as for :func:`~.compress.unpack_value`.
    """
    if write_type != WRITE_REF_TYPE:
        return write_type, blob
    if ref_type is not None:
        ref_type, blob = unpack_value(ref_type, blob, budget, place)
    if ref_type != DELTA_TYPE or blob is None or ref_count is None:
        raise SerializationError("a pending write refers to a list delta that is not stored")
    return "msgpack", make_header(ref_count) + blob


class StoredBlob(NamedTuple):
    """A blob row as read back (decompressed)."""

    type: str
    blob: bytes | None
    base_version: str | None
    item_count: int | None


def split_deltas(
    body: bytes,
    layout: str | None,
    open_row: Callable[[str, str, bytes], tuple[str, bytes | None]] | None = None,
    budget: LoadBudget | None = None,
    place: Place | None = None,
) -> bytes | None:
    """The raw concatenation of a chain's deltas from the server's concatenation.

    Args:
        body: The stored delta blobs, concatenated in version order.
        layout: None when every delta is stored raw; else ``len`` or
            ``len:version:type`` per row, comma-separated.
        open_row: Decrypts and decompresses one row: (stored type, version,
            bytes) -> (type, bytes); None when encryption is off.
        budget: The load's decompression budget.
        place: Where the channel's value is stored, for errors.

    Returns:
        The bytes, or None when a row that is not a delta lies in the range (a
        fork stored its own values there): the caller resolves row by row.
    """
    if layout is None:
        if open_row is not None:  # plain-text deltas: refused unless plain text is allowed
            open_row(DELTA_TYPE, "", body)
        return body
    parts: list[bytes] = []
    pos = 0
    for entry in layout.split(","):
        size_text, _, rest = entry.partition(":")
        version, _, type_ = rest.partition(":")
        size = int(size_text)
        chunk = body[pos : pos + size]
        pos += size
        if type_:
            if open_row is not None:
                inner, raw = open_row(type_, version, chunk)
            elif not is_compressed(type_):
                return None
            else:
                inner, raw = unpack_value(type_, chunk, budget, place)
            if inner != DELTA_TYPE or raw is None:
                return None
            chunk = raw
        elif open_row is not None:
            open_row(DELTA_TYPE, version, chunk)  # plain text: refused unless allowed
        parts.append(chunk)
    if pos != len(body):
        raise SerializationError("a delta chain's layout does not match its bytes")
    return b"".join(parts)


def resolve_chain(
    rows: Mapping[str, StoredBlob], version: str
) -> tuple[str, bytes | None, ListState | None]:
    """Rebuild one channel version from its rows.

    Args:
        rows: The channel's rows by version (the chain of ``version`` at least).
        version: The version to rebuild.

    Returns:
        ``(type, data, state)``: serializer type and bytes to load, and the
        :class:`ListState` of this version when it is a list (for further deltas).
    """
    deltas: list[bytes] = []
    count = 0
    v: str | None = version
    while True:
        row = rows.get(v) if v is not None else None
        if row is None:
            raise SerializationError(
                f"stored value of version {version!r} is missing its base version {v!r}"
            )
        rtype, rblob, rbase, rcount = row
        if rtype == DELTA_TYPE:
            deltas.append(rblob or b"")
            count += rcount or 0
            v = rbase
            continue
        hdr = array_header(rblob) if rblob is not None and rtype == "msgpack" else None
        if hdr is None:
            if not deltas:
                return rtype, rblob, None
            raise SerializationError(f"delta base {v!r} of {version!r} is not a stored list")
        assert rblob is not None and v is not None
        snap_body = rblob[hdr[0] :]
        count += hdr[1]
        break
    deltas.reverse()
    body = b"".join([snap_body, *deltas])
    chain_bytes = len(body) - len(snap_body)
    state = ListState(
        version,
        body,
        count,
        v if deltas else None,
        len(snap_body),
        chain_bytes,
        len(deltas),
    )
    return "msgpack", make_header(count) + body, state


def join_snapshot(
    snap_type: str,
    snap_blob: bytes | None,
    snap_len: int | None,
    deltas: bytes | None,
    delta_items: int | None,
    total: int | None,
) -> tuple[bytes, bytes, int] | None:
    """Join a snapshot and the server-concatenated deltas after it.

    Returns ``(data, body, snapshot_body_length)``, or None when the item counts
    do not add up (a fork put extra rows in the version range): the caller then
    resolves the chain row by row.
    """
    if snap_type != "msgpack" or snap_blob is None or total is None:
        return None
    hdr = array_header(snap_blob)
    if hdr is None or snap_len is None or hdr[1] != snap_len:
        return None
    if snap_len + (delta_items or 0) != total:
        return None
    snap_body = snap_blob[hdr[0] :]
    body = snap_body + (deltas or b"")
    return make_header(total) + body, body, len(snap_body)


_IMMUTABLE = (str, int, float, bool, bytes, type(None))


class ChainResolver:
    """Rebuilds many versions of one namespace's channels from their rows (``list``).

    On a linear chain every version is a prefix of the newest one, so the newest
    is joined once and each older version is a slice of it: reading a page of
    checkpoints costs the size of the values, not the square of the chain.
    """

    def __init__(self, rows: Mapping[str, Mapping[str, StoredBlob]]) -> None:
        self.rows = rows
        self._memo: dict[tuple[str, str], tuple[str, bytes | None]] = {}
        self._prefix: dict[str, tuple[bytes, dict[str, tuple[int, int]]]] = {}
        # id(body) -> (body, decoded list or None); holding body keeps the id unique
        self._decoded: dict[int, tuple[bytes, list[Any] | None]] = {}

    def value(self, channel: str, version: str, loads: Callable[[str, bytes | None], Any]) -> Any:
        """The decoded value of a version.

        Versions on one delta chain are prefixes of each other: the newest is
        decoded once, and when its items are immutable scalars (strings, numbers)
        each older version is a slice of that list instead of a decode of its own.
        """
        vtype, data = self.resolve(channel, version)
        cached = self._prefix.get(channel)
        if vtype != "msgpack" or cached is None or version not in cached[1]:
            return loads(vtype, data)
        body, offsets = cached
        entry = self._decoded.get(id(body))
        if entry is None:
            total = max(count for _, count in offsets.values())
            decoded = loads("msgpack", make_header(total) + body)
            immutable = isinstance(decoded, list) and all(
                type(item) in _IMMUTABLE for item in decoded
            )
            entry = (body, decoded if immutable else None)
            self._decoded[id(body)] = entry
        full = entry[1]
        if full is None:
            return loads(vtype, data)
        return full[: offsets[version][1]]

    def resolve(self, channel: str, version: str) -> tuple[str, bytes | None]:
        """The (type, bytes) of one channel version, its delta chain joined (memoized)."""
        key = (channel, version)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        per = self.rows.get(channel) or {}
        row = per.get(version)
        if row is None:
            raise SerializationError(f"{channel!r} version {version!r} is not stored")
        if row.type != DELTA_TYPE:
            out: tuple[str, bytes | None] = (row.type, row.blob)
        else:
            out = self._from_prefix(channel, version, per)
        self._memo[key] = out
        return out

    def _from_prefix(
        self, channel: str, version: str, per: Mapping[str, StoredBlob]
    ) -> tuple[str, bytes | None]:
        cached = self._prefix.get(channel)
        if cached is None or version not in cached[1]:
            cached = self._build(version, per)
            if cached is None:
                vtype, vdata, _ = resolve_chain(per, version)
                return vtype, vdata
            # keep the longest chain seen: later (older) versions are its prefixes
            old = self._prefix.get(channel)
            if old is None or len(cached[1]) > len(old[1]):
                self._prefix[channel] = cached
        body, offsets = cached
        end, count = offsets[version]
        return "msgpack", make_header(count) + body[:end]

    @staticmethod
    def _build(
        version: str, per: Mapping[str, StoredBlob]
    ) -> tuple[bytes, dict[str, tuple[int, int]]] | None:
        path: list[str] = []
        v: str | None = version
        while v is not None:
            row = per.get(v)
            if row is None:
                return None
            path.append(v)
            if row.type != DELTA_TYPE:
                break
            v = row.base_version
        else:
            return None
        path.reverse()
        snap = per[path[0]].blob
        hdr = array_header(snap) if snap is not None and per[path[0]].type == "msgpack" else None
        if snap is None or hdr is None:
            return None
        parts = [snap[hdr[0] :]]
        size = len(parts[0])
        count = hdr[1]
        offsets = {path[0]: (size, count)}
        for step in path[1:]:
            delta = per[step].blob or b""
            parts.append(delta)
            size += len(delta)
            count += per[step].item_count or 0
            offsets[step] = (size, count)
        return b"".join(parts), offsets
