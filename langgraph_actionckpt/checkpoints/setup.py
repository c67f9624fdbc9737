"""Saver options that need no saver: schema name, default serializer, the setup plan."""

from __future__ import annotations

import os
import re

from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt.checkpoints.serde import ActionSerializer
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.migrations import LATEST_VERSION, pending_migrations
from langgraph_actionckpt.errors import ConfigurationError, MigrationError

DEFAULT_SCHEMA = "actionckpt"
_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def validate_schema(schema: str) -> str:
    """Check a schema name; it must be a plain SQL identifier (it is quoted anyway)."""
    if not isinstance(schema, str) or not _SCHEMA_RE.match(schema):
        raise ConfigurationError(
            f"schema must match {_SCHEMA_RE.pattern} (letters, digits, underscore), got {schema!r}"
        )
    return schema


def default_serde() -> SerializerProtocol:
    """Strict msgpack serializer: only allowlisted types are revived on load.

    LangGraph adds the graph's own state types to the allowlist when it compiles
    a graph with this saver (``with_allowlist``). Pickle is never used.
    """
    return ActionSerializer(allowed_msgpack_modules=None)


def env_dsn() -> str | None:
    """The DSN from ``ACTIONCKPT_DSN``, if set and not empty."""
    return os.environ.get("ACTIONCKPT_DSN") or None


def plan_setup(queries: Queries) -> Plan[int]:
    """Apply pending migrations under a per-schema advisory lock.

    Returns:
        The schema version now in place.

    Raises:
        MigrationError: The schema is newer than this package.
    """
    q = queries
    schema = q.schema
    row = yield Op(q.current_version, (f'"{schema}".migrations',), "one")
    if row is not None and row[0]:
        row = yield Op(q.read_version, None, "one")
        if row is not None and row[0] is not None and row[0] >= LATEST_VERSION:
            return int(row[0])
    lock_key = f"langgraph_actionckpt:{schema}"
    # Poll with try-lock instead of blocking in pg_advisory_lock: a session
    # blocked inside a statement holds a snapshot, and CREATE INDEX
    # CONCURRENTLY in the lock holder would wait for it forever (deadlock).
    while True:
        got = yield Op("SELECT pg_try_advisory_lock(hashtext(%s))", (lock_key,), "one")
        if got and got[0]:
            break
        yield Op(fetch="sleep", params=(0.05,))
    # If anything below fails, the driver releases the session's advisory locks.
    yield Op(q.create_schema)
    yield Op(q.create_migrations)
    row = yield Op(q.read_version, None, "one")
    current = row[0] if row else None
    if current is not None and current > LATEST_VERSION:
        raise MigrationError(
            f"schema {schema!r} is at version {current}, newer than this "
            f"package's {LATEST_VERSION}; upgrade langgraph-actionckpt"
        )
    for migration in pending_migrations(current):
        if migration.concurrent:
            for stmt in migration.render(schema):
                yield Op(stmt)
            yield Op(q.record_version, (migration.version, migration.description))
        else:
            yield BEGIN
            for stmt in migration.render(schema):
                yield Op(stmt)
            yield Op(q.record_version, (migration.version, migration.description))
            yield COMMIT
    yield Op("SELECT pg_advisory_unlock(hashtext(%s))", (lock_key,), "one")
    return LATEST_VERSION
