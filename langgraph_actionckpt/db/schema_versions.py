"""The schema's numbered migrations: what each version of the schema adds.

The runner that applies them (locks, concurrent index builds, the optional
vector step) is :mod:`langgraph_actionckpt.db.migrations`.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from langgraph_actionckpt.db import fence

__all__ = ["LATEST_VERSION", "MIGRATIONS", "Migration"]


@dataclass(frozen=True)
class Migration:
    """One schema change.

    Attributes:
        version: Explicit, increasing version number.
        description: What the migration does (shown by ``actionckpt migrate``).
        statements: SQL with ``{s}`` standing for the schema identifier.
        concurrent: Run each statement in autocommit (for CONCURRENTLY).
    """

    version: int
    description: str
    statements: tuple[str, ...]
    concurrent: bool = False

    def render(self, schema: str) -> list[sql.Composed]:
        """The statements with the schema identifier filled in."""
        ident = sql.Identifier(schema)
        return [sql.SQL(stmt).format(s=ident) for stmt in self.statements]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "checkpoints, blobs, writes and actions tables",
        (
            """
            CREATE TABLE IF NOT EXISTS {s}.checkpoints (
                thread_id text NOT NULL,
                checkpoint_ns text NOT NULL DEFAULT '',
                checkpoint_id text NOT NULL,
                parent_checkpoint_id text,
                run_id text,
                step integer,
                type text NOT NULL,
                checkpoint bytea NOT NULL,
                channels text[] NOT NULL,
                versions text[] NOT NULL,
                metadata jsonb NOT NULL DEFAULT '{{}}',
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
            )
            """,
            # A channel value is stored once per version. An append-only list is
            # stored as what the version added (blob holds the new items only,
            # item_count how many) with base_version pointing at the version it
            # extends, snap_version at the full snapshot the chain starts from and
            # list_len the list's length at this version. A read concatenates the
            # index range (snap_version, version] on the server in one value.
            # Both versions are stored in a shorter form that reads back exactly
            # (checkpoints/blobs.py: stored_base, stored_snap).
            """
            CREATE TABLE IF NOT EXISTS {s}.blobs (
                thread_id text NOT NULL,
                checkpoint_ns text NOT NULL DEFAULT '',
                channel text NOT NULL,
                version text NOT NULL,
                type text NOT NULL,
                blob bytea,
                base_version text,
                snap_version text,
                item_count integer,
                list_len integer,
                PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS {s}.writes (
                thread_id text NOT NULL,
                checkpoint_ns text NOT NULL DEFAULT '',
                checkpoint_id text NOT NULL,
                task_id text NOT NULL,
                idx integer NOT NULL,
                channel text NOT NULL,
                type text,
                blob bytea,
                task_path text NOT NULL DEFAULT '',
                PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
            )
            """,
            # One row per action. Every key starts with thread_id so the table
            # shards by thread (Citus) without changes.
            """
            CREATE TABLE IF NOT EXISTS {s}.actions (
                thread_id text NOT NULL,
                step_index bigint GENERATED ALWAYS AS IDENTITY,
                action_id text NOT NULL,
                run_id text,
                checkpoint_ns text NOT NULL DEFAULT '',
                checkpoint_id text,
                task_id text,
                node text,
                agent_id text,
                step integer,
                action_type text NOT NULL,
                name text,
                status text NOT NULL,
                attempt integer NOT NULL DEFAULT 1,
                idempotent boolean NOT NULL DEFAULT true,
                replayable boolean NOT NULL DEFAULT true,
                replayed integer NOT NULL DEFAULT 0,
                request_hash text,
                input jsonb,
                output jsonb,
                error jsonb,
                model text,
                provider text,
                input_tokens integer,
                output_tokens integer,
                total_tokens integer,
                cached_tokens integer,
                reasoning_tokens integer,
                latency_ms double precision,
                ttft_ms double precision,
                parent_action_id text,
                lc_run_id uuid,
                meta jsonb,
                started_at timestamptz NOT NULL DEFAULT now(),
                completed_at timestamptz,
                PRIMARY KEY (thread_id, step_index),
                UNIQUE (thread_id, action_id),
                CONSTRAINT actions_status_check CHECK (
                    status IN ('pending', 'running', 'completed', 'failed', 'unknown',
                               'interrupted', 'skipped')
                )
            )
            """,
            # Store large values out of line and compressed early: checkpoint
            # payloads are often a few hundred bytes to a few KB.
            "ALTER TABLE {s}.blobs ALTER COLUMN blob SET STORAGE EXTENDED",
            "ALTER TABLE {s}.writes ALTER COLUMN blob SET STORAGE EXTENDED",
        ),
    ),
    Migration(
        2,
        "indexes for run deletion, retention and in-flight lookups",
        (
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoints_run_id_idx "
            "ON {s}.checkpoints (run_id)",
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS actions_inflight_idx "
            "ON {s}.actions (thread_id) WHERE status IN ('pending', 'running')",
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS actions_started_at_idx "
            "ON {s}.actions (started_at)",
        ),
        concurrent=True,
    ),
    Migration(
        3,
        "pending writes: one row per put_writes call (arrays of channels, types, values)",
        (
            # A task's writes (often a message, a few state keys and a branch
            # trigger) share one row and one index entry instead of one each.
            "ALTER TABLE {s}.writes ADD COLUMN IF NOT EXISTS channels text[], "
            "ADD COLUMN IF NOT EXISTS types text[], ADD COLUMN IF NOT EXISTS blobs bytea[]",
            "UPDATE {s}.writes SET channels = ARRAY[channel], types = ARRAY[type], "
            "blobs = ARRAY[blob] WHERE channels IS NULL",
            "ALTER TABLE {s}.writes DROP COLUMN channel, DROP COLUMN type, DROP COLUMN blob, "
            "ALTER COLUMN channels SET NOT NULL, ALTER COLUMN types SET NOT NULL, "
            "ALTER COLUMN blobs SET NOT NULL",
        ),
    ),
    Migration(
        4,
        "run_id indexes only over rows that have a run id (checkpoints, actions)",
        (
            # delete_for_runs looks up non-null run ids only; graphs run without
            # one (plain LangGraph) then pay nothing for these indexes
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoints_run_idx "
            "ON {s}.checkpoints (run_id) WHERE run_id IS NOT NULL",
            "DROP INDEX CONCURRENTLY IF EXISTS {s}.checkpoints_run_id_idx",
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS actions_run_idx "
            "ON {s}.actions (run_id) WHERE run_id IS NOT NULL",
        ),
        concurrent=True,
    ),
    Migration(
        5,
        "fenced thread leases: the leases table and the fenced(thread, token) check",
        # the SQL lives beside the code that uses it (db/fence.py), applied only here
        fence.DDL,
    ),
    Migration(
        6,
        "OpenTelemetry trace and span ids on action rows",
        (
            # hex text as OpenTelemetry prints them (32 and 16 digits), NULL when
            # no span was recorded; adding nullable columns rewrites no rows
            "ALTER TABLE {s}.actions ADD COLUMN IF NOT EXISTS trace_id text, "
            "ADD COLUMN IF NOT EXISTS span_id text",
        ),
    ),
    Migration(
        7,
        "reuse_entries: completed actions that other threads may reuse (reuse by meaning)",
        (
            # One row per completed, reusable action: the scope it may be reused in,
            # the hash of what must match exactly (action, model, parameters, tools),
            # the whole request's hash (exact reuse) and its text (semantic reuse,
            # the verifier). The optional embedding column is added by the vector
            # step of the reuse layer where pgvector exists. Rows go with their action.
            """
            CREATE TABLE IF NOT EXISTS {s}.reuse_entries (
                thread_id text NOT NULL,
                action_id text NOT NULL,
                scope text NOT NULL,
                key_hash text NOT NULL,
                request_hash text NOT NULL,
                action_type text NOT NULL,
                name text,
                text text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (thread_id, action_id, scope),
                FOREIGN KEY (thread_id, action_id) REFERENCES {s}.actions (thread_id, action_id)
                    ON DELETE CASCADE
            )
            """,
            "CREATE INDEX IF NOT EXISTS reuse_entries_exact_idx "
            "ON {s}.reuse_entries (scope, request_hash)",
            "CREATE INDEX IF NOT EXISTS reuse_entries_key_idx "
            "ON {s}.reuse_entries (scope, key_hash)",
        ),
    ),
    Migration(
        8,
        "status 'superseded': a dead attempt's open row, replaced by a resume",
        (
            # Dropping and adding the check in one transaction: the new check
            # only widens the old one, so every existing row passes it.
            "ALTER TABLE {s}.actions DROP CONSTRAINT IF EXISTS actions_status_check, "
            "ADD CONSTRAINT actions_status_check CHECK (status IN ('pending', 'running', "
            "'completed', 'failed', 'unknown', 'interrupted', 'skipped', 'superseded'))",
        ),
    ),
    Migration(
        9,
        "resumed_meta(): a resumed node's meta, a function the action upsert calls",
        (
            # Declared IMMUTABLE because Citus refuses any other function in an
            # upsert's DO UPDATE SET (it evaluates them on the shard). The result
            # depends on the arguments only; the session's TimeZone changes how
            # the instants are printed, never which instants they are.
            """
            CREATE OR REPLACE FUNCTION {s}.resumed_meta(
                meta jsonb, first_started jsonb, started timestamptz, resumed timestamptz
            ) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
            BEGIN
                RETURN COALESCE(meta, '{{}}'::jsonb) || jsonb_build_object(
                    'resumed_at', resumed,
                    'first_started_at', COALESCE(first_started, to_jsonb(started)));
            END
            $fn$
            """,
        ),
    ),
    Migration(
        10,
        "blob rows: a delta's base and snapshot versions stored short (older packages refuse)",
        # No DDL: the columns keep their type. The version only tells a package that
        # predates the short form (it would read those rows as missing their base) to
        # refuse the schema at setup() with "newer than this package" instead.
        (),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version
