"""Batches of action rows as one JSON array: one bound parameter, one statement.

The fallback of the writer's hot path: :mod:`batch_columns` (one array per
column) sends the values :func:`json_row` gives, and leaves a chunk holding a
value of an unusual type to this path. Streaming rows with COPY into a staging
table cost Python much more per row (psycopg formats 36 columns per row, plus
the per-row JSON text of ``input``/``output``/``meta``) and the server a
temporary table per flush. Here each row becomes a JSON array of its write
columns, the batch is encoded by ``orjson`` in one C call, and the upsert reads
it back with ``jsonb_array_elements`` (``ActionQueries.upsert_json``). The
values and the merge rules are those of the other paths:

* text columns hold :func:`~langgraph_actionckpt.db.encoding.escape_text`'d
  strings (no NUL, no lone surrogate: JSON and ``text`` both take them);
* JSON columns hold :func:`~langgraph_actionckpt.db.encoding.to_jsonable`
  values; a Python ``None`` is JSON ``null``, which the statement turns into
  SQL ``NULL`` (``to_jsonable`` gives ``null`` for ``None`` only);
* floats that JSON cannot hold (NaN, infinities) travel as the strings
  ``float8`` reads; datetimes as ISO 8601 text with their offset.

Rows from the first chunk holding a value ``orjson`` cannot encode (an unusual
type in a scalar column) on are written the general way (parallel arrays bound
by psycopg), in the same transaction.

:func:`seal_columns` seals the ``input``/``output``/``error`` of a row with a
key ring; :func:`open_columns` opens them when a row is read (every read path:
without a key ring it refuses a sealed column instead of returning it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from langgraph_actionckpt.crypto import (
    SEALED_ACTION_COLUMNS,
    Sealed,
    action_aad,
    action_where,
    is_envelope,
    no_key_message,
)
from langgraph_actionckpt.db.encoding import escape_text, to_jsonable
from langgraph_actionckpt.errors import DecryptionError

if TYPE_CHECKING:
    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.crypto import KeyRing

__all__ = ["MAX_ROWS", "json_chunk", "json_row", "open_columns", "raw_jsonb", "seal_columns"]

MAX_ROWS = 1000
"""Rows per statement (one JSON parameter); larger batches take several, one transaction."""

# Where JSON columns sit in a json_row (WRITE_COLUMNS order; tests check it).
JSON_AT = {"input": 17, "output": 18, "error": 19, "meta": 31}


def _f(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    # JSON has no NaN or infinity (orjson writes null): send what float8 reads
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def json_row(r: ActionRecord) -> list[Any]:
    """The JSON-ready values of ``r`` for the write columns, in ``WRITE_COLUMNS`` order.

    Spelled out like ``records.write_row`` (the writer's hot loop);
    ``tests/test_batch_rows.py`` checks both against ``WRITE_COLUMNS``. The
    text columns are escaped together: when all of them are ASCII with no NUL
    (nearly always), none needs escaping, and one join tells.
    """
    t: tuple[str | None, ...] = (
        r.thread_id,
        r.action_id,
        r.action_type,
        r.name,
        r.status,
        r.run_id,
        r.checkpoint_ns,
        r.checkpoint_id,
        r.task_id,
        r.node,
        r.agent_id,
        r.request_hash,
        r.model,
        r.provider,
        r.parent_action_id,
        r.lc_run_id,
        r.trace_id,
        r.span_id,
    )
    try:
        joined = "".join(filter(None, t))
    except TypeError:  # not a string: escape_text says which
        joined = "\x00"
    if not joined.isascii() or "\x00" in joined:
        t = tuple(None if v is None else escape_text(v) for v in t)
    # The JSON columns: a plain ASCII string (a tool's result, often) is its own
    # JSON value; anything else goes through to_jsonable.
    inp, out, err, meta = r.input, r.output, r.error, r.meta
    if inp is not None:
        inp = to_jsonable(inp)
    if out is not None and (type(out) is not str or not out.isascii() or "\x00" in out):
        out = to_jsonable(out)
    if err is not None:
        err = to_jsonable(err)
    if meta is not None:
        meta = to_jsonable(meta)
    # x - x is 0 for a finite x: only NaN and the infinities go through _f
    lat, ttft = r.latency_ms, r.ttft_ms
    return [
        t[0],
        t[1],
        t[2],
        t[3],
        t[4],
        t[5],
        t[6],
        t[7],
        t[8],
        t[9],
        t[10],
        r.step,
        r.attempt,
        r.idempotent,
        r.replayable,
        r.replayed,
        t[11],
        inp,
        out,
        err,
        t[12],
        t[13],
        r.input_tokens,
        r.output_tokens,
        r.total_tokens,
        r.cached_tokens,
        r.reasoning_tokens,
        lat if lat is None or lat - lat == 0 else _f(lat),
        ttft if ttft is None or ttft - ttft == 0 else _f(ttft),
        t[14],
        t[15],
        meta,
        r.started_at,
        r.completed_at,
        t[16],
        t[17],
    ]


def seal_columns(
    keyring: KeyRing, schema: str, thread_id: str, action_id: str, texts: Sequence[str | None]
) -> list[str | None]:
    """Seal the JSON texts of :data:`SEALED_ACTION_COLUMNS` (in that order) of one row."""
    return [
        None
        if text is None
        else keyring.seal_json(text, action_aad(schema, thread_id, action_id, c))
        for c, text in zip(SEALED_ACTION_COLUMNS, texts, strict=True)
    ]


def _json_text(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


def json_chunk(
    records: Sequence[ActionRecord], keyring: KeyRing | None, schema: str
) -> bytes | None:
    """The rows as one JSON array (write them in this order).

    Args:
        records: The rows, in the order they are to be written.
        keyring: Seals the sealed columns (their JSON text, as the other paths
            do), or None.
        schema: The schema (part of what a sealed value is bound to).

    Returns:
        The JSON text, or None when a value is of a type orjson does not
        encode (the caller then writes the rows with psycopg's adapters).
    """
    rows = [json_row(r) for r in records]
    if keyring is not None:
        for row in rows:
            texts = [_json_text(row[JSON_AT[c]]) for c in SEALED_ACTION_COLUMNS]
            sealed = seal_columns(keyring, schema, row[0], row[1], texts)
            for c, text in zip(SEALED_ACTION_COLUMNS, sealed, strict=True):
                row[JSON_AT[c]] = None if text is None else orjson.Fragment(text)
    try:
        return orjson.dumps(rows)
    except TypeError:
        return None


def _raw(data: Any) -> Any:
    return data


def raw_jsonb(data: bytes) -> Any:
    """``data`` (JSON text) bound as a ``jsonb`` parameter as it is, with no second encoding."""
    from psycopg.types.json import Jsonb

    return Jsonb(data, dumps=_raw)


def open_columns(
    keyring: KeyRing | None, schema: str, values: dict[str, Any], keep_sealed: bool = False
) -> None:
    """Decrypt the sealed JSON columns of one action row in place (stored, escaped ids).

    Without a key ring a sealed column is refused (or, ``keep_sealed``, kept as
    a :class:`~langgraph_actionckpt.crypto.Sealed`), never returned as a value.

    Raises:
        DecryptionError: A column does not open here, is plain text while the
            key ring does not allow it, or is sealed and there is no key ring.
    """
    for column in SEALED_ACTION_COLUMNS:
        value = values[column]
        if value is None or (keyring is None and not is_envelope(value)):
            continue
        thread_id, action_id = values["thread_id"], values["action_id"]
        where = action_where(schema, thread_id, action_id, column)
        if keyring is None:
            if not keep_sealed:
                raise DecryptionError(no_key_message(where), where)
            values[column] = Sealed(value)
            continue
        aad = action_aad(schema, thread_id, action_id, column)
        text = keyring.open_json(value, aad, where)
        if text is not None:
            values[column] = orjson.loads(text)
