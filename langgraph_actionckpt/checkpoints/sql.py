"""The statements of checkpoint reads and writes, written once with ``{s}`` for the schema.

:class:`Queries` also has the maintenance statements (``sql_maintenance``).
Values are always bound parameters; the schema name only ever enters a
statement through ``psycopg.sql.Identifier`` (see ``sql_base``).
"""

from __future__ import annotations

import functools
from functools import cached_property

from psycopg import sql

from langgraph_actionckpt.checkpoints.blobs import VERSION_LEN
from langgraph_actionckpt.checkpoints.rows import CHECKPOINT_COLUMNS, VALUE_COLUMNS
from langgraph_actionckpt.checkpoints.sql_base import REF_TYPE
from langgraph_actionckpt.checkpoints.sql_maintenance import MaintenanceQueries

# Delta-aware blob fetch for one target (channel, version) per row of {t}: the
# rows of its chain, i.e. the versions in [snap_version, version] of that channel
# (a full value has snap_version NULL and yields only itself). LATERAL keeps the
# plan a primary-key lookup followed by one index range scan, whatever the stats.
# A delta row stores snap_version without its counter's leading zeros
# (blobs.stored_snap): every statement reads it as lpad(snap_version, {vlen}, '0'),
# with {vlen} the length of a whole version (blobs.VERSION_LEN).
_VLEN = sql.Literal(VERSION_LEN)
_BLOB_CHAIN = """
    CROSS JOIN LATERAL (
        SELECT tb.version, COALESCE(lpad(tb.snap_version, {vlen}, '0'), tb.version) AS lo
        FROM {s}.blobs tb
        WHERE tb.thread_id = %(thread_id)s AND tb.checkpoint_ns = {t}.checkpoint_ns
          AND tb.channel = {t}.channel AND tb.version = {t}.version
        OFFSET 0  -- an optimization fence: resolve the target before the range scan
    ) tb
    CROSS JOIN LATERAL (
        SELECT b.channel, b.version, b.type, b.blob, b.base_version, b.item_count
        FROM {s}.blobs b
        WHERE b.thread_id = %(thread_id)s AND b.checkpoint_ns = {t}.checkpoint_ns
          AND b.channel = {t}.channel AND b.version >= tb.lo AND b.version <= tb.version
        OFFSET 0
    ) b
"""

_WRITES_LATERAL = """
LEFT JOIN LATERAL (
    SELECT array_agg(w.task_id ORDER BY w.task_path, w.task_id, w.idx, x.n) AS w_task,
           array_agg(x.channel ORDER BY w.task_path, w.task_id, w.idx, x.n) AS w_channel,
           array_agg(x.type ORDER BY w.task_path, w.task_id, w.idx, x.n) AS w_type,
           array_agg(COALESCE(rb.blob, x.blob) ORDER BY w.task_path, w.task_id, w.idx, x.n)
               AS w_blob,
           array_agg({ref_type} ORDER BY w.task_path, w.task_id, w.idx, x.n) AS w_rtype,
           array_agg(rb.item_count ORDER BY w.task_path, w.task_id, w.idx, x.n) AS w_rcount
    FROM {s}.writes w
    {unnest}
    {ref}
    WHERE w.thread_id = %(thread_id)s AND w.checkpoint_ns = c.checkpoint_ns
      AND w.checkpoint_id = c.checkpoint_id
) wr ON true
"""


class PutQueries(MaintenanceQueries):
    """The statements that store checkpoints, values and writes (one schema)."""

    @cached_property
    def writes_lateral(self) -> sql.Composed:
        """The pending writes of checkpoint ``c`` of thread ``%(thread_id)s``, as arrays."""
        return self.q(
            _WRITES_LATERAL,
            unnest=self.writes_unnest,
            ref=self.write_ref_join,
            ref_type=sql.SQL(REF_TYPE),
        )

    # -------------------------------------------------------------------- put

    # Checkpoints, blobs, pending writes and node/branch action rows are stored by
    # one statement generated per row count with scalar parameters: binding a few
    # scalars is several times cheaper in psycopg than binding arrays for unnest(),
    # and this runs once per superstep. Pending writes ride along with the next
    # checkpoint of their thread (one round trip, one commit per superstep).

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one Queries object per saver
    def store(
        self,
        n_writes: int,
        n_special: int,
        n_actions: int,
        n_blobs: int,
        *,
        checkpoint: bool,
        async_commit: bool,
        shared: bool = False,
        fenced: bool = False,
    ) -> sql.Composed:
        """One statement that stores any mix of the four kinds of rows.

        Args:
            n_writes: Rows of regular pending writes, one per put_writes call
                (``w{i}_*`` params, arrays; stored writes are kept).
            n_special: Special writes (error, interrupt...: ``s{i}_*``, one per
                row; replaced).
            n_actions: Node/branch action rows (``a{i}_*``).
            n_blobs: Channel values (``b{i}_*``, with ``thread_id``/``ns``).
            checkpoint: Also store the checkpoint row (its named params).
            async_commit: Commit without waiting for the WAL flush (this
                transaction only); only used when no checkpoint is stored.
            shared: Write and action rows all belong to the checkpoint's thread
                and namespace: they use ``thread_id``/``ns`` instead of their own
                (fewer parameters: psycopg caches the parse of statements with
                at most 50).
            fenced: The rows belong to leased threads: the statement checks
                each (``fence_t``, ``fence_k``) pair of thread and fencing token
                with ``{s}.fenced()`` and fails, storing nothing, when one is
                stale (see ``db/fence.py``).
        """
        ctes: list[str] = []
        if fenced:
            # Evaluated once, by the final statement below; data-modifying CTEs
            # run whatever the final statement reads, but an error here undoes
            # the whole statement, and the share lock it takes keeps a takeover
            # waiting until this transaction ends.
            ctes.append(
                "fence AS MATERIALIZED (SELECT count({s}.fenced(f.t, f.k)) AS n "
                "FROM unnest(%(fence_t)s::text[], %(fence_k)s::bigint[]) AS f(t, k))"
            )
        for prefix, n, conflict in (
            # a repeated call keeps the stored writes and adds those past them,
            # as one row per write with DO NOTHING would
            (
                "w",
                n_writes,
                "DO UPDATE SET "
                "channels = w.channels || EXCLUDED.channels[cardinality(w.channels) + 1:], "
                "types = w.types || EXCLUDED.types[cardinality(w.types) + 1:], "
                "blobs = w.blobs || EXCLUDED.blobs[cardinality(w.blobs) + 1:] "
                "WHERE cardinality(EXCLUDED.channels) > cardinality(w.channels)",
            ),
            (
                "s",
                n_special,
                "DO UPDATE SET channels = EXCLUDED.channels, types = EXCLUDED.types, "
                "blobs = EXCLUDED.blobs, task_path = EXCLUDED.task_path",
            ),
        ):
            if not n:
                continue
            rows = ", ".join(
                (
                    "(%(thread_id)s, %(ns)s, "
                    if shared
                    else f"(%({prefix}{i}_t)s, %({prefix}{i}_ns)s, "
                )
                + f"%({prefix}{i}_c)s, "
                f"%({prefix}{i}_task)s, %({prefix}{i}_path)s, %({prefix}{i}_idx)s::int, "
                f"%({prefix}{i}_ch)s::text[], %({prefix}{i}_ty)s::text[], "
                f"%({prefix}{i}_b)s::bytea[])"
                for i in range(n)
            )
            ctes.append(
                f"{prefix}_rows AS (INSERT INTO {{s}}.writes AS w (thread_id, checkpoint_ns, "  # noqa: S608
                "checkpoint_id, task_id, task_path, idx, channels, types, blobs) "
                f"VALUES {rows} "
                f"ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) {conflict})"
            )
        if n_actions:
            rows = ", ".join(
                (
                    f"(%(thread_id)s, %(a{i}_id)s, %(a{i}_run)s, %(ns)s, "
                    if shared
                    else f"(%(a{i}_t)s, %(a{i}_id)s, %(a{i}_run)s, %(a{i}_ns)s, "
                )
                + f"%(a{i}_c)s, "
                f"%(a{i}_task)s, %(a{i}_node)s, %(a{i}_agent)s, %(a{i}_step)s::int, "
                f"%(a{i}_type)s, %(a{i}_name)s, %(a{i}_status)s, %(a{i}_out)s::jsonb, "
                f"%(a{i}_err)s::jsonb, now())"
                for i in range(n_actions)
            )
            ctes.append(
                "a_rows AS (INSERT INTO {s}.actions AS a (thread_id, action_id, run_id, "  # noqa: S608
                "checkpoint_ns, checkpoint_id, task_id, node, agent_id, step, action_type, "
                f"name, status, output, error, completed_at) VALUES {rows} "
                "ON CONFLICT (thread_id, action_id) DO UPDATE SET "
                "status = EXCLUDED.status, output = EXCLUDED.output, error = EXCLUDED.error, "
                "completed_at = EXCLUDED.completed_at, "
                "run_id = COALESCE(a.run_id, EXCLUDED.run_id), "
                "step = COALESCE(a.step, EXCLUDED.step), "
                "checkpoint_id = COALESCE(a.checkpoint_id, EXCLUDED.checkpoint_id))"
            )
        if n_blobs:
            rows = ", ".join(
                f"(%(thread_id)s, %(ns)s, %(b{i}_channel)s, %(b{i}_version)s, %(b{i}_type)s, "
                f"%(b{i}_blob)s, %(b{i}_base)s, %(b{i}_snap)s, %(b{i}_cnt)s, %(b{i}_len)s)"
                for i in range(n_blobs)
            )
            ctes.append(
                "b_rows AS (INSERT INTO {s}.blobs (thread_id, checkpoint_ns, channel, "  # noqa: S608
                "version, type, blob, base_version, snap_version, item_count, list_len) "
                f"VALUES {rows} ON CONFLICT DO NOTHING)"
            )
        if checkpoint:
            final = """
            INSERT INTO {s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id,
                parent_checkpoint_id, run_id, step, type, checkpoint, channels, versions, metadata)
            {source}
            ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
                parent_checkpoint_id = EXCLUDED.parent_checkpoint_id,
                run_id = EXCLUDED.run_id, step = EXCLUDED.step, type = EXCLUDED.type,
                checkpoint = EXCLUDED.checkpoint, channels = EXCLUDED.channels,
                versions = EXCLUDED.versions, metadata = EXCLUDED.metadata
            """
            values = (
                "%(thread_id)s, %(ns)s, %(checkpoint_id)s, %(parent)s, %(run_id)s, %(step)s, "
                "%(type)s, %(checkpoint)s, %(channels)s::text[], %(versions)s::text[], "
                "%(metadata)s::jsonb"
            )
            # fenced: the row comes from the fence, so there is none unless it
            # passed (Citus refuses a subquery inside VALUES)
            source = f"SELECT {values} FROM fence" if fenced else f"VALUES ({values})"  # noqa: S608
            final = final.replace("{source}", source)
        elif async_commit:
            # data-modifying CTEs always run; the final SELECT sets the commit mode
            final = "SELECT set_config('synchronous_commit', 'off', true)"
        else:
            final = "SELECT 1"
        if fenced and not checkpoint:
            final += " FROM fence"
        text = ("WITH " + ", ".join(ctes) + " " if ctes else "") + final
        return self.q(text)


class Queries(PutQueries):
    """The statements for one schema, composed once and reused."""

    # -------------------------------------------------------------------- get

    @functools.lru_cache(maxsize=4)  # noqa: B019 - one Queries object per saver, few keys
    def get_tuple(self, by_id: bool) -> sql.Composed:
        """One statement: the checkpoint row, each channel value and the writes.

        A delta-encoded list comes back as its snapshot plus the concatenation of
        the deltas after it (``string_agg`` on the server), whatever the chain
        length; ``d_items`` lets the caller check that the chain was linear.
        """
        where = "AND checkpoint_id = %(checkpoint_id)s" if by_id else ""
        return self.q(
            """
            SELECT {cols}, {values}
            FROM (SELECT * FROM {s}.checkpoints
                  WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s {where}
                  ORDER BY checkpoint_id DESC LIMIT 1) c
            LEFT JOIN LATERAL (
                SELECT array_agg(u.channel) AS b_channel, array_agg(s.type) AS b_type,
                       array_agg(s.blob) AS b_blob, array_agg(s.list_len) AS b_len,
                       array_agg(d.body) AS d_body, array_agg(d.items) AS d_items,
                       array_agg(tb.list_len) AS t_len, array_agg(tb.snap_version) AS b_snap,
                       array_agg(d.n) AS d_n, array_agg(d.layout) AS d_layout
                FROM unnest(c.channels, c.versions) AS u(channel, version)
                -- inline values (empty version) live in the checkpoint itself
                CROSS JOIN LATERAL (
                    SELECT tb.version, tb.list_len,
                           lpad(tb.snap_version, {vlen}, '0') AS snap_version
                    FROM {s}.blobs tb
                    WHERE u.version <> '' AND tb.thread_id = %(thread_id)s
                      AND tb.checkpoint_ns = c.checkpoint_ns
                      AND tb.channel = u.channel AND tb.version = u.version
                    OFFSET 0
                ) tb
                CROSS JOIN LATERAL (
                    SELECT s.type, s.blob, s.list_len FROM {s}.blobs s
                    WHERE s.thread_id = %(thread_id)s AND s.checkpoint_ns = c.checkpoint_ns
                      AND s.channel = u.channel
                      AND s.version = COALESCE(tb.snap_version, tb.version)
                    OFFSET 0
                ) s
                LEFT JOIN LATERAL (
                    SELECT string_agg(b.blob, ''::bytea ORDER BY b.version) AS body,
                           sum(b.item_count)::int AS items, count(*)::int AS n,
                           -- where compressed or sealed deltas sit in body:
                           -- "len" or "len:version:type"
                           CASE WHEN bool_or(b.type <> 'delta') THEN string_agg(
                               length(b.blob)::text || CASE WHEN b.type = 'delta' THEN ''
                               ELSE ':' || b.version || ':' || b.type END,
                               ',' ORDER BY b.version) END AS layout
                    FROM {s}.blobs b
                    WHERE tb.snap_version IS NOT NULL
                      AND b.thread_id = %(thread_id)s AND b.checkpoint_ns = c.checkpoint_ns
                      AND b.channel = u.channel AND b.version > tb.snap_version
                      AND b.version <= tb.version
                    OFFSET 0
                ) d ON true
            ) bl ON true
            {writes}
            """,
            cols=sql.SQL(CHECKPOINT_COLUMNS),
            values=sql.SQL(VALUE_COLUMNS),
            where=sql.SQL(where),
            writes=self.writes_lateral,
            vlen=_VLEN,
        )

    @functools.lru_cache(maxsize=4)  # noqa: B019
    def chains_for(self, by_id: bool) -> sql.Composed:
        """Fallback of :meth:`get_tuple` for a forked chain: every row of each chain."""
        return self.q(
            """
            SELECT t.thread_id, t.checkpoint_ns, t.channel, b.version, b.type, b.blob,
                   b.base_version, b.item_count
            FROM (SELECT %(thread_id)s::text AS thread_id, %(ns)s::text AS checkpoint_ns,
                         u.channel, u.version
                  FROM unnest(%(channels)s::text[], %(versions)s::text[])
                       AS u(channel, version)) t
            {chain}
            """,
            chain=sql.SQL(_BLOB_CHAIN).format(s=self.ident, t=sql.Identifier("t"), vlen=_VLEN),
        )

    @functools.lru_cache(maxsize=64)  # noqa: B019
    def list_page(self, conditions: tuple[str, ...]) -> sql.Composed:
        """A page of one thread's checkpoint rows with their writes (blobs: :attr:`blob_chains`).

        ``conditions`` hold :data:`ONE_THREAD`; a cross-thread page reads its
        keys with :meth:`list_keys` first.
        """
        where = " AND ".join(conditions)
        return self.q(
            """
            SELECT {cols}
            FROM (SELECT * FROM {s}.checkpoints WHERE {where}
                  ORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC
                  LIMIT %(page)s) c
            {writes}
            ORDER BY c.checkpoint_id DESC, c.thread_id DESC, c.checkpoint_ns DESC
            """,
            cols=sql.SQL(CHECKPOINT_COLUMNS),
            where=sql.SQL(where),
            writes=self.writes_lateral,
        )

    @functools.lru_cache(maxsize=64)  # noqa: B019
    def list_keys(self, conditions: tuple[str, ...]) -> sql.Composed:
        """The keys of a cross-thread page of ``list`` (each thread's rows are read apart)."""
        where = " AND ".join(conditions) if conditions else "true"
        return self.q(
            """
            SELECT thread_id, checkpoint_ns, checkpoint_id FROM {s}.checkpoints WHERE {where}
            ORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC LIMIT %(page)s
            """,
            where=sql.SQL(where),
        )

    @cached_property
    def blob_chains(self) -> sql.Composed:
        """Blob rows for many targets of one thread; each chain range is scanned once.

        Parameters: ``thread_id``, and ``ns``/``channels``/``versions`` arrays
        (one element per target).
        """
        return self.q(
            """
            WITH r AS (
                SELECT t.checkpoint_ns, t.channel, tb.lo, max(tb.version) AS hi
                FROM unnest(%(ns)s::text[], %(channels)s::text[], %(versions)s::text[])
                     AS t(checkpoint_ns, channel, version)
                CROSS JOIN LATERAL (
                    SELECT tb.version,
                           COALESCE(lpad(tb.snap_version, {vlen}, '0'), tb.version) AS lo
                    FROM {s}.blobs tb
                    WHERE tb.thread_id = %(thread_id)s AND tb.checkpoint_ns = t.checkpoint_ns
                      AND tb.channel = t.channel AND tb.version = t.version
                    OFFSET 0
                ) tb
                GROUP BY t.checkpoint_ns, t.channel, tb.lo
            )
            SELECT %(thread_id)s::text, r.checkpoint_ns, b.channel, b.version, b.type, b.blob,
                   b.base_version, b.item_count
            FROM r CROSS JOIN LATERAL (
                SELECT b.channel, b.version, b.type, b.blob, b.base_version, b.item_count
                FROM {s}.blobs b
                WHERE b.thread_id = %(thread_id)s AND b.checkpoint_ns = r.checkpoint_ns
                  AND b.channel = r.channel AND b.version >= r.lo AND b.version <= r.hi
                OFFSET 0
            ) b
            """,
            vlen=_VLEN,
        )

    # --------------------------------------------------------- delta history

    @cached_property
    def delta_chain(self) -> sql.Composed:
        """Walk the parent chain until every requested channel has a stored value.

        Each row: the ancestor, its depth, the channels still unresolved when it
        is reached (their writes there count), and the channels it stores a value
        for (with their versions; an empty version means inline).
        """
        return self.q(
            """
            WITH RECURSIVE chain AS (
                SELECT c.checkpoint_id, c.parent_checkpoint_id, 0 AS depth,
                       %(channels)s::text[] AS before, %(channels)s::text[] AS remaining,
                       ARRAY[]::text[] AS found, ARRAY[]::text[] AS found_versions
                FROM {s}.checkpoints c
                WHERE c.thread_id = %(thread_id)s AND c.checkpoint_ns = %(ns)s
                  AND c.checkpoint_id = %(checkpoint_id)s
                UNION ALL
                SELECT p.checkpoint_id, p.parent_checkpoint_id, chain.depth + 1,
                       chain.remaining,
                       ARRAY(SELECT x FROM unnest(chain.remaining) AS x
                             WHERE NOT x = ANY(p.channels)),
                       ARRAY(SELECT u.channel FROM unnest(p.channels, p.versions)
                             AS u(channel, version) WHERE u.channel = ANY(chain.remaining)),
                       ARRAY(SELECT u.version FROM unnest(p.channels, p.versions)
                             AS u(channel, version) WHERE u.channel = ANY(chain.remaining))
                FROM chain JOIN {s}.checkpoints p
                  ON p.thread_id = %(thread_id)s AND p.checkpoint_ns = %(ns)s
                 AND p.checkpoint_id = chain.parent_checkpoint_id
                WHERE cardinality(chain.remaining) > 0
            )
            SELECT checkpoint_id, depth, before, found, found_versions
            FROM chain ORDER BY depth
            """
        )

    @cached_property
    def delta_writes(self) -> sql.Composed:
        return self.q(
            """
            SELECT w.checkpoint_id, w.task_id, w.task_path, w.idx + x.n::int - 1, x.channel,
                   x.type, COALESCE(rb.blob, x.blob), {ref_type}, rb.item_count
            FROM {s}.writes w
            {unnest}
            {ref}
            WHERE w.thread_id = %(thread_id)s AND w.checkpoint_ns = %(ns)s
              AND w.checkpoint_id = ANY(%(ids)s::text[])
              AND x.channel = ANY(%(channels)s::text[])
            """,
            unnest=self.writes_unnest,
            ref=self.write_ref_join,
            ref_type=sql.SQL(REF_TYPE),
        )

    @cached_property
    def checkpoint_bytes(self) -> sql.Composed:
        """The stored checkpoints (id, type, bytes) of some ids of one thread namespace."""
        return self.q(
            "SELECT checkpoint_id, type, checkpoint FROM {s}.checkpoints "
            "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
            "AND checkpoint_id = ANY(%(ids)s::text[])"
        )
