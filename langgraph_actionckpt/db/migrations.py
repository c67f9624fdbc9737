"""Versioned schema migrations and the one runner that applies all DDL.

Each migration has an explicit version number and is applied at most once per
schema. Ordinary migrations run in one transaction together with their version
row; ``concurrent`` migrations (``CREATE INDEX CONCURRENTLY``) cannot run in a
transaction, so they run in autocommit and are written to be re-runnable.

:func:`plan_migrate` is the runner (the savers' ``setup()``, ``actionckpt
migrate`` and :class:`~langgraph_actionckpt.ops.vector.VectorIndex` all run it).
It reads the applied version without any lock; only when a migration is pending
does it take a per-schema advisory lock (transaction-scoped: nothing outlives a
transaction, so it works behind transaction-mode pgbouncer), re-read the version,
and apply what is still missing, so ten processes calling ``setup()`` at once end
with one schema and no error. The advisory lock is never held across ``CREATE INDEX
CONCURRENTLY``: the build waits for every older snapshot in the database, and a
session waiting for our lock inside a statement holds one, so holding the lock
across the build can deadlock. Index builds therefore run with the lock
released, each preceded by a check that drops an invalid index an interrupted
build left behind (``pg_index.indisvalid``), and the version row is written only
once every index of the migration is valid.

The similarity-search column is an *optional step* of the same runner
(``plan_migrate(schema, vector_dims=n)``), not a numbered migration: it needs
the ``vector`` extension, which many servers lack, and a dimension only the
embedding model knows. A schema is complete without it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from psycopg import sql

from langgraph_actionckpt.db.distribute import plan_distribute
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.plan import ROLLBACK
from langgraph_actionckpt.db.schema_versions import LATEST_VERSION, MIGRATIONS, Migration
from langgraph_actionckpt.db.sqlid import q, regclass
from langgraph_actionckpt.errors import MigrationError


def pending_migrations(current: int | None) -> list[Migration]:
    """Migrations newer than ``current`` (None: nothing applied yet)."""
    base = current or 0
    return [m for m in MIGRATIONS if m.version > base]


# --------------------------------------------------------------------- runner

_CREATE_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS {s}.migrations ("
    "v integer PRIMARY KEY, description text, applied_at timestamptz DEFAULT now())"
)
_RECORD = "INSERT INTO {s}.migrations (v, description) VALUES (%s, %s) ON CONFLICT DO NOTHING"
# The index a concurrent statement builds; its name is what the validity check looks up.
_CIC = re.compile(r"^\s*CREATE INDEX CONCURRENTLY IF NOT EXISTS (\w+)", re.IGNORECASE)
_INDEX_STATE = (
    "SELECT i.indisvalid, EXISTS (SELECT 1 FROM pg_stat_progress_create_index p "
    "WHERE p.index_relid = c.oid AND p.pid <> pg_backend_pid()) "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_index i ON i.indexrelid = c.oid WHERE n.nspname = %s AND c.relname = %s"
)
_BUILD_ATTEMPTS = 3
_POLL = 0.05

VECTOR_INDEX = "actions_embedding_hnsw_idx"
"""The HNSW index of the optional similarity-search step."""


def _lock_key(schema: str) -> str:
    return f"langgraph_actionckpt:{schema}"


def plan_begin_locked(key: str) -> Plan[None]:
    """Open a transaction holding the advisory lock ``key`` (released by its COMMIT).

    A transaction-scoped lock, so no lock outlives its transaction on a server
    session (behind a transaction-mode pooler the next statement may run on
    another one). Polling with try-lock instead of blocking in
    ``pg_advisory_xact_lock``: a session blocked inside a statement holds a
    snapshot, which a ``CREATE INDEX CONCURRENTLY`` elsewhere would wait for;
    between tries no transaction stays open.
    """
    while True:
        yield BEGIN
        got = yield Op("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (key,), "one")
        if got and got[0]:
            return
        yield ROLLBACK
        yield Op(fetch="sleep", params=(_POLL,))


def plan_schema_version(schema: str) -> Plan[int | None]:
    """The applied migration version of ``schema`` (``None``: not set up). Takes no lock."""
    row = yield Op("SELECT to_regclass(%s) IS NOT NULL", (regclass(schema, "migrations"),), "one")
    if not row or not row[0]:
        return None
    row = yield Op(q(schema, "SELECT max(v) FROM {s}.migrations"), None, "one")
    return None if row is None or row[0] is None else int(row[0])


def plan_build_index(schema: str, name: str, create: sql.Composable) -> Plan[None]:
    """Build index ``name`` with ``create`` (a ``CREATE INDEX CONCURRENTLY IF NOT EXISTS``).

    An invalid index of that name that no session is building any more (an
    interrupted build) is dropped first, since ``IF NOT EXISTS`` would keep it
    and leave the index unusable. One that another session is building now is
    waited for. Run without holding an advisory lock.

    Raises:
        MigrationError: The index is still invalid after a few builds.
    """
    attempts = 0
    while True:
        row = yield Op(_INDEX_STATE, (schema, name), "one")
        if row is not None:
            valid, building = bool(row[0]), bool(row[1])
            if valid:
                return
            if building:  # another process's build: wait for it, then look again
                yield Op(fetch="sleep", params=(_POLL,))
                continue
        if attempts == _BUILD_ATTEMPTS:
            raise MigrationError(
                f"index {schema}.{name} is still invalid after {attempts} builds; "
                "see the server log for why CREATE INDEX CONCURRENTLY fails"
            )
        attempts += 1
        if row is not None:
            yield Op(
                sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(schema, name))
            )
        yield Op(create)


def _plan_concurrent(schema: str, migration: Migration) -> Plan[None]:
    """A concurrent migration's statements, every index build checked and made valid."""
    for text, stmt in zip(migration.statements, migration.render(schema), strict=True):
        match = _CIC.match(text)
        if match:
            yield from plan_build_index(schema, match.group(1), stmt)
        else:
            yield Op(stmt)


def plan_migrate(
    schema: str, *, vector_dims: int | None = None, distributed: bool = False
) -> Plan[int]:
    """Apply the pending migrations of ``schema`` (and the vector step when asked).

    Idempotent and safe to run from many processes at once (see the module
    docstring for the locking).

    Args:
        schema: The schema (created if missing).
        vector_dims: Also apply the optional similarity-search step with an
            ``embedding vector(vector_dims)`` column (needs pgvector on the server).
        distributed: Then distribute the per-thread tables on Citus
            (:func:`~langgraph_actionckpt.db.distribute.plan_distribute`).

    Returns:
        The schema version, :data:`LATEST_VERSION`.

    Raises:
        MigrationError: The schema is newer than this package, or ``distributed``
            on a database without Citus.
    """
    current = yield from plan_schema_version(schema)
    if current is None or current < LATEST_VERSION:
        yield from _plan_numbered(schema)
    elif current > LATEST_VERSION:
        raise _too_new(schema, current)
    if vector_dims is not None:
        yield from _plan_vector(schema, vector_dims)
    if distributed:
        yield from plan_distribute(schema, lambda: plan_begin_locked(_lock_key(schema)))
    return LATEST_VERSION


def _too_new(schema: str, current: int) -> MigrationError:
    return MigrationError(
        f"schema {schema!r} is at version {current}, newer than this "
        f"package's {LATEST_VERSION}; upgrade langgraph-actionckpt"
    )


def _plan_numbered(schema: str) -> Plan[None]:
    key = _lock_key(schema)
    record = q(schema, _RECORD)
    while True:
        # one migration per locked transaction; the version is re-read under the
        # lock: another process may have applied some meanwhile
        yield from plan_begin_locked(key)
        yield Op(q(schema, "CREATE SCHEMA IF NOT EXISTS {s}"))
        yield Op(q(schema, _CREATE_MIGRATIONS))
        row = yield Op(q(schema, "SELECT max(v) FROM {s}.migrations"), None, "one")
        current = row[0] if row else None
        if current is not None and current > LATEST_VERSION:
            raise _too_new(schema, current)
        pending = pending_migrations(current)
        if not pending:
            yield COMMIT
            return
        migration = pending[0]
        if not migration.concurrent:
            for stmt in migration.render(schema):
                yield Op(stmt)
            yield Op(record, (migration.version, migration.description))
            yield COMMIT
            continue
        yield COMMIT  # no lock across CREATE INDEX CONCURRENTLY
        claimed = yield from plan_claim(schema, -migration.version)
        if not claimed:  # another process builds these indexes: wait, then look again
            yield Op(fetch="sleep", params=(_POLL,))
            continue
        yield from _plan_concurrent(schema, migration)
        yield from plan_begin_locked(key)
        yield Op(record, (migration.version, migration.description))
        yield from plan_release_claim(schema, -migration.version)
        yield COMMIT


# A claim is a row of {s}.migrations with a negative ``v``: the builder's pid and
# backend start. ``max(v)`` never sees it. It is taken (or taken over from a
# builder that is gone, or idle for a while after a failed build) by one atomic
# upsert, so no lock is held while the indexes are built.
_CLAIM = """
INSERT INTO {s}.migrations AS m (v, description, applied_at)
SELECT %(v)s, a.pid::text, a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()
ON CONFLICT (v) DO UPDATE SET description = EXCLUDED.description, applied_at = EXCLUDED.applied_at
WHERE m.description = EXCLUDED.description OR NOT EXISTS (
    SELECT 1 FROM pg_stat_activity a
    WHERE a.pid::text = m.description AND a.backend_start = m.applied_at
      AND (a.state IS DISTINCT FROM 'idle' OR a.state_change > now() - %(stale)s::interval))
RETURNING true
"""
_CLAIM_STALE = "10 seconds"
"""A claimant idle this long is not building (its plan failed); others may take over."""

VECTOR_CLAIM = -1_000_000
"""Claim id of the optional vector step's index build."""


def plan_claim(schema: str, claim: int) -> Plan[bool]:
    """Claim the index builds ``claim`` stands for; False: a live builder has them."""
    row = yield Op(q(schema, _CLAIM), {"v": claim, "stale": _CLAIM_STALE}, "one")
    return bool(row and row[0])


def plan_release_claim(schema: str, claim: int) -> Plan[None]:
    """Drop a claim (with the version row, in the same transaction)."""
    yield Op(q(schema, "DELETE FROM {s}.migrations WHERE v = %s"), (claim,))


# ------------------------------------------------------------- optional: vector


@dataclass(frozen=True, slots=True)
class VectorState:
    """What the server and the schema have for similarity search.

    Attributes:
        available: The ``vector`` extension can be created on this server.
        extension_version: Its installed version (``None``: not created here).
        column_dims: Dimension of ``actions.embedding`` (``None``: no column;
            ``0``: a column without a fixed dimension).
        server_version: ``SHOW server_version``, for error messages.
    """

    available: bool
    extension_version: str | None
    column_dims: int | None
    server_version: str


def plan_vector_state(schema: str) -> Plan[VectorState]:
    """Read :class:`VectorState` (no lock, no change)."""
    row = yield Op(
        "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'), "
        "(SELECT extversion FROM pg_extension WHERE extname = 'vector'), "
        "current_setting('server_version')",
        None,
        "one",
    )
    assert row is not None
    column = yield from _plan_column_dims(schema, "actions")
    return VectorState(bool(row[0]), row[1], column, str(row[2]))


def _plan_column_dims(schema: str, table: str) -> Plan[int | None]:
    """Dimension of ``table.embedding`` (``None``: no column; ``0``: no fixed dimension)."""
    dims = yield Op(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) "
        "AND attname = 'embedding' AND NOT attisdropped",
        (regclass(schema, table),),
        "one",
    )
    return None if dims is None else (int(dims[0]) if dims[0] and dims[0] > 0 else 0)


def _vector_ddl(
    schema: str, dims: int, table: str = "actions", index_name: str = VECTOR_INDEX
) -> tuple[sql.Composable, sql.Composable, sql.Composable]:
    extension = sql.SQL("CREATE EXTENSION IF NOT EXISTS vector")
    column = q(
        schema,
        "ALTER TABLE {s}.{t} ADD COLUMN IF NOT EXISTS embedding vector({d})",
        t=sql.SQL(table),  # one of our own table names, same text as before
        d=sql.Literal(int(dims)),
    )
    index = q(
        schema,
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS {i} ON {s}.{t} "
        "USING hnsw (embedding vector_cosine_ops)",
        i=sql.Identifier(index_name),
        t=sql.SQL(table),  # one of our own table names, same text as before
    )
    return extension, column, index


def _plan_vector(schema: str, dims: int) -> Plan[None]:
    yield from _plan_vector_step(schema, _vector_ddl(schema, dims), VECTOR_INDEX, VECTOR_CLAIM)


def _plan_vector_step(
    schema: str,
    ddl: tuple[sql.Composable, sql.Composable, sql.Composable],
    index_name: str,
    claim: int,
) -> Plan[None]:
    extension, column, index = ddl
    # One database-wide key: CREATE EXTENSION from two schemas at once would race.
    key = "langgraph_actionckpt:vector"
    yield from plan_begin_locked(key)
    yield Op(extension)
    yield Op(column)
    yield COMMIT
    while True:
        row = yield Op(_INDEX_STATE, (schema, index_name), "one")
        if row is not None and row[0]:
            return
        if (yield from plan_claim(schema, claim)):
            break
        yield Op(fetch="sleep", params=(_POLL,))
    yield from plan_build_index(schema, index_name, index)
    yield from plan_release_claim(schema, claim)


REUSE_VECTOR_INDEX = "reuse_entries_embedding_hnsw_idx"
"""The HNSW index of the reuse layer's optional vector step."""

REUSE_VECTOR_CLAIM = -1_000_007
"""Claim id of the reuse vector step's index build."""


def plan_reuse_vector_state(schema: str) -> Plan[VectorState]:
    """:class:`VectorState` of ``reuse_entries.embedding`` (no lock, no change)."""
    state = yield from plan_vector_state(schema)
    column = yield from _plan_column_dims(schema, "reuse_entries")
    return VectorState(state.available, state.extension_version, column, state.server_version)


def plan_reuse_vector(schema: str, dims: int) -> Plan[None]:
    """The reuse layer's optional vector step: ``reuse_entries.embedding`` and its HNSW index.

    Like the action log's vector step (see :func:`plan_migrate`): not numbered,
    since it needs pgvector and a dimension only the embedding model knows; safe
    from many processes at once. Migrates the schema first.
    """
    yield from plan_migrate(schema)
    yield from _plan_vector_step(
        schema,
        _vector_ddl(schema, dims, "reuse_entries", REUSE_VECTOR_INDEX),
        REUSE_VECTOR_INDEX,
        REUSE_VECTOR_CLAIM,
    )


# ---------------------------------------------------------------------- print


def migration_sql(schema: str, *, vector_dims: int | None = None) -> str:
    """The SQL of every migration for ``schema``, for a DBA to review or apply by hand.

    Nothing is executed. Identifiers are quoted by :mod:`psycopg.sql` (no
    connection is needed to render them). Statements of ``concurrent``
    migrations (``CREATE INDEX CONCURRENTLY``) must run outside a transaction;
    the others are wrapped in ``BEGIN``/``COMMIT`` with their version row, as
    the runner does.

    Args:
        schema: The schema name (quoted; validate it first).
        vector_dims: Also print the optional similarity-search step.
    """
    ident = sql.Identifier(schema)
    out = [
        f"-- langgraph-actionckpt schema {ident.as_string()}",
        q(schema, "CREATE SCHEMA IF NOT EXISTS {s};").as_string(),
        q(schema, _CREATE_MIGRATIONS + ";").as_string(),
    ]
    for m in MIGRATIONS:
        out.append("")
        out.append(f"-- migration {m.version}: {m.description}")
        if m.concurrent:
            out.append("-- run outside a transaction block (CONCURRENTLY)")
        else:
            out.append("BEGIN;")
        out.extend(_sql_text(stmt) for stmt in m.render(schema))
        out.append(
            q(
                schema,
                "INSERT INTO {s}.migrations (v, description) VALUES ({v}, {d}) "
                "ON CONFLICT DO NOTHING;",
                v=sql.Literal(m.version),
                d=sql.Literal(m.description),
            ).as_string()
        )
        if not m.concurrent:
            out.append("COMMIT;")
    if vector_dims is not None:
        out.append("")
        out.append("-- optional: similarity search (needs pgvector); no version row")
        out.extend(_sql_text(stmt) for stmt in _vector_ddl(schema, vector_dims))
    return "\n".join(out) + "\n"


def _sql_text(stmt: sql.Composable) -> str:
    text = stmt.as_string()
    return "\n".join(line.rstrip() for line in text.strip().splitlines()) + ";"
