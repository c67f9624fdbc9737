"""Where the time of recording goes: the writer's Python per row, and the server's CPU per row.

Run::

    python -m benchmarks.bench_recorder_parts [--dsn DSN] [--actions 20000] [--batch 1000]

The rows are those of ``bench_recorder`` (~1 KB tool calls, made by the callback
handler). Python: thread CPU of each step of a flush. Server: CPU of the
backend (read from ``/proc``, so a local server only) for the statement the
writer runs and for cut-down versions of it, each into an empty table, so the
differences price the parts: reading the column arrays, the heap row and its WAL,
the indexes, the ``ON CONFLICT`` merge, the commit.
"""

from __future__ import annotations

import argparse
import os
import time

import psycopg
from psycopg import sql

from benchmarks.bench_recorder import _calls
from benchmarks.recording import drop_schema
from langgraph_actionckpt import ActionCallbackHandler, ActionRecord, ActionSaver
from langgraph_actionckpt.actions import batch_columns, batch_rows
from langgraph_actionckpt.actions.row_queue import merge_records
from langgraph_actionckpt.db import arrays
from langgraph_actionckpt.embedded_postgres import embedded_dsn


def _backend_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _records(saver: ActionSaver, n: int) -> list[ActionRecord]:
    """The rows the handler makes for n tool calls (queued nowhere)."""
    handler = ActionCallbackHandler(saver)
    out: list[ActionRecord] = []
    handler._enqueue = lambda r: out.append(r) if r is not None else None  # type: ignore[method-assign]
    for rid, args, kwargs, output in _calls(n):
        handler.on_tool_start(*args, run_id=rid, **kwargs)
        handler.on_tool_end(output, run_id=rid)
    return out


def python_parts(
    saver: ActionSaver, dsn: str, records: list[ActionRecord], batch: int
) -> dict[str, float]:
    """Thread CPU per row of each step of the writer's flush."""
    steps = (
        "fold the queue (merge_records)",
        "encode the columns (column_params)",
        "send and wait (psycopg)",
    )
    spent = dict.fromkeys(steps, 0.0)
    stmt = saver.store.action_queries.upsert_columns(False, merge=False)
    with psycopg.connect(dsn, autocommit=True) as conn, conn.cursor(binary=True) as cur:
        arrays.register(conn)
        for i in range(0, len(records), batch):
            t = [time.thread_time()]
            merged = merge_records(records[i : i + batch])
            t.append(time.thread_time())
            params = batch_columns.column_params(merged, None, saver.schema)
            t.append(time.thread_time())
            cur.execute(stmt, params, prepare=True)
            t.append(time.thread_time())
            for step, t0, t1 in zip(steps, t, t[1:], strict=False):
                spent[step] += t1 - t0
    return {k: v / len(records) * 1e6 for k, v in spent.items()}


def server_parts(
    saver: ActionSaver, dsn: str, records: list[ActionRecord], batch: int
) -> dict[str, float]:
    """Backend CPU per row of the writer's statement and of cut-down versions of it."""
    schema = saver.schema
    s = sql.Identifier(schema)
    q = saver.store.action_queries
    full = q.upsert_columns(False).as_string()
    insert = q.upsert_columns(False, merge=False).as_string()
    source = insert[insert.index("SELECT x.") :]
    cols = insert[insert.index("(") + 1 : insert.index(")\n")]
    chunks = [
        batch_columns.column_params(records[i : i + batch], None, schema)
        for i in range(0, len(records), batch)
    ]
    variants = {
        # (each value read: count(*) alone would let the planner skip the columns)
        "read the columns": f"SELECT count(z.*) FROM ({source}) AS z",
        "+ heap row and WAL (no index)": f"INSERT INTO {schema}.plain ({cols}) {source}",
        "+ the indexes (the writer's insert)": insert,
        "+ ON CONFLICT merge (the upsert)": full,
    }
    out: dict[str, float] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        arrays.register(conn)
        pid = conn.info.backend_pid
        conn.execute(
            sql.SQL("CREATE TABLE {}.plain (LIKE {}.actions INCLUDING DEFAULTS)").format(s, s)
        )
        conn.execute(
            sql.SQL(
                "ALTER TABLE {}.plain ALTER step_index ADD GENERATED ALWAYS AS IDENTITY"
            ).format(s)
        )
        for name, stmt in variants.items():
            conn.execute(sql.SQL("TRUNCATE {}.actions, {}.plain CASCADE").format(s, s))
            t0 = _backend_cpu(pid)
            for params in chunks:
                conn.execute(stmt.encode(), params)
            out[name] = (_backend_cpu(pid) - t0) / len(records) * 1e6
        conn.execute(sql.SQL("TRUNCATE {}.actions CASCADE").format(s))
        t0, commit = _backend_cpu(pid), 0.0
        for params in chunks:
            with conn.transaction():
                conn.execute(insert.encode(), params)
                c0 = _backend_cpu(pid)
            commit += _backend_cpu(pid) - c0
        out["the commit"] = commit / len(records) * 1e6
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", default=os.environ.get("ACTIONCKPT_DSN"))
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=batch_rows.MAX_ROWS)
    args = parser.parse_args(argv)
    dsn = args.dsn or embedded_dsn()
    schema = f"bench_parts_{os.getpid()}"
    drop_schema(dsn, schema)
    try:
        with ActionSaver.from_conn_string(dsn, schema=schema, replay=False) as saver:
            saver.setup()
            records = _records(saver, args.actions)
            py = python_parts(saver, dsn, records, args.batch)
            srv = server_parts(saver, dsn, records, args.batch)
    finally:
        drop_schema(dsn, schema)
    print(f"{args.actions:,} tool-call rows of ~1 KB, {args.batch:,} a statement")
    print("writer, Python (thread CPU per row):")
    for name, us in py.items():
        print(f"  {name:40s} {us:6.2f} us")
    print("server (backend CPU per row; each line includes the ones above it):")
    for name, us in srv.items():
        print(f"  {name:40s} {us:6.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
