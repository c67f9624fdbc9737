"""Citus against plain PostgreSQL, in one run on the same machine: graphs, recording, cross-thread.

Run from the repository root::

    python -m benchmarks.citus_vs_plain                 # 3 rounds
    python -m benchmarks.citus_vs_plain --rounds 5
    python -m benchmarks.citus_vs_plain --quick         # smoke run, small sizes, 1 round

Starts two private servers from the machine's PostgreSQL binaries: a Citus cluster
(:class:`tests.citus_cluster.CitusCluster`: a coordinator and two workers, every schema set
up with ``distributed=True``) and a plain PostgreSQL (:class:`tests.faults.servers.PrivatePostgres`)
with the same ``postgresql.conf`` settings (``fsync`` off, ``synchronous_commit`` off, 32 MB
of shared buffers, ``max_prepared_transactions = 200``; Citus adds only its own). The savers
talk to the coordinator. Each round measures both servers, the order alternating from round
to round, and the table shows the median over the rounds of each server and Citus / plain:

* supersteps/s: ``asyncio.gather`` of T ``ainvoke`` (``AsyncActionSaver``) and T Python
  threads each running one ``invoke`` (``ActionSaver``), for each T of ``--threads``, of
  ``bench_saver``'s 5-node chain (scenario d), on distinct thread ids, ``durability="sync"``;
  one warm-up wave, then ``--waves`` timed waves;
* actions/s of recording: ``bench_recorder``'s tool calls (~1 KB each) through
  ``ActionCallbackHandler`` / ``AsyncActionCallbackHandler``, spread over ``--rec-threads``
  thread ids (a writer batch then spans shards), until the writer flushed;
* the time of each cross-thread operation, called as the CLI calls it, on a schema populated
  by ``bench_retention.bulk_load`` (``--actions`` rows, 100 per thread, spread over 60 days,
  5 % failed, 0.5 % of threads in flight) plus the checkpoints of the superstep waves:
  ``actionckpt runs``, ``failed``, ``inflight``, ``stats``, ``prune --dry-run`` (30 days),
  ``list(None, limit=50)`` consumed, and ``archive`` of exactly one thread (the oldest idle
  one; one per round). An operation that raises shows its error in its cell.

It prints the load average before and after each round, and where the rows of the populated
schema landed on the Citus workers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import functools
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg

from benchmarks.bench_recorder import _calls
from benchmarks.bench_retention import SCHEMA, bulk_load
from benchmarks.bench_saver import (
    D_CHAIN_NODES,
    build_chain,
    fresh_thread,
    gc_paused,
    thread_config,
)
from benchmarks.recording import META, count_actions, drop_schema
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)
from langgraph_actionckpt.ops import archiving, reports, retention, table_stats
from tests.citus_cluster import CitusCluster, missing_citus, rows_per_worker
from tests.faults.servers import PrivatePostgres

SERVERS = ("plain", "citus")
REC_SCHEMA = "cvp_recording"
SETTINGS = {"max_prepared_transactions": "200"}
"""Settings both servers get beyond PrivatePostgres's own (Citus needs this one)."""

Sample = float | str
"""A measured value, or the text of the error the operation raised."""


@contextlib.contextmanager
def distributed(on: bool) -> Iterator[None]:
    """``ACTIONCKPT_DISTRIBUTED`` for the savers opened inside (what ``setup()`` reads)."""
    old = os.environ.get("ACTIONCKPT_DISTRIBUTED")
    os.environ["ACTIONCKPT_DISTRIBUTED"] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["ACTIONCKPT_DISTRIBUTED"]
        else:
            os.environ["ACTIONCKPT_DISTRIBUTED"] = old


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


# ------------------------------------------------------------------ supersteps


async def async_steps(dsn: str, threads: int, waves: int, group_commit: bool = True) -> float:
    """Supersteps/s of ``waves`` waves of ``threads`` concurrent ``ainvoke`` (after a warm-up)."""
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=SCHEMA, setup=True, group_commit=group_commit
    ) as saver:
        graph = build_chain(D_CHAIN_NODES, is_async=True).compile(checkpointer=saver)

        async def wave() -> None:
            outs = await asyncio.gather(
                *(
                    graph.ainvoke({"x": 0}, thread_config(fresh_thread("cvp-a")), durability="sync")
                    for _ in range(threads)
                )
            )
            if any(o != {"x": D_CHAIN_NODES} for o in outs):
                raise RuntimeError(f"wrong final state: {outs[:3]}")

        await wave()
        with gc_paused():
            t0 = time.perf_counter()
            for _ in range(waves):
                await wave()
            return waves * threads * D_CHAIN_NODES / (time.perf_counter() - t0)


def sync_steps(dsn: str, threads: int, waves: int) -> float:
    """Supersteps/s of ``waves`` waves of ``threads`` Python threads, one ``invoke`` each."""
    with (
        ActionSaver.from_conn_string(dsn, schema=SCHEMA, setup=True) as saver,
        ThreadPoolExecutor(threads) as pool,
    ):
        graph = build_chain(D_CHAIN_NODES, is_async=False).compile(checkpointer=saver)

        def one(_: int) -> Any:
            return graph.invoke({"x": 0}, thread_config(fresh_thread("cvp-s")), durability="sync")

        def wave() -> None:
            outs = list(pool.map(one, range(threads)))
            if any(o != {"x": D_CHAIN_NODES} for o in outs):
                raise RuntimeError(f"wrong final state: {outs[:3]}")

        wave()
        with gc_paused():
            t0 = time.perf_counter()
            for _ in range(waves):
                wave()
            return waves * threads * D_CHAIN_NODES / (time.perf_counter() - t0)


# ------------------------------------------------------------------ recording


def _spread_calls(n: int, threads: int) -> list[Any]:
    """``bench_recorder``'s tool calls, their metadata naming one of ``threads`` thread ids."""
    metas = [{**META, "thread_id": f"rec-{i}"} for i in range(threads)]
    return [
        (rid, args, {**kwargs, "metadata": metas[i % threads]}, output)
        for i, (rid, args, kwargs, output) in enumerate(_calls(n))
    ]


def sync_recording(dsn: str, n: int, threads: int) -> float:
    """Actions/s through ``ActionCallbackHandler`` until the writer flushed."""
    drop_schema(dsn, REC_SCHEMA)
    try:
        with ActionSaver.from_conn_string(dsn, schema=REC_SCHEMA, replay=False) as saver:
            saver.setup()
            handler = ActionCallbackHandler(saver)
            calls = _spread_calls(n, threads)
            with gc_paused():
                t0 = time.perf_counter()
                for rid, args, kwargs, output in calls:
                    handler.on_tool_start(*args, run_id=rid, **kwargs)
                    handler.on_tool_end(output, run_id=rid)
                saver.writer.flush()
                rate = n / (time.perf_counter() - t0)
        stored = count_actions(dsn, REC_SCHEMA)
        if stored != n:
            raise RuntimeError(f"{stored} of {n} actions stored")
        return rate
    finally:
        drop_schema(dsn, REC_SCHEMA)


async def async_recording(dsn: str, n: int, threads: int) -> float:
    """Actions/s through ``AsyncActionCallbackHandler`` until the writer flushed."""
    await asyncio.to_thread(drop_schema, dsn, REC_SCHEMA)
    try:
        async with AsyncActionSaver.from_conn_string(dsn, schema=REC_SCHEMA, replay=False) as saver:
            await saver.setup()
            handler = AsyncActionCallbackHandler(saver)
            calls = _spread_calls(n, threads)
            with gc_paused():
                t0 = time.perf_counter()
                for i, (rid, args, kwargs, output) in enumerate(calls):
                    await handler.on_tool_start(*args, run_id=rid, **kwargs)
                    await handler.on_tool_end(output, run_id=rid)
                    if i % 200 == 199:
                        await asyncio.sleep(0)  # let the writer task run, as a graph would
                await saver.writer.aflush()
                rate = n / (time.perf_counter() - t0)
        stored = await asyncio.to_thread(count_actions, dsn, REC_SCHEMA)
        if stored != n:
            raise RuntimeError(f"{stored} of {n} actions stored")
        return rate
    finally:
        await asyncio.to_thread(drop_schema, dsn, REC_SCHEMA)


# ------------------------------------------------------------------ cross-thread operations


def populate(dsn: str, is_citus: bool, n_actions: int) -> dict[str, Any]:
    """``bench_retention``'s action log in its schema, set up as a user would."""
    with distributed(is_citus), ActionSaver.from_conn_string(dsn, schema=SCHEMA) as saver:
        saver.setup()
    with psycopg.connect(dsn, autocommit=True) as conn:
        return bulk_load(conn, n_actions)


def oldest_idle_cutoff(conn: psycopg.Connection[Any]) -> dt.datetime:
    """A cutoff between the oldest and the next oldest thread with no action in flight."""
    rows = conn.execute(
        psycopg.sql.SQL(
            "SELECT max(GREATEST(started_at, completed_at)) AS last_at FROM {} "
            "GROUP BY thread_id HAVING bool_and(status NOT IN ('pending', 'running')) "
            "ORDER BY last_at LIMIT 2"
        ).format(psycopg.sql.Identifier(SCHEMA, "actions"))
    ).fetchall()
    first: dt.datetime = rows[0][0]
    second: dt.datetime = rows[1][0]
    return first + (second - first) / 2


def _stats(conn: psycopg.Connection[Any]) -> object:
    """What ``actionckpt stats`` reads: table stats, then the reuse summaries."""
    from langgraph_actionckpt.db.driver import SyncDriver
    from langgraph_actionckpt.reuse.plans import plan_reuse_refusals, plan_reuse_stats

    out = table_stats.stats(conn, SCHEMA)
    SyncDriver(conn).run(lambda: plan_reuse_stats(SCHEMA))
    SyncDriver(conn).run(lambda: plan_reuse_refusals(SCHEMA))
    return out


def _archive_one(conn: psycopg.Connection[Any], cutoff: dt.datetime, dest: str) -> None:
    result = archiving.archive(
        conn, SCHEMA, older_than=cutoff, dest=dest, keep_failed=False, vacuum=False
    )
    if result.threads != 1 or result.deleted_threads != 1:
        raise RuntimeError(f"archived {result.threads} threads, deleted {result.deleted_threads}")


def cross_thread(dsn: str) -> dict[str, Sample]:
    """Seconds per operation, or the error it raised."""
    with (
        psycopg.connect(dsn, autocommit=True) as conn,
        ActionSaver.from_conn_string(dsn, schema=SCHEMA) as saver,
        tempfile.TemporaryDirectory(prefix="cvp-archive-") as dest,
    ):
        cutoff = oldest_idle_cutoff(conn)  # untimed: which thread the archive takes
        ops: dict[str, Callable[[], object]] = {
            "runs (limit 50)": lambda: reports.list_runs(conn, SCHEMA, limit=50),
            "failed (limit 50)": lambda: reports.failed_runs(conn, SCHEMA, limit=50),
            "inflight (limit 100)": lambda: reports.inflight_actions(conn, SCHEMA, limit=100),
            "stats": lambda: _stats(conn),
            "prune --dry-run (30d)": lambda: retention.prune(
                conn, SCHEMA, dt.timedelta(days=30), dry_run=True, vacuum=False
            ),
            "list(None, limit=50)": lambda: list(saver.list(None, limit=50)),
            "archive one thread": lambda: _archive_one(conn, cutoff, dest),
        }
        return {f"{name} (s)": attempt(op) for name, op in ops.items()}


def attempt(fn: Callable[[], object]) -> Sample:
    """Seconds ``fn`` took (its value, when a float: a rate), or the error it raised."""
    try:
        t0 = time.perf_counter()
        value = fn()
        took = time.perf_counter() - t0
    except Exception as exc:  # noqa: BLE001 - the error is the result on that server
        return f"ERROR {type(exc).__name__}: {exc}".replace("\n", " ")
    return value if isinstance(value, float) else took


# ------------------------------------------------------------------ the run


def measure(dsn: str, is_citus: bool, args: argparse.Namespace) -> dict[str, Sample]:
    """One round's samples on one server."""
    out: dict[str, Sample] = {}
    rec = (args.recorded, args.rec_threads)
    with distributed(is_citus):
        for t in args.threads:
            out[f"sync saver, {t} threads (supersteps/s)"] = attempt(
                functools.partial(sync_steps, dsn, t, args.waves)
            )
            out[f"async saver, {t} threads (supersteps/s)"] = attempt(
                functools.partial(asyncio.run, async_steps(dsn, t, args.waves))
            )
        most = max(args.threads)
        out[f"async saver, group_commit=False, {most} threads (supersteps/s)"] = attempt(
            lambda: asyncio.run(async_steps(dsn, most, args.waves, group_commit=False))
        )
        out["recording, sync handler (actions/s)"] = attempt(lambda: sync_recording(dsn, *rec))
        out["recording, async handler (actions/s)"] = attempt(
            lambda: asyncio.run(async_recording(dsn, *rec))
        )
    try:
        out |= cross_thread(dsn)
    except Exception as exc:  # noqa: BLE001 - e.g. finding the thread to archive failed
        out["cross-thread operations (s)"] = f"ERROR {type(exc).__name__}: {exc}"
    return out


def median(samples: list[Sample]) -> Sample:
    """The median of the numbers, or the first error when any sample is one."""
    errors = [s for s in samples if isinstance(s, str)]
    return errors[0] if errors else statistics.median(float(s) for s in samples)


def fmt(value: Sample, unit_s: bool) -> str:
    if isinstance(value, str):
        return value
    return f"{value * 1000:,.1f} ms" if unit_s else f"{value:,.0f}"


def print_table(results: dict[str, list[dict[str, Sample]]]) -> None:
    names = list(dict.fromkeys(k for rs in results.values() for r in rs for k in r))
    width = max(len(n) for n in names)
    print(f"{'':<{width}}  {'plain':>12}  {'citus':>12}  {'citus/plain':>11}")
    for name in names:
        plain = median([r.get(name, "not measured") for r in results["plain"]])
        citus = median([r.get(name, "not measured") for r in results["citus"]])
        unit_s = name.endswith("(s)")
        ratio = (
            f"{citus / plain:.2f}"
            if isinstance(plain, float) and isinstance(citus, float) and plain
            else "-"
        )
        print(f"{name:<{width}}  {fmt(plain, unit_s):>12}  {fmt(citus, unit_s):>12}  {ratio:>11}")
    print("each round, in order (plain | citus):")
    for name in names:
        rounds = [
            " ".join(fmt(r.get(name, "-"), name.endswith("(s)")) for r in results[server])
            for server in SERVERS
        ]
        if not any("ERROR" in text for text in rounds):
            print(f"  {name}: {rounds[0]} | {rounds[1]}")


def run(cluster: CitusCluster, plain: PrivatePostgres, args: argparse.Namespace) -> int:
    """Populate both servers, measure ``args.rounds`` rounds, print the table; 1 on an error."""
    dsns = {"plain": plain.dsn, "citus": cluster.dsn}
    print(f"citus_vs_plain: load average {load()} (1/5/15 min), {os.cpu_count()} CPUs")
    print(
        f"threads {args.threads}, waves {args.waves}, {args.recorded:,} recorded actions over "
        f"{args.rec_threads} threads, populated schema {args.actions:,} actions, "
        f"rounds {args.rounds}"
    )
    for name in SERVERS:
        t0 = time.perf_counter()
        info = populate(dsns[name], name == "citus", args.actions)
        print(
            f"populated {name}: {info['rows']:,} actions over {info['threads']:,} threads "
            f"({info['failed']} failed, {info['inflight_threads']} in flight) "
            f"in {time.perf_counter() - t0:.1f} s"
        )
    results: dict[str, list[dict[str, Sample]]] = {name: [] for name in SERVERS}
    for r in range(args.rounds):
        order = SERVERS if r % 2 == 0 else SERVERS[::-1]
        before = load()
        for name in order:
            results[name].append(measure(dsns[name], name == "citus", args))
        print(f"round {r + 1}: load average {before} before, {load()} after")
    spread = {t: rows_per_worker(cluster.dsn, SCHEMA, t) for t in ("actions", "checkpoints")}
    print("rows per Citus worker (by port): " + ", ".join(f"{t} {c}" for t, c in spread.items()))
    print(f"medians over {args.rounds} rounds (ms: lower is better; per second: higher is better)")
    print_table(results)
    print(f"load average at the end: {load()}")
    return int(any(isinstance(v, str) for rs in results.values() for r in rs for v in r.values()))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.citus_vs_plain", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 round by default")
    parser.add_argument("--threads", default="16,64", help="graph threads at once, comma-separated")
    parser.add_argument("--waves", type=int, default=3, help="timed waves per measurement")
    parser.add_argument("--recorded", type=int, default=20_000, help="actions recorded")
    parser.add_argument("--rec-threads", type=int, default=64, help="thread ids they spread over")
    parser.add_argument("--actions", type=int, default=100_000, help="populated schema's actions")
    args = parser.parse_args(argv)
    if args.quick:
        given = set(argv or sys.argv[1:])
        args.rounds = args.rounds if "--rounds" in given else 1
        args.threads = "2,4" if "--threads" not in given else args.threads
        args.waves, args.recorded, args.rec_threads, args.actions = 1, 200, 4, 2_000
    args.threads = [int(t) for t in str(args.threads).split(",")]
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m benchmarks.citus_vs_plain``; 1 when something failed."""
    args = parse_args(argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # progress shows when redirected to a file
    reason = missing_citus()
    if reason is not None:
        print(f"cannot start a Citus cluster: {reason}", file=sys.stderr)
        return 2
    cluster = CitusCluster()
    try:
        plain = PrivatePostgres(SETTINGS)
        try:
            return run(cluster, plain, args)
        finally:
            plain.close()
    finally:
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
