"""Where scenario b's bytes go: every relation and fork of our schema, after one run.

Run from the repository root::

    python -m benchmarks.storage_breakdown                       # both variants, 300 and 1,000
    python -m benchmarks.storage_breakdown --steps 300 --variants add_messages
    python -m benchmarks.storage_breakdown --no-node-rows        # record_nodes=False
    python -m benchmarks.storage_breakdown --steps 1000 --variants DeltaChannel

Each run is scenario b's (one node appending a 1,024-char payload per superstep,
``durability="sync"``, a fresh ``ActionSaver`` in a scratch database); ``DeltaChannel`` is
``benchmarks.floors``' messages list held by LangGraph's ``DeltaChannel``. For every table of
the schema it prints the heap, its free-space map (``fsm``) and visibility map (``vm``),
its TOAST table (heap, maps and index) and each index, as ``pg_relation_size(rel, fork)``;
their sum equals the ``pg_total_relation_size`` total scenario b reports. ``grown`` is
what the run added to the freshly set-up schema, ``per step`` that over the supersteps.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from benchmarks.bench_saver import VARIANTS, _run_appender, make_payloads
from benchmarks.floors import run_delta
from benchmarks.savers import (
    OUR_SCHEMA,
    BenchEnv,
    SaverHandle,
    pg_schema_size,
    scratch_database,
    server_dsn,
    server_parser,
)

FORKS_SQL = """
SELECT t.relname, 'heap', pg_relation_size(t.oid, 'main'), pg_relation_size(t.oid, 'fsm'),
       pg_relation_size(t.oid, 'vm')
FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = %(s)s AND t.relkind = 'r'
UNION ALL
SELECT t.relname, 'toast', pg_relation_size(x.oid, 'main'), pg_relation_size(x.oid, 'fsm'),
       pg_relation_size(x.oid, 'vm')
FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_class x
  ON x.oid = t.reltoastrelid
WHERE n.nspname = %(s)s AND t.relkind = 'r'
UNION ALL
SELECT t.relname, 'index ' || CASE WHEN i.relnamespace = n.oid THEN i.relname ELSE '(of toast)' END,
       pg_relation_size(i.oid, 'main'), 0, 0
FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t0 ON t0.oid = ix.indrelid
JOIN pg_class t ON t.oid = t0.oid OR t.reltoastrelid = t0.oid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = %(s)s AND t.relkind = 'r'
ORDER BY 1, 2
"""

Sizes = dict[tuple[str, str], tuple[int, int, int]]


def relation_forks(dsn: str, schema: str) -> Sizes:
    """(table, part) -> (main, fsm, vm) bytes; part is heap, toast or an index."""
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(FORKS_SQL, {"s": schema}).fetchall()
    return {(str(r[0]), str(r[1])): (int(r[2]), int(r[3]), int(r[4])) for r in rows}


@contextmanager
def _action_saver(env: BenchEnv, record_nodes: bool) -> Iterator[tuple[SaverHandle, str]]:
    from langgraph_actionckpt import ActionSaver

    with (
        scratch_database(env) as dsn,
        ActionSaver.from_conn_string(dsn, schema=OUR_SCHEMA, record_nodes=record_nodes) as saver,
    ):
        saver.setup()
        size_note = "pg_total_relation_size"
        yield (
            SaverHandle("ActionSaver", saver, lambda: pg_schema_size(dsn, OUR_SCHEMA), size_note),
            dsn,
        )


def _print(variant: str, n: int, raw: int, empty: Sizes, full: Sizes, total: int) -> None:
    print(f"\n{variant}, {n} supersteps: {total:,} B = {total / raw:.2f}x raw ({raw:,} B)")
    print(f"{'table':<14}{'part':<40}{'main':>10}{'fsm':>8}{'vm':>7}{'grown':>10}{'per step':>10}")
    for table in sorted({t for t, _ in full}):
        for (t, part), (main, fsm, vm) in sorted(full.items()):
            if t != table:
                continue
            grown = main + fsm + vm - sum(empty.get((t, part), (0, 0, 0)))
            print(f"{t:<14}{part:<40}{main:>10,}{fsm:>8,}{vm:>7,}{grown:>10,}{grown / n:>10.0f}")
    fixed = sum(sum(v) for v in empty.values())
    fsm_total = sum(v[1] for v in full.values())
    print(
        f"fixed (right after setup): {fixed:,} B = {fixed / raw:.2f}x raw; "
        f"free-space maps: {fsm_total:,} B = {fsm_total / raw:.2f}x raw; "
        f"grown per superstep: {(total - fixed) / n:,.0f} B"
    )


def run(env: BenchEnv, variants: Sequence[str], steps: Sequence[int], record_nodes: bool) -> None:
    payloads = make_payloads(max(steps))
    for variant in variants:
        for n in steps:
            raw = sum(len(p.encode()) for p in payloads[:n])
            with _action_saver(env, record_nodes) as (handle, dsn):
                empty = relation_forks(dsn, OUR_SCHEMA)
                if variant == "DeltaChannel":
                    run_delta(handle, n, payloads)
                else:
                    _run_appender(handle, variant, n, payloads)  # type: ignore[arg-type]
                full = relation_forks(dsn, OUR_SCHEMA)
                total = handle.size_bytes()
            if total != sum(sum(v) for v in full.values()):
                raise AssertionError("the parts do not add up to pg_total_relation_size")
            _print(variant, n, raw, empty, full, total)


def main(argv: Sequence[str] | None = None) -> int:
    p = server_parser("benchmarks.storage_breakdown", __doc__)
    p.add_argument("--steps", default="300,1000", help="comma list of superstep counts")
    p.add_argument(
        "--variants", default=",".join(VARIANTS), help="operator.add,add_messages,DeltaChannel"
    )
    p.add_argument("--no-node-rows", action="store_true", help="record_nodes=False")
    args = p.parse_args(argv)
    dsn: Any = server_dsn(args)
    steps = [int(s) for s in args.steps.split(",") if s.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    run(BenchEnv(dsn=dsn), variants, steps, record_nodes=not args.no_node_rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
