"""Benchmark retention: prune a large action log while a writer keeps writing; archive round trip.

Run from the repository root::

    python -m benchmarks.bench_retention                 # 1,000,000 actions (several minutes)
    python -m benchmarks.bench_retention --quick         # 20,000 actions
    python -m benchmarks.bench_retention --dsn postgresql://postgres@127.0.0.1:5432/test

Steps:

1. Bulk-load N actions with COPY into ``bench_retention.actions``: about 1 KB of JSON input
   and output per row, spread over N/100 threads whose start times are spread uniformly over
   the last 60 days; 5% of actions failed (so ~5% of threads end in a failure and are kept),
   0.5% of threads end with an action still running (in flight, never pruned). Checkpoints
   are not generated: this measures the action log.
2. Size of the actions table (``pg_total_relation_size``, indexes and TOAST included).
3. ``prune(older_than=30 days, vacuum=False)`` while a writer thread inserts single actions
   for fresh threads through the saver as fast as it can: the writer's inserts and its
   slowest single insert during the prune show whether writers are locked out.
4. Size after the prune and after ``VACUUM (ANALYZE)`` (plain VACUUM makes the space
   reusable for new rows; it gives pages back to the OS only at the end of the table, so the
   dead-tuple count is the number to watch), plus the time VACUUM took.
5. Archive the threads idle for 20+ days (those between 20 and 30 days old after the prune)
   to a local directory, import them back, and compare every column of every row
   (per-thread md5 of the row text) with the rows before the archive.

Options: ``--dsn`` (default: ``$ACTIONCKPT_DSN``, else the embedded PostgreSQL 18 in
``~/.cache/langgraph-actionckpt/bench-pg``), ``--actions N``, ``--quick``,
``--batch-size`` (prune batch, default 5000), ``--json FILE``, ``--keep`` (keep the schema).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import orjson
import psycopg
from psycopg import sql
from rich.console import Console
from rich.table import Table

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.embedded_postgres import embedded_dsn
from langgraph_actionckpt.ops.archiving import archive, import_archive
from langgraph_actionckpt.ops.retention import prune

SCHEMA = "bench_retention"
_TEXT = (
    "the agent called a tool to search the web for recent news about markets and weather then "
    "summarized results for user with citations retry backoff rate limit token usage model "
    "response latency context window prompt completion function arguments json schema output"
)
WORDS = _TEXT.split(" ")
COPY_COLS = (
    "thread_id",
    "action_id",
    "action_type",
    "name",
    "status",
    "input",
    "output",
    "error",
    "model",
    "total_tokens",
    "latency_ms",
    "started_at",
    "completed_at",
)


def default_dsn() -> str:
    env = os.environ.get("ACTIONCKPT_DSN")
    if env:
        return env
    return embedded_dsn(Path.home() / ".cache" / "langgraph-actionckpt" / "bench-pg")


def payloads(rng: random.Random, n: int = 512) -> list[tuple[str, str]]:
    """Pre-built (input, output) JSON pairs of about 500 bytes each (1 KB per row)."""
    out = []
    for i in range(n):
        prompt = " ".join(rng.choice(WORDS) for _ in range(70))
        answer = " ".join(rng.choice(WORDS) for _ in range(70))
        inp = orjson.dumps({"messages": [{"role": "user", "content": prompt}], "n": i}).decode()
        outp = orjson.dumps({"content": answer, "finish_reason": "stop"}).decode()
        out.append((inp, outp))
    return out


def bulk_load(conn: psycopg.Connection[Any], n_actions: int, seed: int = 7) -> dict[str, Any]:
    """COPY ``n_actions`` rows spread over ``n_actions // 100`` threads and 60 days."""
    rng = random.Random(seed)
    pool = payloads(rng)
    n_threads = max(n_actions // 100, 1)
    per_thread = n_actions // n_threads
    now = dt.datetime.now(dt.UTC)
    types = ("llm_completion", "tool_call", "node", "tool_call", "llm_completion")
    failed = inflight = 0
    copy_sql = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(SCHEMA, "actions"),
        sql.SQL(", ").join(sql.Identifier(c) for c in COPY_COLS),
    )
    err = orjson.dumps({"type": "HTTPError", "message": "429 rate limit exceeded"}).decode()
    t0 = time.perf_counter()
    with conn.cursor() as cur, cur.copy(copy_sql) as copy:
        for t in range(n_threads):
            thread_id = f"bench-{t:06d}"
            base = now - dt.timedelta(seconds=rng.uniform(0, 60 * 86400))
            running_last = rng.random() < 0.005
            for j in range(per_thread):
                started = base + dt.timedelta(seconds=j * 2)
                status = "failed" if rng.random() < 0.05 else "completed"
                if running_last and j == per_thread - 1:
                    status = "running"
                    inflight += 1
                failed += status == "failed"
                inp, outp = pool[(t * 31 + j) % len(pool)]
                atype = types[j % len(types)]
                copy.write_row(
                    (
                        thread_id,
                        f"a-{j}",
                        atype,
                        "gpt-x" if atype == "llm_completion" else "search",
                        status,
                        inp,
                        outp if status == "completed" else None,
                        err if status == "failed" else None,
                        "gpt-x" if atype == "llm_completion" else None,
                        300 if atype == "llm_completion" else None,
                        rng.uniform(50, 2000),
                        started,
                        None if status == "running" else started + dt.timedelta(seconds=1),
                    )
                )
    load_s = time.perf_counter() - t0
    conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(SCHEMA, "actions")))
    return {
        "threads": n_threads,
        "rows": n_threads * per_thread,
        "failed": failed,
        "inflight_threads": inflight,
        "load_s": load_s,
    }


def table_size(conn: psycopg.Connection[Any]) -> tuple[int, int, int]:
    """(total bytes, live rows, dead rows) of the actions table."""
    row = conn.execute(
        "SELECT pg_total_relation_size(%s::regclass), COALESCE(n_live_tup, 0), "
        "COALESCE(n_dead_tup, 0) FROM pg_stat_user_tables WHERE relid = %s::regclass",
        (f"{SCHEMA}.actions", f"{SCHEMA}.actions"),
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def thread_digests(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """md5 over every column of every row, per thread."""
    rows = conn.execute(
        sql.SQL(
            "SELECT thread_id, md5(string_agg(a::text, '|' ORDER BY step_index)) "
            "FROM {} a GROUP BY thread_id"
        ).format(sql.Identifier(SCHEMA, "actions"))
    ).fetchall()
    return {r[0]: r[1] for r in rows}


class Writer(threading.Thread):
    """Inserts one action per call through the saver, for fresh threads, until stopped."""

    def __init__(self, saver: ActionSaver) -> None:
        super().__init__(daemon=True)
        self.saver = saver
        self.stop_flag = threading.Event()
        self.latencies: list[float] = []
        self.errors = 0

    def run(self) -> None:
        n = 0
        payload = {"content": "x" * 900}
        while not self.stop_flag.is_set():
            rec = ActionRecord(
                f"live-{n // 10}",
                f"a-{n}",
                "tool_call",
                name="live",
                status="completed",
                input=payload,
            )
            t0 = time.perf_counter()
            try:
                self.saver.record_actions([rec])
            except psycopg.Error:
                self.errors += 1
            self.latencies.append(time.perf_counter() - t0)
            n += 1


def fmt_bytes(n: int) -> str:
    return f"{n / 1024 / 1024:,.1f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dsn", default=None)
    ap.add_argument("--actions", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="20,000 actions")
    ap.add_argument("--batch-size", type=int, default=5000)
    ap.add_argument("--json", dest="json_file", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the bench schema afterwards")
    args = ap.parse_args(argv)
    n_actions = 20_000 if args.quick else args.actions
    dsn = args.dsn or default_dsn()
    console = Console()
    res: dict[str, Any] = {"actions_requested": n_actions}

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(SCHEMA)))
        res["server"] = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    ok = True
    with ActionSaver.from_conn_string(dsn, schema=SCHEMA, pool_size=4) as saver:
        saver.setup()
        with psycopg.connect(dsn, autocommit=True) as conn:
            console.print(f"loading {n_actions:,} actions with COPY ...")
            res["load"] = bulk_load(conn, n_actions)
            res["size_before"], res["live_before"], _ = table_size(conn)

            writer = Writer(saver)
            writer.start()
            time.sleep(0.5)  # writer warm-up, so its baseline exists
            baseline = list(writer.latencies)
            writer.latencies.clear()
            console.print("pruning threads idle > 30 days while a writer inserts ...")
            pr = prune(saver, None, dt.timedelta(days=30), batch_size=args.batch_size, vacuum=False)
            writer.stop_flag.set()
            writer.join()
            res["prune"] = pr.to_dict()
            lat = writer.latencies
            res["writer"] = {
                "inserts_during_prune": len(lat),
                "inserts_per_s": len(lat) / pr.seconds if pr.seconds else 0.0,
                "p50_ms": statistics.median(lat) * 1000 if lat else None,
                "p99_ms": sorted(lat)[int(len(lat) * 0.99) - 1] * 1000 if lat else None,
                "max_ms": max(lat) * 1000 if lat else None,
                "baseline_p50_ms": statistics.median(baseline) * 1000 if baseline else None,
                "errors": writer.errors,
            }
            res["size_after_prune"], res["live_after_prune"], res["dead_after_prune"] = table_size(
                conn
            )
            t0 = time.perf_counter()
            conn.execute(
                sql.SQL("VACUUM (ANALYZE) {}, {}, {}, {}").format(
                    *(
                        sql.Identifier(SCHEMA, t)
                        for t in ("actions", "checkpoints", "blobs", "writes")
                    )
                )
            )
            res["vacuum_s"] = time.perf_counter() - t0
            time.sleep(1.5)  # let the statistics catch up
            res["size_after_vacuum"], _, res["dead_after_vacuum"] = table_size(conn)

            before = thread_digests(conn)
            with tempfile.TemporaryDirectory(prefix="actionckpt-archive-") as tmp:
                ar = archive(saver, None, dt.timedelta(days=20), tmp, batch_size=args.batch_size)
                res["archive"] = ar.to_dict()
                archived_ids = [
                    urllib.parse.unquote(p.name[: -len(".jsonl")]) for p in Path(tmp).iterdir()
                ]
                res["archive_bytes"] = sum(p.stat().st_size for p in Path(tmp).iterdir())
                t0 = time.perf_counter()
                imported = import_archive(saver, None, tmp).imported
                res["import_s"] = time.perf_counter() - t0
                res["imported"] = imported
            after = thread_digests(conn)
            mismatched = [t for t in archived_ids if before.get(t) != after.get(t)]
            res["roundtrip_threads"] = len(archived_ids)
            res["roundtrip_identical"] = not mismatched and imported == ar.archived_actions
            ok = bool(res["roundtrip_identical"])
        if not args.keep:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(SCHEMA)))

    w, p, a = res["writer"], res["prune"], res["archive"]
    table = Table(
        title=f"retention benchmark: {res['load']['rows']:,} actions, PostgreSQL {res['server']}"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows = [
        ("threads / actions loaded", f"{res['load']['threads']:,} / {res['load']['rows']:,}"),
        ("COPY load time", f"{res['load']['load_s']:.1f} s"),
        ("actions table size before", fmt_bytes(res["size_before"])),
        ("prune: threads deleted", f"{p['threads']:,}"),
        ("prune: actions deleted", f"{p['actions']:,}"),
        ("prune: kept (failed / in flight)", f"{p['kept_failed']:,} / {p['kept_inflight']:,}"),
        ("prune: transactions", f"{p['batches']:,}"),
        ("prune time", f"{p['seconds']:.1f} s"),
        ("prune rate", f"{p['actions'] / p['seconds']:,.0f} rows/s" if p["seconds"] else "-"),
        (
            "writer inserts during prune",
            f"{w['inserts_during_prune']:,} ({w['inserts_per_s']:,.0f}/s)",
        ),
        (
            "writer insert p50 / p99 / max",
            f"{w['p50_ms']:.2f} / {w['p99_ms']:.2f} / {w['max_ms']:.1f} ms",
        ),
        ("writer insert p50 before prune", f"{w['baseline_p50_ms']:.2f} ms"),
        ("writer errors", str(w["errors"])),
        (
            "size after prune",
            f"{fmt_bytes(res['size_after_prune'])} ({res['dead_after_prune']:,} dead rows)",
        ),
        ("VACUUM (ANALYZE) time", f"{res['vacuum_s']:.1f} s"),
        (
            "size after VACUUM",
            f"{fmt_bytes(res['size_after_vacuum'])} ({res['dead_after_vacuum']:,} dead rows)",
        ),
        ("archive: threads / actions", f"{a['threads']:,} / {a['archived_actions']:,}"),
        ("archive time / files size", f"{a['seconds']:.1f} s / {fmt_bytes(res['archive_bytes'])}"),
        ("import time / rows", f"{res['import_s']:.1f} s / {res['imported']:,}"),
        ("round trip identical rows", "yes" if res["roundtrip_identical"] else "NO"),
    ]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(res, indent=2, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
