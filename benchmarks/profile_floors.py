"""Where ours spends the time above the same-rows floor: cProfile of both, by package.

Run from the repository root::

    python -m benchmarks.profile_floors --dsn postgresql://postgres@127.0.0.1:5432/test
    python -m benchmarks.profile_floors --invokes 40 --top 25 --durability async

The async world only: there LangGraph, the saver and psycopg all run on the event loop's
thread, which is the one cProfile sees (the sync saver's puts run on LangGraph's executor
threads). ``AsyncActionSaver`` and ``AsyncSameRowsFloorSaver`` (the rows of ours' warm-up
thread, the cheapest statement shape of ``benchmarks.same_rows``) run the chain of scenario a
in turns, each under its own profiler. The table gives each package's own time (``tottime``)
per superstep for both and the difference; then ours' functions with the most own time.
cProfile adds its own cost to every Python call, so read shares and differences, not the
absolute times (the unprofiled ratio is ``benchmarks.floors``').
"""

from __future__ import annotations

import asyncio
import cProfile
import itertools
import os
import pstats
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import psycopg

from benchmarks import same_rows
from benchmarks.bench_saver import CHAIN_NODES, Durability, build_chain, thread_config
from benchmarks.floors import FLOOR_SCHEMA, latest_thread
from benchmarks.savers import (
    OUR_SCHEMA,
    BenchEnv,
    scratch_database,
    server_dsn,
    server_parser,
)

_ids = itertools.count()
PACKAGES = (
    ("langgraph_actionckpt", "/langgraph_actionckpt/"),
    ("langgraph", "/langgraph/"),
    ("langchain_core", "/langchain_core/"),
    ("psycopg", "/psycopg/"),
    ("psycopg_pool", "/psycopg_pool/"),
    ("benchmarks (the floor's own)", "/benchmarks/"),
    ("zstandard / msgpack / orjson", "zstandard"),
)


def package_of(filename: str) -> str:
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C calls)"
    for name, marker in PACKAGES:
        if marker in filename:
            return name
    return "stdlib (asyncio, ...)"


def by_package(stats: pstats.Stats) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    raw: Any = stats.stats  # type: ignore[attr-defined]
    for (filename, _, _), (_, _, tottime, _, _) in raw.items():
        out[package_of(filename)] += tottime
    return out


async def profile_one(graph: Any, invokes: int, durability: Durability, tag: str) -> pstats.Stats:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(invokes):
        config = thread_config(f"{tag}-{os.getpid()}-{next(_ids)}")  # a fresh thread each
        await graph.ainvoke({"x": 0}, config, durability=durability)
    prof.disable()
    return pstats.Stats(prof)


async def run(env: BenchEnv, invokes: int, durability: Durability, top: int) -> None:
    from langgraph_actionckpt import AsyncActionSaver

    with (
        scratch_database(env) as ours_dsn,
        scratch_database(env) as floor_dsn,
        psycopg.Connection.connect(floor_dsn, autocommit=True) as conn,
    ):
        async with (
            AsyncActionSaver.from_conn_string(ours_dsn, schema=OUR_SCHEMA) as saver,
            await psycopg.AsyncConnection.connect(floor_dsn, autocommit=True) as aconn,
        ):
            await saver.setup()
            ours = build_chain(CHAIN_NODES, is_async=True).compile(checkpointer=saver)
            warm = thread_config(f"warm-{os.getpid()}")
            await ours.ainvoke({"x": 0}, warm, durability=durability)
            with psycopg.Connection.connect(ours_dsn, autocommit=True) as oc:
                steps = same_rows.capture_steps(oc, OUR_SCHEMA, latest_thread(ours_dsn))
            same_rows.create_floor_schema(conn, FLOOR_SCHEMA)
            prepared = same_rows.prepare(conn, FLOOR_SCHEMA, steps)
            timings = same_rows.time_shapes(conn, prepared, rounds=3, threads=3)
            shape = min(timings, key=lambda t: t.wall_us).shape
            floor_saver = same_rows.AsyncSameRowsFloorSaver(aconn, prepared, shape)
            floor = build_chain(CHAIN_NODES, is_async=True).compile(checkpointer=floor_saver)
            await floor.ainvoke(
                {"x": 0}, thread_config(f"fwarm-{os.getpid()}"), durability=durability
            )
            results: dict[str, list[pstats.Stats]] = {"ours": [], "floor": []}
            walls: dict[str, float] = {"ours": 0.0, "floor": 0.0}
            for r in range(4):  # ABBA
                order = [("ours", ours), ("floor", floor)]
                for name, graph in order if r % 2 == 0 else order[::-1]:
                    t0 = time.perf_counter()
                    results[name].append(await profile_one(graph, invokes, durability, name))
                    walls[name] += time.perf_counter() - t0
    steps_n = 4 * invokes * CHAIN_NODES
    merged = {}
    for name, stats in results.items():
        first = stats[0]
        for s in stats[1:]:
            first.add(s)
        merged[name] = first
    report(merged, walls, steps_n, shape, durability, top)


def report(
    merged: dict[str, pstats.Stats],
    walls: dict[str, float],
    steps_n: int,
    shape: str,
    durability: str,
    top: int,
) -> None:
    ours, floor = by_package(merged["ours"]), by_package(merged["floor"])
    print(
        f"AsyncActionSaver vs same-rows floor ({shape}), durability={durability}, "
        f"{steps_n} supersteps each, under cProfile; load average {os.getloadavg()}"
    )
    print(
        f"wall per superstep (profiled): ours {walls['ours'] / steps_n * 1e6:.0f} us, "
        f"floor {walls['floor'] / steps_n * 1e6:.0f} us"
    )
    print(f"{'own time per superstep, us':<34}{'ours':>8}{'floor':>8}{'ours - floor':>14}")
    for pkg in sorted(set(ours) | set(floor), key=lambda p: -(ours.get(p, 0) - floor.get(p, 0))):
        a, b = ours.get(pkg, 0.0) / steps_n * 1e6, floor.get(pkg, 0.0) / steps_n * 1e6
        print(f"{pkg:<34}{a:>8.1f}{b:>8.1f}{a - b:>14.1f}")
    a, b = sum(ours.values()) / steps_n * 1e6, sum(floor.values()) / steps_n * 1e6
    print(f"{'total':<34}{a:>8.1f}{b:>8.1f}{a - b:>14.1f}")
    print(f"\nours: the {top} functions with the most own time (langgraph_actionckpt, psycopg)")
    raw: Any = merged["ours"].stats  # type: ignore[attr-defined]
    rows = []
    for (filename, line, func), (cc, _, tottime, cumtime, _) in raw.items():
        pkg = package_of(filename)
        if pkg in ("langgraph_actionckpt", "psycopg", "psycopg_pool", "builtins (C calls)"):
            rows.append(
                (tottime, cumtime, cc, f"{pkg}: {os.path.basename(filename)}:{line} {func}")
            )
    for tottime, cumtime, cc, where in sorted(rows, reverse=True)[:top]:
        print(
            f"{tottime / steps_n * 1e6:>7.1f} us own {cumtime / steps_n * 1e6:>7.1f} us cum "
            f"{cc / steps_n:>5.1f} calls  {where}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    p = server_parser("benchmarks.profile_floors", __doc__)
    p.add_argument("--invokes", type=int, default=20, help="chain invokes per profiled sample")
    p.add_argument("--durability", choices=("sync", "async"), default="sync")
    p.add_argument("--top", type=int, default=20)
    args = p.parse_args(argv)
    env = BenchEnv(dsn=server_dsn(args))
    asyncio.run(run(env, args.invokes, args.durability, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
