"""A long-lived worker: per-run cost and memory over tens of thousands of threads.

Run::

    python -m benchmarks.soak_worker [--dsn DSN] [--runs 20000] [--lease wait|off]

One ``AsyncActionSaver`` (a pool, leases on), a one-node graph run with the
``AsyncActionCallbackHandler``, every run on a new thread, one after the other
(a worker's 24/7 loop). Prints the time per run of each thousand, the first
against the last thousand (target: the last within 1.2x of the first), the
process's RSS growth from the end of the first thousand to the end (target:
under 50 MB), the leases the saver's keeper still remembers at the end
(target: 0) and the load average.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from typing import Any, TypedDict

from benchmarks.savers import BenchEnv, redact_dsn, scratch_database, server_dsn, server_parser

BLOCK = 1000


class _State(TypedDict):
    n: int


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _graph(saver: Any) -> Any:
    from langgraph.graph import END, START, StateGraph

    async def step(state: _State) -> _State:
        return {"n": state["n"] + 1}

    builder = StateGraph(_State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=saver)


async def soak(dsn: str, runs: int, lease: str) -> dict[str, Any]:
    """Run ``runs`` one-node runs on new threads; seconds per block, RSS, leases held."""
    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

    blocks: list[float] = []
    rss: list[float] = []
    async with AsyncActionSaver.from_conn_string(
        dsn, schema="soak", setup=True, lease=lease
    ) as saver:
        graph = _graph(saver)
        handler = AsyncActionCallbackHandler(saver)
        start = time.perf_counter()
        for i in range(runs):
            config = {"configurable": {"thread_id": f"soak-{i}"}, "callbacks": [handler]}
            out = await graph.ainvoke({"n": i}, config)
            if out["n"] != i + 1:
                raise SystemExit(f"run {i}: wrong state {out}")
            if (i + 1) % BLOCK == 0:
                now = time.perf_counter()
                blocks.append(now - start)
                start = now
                gc.collect()
                rss.append(_rss_mb())
                print(
                    f"  runs {i + 1 - BLOCK:>6}-{i + 1:<6} {blocks[-1] / BLOCK * 1000:7.2f} ms/run"
                    f"  rss {rss[-1]:7.1f} MB  load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
        keeper = getattr(saver, "leases", None)
        held = 0 if keeper is None else len(keeper._held)
    return {"blocks": blocks, "rss": rss, "held": held}


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m benchmarks.soak_worker``; 1 when a target is missed."""
    parser = server_parser("benchmarks.soak_worker", __doc__)
    parser.add_argument("--runs", type=int, default=20_000, help="runs, each on a new thread")
    parser.add_argument("--lease", default="wait", help="the saver's lease mode (wait/off)")
    args = parser.parse_args(argv)
    if args.runs < 2 * BLOCK:
        parser.error(f"--runs must be at least {2 * BLOCK}")
    dsn = server_dsn(args)
    print(f"soak_worker: {args.runs} runs, lease={args.lease}, server {redact_dsn(dsn)}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with scratch_database(BenchEnv(dsn)) as db:
        result = asyncio.run(soak(db, args.runs, args.lease))
    blocks, rss = result["blocks"], result["rss"]
    ratio = blocks[-1] / blocks[0]
    growth = rss[-1] - rss[0]
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"first thousand {blocks[0]:.2f} s, last thousand {blocks[-1]:.2f} s: "
        f"x{ratio:.2f} (target <= 1.20)"
    )
    print(f"RSS {rss[0]:.1f} -> {rss[-1]:.1f} MB: +{growth:.1f} MB (target < 50)")
    print(f"leases still remembered by the keeper: {result['held']} (target 0)")
    ok = ratio <= 1.2 and growth < 50 and result["held"] == 0
    print("OK" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
