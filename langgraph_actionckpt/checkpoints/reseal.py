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

:func:`plan_reseal_copied` re-seals the rows ``copy_thread`` just copied: they
were sealed for the source thread, and the thread is part of each value's
associated data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from psycopg import sql

from langgraph_actionckpt.actions.batch_rows import seal_columns
from langgraph_actionckpt.actions.records import open_columns
from langgraph_actionckpt.checkpoints.blobs import WRITE_REF_TYPE
from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.crypto import SEALED_ACTION_COLUMNS
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.errors import DecryptionError

__all__ = ["TABLES", "Batch", "plan_reseal_batch", "plan_reseal_copied", "plan_stale_counts"]

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
    """

    table: str
    seen: int
    changed: int
    skipped: int
    after: tuple[Any, ...] | None


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


def _reseal_value(
    codec: Codec, type_: str, data: bytes, old: Place, new: Place
) -> tuple[str, bytes]:
    return codec.seal(*codec.unseal(type_, data, old), new)


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


def _new_values(
    codec: Codec, table: str, row: Sequence[Any], source: str | None
) -> tuple[Any, ...] | None:
    """The row's values sealed with the active key (None: nothing to change)."""
    n = len(_KEYS[table])
    key, values = tuple(row[:n]), row[n:]
    moved = (source, *key[1:]) if source is not None else key
    ring = codec.keyring
    assert ring is not None
    if table in ("checkpoints", "blobs"):
        if values[1] is None:
            return None
        type_, data = values[0], bytes(values[1])
        new = _places(codec, table, key)
        old = _places(codec, table, moved)
        return _reseal_value(codec, type_, data, old, new)
    if table == "writes":
        types, blobs, channels = list(values[0]), [bytes(b) for b in values[1]], values[2]
        for i, (type_, data) in enumerate(zip(types, blobs, strict=True)):
            new = _places(codec, table, key, channels[i])
            old = _places(codec, table, moved, channels[i])
            if type_ == WRITE_REF_TYPE:  # its delta row is sealed where it is
                blobs[i] = codec.seal_ref(codec.open_ref(data, old), new)
                continue
            types[i], blobs[i] = _reseal_value(codec, type_, data, old, new)
        return types, blobs
    # actions
    texts: dict[str, Any] = dict(zip(("thread_id", "action_id"), moved, strict=True))
    texts.update(zip(SEALED_ACTION_COLUMNS, values, strict=True))
    open_columns(ring.with_options(allow_plaintext=True), codec.schema, texts)
    plain = [
        None if texts[c] is None else orjson.dumps(texts[c]).decode() for c in SEALED_ACTION_COLUMNS
    ]
    return tuple(seal_columns(ring, codec.schema, key[0], key[1], plain))


def _as_param(table: str, value: Any) -> Any:
    if table == "actions":
        return None if value is None else orjson.dumps(value).decode()
    return value


def plan_reseal_batch(
    codec: Codec, table: str, after: tuple[Any, ...] | None, limit: int
) -> Plan[Batch]:
    """Re-seal up to ``limit`` rows of ``table`` with the active key, in one transaction.

    Args:
        codec: The saver's codec; its key ring must have the keys of the rows
            (plain text is read whatever ``allow_plaintext`` says).
        table: One of :data:`TABLES`.
        after: Start after this key (the previous batch's ``after``).
        limit: Rows per batch.

    Raises:
        DecryptionError: A row does not open (a missing key, a tampered row);
            nothing of this batch is changed.
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
    changed = 0
    update = _update(codec.schema, table)
    n = len(_KEYS[table])
    for row in rows:
        new = _new_values(codec, table, row, None)
        if new is None:
            continue
        p: dict[str, Any] = {f"k{i}": v for i, v in enumerate(row[:n])}
        for i, v in enumerate(new):
            p[f"n{i}"] = v
        for i in range(len(new)):
            p[f"o{i}"] = _as_param(table, row[n + i])
        done = yield Op(update, p, "one")
        changed += done is not None
    yield COMMIT
    last = tuple(rows[-1][:n]) if len(rows) == limit else None
    return Batch(table, len(rows), changed, len(rows) - changed, last)


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


def plan_reseal_copied(codec: Codec, source: str, target: str) -> Plan[int]:
    """Re-seal the rows ``copy_thread`` copied to ``target`` (inside its transaction).

    Rows the target already had (``copy_thread`` keeps them) open at their own
    place and are left as they are.

    Returns:
        The rows re-sealed.
    """
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
                new = _new_values(codec, table, row, source)
            except DecryptionError:
                continue  # the target's own row: sealed for the target already
            if new is None:
                continue
            p: dict[str, Any] = {f"k{i}": v for i, v in enumerate(row[:n])}
            for i, v in enumerate(new):
                p[f"n{i}"] = v
                p[f"o{i}"] = _as_param(table, row[n + i])
            done = yield Op(update, p, "one")
            changed += done is not None
    return changed
