"""Latency under a saturated pool: ours and the official saver, side by side.

Run::

    python -m benchmarks.storm [--dsn DSN] [--runs 200] [--pool 10] [--steps 8] [--rounds 2]

``--runs`` graphs start at once on one event loop, each on its own thread, a
chain of ``--steps`` nodes, with a pool of ``--pool`` connections:
``AsyncActionSaver`` (with its callback handler) and LangGraph's
``AsyncPostgresSaver`` over an ``AsyncConnectionPool`` of the same size, each in
a scratch database of the same server, taking turns for ``--rounds`` rounds.
A thread's per-superstep latency is its run's time (from ``ainvoke`` to its
return: waiting for a connection, the lease, the first read included) over its
supersteps; ``gap`` is the time from one node's start to the next node's start
in a run (only the checkpoint between them: a saver that runs the graphs one
after another, as the official one does behind its lock, has short gaps and
long waits). Prints p50/p99 of both and the supersteps per second of the whole
storm, and the targets of issue #28 (6), on the per-superstep latency: ours
p50 <= the official saver's, steps/s >=.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import sys
import time
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig

from benchmarks.savers import BenchEnv, redact_dsn, scratch_database, server_dsn, server_parser


class _State(TypedDict):
    n: int


def _graph(saver: Any, steps: int, stamps: dict[str, list[float]]) -> Any:
    from langgraph.graph import END, START, StateGraph

    def make(i: int) -> Any:
        async def node(state: _State, config: RunnableConfig) -> _State:
            stamps[config["configurable"]["thread_id"]].append(time.perf_counter())
            return {"n": state["n"] + 1}

        return node

    builder = StateGraph(_State)
    names = [f"n{i}" for i in range(steps)]
    for i, name in enumerate(names):
        builder.add_node(name, make(i))
        builder.add_edge(START if i == 0 else names[i - 1], name)
    builder.add_edge(names[-1], END)
    return builder.compile(checkpointer=saver)


async def _storm(saver: Any, handler: Any, runs: int, steps: int) -> dict[str, float]:
    stamps: dict[str, list[float]] = {f"s{i}": [] for i in range(runs)}
    graph = _graph(saver, steps, stamps)

    per_step: list[float] = []

    async def one(thread: str) -> None:
        t0 = time.perf_counter()
        config: dict[str, Any] = {"configurable": {"thread_id": thread}}
        if handler is not None:
            config["callbacks"] = [handler]
        out = await graph.ainvoke({"n": 0}, config)
        if out["n"] != steps:
            raise SystemExit(f"{thread}: wrong state {out}")
        per_step.append((time.perf_counter() - t0) / steps)

    start = time.perf_counter()
    await asyncio.gather(*(one(t) for t in stamps))
    wall = time.perf_counter() - start
    gaps = [b - a for s in stamps.values() for a, b in itertools.pairwise(s)]
    q = statistics.quantiles(gaps, n=100)
    r = statistics.quantiles(per_step, n=100)
    return {
        "p50": r[49] * 1000,
        "p99": r[98] * 1000,
        "gap50": q[49] * 1000,
        "gap99": q[98] * 1000,
        "steps_s": runs * steps / wall,
    }


async def _ours(dsn: str, runs: int, pool: int, steps: int) -> dict[str, float]:
    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

    async with AsyncActionSaver.from_conn_string(
        dsn, schema="storm", setup=True, pool_size=pool
    ) as saver:
        return await _storm(saver, AsyncActionCallbackHandler(saver), runs, steps)


async def _official(dsn: str, runs: int, pool: int, steps: int) -> dict[str, float]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    async with AsyncConnectionPool(dsn, min_size=pool, max_size=pool, kwargs=kwargs) as p:
        saver = AsyncPostgresSaver(p)  # type: ignore[arg-type]
        await saver.setup()
        return await _storm(saver, None, runs, steps)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m benchmarks.storm``; 1 when a target is missed."""
    parser = server_parser("benchmarks.storm", __doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--pool", type=int, default=10)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    dsn = server_dsn(args)
    print(
        f"storm: {args.runs} runs x {args.steps} nodes, pool {args.pool}, "
        f"server {redact_dsn(dsn)}, load {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'round':>5} {'saver':<24} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'gap p50':>8} {'gap p99':>8} {'steps/s':>8}"
    )
    ok = True
    env = BenchEnv(dsn)
    for r in range(1, args.rounds + 1):
        rows = {}
        for name, fn in (("AsyncActionSaver", _ours), ("AsyncPostgresSaver(pool)", _official)):
            with scratch_database(env) as db:
                rows[name] = res = asyncio.run(fn(db, args.runs, args.pool, args.steps))
            print(
                f"{r:>5} {name:<24} {res['p50']:8.1f} {res['p99']:8.1f} "
                f"{res['gap50']:8.1f} {res['gap99']:8.1f} {res['steps_s']:8.1f}"
            )
        ours, theirs = rows["AsyncActionSaver"], rows["AsyncPostgresSaver(pool)"]
        met = ours["p50"] <= theirs["p50"] and ours["steps_s"] >= theirs["steps_s"]
        ok = ok and met
        print(
            f"      p50 x{ours['p50'] / theirs['p50']:.2f}, steps/s "
            f"x{ours['steps_s'] / theirs['steps_s']:.2f}: {'met' if met else 'MISSED'}"
            f"  (load {os.getloadavg()[0]:.2f})"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
