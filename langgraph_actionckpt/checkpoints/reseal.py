"""Re-sealing stored values: ``encrypt-existing``, ``rotate-key`` and copies of sealed threads.

:func:`plan_reseal_batch` reads one bounded batch of rows whose values are not
sealed with the key ring's active key (plain text, or another key), opens each
value where it is stored and seals it again with the active key, all in one
short transaction. Each row is rewritten only if it still holds exactly what
was read (``WHERE ... AND blob = <the bytes read>``): a row a running saver
changed meanwhile keeps its newer value (already sealed with the active key),
so rotation is safe while writers run. Compression is kept as it was.

A pending write stored as a *reference* to a list delta holds the delta's
version and, sealed, a tag binding it to the write: the tag is made again and
the delta row is sealed in place.

A value stored in plain text is sealed only when the caller says its thread
may be (``seal_plain``): once encryption is on, anyone who can write to the
database can store plain text, and sealing it would make it read as genuine.
Otherwise it is left as it is and reported (:attr:`Batch.plain`).

:func:`plan_reseal_copied` re-seals the rows ``copy_thread`` just copied: they
were sealed for the source thread, and the thread is part of each value's
associated data; without a key ring it refuses a thread holding sealed
values (the copy would be unreadable), and a plain value is copied as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from psycopg import sql

from langgraph_actionckpt.checkpoints.blobs import VERSION_LEN, WRITE_REF_TYPE
from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.crypto import (
    SEALED_ACTION_COLUMNS,
    SEALED_PREFIX,
    action_aad,
    action_where,
    is_envelope,
    no_key_message,
    plaintext_message,
)
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.errors import DecryptionError

__all__ = [
    "TABLES",
    "Batch",
    "plan_any_sealed",
    "plan_reseal_batch",
    "plan_reseal_copied",
    "plan_stale_counts",
]

TABLES = ("writes", "checkpoints", "blobs", "actions")
"""The tables, in the order they are re-sealed."""

_KEYS = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id"),
    "blobs": ("thread_id", "checkpoint_ns", "channel", "version"),
    "writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"),
    "actions": ("thread_id", "action_id"),
}
_VALUES = {
    "checkpoints": ("type", "checkpoint"),
    "blobs": ("type", "blob"),
    "writes": ("types", "blobs", "channels"),
    "actions": SEALED_ACTION_COLUMNS,
}
# a value not sealed with the active key (plain text or another key id)
_STALE_BYTES = "NOT ({t} LIKE 'e:%%' AND substring({d} from 1 for %(plen)s) = %(prefix)s)"
_STALE = {
    "checkpoints": _STALE_BYTES.format(t="type", d="checkpoint"),
    "blobs": "blob IS NOT NULL AND " + _STALE_BYTES.format(t="type", d="blob"),
    # a reference (type 'ref'): the delta's version (25 bytes), then its tag
    "writes": "EXISTS (SELECT 1 FROM unnest(types, blobs) AS x(t, b) WHERE CASE "  # noqa: S608
    "WHEN x.t = 'ref' THEN substring(x.b from 26 for %(plen)s) IS DISTINCT FROM %(prefix)s "
    "ELSE {} END)".format(_STALE_BYTES.format(t="x.t", d="x.b")),
    "actions": " OR ".join(
        f"({c} IS NOT NULL AND ({c} ->> '__ack__' IS DISTINCT FROM 'enc' "
        f"OR {c} ->> 'k' IS DISTINCT FROM %(kid)s))"
        for c in SEALED_ACTION_COLUMNS
    ),
}
_UPDATE_CASTS = {
    "checkpoints": ("text", "bytea"),
    "blobs": ("text", "bytea"),
    "writes": ("text[]", "bytea[]"),
    "actions": ("jsonb", "jsonb", "jsonb"),
}


@dataclass(frozen=True, slots=True)
class Batch:
    """What one batch did.

    Attributes:
        table: The table.
        seen: Rows read (not sealed with the active key).
        changed: Rows rewritten.
        skipped: Rows a writer changed after they were read (left as they are).
        after: The key of the last row read: where the next batch starts
            (None when this table is done).
        plain: The keys of rows holding a plain value that was left as it is.
    """

    table: str
    seen: int
    changed: int
    skipped: int
    after: tuple[Any, ...] | None
    plain: list[tuple[Any, ...]] = field(default_factory=list)


def _select(schema: str, table: str, where: str, cursor: bool) -> sql.Composed:
    keys = ", ".join(_KEYS[table])
    cols = ", ".join(_KEYS[table] + _VALUES[table])
    marks = ", ".join(f"%(a{i})s" for i in range(len(_KEYS[table])))
    after = f" AND ({keys}) > ({marks})"
    text = (
        f"SELECT {cols} FROM {{s}}.{table} WHERE ({where})"  # noqa: S608 - constants only
        + (after if cursor else "")
        + f" ORDER BY {keys} LIMIT %(limit)s"
    )
    return sql.SQL(text).format(s=sql.Identifier(schema))


def _update(schema: str, table: str) -> sql.Composed:
    keys = " AND ".join(f"{k} = %(k{i})s" for i, k in enumerate(_KEYS[table]))
    names = _VALUES[table][: len(_UPDATE_CASTS[table])]
    sets = ", ".join(
        f"{c} = %(n{i})s::{cast}"
        for i, (c, cast) in enumerate(zip(names, _UPDATE_CASTS[table], strict=True))
    )
    same = " AND ".join(
        f"{c} IS NOT DISTINCT FROM %(o{i})s::{cast}"
        for i, (c, cast) in enumerate(zip(names, _UPDATE_CASTS[table], strict=True))
    )
    text = f"UPDATE {{s}}.{table} SET {sets} WHERE {keys} AND {same} RETURNING 1"  # noqa: S608
    return sql.SQL(text).format(s=sql.Identifier(schema))


def _places(codec: Codec, table: str, key: Sequence[Any], channel: str | None = None) -> Place:
    if table == "checkpoints":
        return Place(codec.schema, table, key[0], key[1], checkpoint_id=key[2], column="checkpoint")
    if table == "blobs":
        return Place(
            codec.schema, table, key[0], key[1], channel=key[2], version=key[3], column="blob"
        )
    return Place(
        codec.schema,
        table,
        key[0],
        key[1],
        checkpoint_id=key[2],
        task_id=key[3],
        channel=channel,
        column="blobs",
    )


@dataclass(slots=True)
class _Row:
    """One row being re-sealed: where its values are read and written, and what was plain."""

    codec: Codec
    table: str
    key: tuple[Any, ...]
    moved: tuple[Any, ...]
    seal_plain: bool
    plain: bool = False
    sealed: bool = False

    def value(self, type_: str, data: bytes, channel: str | None = None) -> tuple[str, bytes]:
        """A bytes value sealed for its row; a plain one is sealed only if ``seal_plain``."""
        codec = self.codec
        if not type_.startswith(SEALED_PREFIX):
            self.plain = True
            if not self.seal_plain:
                return type_, data
        old = _places(codec, self.table, self.moved, channel)
        new = _places(codec, self.table, self.key, channel)
        self.sealed = True
        return codec.seal(*codec.unseal(type_, data, old), new)

    def ref(self, data: bytes, channel: str | None) -> bytes:
        """A write reference's tag made for its row (a reference without one: see :meth:`value`)."""
        codec = self.codec
        old = _places(codec, self.table, self.moved, channel)
        new = _places(codec, self.table, self.key, channel)
        if len(data) > VERSION_LEN:
            version = codec.open_ref(data, old)
        else:
            self.plain = True
            if not self.seal_plain:
                return data
            version = bytes(data).decode()
        self.sealed = True
        return codec.seal_ref(version, new)

    def json(self, column: str, value: Any) -> str | None:
        """An action column's envelope for its row (a plain one: see :meth:`value`)."""
        ring = self.codec.keyring
        assert ring is not None
        if value is None:
            return None
        if not is_envelope(value):
            self.plain = True
            if not self.seal_plain:
                return orjson.dumps(value).decode()
            text = orjson.dumps(value).decode()
        else:
            schema, (thread_id, action_id) = self.codec.schema, self.moved
            where = action_where(schema, thread_id, action_id, column)
            opened = ring.open_json(value, action_aad(schema, thread_id, action_id, column), where)
            text = (opened or b"").decode()
        self.sealed = True
        return ring.seal_json(text, action_aad(self.codec.schema, self.key[0], self.key[1], column))


def _new_values(
    codec: Codec, table: str, row: Sequence[Any], source: str | None, seal_plain: bool
) -> tuple[tuple[Any, ...] | None, bool]:
    """The row's values sealed with the active key (None: nothing sealed), and whether
    it holds a plain value (sealed only if ``seal_plain``, else kept as it is)."""
    n = len(_KEYS[table])
    key, values = tuple(row[:n]), row[n:]
    moved = (source, *key[1:]) if source is not None else key
    r = _Row(codec, table, key, moved, seal_plain)
    if table in ("checkpoints", "blobs"):
        if values[1] is None:
            return None, False
        new = r.value(values[0], bytes(values[1]))
        return (new if r.sealed else None), r.plain
    if table == "writes":
        types, blobs, channels = list(values[0]), [bytes(b) for b in values[1]], values[2]
        for i, (type_, data) in enumerate(zip(types, blobs, strict=True)):
            if type_ == WRITE_REF_TYPE:  # its delta row is sealed where it is
                blobs[i] = r.ref(data, channels[i])
            else:
                types[i], blobs[i] = r.value(type_, data, channels[i])
        return ((types, blobs) if r.sealed else None), r.plain
    texts = tuple(r.json(c, v) for c, v in zip(SEALED_ACTION_COLUMNS, values, strict=True))
    return (texts if r.sealed else None), r.plain


def _as_param(table: str, value: Any) -> Any:
    if table == "actions":
        return None if value is None else orjson.dumps(value).decode()
    return value


def plan_reseal_batch(
    codec: Codec,
    table: str,
    after: tuple[Any, ...] | None,
    limit: int,
    seal_plain: Callable[[str], bool] = lambda _thread: False,
) -> Plan[Batch]:
    """Re-seal up to ``limit`` rows of ``table`` with the active key, in one transaction.

    A value stored in plain text is sealed only if ``seal_plain(thread_id)``
    (escaped id) says so; else it is kept as it is and its row reported in
    :attr:`Batch.plain` (re-sealing must never make an unauthenticated value
    read as a genuine one).

    Args:
        codec: The saver's codec; its key ring must have the keys of the rows.
        table: One of :data:`TABLES`.
        after: Start after this key (the previous batch's ``after``).
        limit: Rows per batch.
        seal_plain: Whether the plain values of a thread may be sealed.

    Raises:
        DecryptionError: A sealed value does not open (a missing key, a tampered
            row); nothing of this batch is changed.
    """
    ring = codec.keyring
    if ring is None:
        raise DecryptionError("re-sealing needs a key ring")
    params: dict[str, Any] = {
        "plen": len(ring.active_prefix),
        "prefix": ring.active_prefix,
        "kid": ring.active,
        "limit": limit,
    }
    for i, v in enumerate(after or ()):
        params[f"a{i}"] = v
    yield BEGIN
    rows = yield Op(_select(codec.schema, table, _STALE[table], after is not None), params, "all")
    changed = skipped = 0
    plain: list[tuple[Any, ...]] = []
    update = _update(codec.schema, table)
    n = len(_KEYS[table])
    for row in rows:
        new, has_plain = _new_values(codec, table, row, None, seal_plain(row[0]))
        if has_plain and not seal_plain(row[0]):
            plain.append(tuple(row[:n]))
        if new is None:
            continue
        p: dict[str, Any] = {f"k{i}": v for i, v in enumerate(row[:n])}
        for i, v in enumerate(new):
            p[f"n{i}"] = v
        for i in range(len(new)):
            p[f"o{i}"] = _as_param(table, row[n + i])
        done = yield Op(update, p, "one")
        changed += done is not None
        skipped += done is None
    yield COMMIT
    last = tuple(rows[-1][:n]) if len(rows) == limit else None
    return Batch(table, len(rows), changed, skipped, last, plain)


def plan_stale_counts(codec: Codec) -> Plan[dict[str, int]]:
    """Rows per table not sealed with the active key (what remains to re-seal)."""
    ring = codec.keyring
    assert ring is not None
    params = {"plen": len(ring.active_prefix), "prefix": ring.active_prefix, "kid": ring.active}
    out: dict[str, int] = {}
    for table in TABLES:
        text = f"SELECT count(*) FROM {{s}}.{table} WHERE {_STALE[table]}"  # noqa: S608
        row = yield Op(sql.SQL(text).format(s=sql.Identifier(codec.schema)), params, "one")
        out[table] = int(row[0])
    return out


_SEALED_WHERE = {  # a row holding a sealed value
    "checkpoints": "type LIKE %(e)s",
    "blobs": "type LIKE %(e)s",
    "writes": "EXISTS (SELECT 1 FROM unnest(types, blobs) AS x(t, b) "
    "WHERE x.t LIKE %(e)s OR (x.t = 'ref' AND length(x.b) > %(vlen)s))",
    "actions": " OR ".join(f"{c} ->> '__ack__' = 'enc'" for c in SEALED_ACTION_COLUMNS),
}


def _any_sealed(schema: str, thread: bool) -> sql.Composed:
    where = "thread_id = %(thread)s AND " if thread else ""
    text = " OR ".join(
        f"EXISTS (SELECT 1 FROM {{s}}.{t} WHERE {where}({_SEALED_WHERE[t]}))"  # noqa: S608
        for t in TABLES
    )
    return sql.SQL("SELECT " + text).format(s=sql.Identifier(schema))


def plan_any_sealed(schema: str, thread_id: str | None = None) -> Plan[bool]:
    """Whether any value of the schema (or of one thread, escaped id) is sealed."""
    params = {"e": SEALED_PREFIX + "%", "vlen": VERSION_LEN, "thread": thread_id}
    row = yield Op(_any_sealed(schema, thread_id is not None), params, "one")
    return bool(row[0])


def plan_reseal_copied(codec: Codec, source: str, target: str) -> Plan[int]:
    """Re-seal the rows ``copy_thread`` or a fork copied to ``target`` (inside its transaction).

    Rows the target already had (``copy_thread`` keeps them) open at their own
    place and are left as they are. A plain value is copied as it is (never
    sealed: it was not authenticated where it came from).

    Returns:
        The rows re-sealed.

    Raises:
        DecryptionError: A copied value is sealed and the codec has no key ring
            (the copy would be unreadable), or it is plain and the key ring does
            not allow plain text; the caller's transaction is rolled back.
    """
    ring = codec.keyring
    if ring is None:
        if (yield from plan_any_sealed(codec.schema, target)):
            where = f"schema {codec.schema}, thread id {source!r}"
            raise DecryptionError(
                no_key_message(where) + "; a copy needs the key to seal it for its new thread",
                where,
            )
        return 0
    changed = 0
    for table in TABLES:
        rows = yield Op(
            _select(codec.schema, table, "thread_id = %(thread)s", False),
            {"thread": target, "limit": None},
            "all",
        )
        update = _update(codec.schema, table)
        n = len(_KEYS[table])
        for row in rows:
            try:
                new, has_plain = _new_values(codec, table, row, source, False)
            except DecryptionError:
                continue  # the target's own row: sealed for the target already
            if has_plain and not ring.allow_plaintext:
                where = f"table {codec.schema}.{table}, thread id {source!r}"
                raise DecryptionError(plaintext_message(where), where)
            if new is None:
                continue
            p: dict[str, Any] = {f"k{i}": v for i, v in enumerate(row[:n])}
            for i, v in enumerate(new):
                p[f"n{i}"] = v
                p[f"o{i}"] = _as_param(table, row[n + i])
            done = yield Op(update, p, "one")
            changed += done is not None
    return changed
