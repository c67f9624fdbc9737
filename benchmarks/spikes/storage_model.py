"""What other storage layouts would make of scenario b's bytes (issue #14 b), measured.

Run from the repository root::

    python -m benchmarks.spikes.storage_model                  # 300 and 1,000 supersteps
    python -m benchmarks.spikes.storage_model --steps 300

It runs scenario b once (``operator.add``, one 1,024-char payload appended per
superstep, ``durability="sync"``) on ``ActionSaver`` in a scratch database, then
stores the very rows it wrote again, one row at a time in their order (as the saver
inserts them, so pages and indexes fill the same way), in other layouts, each in a
schema of its own, and prints each layout's ``pg_total_relation_size`` summed over
its tables, as scenario b counts it. A layout is a change of the schema, not of
the saver: the rows' values are the saver's own, so this says what a redesign
would store, before anyone builds it.

Layouts (each a change to the tables the saver creates):

* ``main``: the saver's tables as they are (the rows copied, to check the copy);
* ``lazy tables``: without the tables of features a graph does not use
  (``reuse_entries``, ``leases``), as if they were created when first used;
* ``writes in node rows``: a task's pending writes in its ``node`` action row
  (four more columns and a partial index to find them by checkpoint), no
  ``writes`` rows;
* ``uuid ids``: checkpoint and task ids as ``uuid`` (16 bytes) instead of text;
* ``deltas inline``: the channel values a checkpoint introduced in its own row
  (arrays), no ``blobs`` rows;
* ``no node rows``: the action log without a row per node transition (what folding
  it into the checkpoint row, the spike ``fold_parent_tasks.patch``, amounts to);
* combinations of the above.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from benchmarks.bench_saver import _run_appender, make_payloads
from benchmarks.savers import (
    OUR_SCHEMA,
    BenchEnv,
    SaverHandle,
    pg_schema_size,
    scratch_database,
    server_dsn,
    server_parser,
)

TABLES = ("checkpoints", "blobs", "writes", "actions")
OPTIONAL = ("leases", "reuse_entries")
ORDER = {"checkpoints": "checkpoint_id", "blobs": "version", "writes": "checkpoint_id"}

FOLD_DDL = (
    "ALTER TABLE {s}.actions ADD COLUMN w_channels text[], ADD COLUMN w_types text[], "
    "ADD COLUMN w_blobs bytea[], ADD COLUMN w_path text",
    "CREATE INDEX ON {s}.actions (thread_id, checkpoint_ns, checkpoint_id) "
    "WHERE w_channels IS NOT NULL",
)
UUID_DDL = (
    "ALTER TABLE {s}.checkpoints ALTER COLUMN checkpoint_id TYPE uuid USING checkpoint_id::uuid, "
    "ALTER COLUMN parent_checkpoint_id TYPE uuid USING parent_checkpoint_id::uuid",
    "ALTER TABLE {s}.writes ALTER COLUMN checkpoint_id TYPE uuid USING checkpoint_id::uuid, "
    "ALTER COLUMN task_id TYPE uuid USING task_id::uuid",
    "ALTER TABLE {s}.actions ALTER COLUMN checkpoint_id TYPE uuid USING checkpoint_id::uuid, "
    "ALTER COLUMN task_id TYPE uuid USING task_id::uuid",
)
_INLINE_COLUMNS = (
    ("i_channel", "text[]"),
    ("i_version", "text[]"),
    ("i_type", "text[]"),
    ("i_blob", "bytea[]"),
    ("i_base", "text[]"),
    ("i_snap", "text[]"),
    ("i_cnt", "int[]"),
    ("i_len", "int[]"),
)
INLINE_DDL = (
    "ALTER TABLE {s}.checkpoints "
    + ", ".join(f"ADD COLUMN {name} {kind}" for name, kind in _INLINE_COLUMNS),
)


@dataclass(frozen=True)
class Layout:
    """One alternative: which tables exist, extra DDL, and how rows are copied in."""

    name: str
    optional_tables: bool = True
    fold_writes: bool = False
    uuid_ids: bool = False
    inline_deltas: bool = False
    node_rows: bool = True
    ddl: tuple[str, ...] = field(default=())


LAYOUTS = (
    Layout("main"),
    Layout("lazy tables", optional_tables=False),
    Layout("writes in node rows", fold_writes=True),
    Layout("uuid ids", uuid_ids=True),
    Layout("lazy tables + uuid ids + writes in node rows", False, True, True),
    Layout("... + deltas inline", False, True, True, inline_deltas=True),
    Layout("no node rows", node_rows=False),
    Layout("lazy tables + uuid ids + no node rows", False, uuid_ids=True, node_rows=False),
)


class Model:
    """Copies the saver's rows of one run into layouts on the same database."""

    def __init__(self, conn: psycopg.Connection[Any], source: str) -> None:
        self.conn = conn
        self.source = source
        self.columns = {t: self._columns(t) for t in TABLES}
        # the checkpoint that introduced a blob version: the first one listing it
        conn.execute(
            sql.SQL(
                "CREATE TEMP TABLE intro AS SELECT b.*, (SELECT min(k.checkpoint_id) "
                "FROM {s}.checkpoints k, unnest(k.channels, k.versions) AS u(ch, v) "
                "WHERE k.thread_id = b.thread_id AND k.checkpoint_ns = b.checkpoint_ns "
                "AND u.ch = b.channel AND u.v = b.version) AS intro_id FROM {s}.blobs b"
            ).format(s=sql.Identifier(source))
        )

    def _columns(self, table: str) -> list[str]:
        rows = self.conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
            "AND table_name = %s AND column_name <> 'step_index' ORDER BY ordinal_position",
            (self.source, table),
        ).fetchall()
        return [r[0] for r in rows]

    def build(self, schema: str, layout: Layout) -> dict[str, int]:
        """Create ``schema`` in ``layout``, copy the rows in; bytes per table."""
        c = self.conn
        c.execute(sql.SQL("DROP SCHEMA IF EXISTS {0} CASCADE; CREATE SCHEMA {0}").format(
            sql.Identifier(schema)
        ))  # fmt: skip
        tables = [*TABLES, "migrations", *(OPTIONAL if layout.optional_tables else ())]
        ddl = [f"CREATE TABLE {{s}}.{t} (LIKE {{o}}.{t} INCLUDING ALL)" for t in tables]
        ddl += FOLD_DDL if layout.fold_writes else ()
        ddl += UUID_DDL if layout.uuid_ids else ()
        ddl += INLINE_DDL if layout.inline_deltas else ()
        for stmt in ddl:
            c.execute(self._fill(stmt, schema))
        for table in TABLES:
            self._copy(schema, table, layout)
        rows = c.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (schema,),
        ).fetchall()
        return {str(name): int(size) for name, size in rows}

    def _fill(self, stmt: str, schema: str) -> sql.Composed:
        return sql.SQL(stmt).format(s=sql.Identifier(schema), o=sql.Identifier(self.source))

    def _copy(self, schema: str, table: str, layout: Layout) -> None:
        cols = list(self.columns[table])
        if table == "writes" and layout.fold_writes:
            return
        if table == "actions" and not layout.node_rows:
            return
        if table == "blobs" and layout.inline_deltas:
            return
        select = f"SELECT {', '.join('x.' + c for c in cols)}"
        source = f"FROM {{o}}.{table} x"
        order = f"ORDER BY x.{ORDER.get(table, 'step_index')}"
        if table == "actions" and layout.fold_writes:
            extra = ("w_channels", "w_types", "w_blobs", "w_path")
            select += ", w.channels, w.types, w.blobs, w.task_path"
            source += (
                " LEFT JOIN {o}.writes w ON (w.thread_id, w.checkpoint_ns, w.checkpoint_id, "
                "w.task_id) = (x.thread_id, x.checkpoint_ns, x.checkpoint_id, x.task_id)"
            )
            cols += extra
        if table == "checkpoints" and layout.inline_deltas:
            names = [n for n, _ in _INLINE_COLUMNS]
            parts = ("channel", "version", "type", "blob", "base_version", "snap_version")
            aggs = ", ".join(
                f"array_agg({p}) AS {n}"
                for p, n in zip((*parts, "item_count", "list_len"), names, strict=True)
            )
            select += "".join(f", i.{n}" for n in names)
            source += (
                f" LEFT JOIN LATERAL (SELECT {aggs} FROM intro "
                "WHERE intro_id = x.checkpoint_id) i ON true"
            )
            cols += names
        types = dict(
            self.conn.execute(
                "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = %s::regclass AND attnum > 0",
                (f"{schema}.{table}",),
            ).fetchall()
        )
        # every value travels as text and is cast back to its column's type
        values = ", ".join(f"(%(r)s::text[])[{i + 1}]::{types[c]}" for i, c in enumerate(cols))
        rows = self.conn.execute(
            self._fill(f"SELECT ARRAY[{_as_text(select)}]::text[] {source} {order}", schema)
        ).fetchall()
        insert = self._fill(
            f"INSERT INTO {{s}}.{table} ({', '.join(cols)}) SELECT {values}", schema
        )
        with self.conn.cursor() as cur:  # a row at a time: pages and indexes fill as they did
            for (row,) in rows:
                cur.execute(insert, {"r": row})


def _as_text(select: str) -> str:
    """``SELECT a, b`` as ``a::text, b::text`` (every value travels as text)."""
    return ", ".join(f"{part.strip()}::text" for part in re.sub("^SELECT ", "", select).split(","))


@dataclass(frozen=True)
class Result:
    """One run: the raw bytes appended, what the saver stored, and each layout's bytes."""

    steps: int
    raw: int
    stored: int
    layouts: dict[str, dict[str, int]]


def run(env: BenchEnv, steps: Sequence[int]) -> list[Result]:
    """Scenario b once per superstep count, re-stored in every layout; printed as it goes."""
    from langgraph_actionckpt import ActionSaver

    payloads = make_payloads(max(steps))
    out = []
    for n in steps:
        raw = sum(len(p.encode()) for p in payloads[:n])
        with (
            scratch_database(env) as dsn,
            ActionSaver.from_conn_string(dsn, schema=OUR_SCHEMA) as saver,
        ):
            saver.setup()
            handle = SaverHandle("ActionSaver", saver, lambda: pg_schema_size(dsn, OUR_SCHEMA), "")
            _run_appender(handle, "operator.add", n, payloads)
            stored = handle.size_bytes()
            print(f"\noperator.add, {n} supersteps, raw {raw:,} B; as stored: "
                  f"{stored:,} B = {stored / raw:.2f}x")  # fmt: skip
            print(f"{'layout':<48}{'bytes':>12}{'x raw':>8}  tables (kB)")
            layouts: dict[str, dict[str, int]] = {}
            with psycopg.connect(dsn, autocommit=True) as conn:
                model = Model(conn, OUR_SCHEMA)
                for i, layout in enumerate(LAYOUTS):
                    sizes = layouts[layout.name] = model.build(f"model_{i}", layout)
                    total = sum(sizes.values())
                    parts = " ".join(f"{t} {v // 1024}" for t, v in sorted(sizes.items()))
                    print(f"{layout.name:<48}{total:>12,}{total / raw:>8.2f}  {parts}")
        out.append(Result(n, raw, stored, layouts))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = server_parser("benchmarks.spikes.storage_model", __doc__)
    p.add_argument("--steps", default="300,1000", help="comma list of superstep counts")
    args = p.parse_args(argv)
    steps = [int(s) for s in args.steps.split(",") if s.strip()]
    run(BenchEnv(dsn=server_dsn(args)), steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
