"""Ours against the same-rows floor per superstep in instructions, not seconds (callgrind).

Run from the repository root (needs ``valgrind``)::

    python -m benchmarks.instructions --dsn postgresql://postgres@127.0.0.1:5432/test
    python -m benchmarks.instructions --invokes 20 --combos async-sync,async-async

The wall and CPU ratios of ``benchmarks.floors`` move by up to 0.4 between runs of one
tree on a shared 2-core machine. Instructions do not: each side runs the chain of scenario
a in its own process under ``valgrind --tool=callgrind``, counting only while the measured
invokes run (``callgrind_control -i on/off`` around them; setup, imports and warm-up are not
counted), every thread of the process included (LangGraph's executor threads and ours').
The floor is ``benchmarks.same_rows``' prepared statement of the rows ours' warm-up thread
stored. The server's work is not counted (it is the same on both sides); a process's own
instructions are what a saver adds. A combination is the saver's world and the durability:
``sync-sync`` is ``ActionSaver`` with ``durability="sync"``, ``async-async``
``AsyncActionSaver`` with ``durability="async"``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg

from benchmarks import same_rows
from benchmarks.bench_saver import CHAIN_NODES, build_chain, thread_config
from benchmarks.floors import FLOOR_SCHEMA
from benchmarks.savers import OUR_SCHEMA, BenchEnv, scratch_database, server_dsn, server_parser

COMBOS = ("sync-sync", "sync-async", "async-sync", "async-async")
CHILD_MODULE = "benchmarks.instructions"
SUPERSTEPS = CHAIN_NODES + 2  # puts per invoke of the chain: the input, each node, the end
_ids = itertools.count()


def _instrument(flag: str) -> None:
    """Switch callgrind's counting on or off in this process."""
    subprocess.run(
        ["callgrind_control", "-i", flag, str(os.getpid())], check=True, capture_output=True
    )


def _floor_steps(dsn: str, thread_id: str) -> list[same_rows.PreparedStep]:
    """The floor's prepared rows: those ours stored for ``thread_id``, in a fresh floor schema."""
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        steps = same_rows.capture_steps(conn, OUR_SCHEMA, thread_id)
        conn.execute(f"DROP SCHEMA IF EXISTS {FLOOR_SCHEMA} CASCADE")
        same_rows.create_floor_schema(conn, FLOOR_SCHEMA)
        return same_rows.prepare(conn, FLOOR_SCHEMA, steps)


def _child_sync(dsn: str, side: str, durability: Any, invokes: int) -> None:
    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=OUR_SCHEMA) as saver:
        saver.setup()
        graph: Any = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=saver)
        warm = f"warm-{os.getpid()}"
        graph.invoke({"x": 0}, thread_config(warm), durability=durability)
        if side == "floor":
            conn = psycopg.Connection.connect(dsn, autocommit=True)
            floor = same_rows.SameRowsFloorSaver(conn, _floor_steps(dsn, warm), "prepared")
            graph = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=floor)
        for _ in range(3):
            graph.invoke({"x": 0}, thread_config(f"w{next(_ids)}"), durability=durability)
        _instrument("on")
        for _ in range(invokes):
            graph.invoke({"x": 0}, thread_config(f"m{next(_ids)}"), durability=durability)
        _instrument("off")


async def _child_async(dsn: str, side: str, durability: Any, invokes: int) -> None:
    from langgraph_actionckpt import AsyncActionSaver

    async with AsyncActionSaver.from_conn_string(dsn, schema=OUR_SCHEMA) as saver:
        await saver.setup()
        graph: Any = build_chain(CHAIN_NODES, is_async=True).compile(checkpointer=saver)
        warm = f"warm-{os.getpid()}"
        await graph.ainvoke({"x": 0}, thread_config(warm), durability=durability)
        if side == "floor":
            conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
            steps = _floor_steps(dsn, warm)
            floor = same_rows.AsyncSameRowsFloorSaver(conn, steps, "prepared")
            graph = build_chain(CHAIN_NODES, is_async=True).compile(checkpointer=floor)
        for _ in range(3):
            await graph.ainvoke({"x": 0}, thread_config(f"w{next(_ids)}"), durability=durability)
        _instrument("on")
        for _ in range(invokes):
            await graph.ainvoke({"x": 0}, thread_config(f"m{next(_ids)}"), durability=durability)
        _instrument("off")


def _count(
    dsn: str, side: str, combo: str, invokes: int, out: Path, module: str = CHILD_MODULE
) -> int:
    """Run one side of one combination under callgrind; the instructions it counted.

    ``module``: the one whose ``--child`` runs the side (``benchmarks.put_bounds`` adds sides).
    """
    cmd = [
        *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
        f"--callgrind-out-file={out}",
        *(sys.executable, "-m", module),
        *("--child", side, combo, dsn, str(invokes)),
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    for line in out.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--child":
        side, combo, dsn, invokes = argv[1], argv[2], argv[3], int(argv[4])
        world, durability = combo.split("-")
        if world == "sync":
            _child_sync(dsn, side, durability, invokes)
        else:
            asyncio.run(_child_async(dsn, side, durability, invokes))
        return 0
    parser = server_parser("benchmarks.instructions", __doc__)
    parser.add_argument("--invokes", type=int, default=10, help="measured invokes per side")
    parser.add_argument(
        "--combos", default=",".join(COMBOS), help="comma list of " + ", ".join(COMBOS)
    )
    args = parser.parse_args(argv)
    env = BenchEnv(server_dsn(args))
    steps = args.invokes * SUPERSTEPS
    print(f"instructions per superstep, {args.invokes} invokes of the {CHAIN_NODES}-node chain")
    print(f"{'combination':<14}{'ours':>12}{'floor':>12}{'ours / floor':>14}")
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as tmp:
        for combo in args.combos.split(","):
            counts = {}
            for side in ("ours", "floor"):
                with scratch_database(env) as dsn:
                    counts[side] = _count(dsn, side, combo, args.invokes, Path(tmp) / side)
            ours, floor = counts["ours"] / steps, counts["floor"] / steps
            print(f"{combo:<14}{ours:>12,.0f}{floor:>12,.0f}{ours / floor:>14.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
