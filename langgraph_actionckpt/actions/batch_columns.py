"""Large batches of action rows column by column: one array parameter per column.

The writer's hot path. The JSON array of rows (:mod:`batch_rows`) made the
server parse every row's 36 values as JSON and pick them out one by one
(``e ->> i``), much of its time on a row. Here each column is one
parameter: the scalar columns as PostgreSQL array literals read by
``unnest(%s::type[])``, the JSON columns (``input``, ``output``, ``error``,
``meta``) as one JSON array each, read by ``jsonb_array_elements``. ``ROWS
FROM`` zips them into rows (a column that is NULL in every row is sent empty:
``ROWS FROM`` pads it with NULLs).

Each scalar column is encoded by ``orjson`` in one C call, its JSON array text
being the array literal itself whenever it holds no backslash: then no string
in it had a JSON escape, its elements are quoted the same way in both syntaxes,
and ``null``, numbers and ``true``/``false`` read the same. The values are the
ones :func:`batch_rows.json_row` gives (escaped text, ``to_jsonable`` JSON
values, non-finite floats as the text ``float8`` reads), so each element's text
is what ``e ->> i`` gave the JSON path, and the stored rows are the same bytes.
A column holding a backslash is quoted element by element (rare: an escaped
string). A batch holding anything else (a value of an unusual type) is left to
the JSON path, which knows what to do with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson
from psycopg import sql

from langgraph_actionckpt.actions.batch_rows import JSON_AT, raw_jsonb, seal_columns
from langgraph_actionckpt.crypto import SEALED_ACTION_COLUMNS
from langgraph_actionckpt.db.arrays import ArrayLiteral
from langgraph_actionckpt.db.encoding import TAG, escape_text, to_jsonable

if TYPE_CHECKING:
    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.crypto import KeyRing

__all__ = ["column_params", "source"]


def source(columns: Sequence[str], pg_types: dict[str, str]) -> sql.Composed:
    """``SELECT <columns> FROM ROWS FROM (...)``: one parameter per column, in order."""
    funcs: list[sql.Composable] = []
    exprs: list[sql.Composable] = []
    for c in columns:
        pg_type, ident = pg_types.get(c, "text"), sql.Identifier(c)
        if pg_type == "jsonb":
            funcs.append(sql.SQL("jsonb_array_elements(%s::jsonb)"))
            # JSON null is SQL NULL, as in the other paths
            exprs.append(sql.SQL("NULLIF({c}, 'null'::jsonb) AS {c}").format(c=ident))
        else:
            funcs.append(sql.SQL("unnest(%s::{}[])").format(sql.SQL(pg_type)))
            exprs.append(ident)
    return sql.SQL("SELECT {exprs} FROM ROWS FROM ({funcs}) AS r({cols})").format(
        exprs=sql.SQL(", ").join(exprs),
        funcs=sql.SQL(", ").join(funcs),
        cols=sql.SQL(", ").join(sql.Identifier(c) for c in columns),
    )


# The write columns by kind (WRITE_COLUMNS order; tests check it against json_row).
_TEXT_AT = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 20, 21, 29, 30, 34, 35)
_FLOAT_AT = (27, 28)
_INPUT, _OUTPUT, _ERROR, _META = (
    JSON_AT["input"],
    JSON_AT["output"],
    JSON_AT["error"],
    JSON_AT["meta"],
)


def _columns(rs: Sequence[ActionRecord]) -> list[Any]:
    """The records' write columns, in ``WRITE_COLUMNS`` order.

    One comprehension a column, spelled out: the fastest way Python has (an
    ``attrgetter`` of all columns transposed by ``zip`` costs twice as much).
    """
    return [
        [r.thread_id for r in rs],
        [r.action_id for r in rs],
        [r.action_type for r in rs],
        [r.name for r in rs],
        [r.status for r in rs],
        [r.run_id for r in rs],
        [r.checkpoint_ns for r in rs],
        [r.checkpoint_id for r in rs],
        [r.task_id for r in rs],
        [r.node for r in rs],
        [r.agent_id for r in rs],
        [r.step for r in rs],
        [r.attempt for r in rs],
        [r.idempotent for r in rs],
        [r.replayable for r in rs],
        [r.replayed for r in rs],
        [r.request_hash for r in rs],
        [r.input for r in rs],
        [r.output for r in rs],
        [r.error for r in rs],
        [r.model for r in rs],
        [r.provider for r in rs],
        [r.input_tokens for r in rs],
        [r.output_tokens for r in rs],
        [r.total_tokens for r in rs],
        [r.cached_tokens for r in rs],
        [r.reasoning_tokens for r in rs],
        [r.latency_ms for r in rs],
        [r.ttft_ms for r in rs],
        [r.parent_action_id for r in rs],
        [r.lc_run_id for r in rs],
        [r.meta for r in rs],
        [r.started_at for r in rs],
        [r.completed_at for r in rs],
        [r.trace_id for r in rs],
        [r.span_id for r in rs],
    ]


def _f(value: Any) -> Any:
    # what batch_rows.json_row sends for a float: JSON has no NaN or infinity
    if value is None or value - value == 0:
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _jsonable(col: Sequence[Any]) -> list[Any]:
    """``to_jsonable`` of each value of a JSON column (None stays None).

    A plain dict of plain ASCII strings (a tool's input, the tool call's ``meta``)
    is its own JSON value: a join in C tells, where ``to_jsonable`` would make
    a Python call and a copy for it (the writer's hot loop, a row at a time).
    """
    out: list[Any] = []
    append = out.append
    for v in col:
        if v is not None:
            if type(v) is dict and TAG not in v:
                try:  # (TypeError: a key or value that is not a string)
                    text = "".join([*v, *v.values()])
                except TypeError:
                    text = "\x00"
                if not text.isascii() or "\x00" in text:
                    v = to_jsonable(v)
            else:
                v = to_jsonable(v)
        append(v)
    return out


def _literal(col: Sequence[Any], text: bool) -> ArrayLiteral | None:
    """The array literal of a scalar column, or None when the JSON path must write it.

    ``text``: the column holds strings only (a brace in them is quoted).
    """
    # (a column holding a value in its first row, nearly always, is not all None:
    # count() would compare each value with None through the rich comparison)
    if col[0] is None and col.count(None) == len(col):
        return ArrayLiteral(b"{}")
    data = orjson.dumps(col)
    if b"\\" not in data:
        if not text and (b"{" in data or data.find(b"[", 1) >= 0):
            return None  # an object or array in a scalar column
        return ArrayLiteral(b"{" + data[1:-1] + b"}")
    if any(v is not None and type(v) is not str for v in col):
        return None
    items = (
        "NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        for v in col
    )
    return ArrayLiteral(("{" + ",".join(items) + "}").encode())


def column_params(
    records: Sequence[ActionRecord], keyring: KeyRing | None, schema: str
) -> list[Any] | None:
    """The parameters of :func:`source` for ``records`` (written in this order).

    Args:
        records: The rows (at least one).
        keyring: Seals the sealed columns (their JSON text, as the other paths
            do), or None.
        schema: The schema (part of what a sealed value is bound to).

    Returns:
        One parameter per write column, or None when a value is not one this
        path encodes as the JSON path would (the caller then takes that path).
    """
    cols = _columns(records)
    for i in _TEXT_AT:
        col = cols[i]
        try:
            joined = "".join(filter(None, col))
        except TypeError:  # not a string: the JSON path says what is wrong
            return None
        if not joined.isascii() or "\x00" in joined:
            cols[i] = tuple(None if v is None else escape_text(v) for v in col)
    for i in _FLOAT_AT:
        col = cols[i]
        try:
            finite = math.isfinite(sum(filter(None, col)))
        except TypeError:
            return None
        if not finite:  # (or a sum too large): each value as json_row sends it
            cols[i] = tuple(map(_f, col))
    for i in (_INPUT, _ERROR, _META):
        cols[i] = _jsonable(cols[i])
    # a plain ASCII string (a tool's result, often) is its own JSON value
    cols[_OUTPUT] = [
        v if v is None or (type(v) is str and v.isascii() and "\x00" not in v) else to_jsonable(v)
        for v in cols[_OUTPUT]
    ]
    if keyring is not None:
        _seal(cols, records, keyring, schema)
    params: list[Any] = []
    try:
        for i, col in enumerate(cols):
            if i in _JSON:
                params.append(raw_jsonb(orjson.dumps(col)))
                continue
            literal = _literal(col, i in _TEXT)
            if literal is None:
                return None
            params.append(literal)
    except TypeError:  # orjson does not encode a value
        return None
    return params


_JSON = frozenset((_INPUT, _OUTPUT, _ERROR, _META))
_TEXT = frozenset(_TEXT_AT)


def _seal(cols: list[Any], records: Sequence[ActionRecord], keyring: KeyRing, schema: str) -> None:
    """Replace the sealed columns' values by their sealed JSON text, row by row."""
    at = [JSON_AT[c] for c in SEALED_ACTION_COLUMNS]
    sealed_cols = [list(cols[i]) for i in at]
    thread_ids, action_ids = cols[0], cols[1]
    for row in range(len(records)):
        texts = [
            None if col[row] is None else orjson.dumps(col[row]).decode() for col in sealed_cols
        ]
        sealed = seal_columns(keyring, schema, thread_ids[row], action_ids[row], texts)
        for col, text in zip(sealed_cols, sealed, strict=True):
            col[row] = None if text is None else orjson.Fragment(text)
    for i, col in zip(at, sealed_cols, strict=True):
        cols[i] = col
