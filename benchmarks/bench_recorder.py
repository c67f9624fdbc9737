"""Cost of recording actions: the callback handler's overhead on the caller's path,
and the sustained throughput of the batched writer into PostgreSQL.

Run::

    python -m benchmarks.bench_recorder [--dsn DSN] [--actions 20000] [--quick]

Measures, for the sync handler (ActionSaver) and the async handler
(AsyncActionSaver):

* caller-path overhead per recorded action: the time the handler's
  ``on_tool_start`` + ``on_tool_end`` pair takes in the caller (what a graph
  pays per tool call; the row is queued, the I/O happens in the background),
  as the median over batches; what LangChain itself does for a call (the run
  id, the input string, the keywords) is made before the timed window;
* sustained throughput: N actions of ~1 KB (input + output) recorded through
  the handler, from the first event until every row is committed (the writer
  flushed), in actions per second;
* the floor for comparison: COPY of the same rows into a scratch table;
* what a tool call costs when LangChain makes it (``tool.invoke``), alone, with a no-op
  handler and with ours (``benchmarks.bench_tool_calls``): the most tool calls one process
  can make per second, and the caller's path as a graph sees it;
* CPU per action over the same window: this process (the caller and the
  writer, all threads) and the run's server backends (read from ``/proc``, so
  0 for a server on another machine). On a busy machine the wall-clock rates
  move with the load; these move much less, and the larger of the two bounds
  the sustained rate on two cores (the two run in parallel).

Targets (issue #14, d): at least 60,000 actions/s sustained, the caller's path
at about 10 us median (the table checks <= 12 us). The first action-log issue
asked for 50 us and 20,000/s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
from rich.console import Console
from rich.table import Table

from benchmarks.bench_tool_calls import bench_tool_calls, describe
from benchmarks.recording import META, count_actions, drop_schema, text
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)
from langgraph_actionckpt.embedded_postgres import embedded_dsn

THROUGHPUT_TARGET = 60_000
CALLER_TARGET_US = 12.0


def _events(n: int) -> list[tuple[str, dict[str, Any], str]]:
    """(run_id, inputs, output) for n tool calls of ~1 KB input+output."""
    return [(str(uuid.uuid4()), {"query": text(500)}, text(500)) for _ in range(n)]


_APP = f"bench_recorder_{os.getpid()}"


def _tagged(dsn: str) -> str:
    """The DSN with an application name, so the run's server backends can be found."""
    return psycopg.conninfo.make_conninfo(dsn, application_name=_APP)


def _backend_cpu(dsn: str) -> dict[int, float]:
    """CPU seconds used so far by this run's server backends (a local server only, else {})."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        pids = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [_APP]
        ).fetchall()
    for (pid,) in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return out


class _Cpu:
    """CPU per action between start() and stop(): this process, and the server's backends."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def start(self) -> None:
        # The setup's garbage (the pre-built events, ~100k objects) would otherwise
        # set off a full collection inside the window, charged to recording
        # (5-15 us an action, depending on when it falls).
        gc.collect()
        self.c0, self.s0 = time.process_time(), _backend_cpu(self.dsn)

    def stop(self, n: int) -> dict[str, float]:
        client = time.process_time() - self.c0
        s1 = _backend_cpu(self.dsn)
        server = sum(v - self.s0.get(pid, 0.0) for pid, v in s1.items())
        return {"client_cpu_us": client / n * 1e6, "server_cpu_us": server / n * 1e6}


def _start_args(run_id: str, inputs: dict[str, Any]) -> tuple[dict[str, Any], str]:
    return {"name": "search"}, str(inputs)


def _start_kw(run_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """What LangChain passes to on_tool_start for a ToolNode call."""
    return {
        "parent_run_id": None,
        "metadata": META,
        "inputs": inputs,
        "tool_call_id": f"call_{run_id[:8]}",
    }


Call = tuple[uuid.UUID, tuple[dict[str, Any], str], dict[str, Any], str]


def _calls(n: int) -> list[Call]:
    """The arguments LangChain passes for n tool calls, made before the timed window.

    LangChain makes the run id, the input string and the keywords itself, before it
    calls a handler: the caller-path window holds the two handler calls only.
    """
    return [
        (uuid.UUID(run_id), _start_args(run_id, inputs), _start_kw(run_id, inputs), output)
        for run_id, inputs, output in _events(n)
    ]


def _summary(per_action: list[float], n: int, elapsed: float) -> dict[str, float]:
    return {
        "caller_us_median": statistics.median(per_action) * 1e6,
        "caller_us_p90": statistics.quantiles(per_action, n=10)[-1] * 1e6,
        "throughput": n / elapsed,
    }


def bench_sync(dsn: str, n: int, batch: int) -> dict[str, float]:
    schema = f"bench_rec_{os.getpid()}_s"
    drop_schema(dsn, schema)
    try:
        with ActionSaver.from_conn_string(_tagged(dsn), schema=schema, replay=False) as saver:
            saver.setup()
            handler = ActionCallbackHandler(saver)
            calls = _calls(n)
            per_action: list[float] = []
            cpu = _Cpu(dsn)
            cpu.start()
            t_start = time.perf_counter()
            for i in range(0, n, batch):
                chunk = calls[i : i + batch]
                t0 = time.perf_counter()
                for rid, args, kwargs, output in chunk:
                    handler.on_tool_start(*args, run_id=rid, **kwargs)
                    handler.on_tool_end(output, run_id=rid)
                per_action.append((time.perf_counter() - t0) / len(chunk))
            saver.writer.flush()
            elapsed = time.perf_counter() - t_start
            used = cpu.stop(n)
            stored = count_actions(dsn, schema)
        assert stored == n, (stored, n)
        return _summary(per_action, n, elapsed) | used
    finally:
        drop_schema(dsn, schema)


async def _bench_async(dsn: str, n: int, batch: int) -> dict[str, float]:
    schema = f"bench_rec_{os.getpid()}_a"
    drop_schema(dsn, schema)
    try:
        async with AsyncActionSaver.from_conn_string(
            _tagged(dsn), schema=schema, replay=False
        ) as saver:
            await saver.setup()
            handler = AsyncActionCallbackHandler(saver)
            calls = _calls(n)
            per_action: list[float] = []
            cpu = _Cpu(dsn)
            await asyncio.to_thread(cpu.start)
            t_start = time.perf_counter()
            for i in range(0, n, batch):
                chunk = calls[i : i + batch]
                t0 = time.perf_counter()
                for rid, args, kwargs, output in chunk:
                    await handler.on_tool_start(*args, run_id=rid, **kwargs)
                    await handler.on_tool_end(output, run_id=rid)
                per_action.append((time.perf_counter() - t0) / len(chunk))
                await asyncio.sleep(0)  # let the writer task run, as a graph would
            await saver.writer.aflush()
            elapsed = time.perf_counter() - t_start
            used = await asyncio.to_thread(cpu.stop, n)
            stored = await asyncio.to_thread(count_actions, dsn, schema)
        assert stored == n, (stored, n)
        return _summary(per_action, n, elapsed) | used
    finally:
        drop_schema(dsn, schema)


def bench_copy_floor(dsn: str, n: int) -> float:
    rows = [(str(uuid.uuid4()), text(500), text(500)) for _ in range(n)]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TEMP TABLE floor_rows (id text, input jsonb, output jsonb)")
        t0 = time.perf_counter()
        with conn.cursor() as cur:
            for i in range(0, n, 500):
                with conn.transaction(), cur.copy("COPY floor_rows FROM STDIN") as copy:
                    for rid, a, b in rows[i : i + 500]:
                        copy.write_row(
                            (rid, psycopg.types.json.Jsonb({"q": a}), psycopg.types.json.Jsonb(b))
                        )
        return n / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", default=os.environ.get("ACTIONCKPT_DSN"))
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", dest="json_out", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    n = 2_000 if args.quick else args.actions
    dsn = args.dsn or embedded_dsn()
    sync = bench_sync(dsn, n, args.batch)
    asyn = asyncio.run(_bench_async(dsn, n, args.batch))
    floor = bench_copy_floor(dsn, n)
    tool_call = bench_tool_calls(dsn, 200 if args.quick else 2_000, 2 if args.quick else 4)
    table = Table(title=f"recording {n:,} tool-call actions (~1 KB each)")
    cols = ("handler", "caller path median", "caller path p90", "sustained", "CPU/action", "target")
    for col in cols:
        table.add_column(col)
    for name, r in (("ActionCallbackHandler", sync), ("AsyncActionCallbackHandler", asyn)):
        table.add_row(
            name,
            f"{r['caller_us_median']:.1f} us",
            f"{r['caller_us_p90']:.1f} us",
            f"{r['throughput']:,.0f} actions/s",
            f"{r['client_cpu_us']:.1f} us Python, {r['server_cpu_us']:.1f} us server",
            f"<= {CALLER_TARGET_US:.0f} us, >= {THROUGHPUT_TARGET:,}/s",
        )
    table.add_row("COPY floor (no handler)", "", "", f"{floor:,.0f} rows/s", "", "")
    Console().print(table)
    ok = all(
        r["caller_us_median"] <= CALLER_TARGET_US and r["throughput"] >= THROUGHPUT_TARGET
        for r in (sync, asyn)
    )
    for line in describe(tool_call):
        print(line)
    print("targets met (issue #14 d):", "yes" if ok else "no")
    if args.json_out:
        result = {
            "sync": sync,
            "async": asyn,
            "copy_floor_rows_per_s": floor,
            "actions": n,
            "tool_call": tool_call,
        }
        Path(args.json_out).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
