"""Distributing a schema on Citus: every per-thread table sharded by ``thread_id``, co-located.

:func:`plan_distribute` is a step of the one migration runner
(``plan_migrate(schema, distributed=True)``, which ``setup(distributed=True)``
and ``actionckpt migrate --distributed`` run). It is idempotent: a table that
is already distributed is left alone, so it runs after every migration and
picks up a table a later migration adds. Each table is distributed in its own
transaction under the schema's migration lock, so processes running it at once
distribute each table once.

``migrations`` stays a local table of the coordinator: the savers talk to the
coordinator only, and the runner's claim statement reads ``pg_stat_activity``,
which a distributed table's upsert may not.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph_actionckpt.db.driver import COMMIT, Op, Plan
from langgraph_actionckpt.db.sqlid import regclass
from langgraph_actionckpt.errors import MigrationError

__all__ = [
    "DISTRIBUTED_TABLES",
    "plan_distribute",
    "plan_is_citus",
    "plan_is_distributed",
]

DISTRIBUTED_TABLES = ("checkpoints", "blobs", "writes", "actions", "leases", "reuse_entries")
"""Per-thread tables in distribution order; the first is the co-location anchor."""

_IS_DISTRIBUTED = (
    "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = %s::regclass)"
)


def plan_is_citus() -> Plan[bool]:
    """Whether the database has the ``citus`` extension (the coordinator of a cluster)."""
    row = yield Op("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')", (), "one")
    return bool(row and row[0])


def plan_is_distributed(table: str) -> Plan[bool]:
    """Whether ``table`` (a quoted, schema-qualified name) is a Citus distributed table."""
    row = yield Op(_IS_DISTRIBUTED, (table,), "one")
    return bool(row and row[0])


def plan_distribute(schema: str, lock: Callable[[], Plan[None]]) -> Plan[int]:
    """Distribute ``schema``'s per-thread tables not yet distributed; how many were.

    Args:
        schema: A migrated schema.
        lock: Makes a plan that opens a transaction holding the schema's migration lock.

    Raises:
        MigrationError: The database has no Citus extension.
    """
    if not (yield from plan_is_citus()):
        raise MigrationError(
            f"cannot distribute schema {schema!r}: this database has no citus extension "
            "(connect to a Citus coordinator, or set up without distributed=True)"
        )
    anchor = regclass(schema, DISTRIBUTED_TABLES[0])
    done = 0
    for table in DISTRIBUTED_TABLES:
        name = regclass(schema, table)
        if (yield from plan_is_distributed(name)):
            continue
        yield from lock()
        if not (yield from plan_is_distributed(name)):  # another process may have done it
            yield Op(
                "SELECT create_distributed_table(%s, 'thread_id', colocate_with => %s)",
                (name, "default" if name == anchor else anchor),
            )
            done += 1
        yield COMMIT
    return done
