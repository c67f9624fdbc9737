"""Ready for a distributed PostgreSQL (Citus, sharded by ``thread_id``), checked in the catalog.

Every primary key and unique index of a per-thread table must lead with
``thread_id``: a distributed table can only enforce uniqueness that includes its
distribution column, and a key that leads with it routes every lookup to one
shard. Reference tables (replicated to every node) are listed by name.
"""

from __future__ import annotations

from langgraph_actionckpt import ActionSaver

from .conftest import fetch

REFERENCE_TABLES = {"migrations"}
"""Small tables replicated to every node: not per thread."""


def test_every_key_of_a_per_thread_table_leads_with_thread_id(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
    tables = fetch(
        dsn,
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p')",
        (schema,),
    )
    per_thread = {t for (t,) in tables} - REFERENCE_TABLES
    assert {"checkpoints", "blobs", "writes", "actions"} <= per_thread
    keys = fetch(
        dsn,
        """
        SELECT c.relname, i.relname, a.attname
          FROM pg_index x
          JOIN pg_class i ON i.oid = x.indexrelid
          JOIN pg_class c ON c.oid = x.indrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
         WHERE n.nspname = %s AND (x.indisunique OR x.indisprimary)
        """,
        (schema,),
    )
    offenders = [(t, i, col) for t, i, col in keys if t in per_thread and col != "thread_id"]
    assert offenders == []
    for table in per_thread:
        cols = fetch(
            dsn,
            "SELECT 1 FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s AND column_name = 'thread_id'",
            (schema, table),
        )
        assert cols, f"{table} has no thread_id column to distribute by"
