"""The reuse layer's SQL, as plans: look up, store, and count reused results.

Entries live in ``{schema}.reuse_entries`` (migration 7), one per completed
reusable action, joined to the action row that holds the result. The optional
``embedding`` column and its HNSW index come from
:func:`~langgraph_actionckpt.db.migrations.plan_reuse_vector`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from psycopg import sql

from langgraph_actionckpt.actions.record import COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries, row_from_db
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.sqlid import q

if TYPE_CHECKING:
    from langgraph_actionckpt.crypto import KeyRing

__all__ = ["plan_exact", "plan_nearest", "plan_reuse_stats", "plan_store"]

# An overridden result (resolve_action(..., override=True)) is one thread's
# decision, not a result of the request: never served to others.
_COLS = sql.SQL(", ").join(sql.Identifier("a", c) for c in COLUMNS)
_EXACT = (
    "SELECT {cols} FROM {s}.reuse_entries e JOIN {s}.actions a "
    "ON a.thread_id = e.thread_id AND a.action_id = e.action_id "
    "WHERE e.scope = %s AND e.request_hash = %s "
    "AND a.status = 'completed' AND a.error IS NULL AND a.replayable "
    "AND NOT coalesce(a.meta ? 'overridden', false) "
    "ORDER BY e.created_at DESC LIMIT 1"
)
_NEAREST = (
    "SELECT {cols}, e.text, (1 - (e.embedding <=> %(q)s::vector))::float8 "
    "FROM {s}.reuse_entries e JOIN {s}.actions a "
    "ON a.thread_id = e.thread_id AND a.action_id = e.action_id "
    "WHERE e.scope = %(scope)s AND e.key_hash = %(key)s AND e.embedding IS NOT NULL "
    "AND a.status = 'completed' AND a.error IS NULL AND a.replayable "
    "AND NOT coalesce(a.meta ? 'overridden', false) "
    "ORDER BY e.embedding <=> %(q)s::vector LIMIT %(k)s"
)
_STORE = (
    "INSERT INTO {s}.reuse_entries "
    "(thread_id, action_id, scope, key_hash, request_hash, action_type, name, text{emb}) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s{val}) ON CONFLICT DO NOTHING"
)
_STATS = (
    "SELECT action_type, coalesce(meta->'reused_from'->>'mode', 'miss'), count(*), "
    "coalesce(sum((meta->'reuse_saved'->>'input_tokens')::bigint), 0), "
    "coalesce(sum((meta->'reuse_saved'->>'output_tokens')::bigint), 0), "
    "coalesce(sum((meta->'reuse_saved'->>'total_tokens')::bigint), 0) "
    "FROM {s}.actions WHERE meta ? 'reused_from' OR meta ? 'reuse_miss' "
    "GROUP BY 1, 2 ORDER BY 1, 2"
)


# the candidates a lookup refused (the first three of each miss), by reason
_REFUSALS = (
    "SELECT coalesce(x->>'reason', '?'), count(*) FROM {s}.actions, "
    "jsonb_array_elements(CASE WHEN jsonb_typeof(meta->'reuse_miss'->'refused') = 'array' "
    "THEN meta->'reuse_miss'->'refused' ELSE '[]' END) AS r(x) "
    "WHERE meta ? 'reuse_miss' GROUP BY 1 ORDER BY 2 DESC, 1"
)


def plan_exact(
    schema: str, scope: str, request_hash: str, keyring: KeyRing | None = None
) -> Plan[ActionRecord | None]:
    """The latest completed result in ``scope`` of exactly this request, or None.

    ``keyring`` opens an encrypted row (the saver's); without one a sealed row is refused.
    """
    rows = yield Op(q(schema, _EXACT, cols=_COLS), (scope, request_hash), "all")
    return row_from_db(rows[0], ActionQueries(schema, keyring)) if rows else None


def plan_nearest(
    schema: str,
    scope: str,
    key_hash: str,
    qvec: str,
    k: int,
    iterative_scan: bool,
    keyring: KeyRing | None = None,
) -> Plan[list[tuple[ActionRecord, str, float]]]:
    """The ``k`` entries nearest to ``qvec`` with this key: ``(record, text, similarity)``."""
    yield BEGIN
    if iterative_scan:  # filtered HNSW scans keep searching until k rows pass the filters
        yield Op("SET LOCAL hnsw.iterative_scan = relaxed_order")
    rows = yield Op(
        q(schema, _NEAREST, cols=_COLS),
        {"q": qvec, "scope": scope, "key": key_hash, "k": k},
        "all",
    )
    yield COMMIT
    n, aq = len(COLUMNS), ActionQueries(schema, keyring)
    return [(row_from_db(r[:n], aq), _encoding.unescape_text(r[n]), float(r[n + 1])) for r in rows]


def plan_store(
    schema: str, entry: tuple[str, str, str, str, str, str, str | None, str], qvec: str | None
) -> Plan[None]:
    """Insert one entry ``(thread, action, scope, key, request hash, type, name, text)``."""
    params: tuple[Any, ...] = (*entry[:7], _encoding.escape_text(entry[7]))
    if qvec is None:
        yield Op(q(schema, _STORE, emb=sql.SQL(""), val=sql.SQL("")), params)
    else:
        stmt = q(schema, _STORE, emb=sql.SQL(", embedding"), val=sql.SQL(", %s::vector"))
        yield Op(stmt, (*params, qvec))


def plan_reuse_stats(schema: str) -> Plan[list[tuple[str, str, int, int, int, int]]]:
    """Per action type and outcome (``exact``, ``semantic``, ``miss``): rows and tokens saved."""
    rows = yield Op(q(schema, _STATS), None, "all")
    return [(r[0], r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5])) for r in rows]


def plan_reuse_refusals(schema: str) -> Plan[list[tuple[str, int]]]:
    """Candidates refused by lookups that served nothing, per reason (``below threshold``,
    ``negation differs``, ``verifier``...)."""
    rows = yield Op(q(schema, _REFUSALS), None, "all")
    return [(str(r[0]), int(r[1])) for r in rows]
