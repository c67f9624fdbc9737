"""Action rows: the SQL to read and write them, and their plans.

The record type is :class:`~langgraph_actionckpt.actions.record.ActionRecord`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from psycopg import sql

from langgraph_actionckpt.actions import batch_columns, batch_rows
from langgraph_actionckpt.actions.batch_rows import open_columns, seal_columns
from langgraph_actionckpt.actions.record import COLUMNS, JSON_FIELDS, WRITE_COLUMNS, ActionRecord
from langgraph_actionckpt.crypto import SEALED_ACTION_COLUMNS, Sealed
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.sqlid import Rendered
from langgraph_actionckpt.errors import SerializationError

if TYPE_CHECKING:
    from langgraph_actionckpt.crypto import KeyRing

_PG_TYPES = {
    "step_index": "bigint",
    "step": "int",
    "attempt": "int",
    "idempotent": "bool",
    "replayable": "bool",
    "replayed": "int",
    "input_tokens": "int",
    "output_tokens": "int",
    "total_tokens": "int",
    "cached_tokens": "int",
    "reasoning_tokens": "int",
    "latency_ms": "float8",
    "ttft_ms": "float8",
    "lc_run_id": "uuid",
    "started_at": "timestamptz",
    "completed_at": "timestamptz",
    "input": "jsonb",
    "output": "jsonb",
    "error": "jsonb",
    "meta": "jsonb",
}

# Fields an upsert may fill in later (a completion after a start); identity
# fields (task, node, type) come from whichever write arrives first.
_UPDATE_ON_CONFLICT = (
    "name",
    "node",
    "agent_id",
    "task_id",
    "step",
    "run_id",
    "checkpoint_id",
    "status",
    "attempt",
    "replayed",
    "input",
    "request_hash",
    "started_at",
    "parent_action_id",
    "lc_run_id",
    "output",
    "error",
    "model",
    "provider",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "latency_ms",
    "ttft_ms",
    "completed_at",
    "replayable",
    "meta",
    "trace_id",
    "span_id",
)


# A node row started again while still open: its task was cut off (the process
# died) and now runs again after a resume. Its duration counts from the resume.
_RESUMED = (
    "(a.action_type = 'node' AND a.status IN ('pending', 'running') "
    "AND EXCLUDED.status IN ('pending', 'running') AND EXCLUDED.started_at > a.started_at)"
)


def _update_expr(column: str, schema: sql.Identifier) -> sql.Composable:
    c = sql.Identifier(column)
    if column == "status":
        # a late "running" never undoes a terminal status, except for a new attempt
        return sql.SQL(
            "status = CASE WHEN a.status IN ('pending', 'running') "
            "OR EXCLUDED.status NOT IN ('pending', 'running') "
            "OR EXCLUDED.attempt > a.attempt THEN EXCLUDED.status ELSE a.status END"
        )
    if column == "replayable":
        # Only a new attempt makes an action replayable again: a late row of the
        # same attempt (a callback's join row) never undoes "not replayable".
        return sql.SQL(
            "{c} = CASE WHEN EXCLUDED.attempt > a.attempt THEN EXCLUDED.{c} "
            "ELSE a.{c} AND EXCLUDED.{c} END"
        ).format(c=c)
    if column in ("attempt", "replayed"):
        return sql.SQL("{c} = GREATEST(EXCLUDED.{c}, a.{c})").format(c=c)
    if column == "started_at":  # a retry or a resume restarts the clock; a late start row does not
        return sql.SQL(
            "{c} = CASE WHEN EXCLUDED.attempt > a.attempt OR " + _RESUMED + " "
            "THEN EXCLUDED.{c} ELSE a.{c} END"
        ).format(c=c)
    if column == "meta":  # a resumed node keeps when it first started and when it resumed
        # Objects merge (a later write's keys win): a callback's row joined to a
        # served action keeps what was noted before (``resolution``, ``forked_from``).
        # A new attempt starts over (a live retry's row drops ``reused_from``).
        return sql.SQL(
            "meta = CASE WHEN " + _RESUMED + " THEN {s}.resumed_meta(COALESCE(EXCLUDED.meta, "
            "a.meta), a.meta -> 'first_started_at', a.started_at, EXCLUDED.started_at) "
            "WHEN EXCLUDED.attempt > a.attempt THEN COALESCE(EXCLUDED.meta, a.meta) "
            "WHEN jsonb_typeof(a.meta) = 'object' AND jsonb_typeof(EXCLUDED.meta) = 'object' "
            "THEN a.meta || EXCLUDED.meta "
            "ELSE COALESCE(EXCLUDED.meta, a.meta) END"
        ).format(s=schema)
    return sql.SQL("{c} = COALESCE(EXCLUDED.{c}, a.{c})").format(c=c)


def row_from_db(
    row: Sequence[Any], q: ActionQueries | None = None, *, keep_sealed: bool = False
) -> ActionRecord:
    """Build a record from a ``SELECT <COLUMNS>`` row.

    Args:
        row: The row.
        q: The statements of its schema: the schema, named by errors, and the
            key ring that opens sealed columns.
        keep_sealed: Without a key ring, keep a sealed column as a
            :class:`~langgraph_actionckpt.crypto.Sealed` (an archive) instead of refusing it.

    Raises:
        SerializationError: A stored JSON value cannot be decoded (or opened);
            the message names the row and column and says the data was refused
            as untrusted (:class:`DecryptionError` for a sealed one read without a key).
    """
    schema = q.schema if q is not None else None
    values = dict(zip(COLUMNS, row, strict=True))
    open_columns(q.keyring if q is not None else None, schema or "?", values, keep_sealed)
    for name, value in values.items():
        if name in JSON_FIELDS:
            if type(value) is Sealed:
                continue
            try:
                values[name] = _encoding.from_jsonable(value)
            except Exception as exc:  # corrupt tags make the decoder raise anything
                raise SerializationError(
                    f"stored data refused as untrusted at table {schema or '?'}.actions, "
                    f"thread id {values['thread_id']!r}, action id {values['action_id']!r}, "
                    f"column {name}: {type(exc).__name__}: {exc}"
                ) from exc
        elif isinstance(value, str):
            values[name] = _encoding.unescape_text(value)
    if values["lc_run_id"] is not None:
        values["lc_run_id"] = str(values["lc_run_id"])
    return ActionRecord(**values)


_SEALED_AT = tuple(WRITE_COLUMNS.index(c) for c in SEALED_ACTION_COLUMNS)


def _sealed_row(q: ActionQueries, keyring: KeyRing, row: tuple[Any, ...]) -> tuple[Any, ...]:
    out = list(row)
    sealed = seal_columns(keyring, q.schema, row[0], row[1], [row[i] for i in _SEALED_AT])
    for i, text in zip(_SEALED_AT, sealed, strict=True):
        out[i] = text
    return tuple(out)


class ActionQueries:
    """SQL for the actions table of one schema."""

    def __init__(self, schema: str, keyring: KeyRing | None = None) -> None:
        self.schema = schema
        self.ident = sql.Identifier(schema)
        self.keyring = keyring
        """Seals ``input``/``output``/``error`` of the rows written, opens those read."""

    def q(self, text: str, **parts: sql.Composable) -> sql.Composed:
        return Rendered(sql.SQL(text).format(s=self.ident, **parts))

    @cached_property
    def columns(self) -> sql.Composed:
        return sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)

    @functools.lru_cache(maxsize=2)  # noqa: B019 - one ActionQueries object per saver
    def upsert(self, fenced: bool = False) -> sql.SQL:
        """Multi-row upsert from parallel arrays (unusual values); see :meth:`_upsert_from`."""
        arrays = sql.SQL(", ").join(
            sql.SQL("%s::{}[]").format(sql.SQL(_PG_TYPES.get(c, "text"))) for c in WRITE_COLUMNS
        )
        cols = sql.SQL(", ").join(sql.Identifier(c) for c in WRITE_COLUMNS)
        return self._upsert_from(
            sql.SQL("SELECT * FROM unnest({arrays}) AS x({cols})").format(arrays=arrays, cols=cols),
            fenced,
        )

    def _upsert_from(
        self, source: sql.Composable, fenced: bool = False, *, merge: bool = True
    ) -> sql.SQL:
        """Insert rows from ``source`` (all write columns, in order), merging existing ones.

        A terminal status is never overwritten by a non-terminal one, unless the
        write is a new attempt (a retry of a failed or unreplayable action).
        ``fenced``: two more parameters after the source's, the leased threads
        and their fencing tokens; a stale token fails the statement (nothing
        is written) through ``{s}.fenced()``, evaluated once before any row.
        """
        cols = sql.SQL(", ").join(sql.Identifier(c) for c in WRITE_COLUMNS)
        defaults = {"started_at": "now()", "checkpoint_ns": "''"}
        exprs = sql.SQL(", ").join(
            sql.SQL("COALESCE(x.{c}, {d})").format(c=sql.Identifier(c), d=sql.SQL(defaults[c]))
            if c in defaults
            else sql.SQL("x.{c}").format(c=sql.Identifier(c))
            for c in WRITE_COLUMNS
        )
        sets = sql.SQL(", ").join(_update_expr(c, self.ident) for c in _UPDATE_ON_CONFLICT)
        # Rendered once: psycopg would compose this long statement again on every
        # execution, costing as much as writing a batch of rows.
        return sql.SQL(
            self.q(
                """
            INSERT INTO {s}.actions AS a ({cols})
            SELECT {exprs} FROM ({source}) AS x {fence}
            {merge}
            """,
                cols=cols,
                exprs=exprs,
                source=source,
                fence=self.fence_filter if fenced else sql.SQL(""),
                merge=sql.SQL("ON CONFLICT (thread_id, action_id) DO UPDATE SET {}").format(sets)
                if merge
                else sql.SQL(""),
            ).as_string()
        )

    @cached_property
    def fence_filter(self) -> sql.Composed:
        """``WHERE`` every (thread, token) of two array parameters is the lease holder's."""
        return self.q(
            "WHERE (SELECT count({s}.fenced(f.t, f.k)) "
            "FROM unnest(%s::text[], %s::bigint[]) AS f(t, k)) >= 0"
        )

    @functools.lru_cache(maxsize=4)  # noqa: B019
    def upsert_json(self, fenced: bool = False, merge: bool = True) -> sql.SQL:
        """Upsert from one ``jsonb`` parameter: an array of rows, each an array of the
        write columns (``batch_rows.json_row``); JSON ``null`` in a JSON column is SQL NULL.

        ``merge=False``: a plain insert, for rows taken to be new; one that is not
        fails the statement (unique violation) with nothing written.
        """
        exprs: list[sql.Composable] = []
        for i, c in enumerate(WRITE_COLUMNS):
            pg_type, at = _PG_TYPES.get(c, "text"), sql.Literal(i)
            if pg_type == "jsonb":
                expr = sql.SQL("NULLIF(e -> {i}, 'null'::jsonb)").format(i=at)
            elif pg_type == "text":
                expr = sql.SQL("e ->> {i}").format(i=at)
            else:
                expr = sql.SQL("(e ->> {i})::{t}").format(i=at, t=sql.SQL(pg_type))
            exprs.append(sql.SQL("{} AS {}").format(expr, sql.Identifier(c)))
        source = sql.SQL("SELECT {} FROM jsonb_array_elements(%s::jsonb) AS e").format(
            sql.SQL(", ").join(exprs)
        )
        return self._upsert_from(source, fenced, merge=merge)

    @functools.lru_cache(maxsize=4)  # noqa: B019
    def upsert_columns(self, fenced: bool = False, merge: bool = True) -> sql.SQL:
        """:meth:`upsert_json` from one parameter per write column (``batch_columns``)."""
        source = batch_columns.source(WRITE_COLUMNS, _PG_TYPES)
        return self._upsert_from(source, fenced, merge=merge)

    def select(self, conditions: Sequence[str], order: str = "step_index") -> sql.Composed:
        where = " AND ".join(conditions) if conditions else "true"
        return self.q(
            "SELECT {cols} FROM {s}.actions a WHERE {where} ORDER BY {order} LIMIT %(limit)s",
            cols=self.columns,
            where=sql.SQL(where),
            order=sql.SQL(order),
        )

    @cached_property
    def get(self) -> sql.Composed:
        return self.q(
            "SELECT {cols} FROM {s}.actions WHERE thread_id = %s AND action_id = %s",
            cols=self.columns,
        )

    @functools.lru_cache(maxsize=2)  # noqa: B019
    def not_replayable(self, fenced: bool = False) -> sql.Composed:
        # Only the task's most recent completion: the output the node was acting
        # on when it failed. Earlier completions are still replayed. Fenced: the
        # thread id goes through {s}.fenced() once (an InitPlan), with the token.
        thread = sql.SQL(
            "(SELECT {s}.fenced(%(thread_id)s, %(fence)s::bigint))" if fenced else "%(thread_id)s"
        ).format(s=self.ident)
        return self.q(
            """
            UPDATE {s}.actions SET replayable = false
            WHERE thread_id = {thread} AND step_index = (
                SELECT max(step_index) FROM {s}.actions
                WHERE thread_id = %(thread_id)s AND task_id = %(task_id)s
                  AND action_type = 'llm_completion' AND status = 'completed')
            """,
            thread=thread,
        )


def _text(value: str | None) -> str | None:
    return None if value is None else _encoding.escape_text(value)


def _json(value: Any) -> str | None:
    return None if value is None else _encoding.dumps(value).decode()


def write_row(r: ActionRecord) -> tuple[Any, ...]:
    """The values of ``r`` for the write columns, in ``WRITE_COLUMNS`` order, encoded.

    Spelled out column by column: this is the writer's hot loop (one call per
    row per flush), and a literal tuple is the fastest way Python has to build
    it. ``tests/test_records.py`` checks it against ``WRITE_COLUMNS``.
    """
    return (
        _text(r.thread_id),
        _text(r.action_id),
        _text(r.action_type),
        _text(r.name),
        _text(r.status),
        _text(r.run_id),
        _text(r.checkpoint_ns),
        _text(r.checkpoint_id),
        _text(r.task_id),
        _text(r.node),
        _text(r.agent_id),
        r.step,
        r.attempt,
        r.idempotent,
        r.replayable,
        r.replayed,
        _text(r.request_hash),
        _json(r.input),
        _json(r.output),
        _json(r.error),
        _text(r.model),
        _text(r.provider),
        r.input_tokens,
        r.output_tokens,
        r.total_tokens,
        r.cached_tokens,
        r.reasoning_tokens,
        r.latency_ms,
        r.ttft_ms,
        _text(r.parent_action_id),
        _text(r.lc_run_id),
        _json(r.meta),
        r.started_at,
        r.completed_at,
        _text(r.trace_id),
        _text(r.span_id),
    )


_THREAD_ID = operator.attrgetter("thread_id")

JSON_THRESHOLD = 32
"""Batches at least this large are written in chunks, inserted first (``fresh``)."""


def plan_upsert(
    q: ActionQueries,
    records: Sequence[ActionRecord],
    fences: Mapping[str, int] | None = None,
    *,
    fresh: bool = False,
) -> Plan[None]:
    """Write records: one upsert statement (several in one transaction for huge batches).

    Binding rows as parallel arrays costs psycopg a few microseconds a value,
    so the rows go column by column as array literals encoded by orjson
    (:mod:`~langgraph_actionckpt.actions.batch_columns`), merged with the same
    upsert rules. A chunk holding a value of an unusual type goes as one JSON
    array (:mod:`~langgraph_actionckpt.actions.batch_rows`), or the general way
    (psycopg's adapters) when orjson cannot encode it; so does a small batch.

    Args:
        q: The schema's statements.
        records: The rows.
        fences: Fencing tokens by (stored) thread id of the leased threads
            among the rows: the upsert fails, writing nothing, when one is stale.
        fresh: Take the rows of a large batch to be new: insert them without
            the merge, which fails (``UniqueViolation``, nothing written) when
            one is not; the caller then writes them again without ``fresh``.
    """
    if not records:
        return
    fence: list[Any] = [list(fences), list(fences.values())] if fences else []
    # Threads in ascending order, each thread's rows in arrival order (that order
    # numbers them: step_index); every multi-thread write of this package locks
    # rows in this order, so none can deadlock with another. One thread's rows (the
    # common case) are in order already: count() tells at C speed, cheaper than a sort.
    threads = list(map(_THREAD_ID, records))
    one = threads.count(threads[0]) == len(threads)
    ordered = list(records) if one else sorted(records, key=_THREAD_ID)
    if len(ordered) < JSON_THRESHOLD:
        params = batch_columns.column_params(ordered, q.keyring, q.schema)
        if params is None:  # a value of an unusual type: psycopg adapts it
            yield _arrays_op(q, ordered, fence)
        else:
            yield Op(q.upsert_columns(bool(fence)), [*params, *fence], prepare=True)
        return
    # Each chunk is encoded when the previous one has been sent: in pipeline
    # mode the server stores a chunk while Python encodes the next.
    size = batch_rows.MAX_ROWS
    several = len(ordered) > size
    if several:
        yield BEGIN
    for i in range(0, len(ordered), size):
        chunk = ordered[i : i + size]
        params = batch_columns.column_params(chunk, q.keyring, q.schema)
        if params is not None:  # else a value the JSON path encodes its own way
            statement = q.upsert_columns(bool(fence), merge=not fresh)
            yield Op(statement, [*params, *fence], prepare=True)
            continue
        data = batch_rows.json_chunk(chunk, q.keyring, q.schema)
        if data is None:  # a value orjson does not encode: psycopg binds the rest
            yield _arrays_op(q, ordered[i:], fence)
            break
        statement = q.upsert_json(bool(fence), merge=not fresh)
        yield Op(statement, [batch_rows.raw_jsonb(data), *fence], prepare=True)
    if several:
        yield COMMIT


def _arrays_op(q: ActionQueries, records: Sequence[ActionRecord], fence: list[Any]) -> Op:
    """The upsert of ``records`` bound as parallel arrays (small batches, unusual values)."""
    rows = [write_row(r) for r in records]
    if q.keyring is not None:
        rows = [_sealed_row(q, q.keyring, row) for row in rows]
    return Op(q.upsert(bool(fence)), [*(list(col) for col in zip(*rows, strict=True)), *fence])
