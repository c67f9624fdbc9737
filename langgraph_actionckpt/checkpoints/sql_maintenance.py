"""The statements that delete, prune and copy threads."""

from __future__ import annotations

from functools import cached_property

from psycopg import sql

from langgraph_actionckpt.checkpoints.blobs import VERSION_LEN
from langgraph_actionckpt.checkpoints.sql_base import COPIED_COLUMNS, SchemaSQL


class MaintenanceQueries(SchemaSQL):
    """Delete, prune, collect orphan blobs, copy a thread."""

    def _delete_from(self, tables: tuple[str, ...], where: sql.SQL) -> list[sql.Composed]:
        """One ``DELETE FROM <table> WHERE <where>`` per table, in this order."""
        text = "DELETE FROM {s}.{t} WHERE {where}"
        return [self.q(text, t=sql.Identifier(table), where=where) for table in tables]

    @cached_property
    def delete_thread(self) -> list[sql.Composed]:
        tables = ("checkpoints", "blobs", "writes", "actions")
        where = sql.SQL("thread_id = %(thread_id)s")
        # a released or expired lease row goes with its thread; a live one stays
        # (its holder's writes keep their fence)
        lease = sql.SQL("thread_id = %(thread_id)s AND expires_at < now()")
        return self._delete_from(tables, where) + self._delete_from(("leases",), lease)

    @cached_property
    def delete_runs(self) -> sql.Composed:
        """Delete the checkpoints of runs and their writes; return the touched threads."""
        return self.q(
            """
            WITH gone AS (
                DELETE FROM {s}.checkpoints WHERE run_id = ANY(%(run_ids)s::text[])
                RETURNING thread_id, checkpoint_ns, checkpoint_id
            ), gone_writes AS (
                DELETE FROM {s}.writes w USING gone g
                WHERE w.thread_id = g.thread_id AND w.checkpoint_ns = g.checkpoint_ns
                  AND w.checkpoint_id = g.checkpoint_id
            )
            SELECT DISTINCT thread_id FROM gone
            """
        )

    @cached_property
    def delete_run_actions(self) -> sql.Composed:
        return self.q("DELETE FROM {s}.actions WHERE run_id = ANY(%(run_ids)s::text[])")

    @cached_property
    def prune_keep_latest(self) -> sql.Composed:
        return self.q(
            """
            WITH latest AS (
                SELECT thread_id, checkpoint_ns, max(checkpoint_id) AS checkpoint_id
                FROM {s}.checkpoints WHERE thread_id = ANY(%(thread_ids)s::text[])
                GROUP BY thread_id, checkpoint_ns
            ), gone AS (
                DELETE FROM {s}.checkpoints c
                WHERE c.thread_id = ANY(%(thread_ids)s::text[]) AND NOT EXISTS (
                    SELECT 1 FROM latest l WHERE l.thread_id = c.thread_id
                      AND l.checkpoint_ns = c.checkpoint_ns AND l.checkpoint_id = c.checkpoint_id)
                RETURNING c.thread_id, c.checkpoint_ns, c.checkpoint_id
            )
            DELETE FROM {s}.writes w USING gone g
            WHERE w.thread_id = g.thread_id AND w.checkpoint_ns = g.checkpoint_ns
              AND w.checkpoint_id = g.checkpoint_id
            """
        )

    @cached_property
    def prune_delete(self) -> list[sql.Composed]:
        tables = ("checkpoints", "writes", "blobs")
        return self._delete_from(tables, sql.SQL("thread_id = ANY(%(thread_ids)s::text[])"))

    @cached_property
    def gc_blobs(self) -> sql.Composed:
        """Delete blobs of the given threads that no remaining checkpoint needs.

        A blob is needed when a checkpoint references it, when it lies in the
        delta chain range of a referenced blob, or when a pending write is stored
        as a reference to it. The needed sets are computed once (full values by
        exact version, delta chains as merged ranges, one per snapshot), so the
        work grows with the thread's size, not its square.
        """
        return self.q(
            """
            WITH used AS MATERIALIZED (
                SELECT DISTINCT c.thread_id, c.checkpoint_ns, u.channel, u.version
                FROM {s}.checkpoints c
                CROSS JOIN LATERAL unnest(c.channels, c.versions) AS u(channel, version)
                WHERE c.thread_id = ANY(%(thread_ids)s::text[]) AND u.version <> ''
            ), targets AS MATERIALIZED (
                SELECT u.thread_id, u.checkpoint_ns, u.channel, u.version, nb.snap_version
                FROM used u CROSS JOIN LATERAL (
                    SELECT lpad(nb.snap_version, {vlen}, '0') AS snap_version FROM {s}.blobs nb
                    WHERE nb.thread_id = u.thread_id AND nb.checkpoint_ns = u.checkpoint_ns
                      AND nb.channel = u.channel AND nb.version = u.version
                ) nb
            ), ranges AS MATERIALIZED (
                SELECT thread_id, checkpoint_ns, channel, snap_version AS lo,
                       max(version) AS hi
                FROM targets WHERE snap_version IS NOT NULL
                GROUP BY thread_id, checkpoint_ns, channel, snap_version
            ), refs AS MATERIALIZED (
                -- deltas a pending write refers to
                SELECT w.thread_id, w.checkpoint_ns, x.channel,
                       encode(substring(x.blob from 1 for 25), 'escape') AS version
                FROM {s}.writes w {unnest}
                WHERE w.thread_id = ANY(%(thread_ids)s::text[]) AND x.type = 'ref'
            )
            DELETE FROM {s}.blobs b
            WHERE b.thread_id = ANY(%(thread_ids)s::text[])
              AND NOT EXISTS (
                SELECT 1 FROM targets t
                WHERE t.thread_id = b.thread_id AND t.checkpoint_ns = b.checkpoint_ns
                  AND t.channel = b.channel AND t.version = b.version)
              AND NOT EXISTS (
                SELECT 1 FROM ranges r
                WHERE r.thread_id = b.thread_id AND r.checkpoint_ns = b.checkpoint_ns
                  AND r.channel = b.channel AND b.version >= r.lo AND b.version <= r.hi)
              AND NOT EXISTS (
                SELECT 1 FROM refs f
                WHERE f.thread_id = b.thread_id AND f.checkpoint_ns = b.checkpoint_ns
                  AND f.channel = b.channel AND f.version = b.version)
            """,
            unnest=self.writes_unnest,
            vlen=sql.Literal(VERSION_LEN),
        )

    @cached_property
    def copy_thread(self) -> list[sql.Composed]:
        return [
            *(self.copy_rows(t, suffix="ON CONFLICT DO NOTHING") for t in COPIED_COLUMNS),
            self.q(
                """
                INSERT INTO {s}.actions (thread_id, action_id, run_id, checkpoint_ns,
                    checkpoint_id, task_id, node, agent_id, step, action_type, name, status,
                    attempt, idempotent, replayable, replayed, request_hash, input, output,
                    error, model, provider, input_tokens, output_tokens, total_tokens,
                    cached_tokens, reasoning_tokens, latency_ms, ttft_ms, parent_action_id,
                    lc_run_id, meta, started_at, completed_at)
                SELECT %(target)s, action_id, run_id, checkpoint_ns, checkpoint_id, task_id,
                       node, agent_id, step, action_type, name, status, attempt, idempotent,
                       replayable, replayed, request_hash, input, output, error, model,
                       provider, input_tokens, output_tokens, total_tokens, cached_tokens,
                       reasoning_tokens, latency_ms, ttft_ms, parent_action_id, lc_run_id,
                       meta, started_at, completed_at
                FROM {s}.actions WHERE thread_id = %(source)s
                ORDER BY step_index
                ON CONFLICT DO NOTHING
                """
            ),
        ]
