"""``actionckpt stats``: sizes and counts of a schema's tables, actions per type and status."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from psycopg import sql

from langgraph_actionckpt.db.distribute import plan_is_distributed
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.migrations import plan_schema_version, plan_vector_state
from langgraph_actionckpt.db.sqlid import q as _q
from langgraph_actionckpt.db.sqlid import regclass
from langgraph_actionckpt.ops.jsonable import Jsonable
from langgraph_actionckpt.ops.target import Target, driver_for, schema_for

__all__ = ["TABLES", "TableStats", "stats"]

TABLES = ("checkpoints", "blobs", "writes", "actions", "migrations")


@dataclasses.dataclass(slots=True)
class TableStats(Jsonable):
    """Sizes and counts of a schema (``actionckpt stats``).

    Attributes:
        schema: The schema.
        tables: Per table: ``rows`` (exact count), ``total_bytes`` (with indexes
            and TOAST), ``table_bytes``, ``index_bytes``; missing tables are absent.
        actions_by_type_status: ``{action_type: {status: count}}``.
        oldest_action: Earliest ``started_at``.
        newest_action: Latest ``started_at``.
        threads: Distinct threads with actions.
        schema_version: Applied migration version (``None``: not set up).
        has_embedding: Whether the similarity-search column exists.
    """

    schema: str
    tables: dict[str, dict[str, int]]
    actions_by_type_status: dict[str, dict[str, int]]
    oldest_action: dt.datetime | None
    newest_action: dt.datetime | None
    threads: int
    schema_version: int | None
    has_embedding: bool


_LOCAL_SIZES = (
    "SELECT (SELECT count(*) FROM {t}), pg_total_relation_size(%s::regclass), "
    "pg_relation_size(%s::regclass), pg_indexes_size(%s::regclass)"
)
# Citus: the sizes of every shard, summed over the workers
_CITUS_SIZES = (
    "SELECT (SELECT count(*) FROM {t}), citus_total_relation_size(%s::regclass), "
    "citus_table_size(%s::regclass), "
    "citus_total_relation_size(%s::regclass) - citus_table_size(%s::regclass)"
)


def _plan_table_sizes(schema: str) -> Plan[dict[str, dict[str, int]]]:
    """Exact row count and sizes of each of the schema's tables that exists."""
    tables: dict[str, dict[str, int]] = {}
    for table in TABLES:
        name = regclass(schema, table)
        row = yield Op(
            "SELECT to_regclass(%s) IS NOT NULL, to_regclass('pg_dist_partition') IS NOT NULL",
            (name,),
            "one",
        )
        if not row or not row[0]:
            continue
        sizes = _LOCAL_SIZES
        if row[1] and (yield from plan_is_distributed(name)):
            sizes = _CITUS_SIZES  # the coordinator's own table is an empty shell
        row = yield Op(
            sql.SQL(sizes).format(t=sql.Identifier(schema, table)),
            (name,) * sizes.count("%s"),
            "one",
        )
        assert row is not None
        tables[table] = dict(zip(_SIZES, map(int, row), strict=True))
    return tables


_SIZES = ("rows", "total_bytes", "table_bytes", "index_bytes")


def _plan_action_summary(schema: str) -> Plan[dict[str, Any]]:
    """The :class:`TableStats` fields about the actions table (it exists)."""
    rows = yield Op(
        _q(
            schema,
            "SELECT action_type, status, count(*) FROM {s}.actions GROUP BY 1, 2 ORDER BY 1, 2",
        ),
        None,
        "all",
    )
    by: dict[str, dict[str, int]] = {}
    for t, s, n in rows:
        by.setdefault(t, {})[s] = int(n)
    span = yield Op(
        _q(
            schema,
            "SELECT min(started_at), max(started_at), count(DISTINCT thread_id) FROM {s}.actions",
        ),
        None,
        "one",
    )
    assert span is not None
    vector = yield from plan_vector_state(schema)
    return {
        "actions_by_type_status": by,
        "oldest_action": span[0],
        "newest_action": span[1],
        "threads": int(span[2]),
        "has_embedding": vector.column_dims is not None,
    }


_NO_ACTIONS: dict[str, Any] = {
    "actions_by_type_status": {},
    "oldest_action": None,
    "newest_action": None,
    "threads": 0,
    "has_embedding": False,
}


def _plan_stats(schema: str) -> Plan[TableStats]:
    tables = yield from _plan_table_sizes(schema)
    summary: dict[str, Any] = _NO_ACTIONS
    if "actions" in tables:
        summary = yield from _plan_action_summary(schema)
    version = yield from plan_schema_version(schema)
    return TableStats(schema=schema, tables=tables, schema_version=version, **summary)


def stats(target: Target, schema: str | None = None) -> TableStats:
    """Row counts and on-disk sizes per table, actions per type and status.

    Row counts are exact (``count(*)``), which reads each table once.
    """
    sch = schema_for(target, schema)
    return driver_for(target).run(lambda: _plan_stats(sch))
