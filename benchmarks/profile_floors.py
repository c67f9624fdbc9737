"""Where ours spends the time above the same-rows floor: cProfile of both, by package.

Run from the repository root::

    python -m benchmarks.profile_floors --dsn postgresql://postgres@127.0.0.1:5432/test
    python -m benchmarks.profile_floors --invokes 40 --top 25 --durability async
    python -m benchmarks.profile_floors --mode breakdown   # CPU of each part, no profiler

The async world only: there LangGraph, the saver and psycopg all run on the event loop's
thread, which is the one cProfile sees (the sync saver's puts run on LangGraph's executor
threads). ``AsyncActionSaver`` and ``AsyncSameRowsFloorSaver`` (the rows of ours' warm-up
thread, the cheapest statement shape of ``benchmarks.same_rows``) run the chain of scenario a
in turns, each under its own profiler. The table gives each package's own time (``tottime``)
per superstep for both and the difference; then ours' functions with the most own time.
cProfile adds its own cost to every Python call, so code made of many small calls looks
several times dearer than it is (the pool's ``getconn`` + ``putconn``: 45-50 us a put here,
3-5 us timed alone): read it for where the calls go, and the unprofiled CPU of
``benchmarks.floors`` for how much they cost. (A sampler of ``sys._current_frames`` from a
second thread was tried instead: it gets the GIL mostly where the loop releases it, in the
socket send and zstd, and so finds those instead.) ``--mode breakdown`` runs without a
profiler: it wraps both savers' ``aput`` / ``aput_writes`` and a few of ours' internal steps
(found by name; a step that is not there is left out and said so) in timers of the thread's
CPU (``time.thread_time``), and prints the CPU per superstep of each, beside the whole loop's.
"""

from __future__ import annotations

import asyncio
import cProfile
import importlib
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


async def run_invokes(graph: Any, invokes: int, durability: Durability, tag: str) -> None:
    for _ in range(invokes):
        config = thread_config(f"{tag}-{os.getpid()}-{next(_ids)}")  # a fresh thread each
        await graph.ainvoke({"x": 0}, config, durability=durability)


# (module, attribute, label): ours' steps of a put, timed by --mode breakdown
OUR_STEPS = (
    ("langgraph_actionckpt.checkpoints.held", "prepare_writes", "held writes: prepare_writes"),
    ("langgraph_actionckpt.checkpoints.plans_write", "json_text", "put: json_text (metadata)"),
    ("langgraph_actionckpt.checkpoints.codec", "Codec.dumps", "put: Codec.dumps (msgpack)"),
    ("langgraph_actionckpt.checkpoints.codec", "Codec.pack", "put: Codec.pack (zstd)"),
    ("langgraph_actionckpt.db.direct", "_bind", "put: direct._bind (dump ~30 parameters)"),
    ("langgraph_actionckpt.db.direct", "_send", "put: direct._send (libpq send)"),
)


class Timers:
    """CPU timers (``time.thread_time``) wrapped around functions, taken off by ``restore``."""

    def __init__(self) -> None:
        self.total: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.missing: list[str] = []
        self._undo: list[tuple[Any, str, Any]] = []

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        orig = owner.__dict__[name]
        total, calls = self.total, self.calls
        if asyncio.iscoroutinefunction(orig):

            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                c0 = time.thread_time()  # across the await: the loop idles in the kernel
                try:
                    return await orig(*args, **kwargs)
                finally:
                    total[label] += time.thread_time() - c0
                    calls[label] += 1

            setattr(owner, name, timed_async)
        else:

            def timed(*args: Any, **kwargs: Any) -> Any:
                c0 = time.thread_time()
                try:
                    return orig(*args, **kwargs)
                finally:
                    total[label] += time.thread_time() - c0
                    calls[label] += 1

            setattr(owner, name, timed)
        self._undo.append((owner, name, orig))

    def install(self, ours_cls: type, floor_cls: type) -> None:
        for cls, side in ((ours_cls, "ours"), (floor_cls, "floor")):
            for name in ("aput", "aput_writes"):
                owner = next(k for k in cls.__mro__ if name in k.__dict__)
                if owner is not cls:  # wrap on the class itself, not on a shared base
                    setattr(cls, name, owner.__dict__[name])
                self._wrap(cls, name, f"{side}: {name}")
        for module_name, attr, label in OUR_STEPS:
            holder: Any = importlib.import_module(module_name)
            *path, name = attr.split(".")
            for part in path:
                holder = getattr(holder, part, None)
            if holder is None or name not in getattr(holder, "__dict__", {}):
                self.missing.append(f"{module_name}.{attr}")
                continue
            self._wrap(holder, name, label)

    def restore(self) -> None:
        for owner, name, orig in reversed(self._undo):
            setattr(owner, name, orig)
        self._undo.clear()

    def report(
        self,
        walls: dict[str, float],
        cpu: dict[str, float],
        steps_n: int,
        shape: str,
        durability: str,
    ) -> None:
        print(
            f"AsyncActionSaver vs same-rows floor ({shape}), durability={durability}, "
            f"{steps_n} supersteps each, no profiler; load average {os.getloadavg()}"
        )
        for side in ("ours", "floor"):
            print(
                f"{side}: wall {walls[side] / steps_n * 1e6:.0f} us, the loop's CPU "
                f"{cpu[side] / steps_n * 1e6:.0f} us a superstep"
            )
        print(f"{'CPU per superstep (thread_time), us':<52}{'us':>8}{'calls':>8}")
        for label, seconds in self.total.items():
            calls = self.calls[label] / steps_n
            print(f"{label:<52}{seconds / steps_n * 1e6:>8.1f}{calls:>8.2f}")
        if self.missing:
            print(f"not found (left out): {', '.join(self.missing)}")


async def profile_one(graph: Any, invokes: int, durability: Durability, tag: str) -> pstats.Stats:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(invokes):
        config = thread_config(f"{tag}-{os.getpid()}-{next(_ids)}")  # a fresh thread each
        await graph.ainvoke({"x": 0}, config, durability=durability)
    prof.disable()
    return pstats.Stats(prof)


async def run(env: BenchEnv, invokes: int, durability: Durability, top: int, mode: str) -> None:
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
            cpu: dict[str, float] = {"ours": 0.0, "floor": 0.0}
            timers = Timers()
            if mode == "breakdown":
                timers.install(type(saver), type(floor_saver))
            try:
                for r in range(4):  # ABBA
                    order = [("ours", ours), ("floor", floor)]
                    for name, graph in order if r % 2 == 0 else order[::-1]:
                        t0, c0 = time.perf_counter(), time.thread_time()
                        if mode == "breakdown":
                            await run_invokes(graph, invokes, durability, name)
                        else:
                            profiled = await profile_one(graph, invokes, durability, name)
                            results[name].append(profiled)
                        walls[name] += time.perf_counter() - t0
                        cpu[name] += time.thread_time() - c0
            finally:
                timers.restore()
    steps_n = 4 * invokes * CHAIN_NODES
    if mode == "breakdown":
        timers.report(walls, cpu, steps_n, shape, durability)
        return
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
    p.add_argument("--mode", choices=("cprofile", "breakdown"), default="cprofile")
    args = p.parse_args(argv)
    env = BenchEnv(dsn=server_dsn(args))
    asyncio.run(run(env, args.invokes, args.durability, args.top, args.mode))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
