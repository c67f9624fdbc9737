"""The checkpoint service on loopback against the direct savers, in one run.

Run from the repository root::

    python -m benchmarks.bench_service                 # embedded PostgreSQL
    python -m benchmarks.bench_service --dsn postgresql://postgres@127.0.0.1:5432/test
    python -m benchmarks.bench_service --quick --json out.json

The service runs as ``actionckpt serve`` in its own process on 127.0.0.1, on the
same PostgreSQL as the direct savers. Two measurements (issue 15's targets):

a. Per-superstep cost: a chain of 30 trivial nodes, ``invoke``/``ainvoke`` on fresh
   threads, ``durability="sync"`` and ``"async"``: remote saver over direct saver of the
   same world (target: at most 2x).
d. Concurrency: 64 ``ainvoke`` of a 5-node chain at once on distinct threads; supersteps
   per second of ``AsyncRemoteActionSaver`` over ``AsyncPostgresSaver`` direct (target:
   at least 1x).

Medians over ``--repeat`` repetitions after a warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from benchmarks.bench_saver import build_chain, fresh_thread, gc_paused, thread_config
from langgraph_actionckpt import (
    ActionSaver,
    AsyncActionSaver,
    AsyncRemoteActionSaver,
    RemoteActionSaver,
)

ROOT = Path(__file__).resolve().parents[1]
CHAIN = 30
D_CHAIN = 5


def start_service(dsn: str, schema: str) -> tuple[subprocess.Popen[str], str]:
    """``actionckpt serve`` in a child process; its target."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "langgraph_actionckpt.service.cli", "--dsn", dsn, "serve",
         "--listen", "127.0.0.1:0", "--schema", schema],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"the service did not start: {line!r}")
    return proc, line.split()[-1]


def per_step_sync(saver: Any, invokes: int, repeat: int, durability: str) -> float:
    graph = build_chain(CHAIN, is_async=False).compile(checkpointer=saver)
    graph.invoke({"x": 0}, thread_config(fresh_thread("warm")), durability=durability)
    samples = []
    for _ in range(repeat):
        with gc_paused():
            t0 = time.perf_counter()
            for _ in range(invokes):
                graph.invoke({"x": 0}, thread_config(fresh_thread("a")), durability=durability)
            samples.append((time.perf_counter() - t0) / (invokes * CHAIN))
    return statistics.median(samples)


async def per_step_async(saver: Any, invokes: int, repeat: int, durability: str) -> float:
    graph = build_chain(CHAIN, is_async=True).compile(checkpointer=saver)
    await graph.ainvoke({"x": 0}, thread_config(fresh_thread("warm")), durability=durability)
    samples = []
    for _ in range(repeat):
        with gc_paused():
            t0 = time.perf_counter()
            for _ in range(invokes):
                await graph.ainvoke(
                    {"x": 0}, thread_config(fresh_thread("a")), durability=durability
                )
            samples.append((time.perf_counter() - t0) / (invokes * CHAIN))
    return statistics.median(samples)


async def concurrent(saver: Any, threads: int, repeat: int) -> float:
    graph = build_chain(D_CHAIN, is_async=True).compile(checkpointer=saver)

    async def wave(prefix: str) -> None:
        outs = await asyncio.gather(
            *(
                graph.ainvoke({"x": 0}, thread_config(fresh_thread(prefix)), durability="sync")
                for _ in range(threads)
            )
        )
        assert all(o == {"x": D_CHAIN} for o in outs)

    await wave("warm")
    samples = []
    for _ in range(repeat):
        with gc_paused():
            t0 = time.perf_counter()
            await wave("d")
            samples.append(threads * D_CHAIN / (time.perf_counter() - t0))
    return statistics.median(samples)


async def with_async(opener: Callable[[], Any], fn: Callable[[Any], Awaitable[float]]) -> float:
    async with opener() as saver:
        return await fn(saver)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dsn", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--invokes", type=int, default=10)
    p.add_argument("--threads", type=int, default=64)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    if args.quick:
        args.repeat, args.invokes = 2, 3
    if args.dsn is None:
        from langgraph_actionckpt import embedded_dsn

        args.dsn = embedded_dsn()
    dsn, tag = args.dsn, f"{os.getpid()}"
    direct_schema, svc_schema, peer_db = (
        f"bench_direct_{tag}",
        f"bench_svc_{tag}",
        f"bench_peer_{tag}",
    )
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(peer_db)))
    peer_dsn = psycopg.conninfo.make_conninfo(dsn, dbname=peer_db)
    proc, target = start_service(dsn, svc_schema)
    rows: list[dict[str, Any]] = []
    try:
        for durability in ("sync", "async"):
            with ActionSaver.from_conn_string(dsn, schema=direct_schema, setup=True) as s:
                direct = per_step_sync(s, args.invokes, args.repeat, durability)
            with RemoteActionSaver.from_target(target, setup=True) as r:
                remote = per_step_sync(r, args.invokes, args.repeat, durability)
            rows.append(dict(measure=f"a. per superstep, sync, durability={durability}",
                             direct_ms=direct * 1e3, remote_ms=remote * 1e3,
                             ratio=remote / direct, target="<= 2.0"))  # fmt: skip
            adirect = asyncio.run(
                with_async(
                    lambda: AsyncActionSaver.from_conn_string(
                        dsn, schema=direct_schema, setup=True
                    ),
                    lambda s, d=durability: per_step_async(s, args.invokes, args.repeat, d),
                )
            )
            aremote = asyncio.run(
                with_async(
                    lambda: AsyncRemoteActionSaver.from_target(target, setup=True),
                    lambda s, d=durability: per_step_async(s, args.invokes, args.repeat, d),
                )
            )
            rows.append(dict(measure=f"a. per superstep, async, durability={durability}",
                             direct_ms=adirect * 1e3, remote_ms=aremote * 1e3,
                             ratio=aremote / adirect, target="<= 2.0"))  # fmt: skip

        async def peer() -> float:
            from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

            async with AsyncPostgresSaver.from_conn_string(peer_dsn) as saver:
                await saver.setup()
                return await concurrent(saver, args.threads, args.repeat)

        base = asyncio.run(peer())
        remote_d = asyncio.run(
            with_async(
                lambda: AsyncRemoteActionSaver.from_target(target, setup=True),
                lambda s: concurrent(s, args.threads, args.repeat),
            )
        )
        rows.append(dict(measure=f"d. {args.threads} concurrent threads, supersteps/s",
                         direct_ms=base, remote_ms=remote_d, ratio=remote_d / base,
                         target=">= 1.0 (AsyncPostgresSaver direct = 1)"))  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(30)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(peer_db)))  # fmt: skip
            for schema in (direct_schema, svc_schema):
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                    sql.Identifier(schema)))  # fmt: skip
    print(f"{'measure':<48}{'direct':>12}{'remote':>12}{'ratio':>8}  target")
    for r in rows:
        unit = "" if r["measure"].startswith("d.") else " ms"
        print(f"{r['measure']:<48}{r['direct_ms']:>9.3f}{unit:<3}{r['remote_ms']:>9.3f}{unit:<3}"
              f"{r['ratio']:>8.2f}  {r['target']}")  # fmt: skip
    print("(a: ms per superstep, direct = the direct saver of the same world; "
          "d: supersteps/s, direct = AsyncPostgresSaver)")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
