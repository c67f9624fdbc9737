"""Scenario a's ``/ floor`` ratio, measured in pairs: each saver next to its floor, round by round.

Run from the repository root::

    python -m benchmarks.floor_pairs                          # both worlds, both durabilities
    python -m benchmarks.floor_pairs --world async --durability sync --rounds 15

``bench_saver`` times one saver after the other, so on a shared machine the load during one
saver's turn lands in its ratio: single runs of ``--scenarios a`` gave the async saver with
``durability="sync"`` anywhere from 1.8x to 3.2x its floor within minutes. Here the saver and
its floor (:class:`~benchmarks.savers.DurableFloorSaver` or its async twin, each on its own
scratch database of the same server) are opened once and then timed in alternating rounds
(ABBA: the order flips every round, so a drift of the load hits both alike), on the same chain
of 30 trivial nodes and fresh threads as scenario a. Each round gives one ratio, from two
samples taken seconds apart; the report is the median of those ratios, with:

* ``cpu``: this process's CPU time per superstep (``time.process_time``, every thread), and its
  ratio; it does not count waits for the server, so load inflates it far less than wall time;
* ``server``: CPU time per superstep of the server processes connected to the saver's database
  (``/proc/<pid>/stat``, 10 ms ticks summed over the round; empty where ``/proc`` does not show
  them), i.e. what the statements and commits cost the server.

Both worlds run in one process, sync savers on the main thread (their rounds block the event
loop, which then has nothing to do).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AsyncExitStack, ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from psycopg.conninfo import conninfo_to_dict
from rich.console import Console
from rich.table import Table

from benchmarks.bench_saver import CHAIN_NODES, Durability, build_chain, gc_paused, thread_config
from benchmarks.savers import (
    SAVERS,
    BenchEnv,
    SaverHandle,
    server_dsn,
    server_parser,
)

console = Console(width=None if sys.stdout.isatty() else 160)
PAIRS = {
    "sync": ("ActionSaver", "DurableFloor"),
    "async": ("AsyncActionSaver", "AsyncDurableFloor"),
}
_TICK = os.sysconf("SC_CLK_TCK")
_ids = iter(range(10**12))


def server_cpu(dbname: str) -> float:
    """CPU seconds so far of the server processes connected to ``dbname`` (0 if not visible)."""
    total = 0
    tag = f" {dbname} ".encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if tag not in (proc / "cmdline").read_bytes():
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


@dataclass
class Sample:
    wall: float
    cpu: float
    server: float


@dataclass
class Side:
    """One saver of a pair: its graph, database and samples."""

    name: str
    graph: Any
    dbname: str
    is_async: bool
    samples: list[Sample] = field(default_factory=list)

    async def run(self, invokes: int, durability: Durability) -> Sample:
        with gc_paused():
            s0, c0, t0 = server_cpu(self.dbname), time.process_time(), time.perf_counter()
            for _ in range(invokes):
                config = thread_config(f"fp-{os.getpid()}-{next(_ids)}")
                if self.is_async:
                    await self.graph.ainvoke({"x": 0}, config, durability=durability)
                else:
                    self.graph.invoke({"x": 0}, config, durability=durability)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            server = server_cpu(self.dbname) - s0
        steps = invokes * CHAIN_NODES
        return Sample(wall / steps, cpu / steps, server / steps)


async def open_side(name: str, env: BenchEnv, stack: ExitStack, astack: AsyncExitStack) -> Side:
    """Open saver ``name`` of ``SAVERS`` and compile the chain on it."""
    spec = SAVERS[name]
    handle: SaverHandle
    if spec.open_async is not None:
        handle = await astack.enter_async_context(spec.open_async(env))
    else:
        assert spec.open_sync is not None
        handle = stack.enter_context(spec.open_sync(env))
    dsn = _dsn_of(handle)
    graph = build_chain(CHAIN_NODES, is_async=spec.is_async).compile(checkpointer=handle.saver)
    return Side(name, graph, str(conninfo_to_dict(dsn).get("dbname")), spec.is_async)


def _dsn_of(handle: SaverHandle) -> str:
    saver: Any = handle.saver
    conn = getattr(saver, "conn", None) or getattr(saver, "aconn", None)
    info = getattr(conn, "info", None)
    if info is not None:
        return str(info.dsn)
    return str(getattr(conn, "conninfo", ""))  # a pool


async def measure_pair(
    ours: Side, floor: Side, durability: Durability, rounds: int, invokes: int
) -> list[tuple[Sample, Sample]]:
    """Warm both up, then ``rounds`` alternating rounds; each round's (ours, floor) samples."""
    for side in (ours, floor):
        await side.run(1, durability)
    pairs = []
    for r in range(rounds):
        order = (ours, floor) if r % 2 == 0 else (floor, ours)
        got = {side.name: await side.run(invokes, durability) for side in order}
        pairs.append((got[ours.name], got[floor.name]))
    return pairs


def _ratio(pairs: list[tuple[Sample, Sample]], key: Callable[[Sample], float]) -> float:
    ratios = [key(a) / key(b) for a, b in pairs if key(b) > 0]
    return statistics.median(ratios) if ratios else float("nan")


def report(rows: list[tuple[str, Durability, list[tuple[Sample, Sample]]]]) -> None:
    table = Table(title="/ floor, per-round ratios (median), scenario a's chain of 30 nodes")
    for col in ("pair", "durability", "ours wall", "floor wall", "/ floor", "min..max",
                "ours cpu", "floor cpu", "cpu / floor", "ours server", "floor server"):  # fmt: skip
        table.add_column(col, justify="left" if col in ("pair", "durability") else "right")
    for pair, durability, pairs in rows:
        med = statistics.median
        ratios = [a.wall / b.wall for a, b in pairs]
        table.add_row(
            pair,
            durability,
            f"{med(a.wall for a, _ in pairs) * 1e3:.3f} ms",
            f"{med(b.wall for _, b in pairs) * 1e3:.3f} ms",
            f"{_ratio(pairs, lambda s: s.wall):.2f}",
            f"{min(ratios):.2f}..{max(ratios):.2f}",
            f"{med(a.cpu for a, _ in pairs) * 1e3:.3f} ms",
            f"{med(b.cpu for _, b in pairs) * 1e3:.3f} ms",
            f"{_ratio(pairs, lambda s: s.cpu):.2f}",
            f"{med(a.server for a, _ in pairs) * 1e3:.3f} ms",
            f"{med(b.server for _, b in pairs) * 1e3:.3f} ms",
        )
    console.print(table)


async def run(args: argparse.Namespace) -> None:
    env = BenchEnv(dsn=server_dsn(args))
    worlds = ("sync", "async") if args.world == "both" else (args.world,)
    durabilities: tuple[Durability, ...] = (
        ("sync", "async") if args.durability == "both" else (args.durability,)
    )
    rows = []
    with ExitStack() as stack:
        async with AsyncExitStack() as astack:
            for world in worlds:
                ours_name, floor_name = PAIRS[world]
                ours = await open_side(ours_name, env, stack, astack)
                floor = await open_side(floor_name, env, stack, astack)
                for durability in durabilities:
                    console.print(f"  {ours_name} / {floor_name}, durability={durability}")
                    pairs = await measure_pair(ours, floor, durability, args.rounds, args.invokes)
                    rows.append((f"{ours_name} / {floor_name}", durability, pairs))
    report(rows)
    if args.json_out:
        write_json(args.json_out, rows)


def write_json(path: str, rows: list[tuple[str, Durability, list[tuple[Sample, Sample]]]]) -> None:
    """The per-round samples and median ratios, for ``benchmarks.targets``."""
    out = [
        {
            "pair": pair,
            "durability": durability,
            "wall_ratio": _ratio(pairs, lambda s: s.wall),
            "cpu_ratio": _ratio(pairs, lambda s: s.cpu),
            "rounds": [{"ours": asdict(a), "floor": asdict(b)} for a, b in pairs],
        }
        for pair, durability, pairs in rows
    ]
    Path(path).write_text(json.dumps(out, indent=2))


def main(argv: list[str] | None = None) -> int:
    p = server_parser("benchmarks.floor_pairs", __doc__)
    p.add_argument("--world", choices=("sync", "async", "both"), default="both")
    p.add_argument("--durability", choices=("sync", "async", "both"), default="both")
    p.add_argument("--rounds", type=int, default=11, help="alternating rounds per pair")
    p.add_argument("--invokes", type=int, default=10, help="chain invokes per sample")
    p.add_argument("--json", dest="json_out", help="also write the results to this JSON file")
    asyncio.run(run(p.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
