"""Where a superstep's time goes: Python (ours, LangGraph's), the server's statements, WAL flush.

Run from the repository root::

    # the workload alone (bench_saver scenario a: a chain of 30 trivial nodes on ActionSaver,
    # durability="sync", fresh threads), under py-spy for the flame graph
    py-spy record --idle --threads --full-filenames -r 200 -o benchmarks/profile_superstep.svg -- \\
        python -m benchmarks.profile_superstep run --seconds 20
    # the same as py-spy's collapsed stacks, then their shares by package and waits
    py-spy record --idle --threads --full-filenames -r 200 -f raw -o stacks.txt -- \\
        python -m benchmarks.profile_superstep run --seconds 20
    python -m benchmarks.profile_superstep shares stacks.txt
    # the time split, measured: rounds that visit every variant in turn
    python -m benchmarks.profile_superstep breakdown

``breakdown`` times the same chain per superstep (median over ``--repeat`` rounds) with
InMemorySaver (LangGraph's own cost, nothing stored), with ActionSaver, and with ActionSaver on a
scratch database set to ``synchronous_commit = off`` (only there, for this measurement: the
difference is the wait for the WAL flush). It then runs the chain once more on a database with
``log_min_duration_statement = 0`` and sums the durations the server logged (parse, bind and
execute of every statement, i.e. the server's own time per statement, without the network or
the client) from the embedded server's log file (``--server-log``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
from langgraph.checkpoint.memory import InMemorySaver
from psycopg import sql
from rich.console import Console
from rich.table import Table

from benchmarks.bench_saver import CHAIN_NODES, build_chain, gc_paused, thread_config
from benchmarks.savers import DEFAULT_PG_PATH, BenchEnv, scratch_database, start_embedded_server

console = Console(width=None if sys.stdout.isatty() else 160)
SCHEMA = "prof"
_ids = iter(range(10**12))


def chain_per_superstep(graph: Any, invokes: int) -> float:
    """Seconds per superstep of ``invokes`` runs of the chain on fresh threads."""
    with gc_paused():
        t0 = time.perf_counter()
        for _ in range(invokes):
            graph.invoke({"x": 0}, thread_config(f"p-{next(_ids)}"), durability="sync")
        return (time.perf_counter() - t0) / (invokes * CHAIN_NODES)


def run(dsn: str, seconds: float) -> None:
    """The workload to profile: the chain on ActionSaver for ``seconds`` (after a warm-up)."""
    from langgraph_actionckpt import ActionSaver

    env = BenchEnv(dsn=dsn)
    with (
        scratch_database(env) as db,
        ActionSaver.from_conn_string(db, schema=SCHEMA) as saver,
    ):
        saver.setup()
        graph = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=saver)
        chain_per_superstep(graph, 5)
        n = workload(graph, seconds)
    console.print(f"ran {n} invokes ({n * CHAIN_NODES} supersteps)")


def workload(graph: Any, seconds: float) -> int:
    """Invoke the chain on fresh threads for ``seconds`` (``shares`` keeps this frame's samples)."""
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        graph.invoke({"x": 0}, thread_config(f"p-{next(_ids)}"), durability="sync")
        n += 1
    return n


# --------------------------------------------------------------------------------------------
# shares of py-spy's collapsed stacks
# --------------------------------------------------------------------------------------------

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")
# py-spy --full-filenames: the file's whole path
CATEGORIES = (
    ("ours (langgraph_actionckpt)", "/langgraph_actionckpt/"),
    ("psycopg's Python", "/psycopg"),
    ("LangGraph (langgraph, langchain_core)", "/langgraph/"),
    ("LangGraph (langgraph, langchain_core)", "/langchain_core/"),
)
WAIT_SERVER = "waiting on the server (socket: round trip, statement, WAL flush)"
WAIT_THREAD = "waiting on another thread (lock, queue, event)"
# leaf frames that block: psycopg's socket wait; threading/queue waits
SERVER_WAITS = ("Connection.wait ", "BaseConnection.wait ", "wait_c ", "wait_select ")
THREAD_WAITS = ("Condition.wait ", "Event.wait ", "Lock.acquire", "Queue.get ", "_worker ")


def classify(stack: list[str]) -> tuple[str, bool]:
    """(category of a sample, whether any frame is ours): a blocking leaf is a wait, else
    the innermost frame of a known package names it."""
    files = []
    for frame in stack:
        m = FRAME.match(frame)
        files.append(m.group("file") if m else "")
    inside_ours = any("/langgraph_actionckpt/" in f for f in files)
    leaf = stack[-1] if stack else ""
    if leaf.startswith(SERVER_WAITS):
        return WAIT_SERVER, inside_ours
    if leaf.startswith(THREAD_WAITS):
        return WAIT_THREAD, inside_ours
    for f in reversed(files):
        for name, marker in CATEGORIES:
            if marker in f:
                return name, inside_ours
    return "other Python (stdlib, the benchmark's loop)", inside_ours


def shares(path: Path) -> dict[str, Any]:
    """Shares of a py-spy ``--format raw --idle --threads`` file: the main thread's samples
    (wall time) and the other threads' samples that do not wait on a thread (their work)."""
    main: Counter[str] = Counter()
    main_ours: Counter[str] = Counter()
    other: Counter[str] = Counter()
    skipped = 0
    for line in path.read_text().splitlines():
        stack_text, _, count_text = line.rpartition(" ")
        if not stack_text or not count_text.isdigit():
            continue
        count = int(count_text)
        parts = stack_text.split(";")
        thread = parts[0] if parts[0].startswith("thread ") else ""
        frames = [f for f in parts if not f.startswith(("process ", "thread "))]
        is_main = "MainThread" in thread or (bool(frames) and "_run_module_as_main" in frames[0])
        if is_main and not any(f.startswith("workload ") for f in frames):
            skipped += count  # the main thread outside the profiled loop: imports, setup
            continue
        cat, inside = classify(frames)
        if is_main:
            main[cat] += count
            if inside:
                main_ours[cat] += count
        elif cat != WAIT_THREAD:  # idle pool and timer threads wait all the time
            other[cat] += count
    total = sum(main.values())
    table = Table(
        title=f"{path}: main thread, {total:,} samples in the loop ({skipped:,} outside it "
        "left out); other threads: their samples not waiting on a thread",
        title_justify="left",
    )
    for col in ("category", "main thread", "of which under our frames", "other threads"):
        table.add_column(col)
    for cat in sorted(set(main) | set(other), key=lambda c: -main[c]):
        table.add_row(
            cat,
            f"{main[cat] / total:.1%}",
            f"{main_ours[cat] / total:.1%}",
            f"{other[cat] / total:.1%}" if other[cat] else "",
        )
    inclusive = sum(main_ours.values())
    table.add_row("[bold]main thread under a langgraph_actionckpt frame[/bold]", "", "")
    table.add_row("", f"{inclusive / total:.1%}", "", "")
    console.print(table)
    console.print("(other threads' column: share of the main thread's sample count)")
    return {"main": dict(main), "main_under_ours": dict(main_ours), "other": dict(other)}


# --------------------------------------------------------------------------------------------
# breakdown
# --------------------------------------------------------------------------------------------

DURATION = re.compile(r"duration: (?P<ms>[0-9.]+) ms\s+(?P<what>\w+)")


def breakdown(dsn: str, server_log: Path | None, repeat: int, invokes: int) -> None:
    from langgraph_actionckpt import ActionSaver

    env = BenchEnv(dsn=dsn)
    with (
        scratch_database(env) as db_on,
        scratch_database(env) as db_off,
        psycopg.connect(dsn, autocommit=True) as admin,
    ):
        # only on this scratch database, only for this measurement
        admin.execute(
            sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(
                sql.Identifier(psycopg.conninfo.conninfo_to_dict(db_off)["dbname"])
            )
        )
        with (
            ActionSaver.from_conn_string(db_on, schema=SCHEMA) as s_on,
            ActionSaver.from_conn_string(db_off, schema=SCHEMA) as s_off,
        ):
            s_on.setup()
            s_off.setup()
            graphs = {
                "InMemorySaver (LangGraph alone)": InMemorySaver(),
                "ActionSaver": s_on,
                "ActionSaver, synchronous_commit=off": s_off,
            }
            compiled = {
                k: build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=v)
                for k, v in graphs.items()
            }
            samples: dict[str, list[float]] = {k: [] for k in compiled}
            for g in compiled.values():
                chain_per_superstep(g, 5)  # warm-up
            for _ in range(repeat):
                for k, g in compiled.items():
                    samples[k].append(chain_per_superstep(g, invokes))
    med = {k: statistics.median(v) for k, v in samples.items()}
    server = server_time(env, server_log, invokes * 3) if server_log else None
    table = Table(title=f"per superstep, chain of {CHAIN_NODES} nodes, durability=sync")
    for col in ("what", "median", "min..max"):
        table.add_column(col)
    for k, v in samples.items():
        table.add_row(k, f"{med[k] * 1e3:.3f} ms", f"{min(v) * 1e3:.3f}..{max(v) * 1e3:.3f} ms")
    ours = med["ActionSaver"]
    lg = med["InMemorySaver (LangGraph alone)"]
    flush = ours - med["ActionSaver, synchronous_commit=off"]
    table.add_section()
    table.add_row("LangGraph's own share", f"{lg * 1e3:.3f} ms", f"{lg / ours:.0%} of ActionSaver")
    table.add_row("WAL flush wait (on - off)", f"{flush * 1e3:.3f} ms", f"{flush / ours:.0%}")
    if server is not None:
        per_step, per_stmt = server
        table.add_row(
            "server time of the statements (logged)",
            f"{per_step * 1e3:.3f} ms",
            f"{per_step / ours:.0%}; {per_stmt:.1f} statements per superstep",
        )
        rest = ours - lg - flush - per_step
        table.add_row(
            "rest: the saver's Python, driver, round trips",
            f"{rest * 1e3:.3f} ms",
            f"{rest / ours:.0%}",
        )
    console.print(table)


def server_time(env: BenchEnv, log: Path, invokes: int) -> tuple[float, float] | None:
    """(server seconds per superstep, statements per superstep) from the server's log."""
    from langgraph_actionckpt import ActionSaver

    if not log.is_file():
        console.print(f"[yellow]no server log at {log}: server time not measured[/yellow]")
        return None
    with scratch_database(env) as db, psycopg.connect(env.dsn, autocommit=True) as admin:
        name = psycopg.conninfo.conninfo_to_dict(db)["dbname"]
        with ActionSaver.from_conn_string(db, schema=SCHEMA) as saver:
            saver.setup()
            graph = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=saver)
            chain_per_superstep(graph, 5)
        # new connections of this database log every statement's duration
        admin.execute(
            sql.SQL("ALTER DATABASE {} SET log_min_duration_statement = 0").format(
                sql.Identifier(str(name))
            )
        )
        with ActionSaver.from_conn_string(db, schema=SCHEMA) as saver:
            graph = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=saver)
            chain_per_superstep(graph, 5)  # warm-up: prepare on the new connections
            start = log.stat().st_size
            chain_per_superstep(graph, invokes)
            time.sleep(0.5)
            end = log.stat().st_size
    with log.open("rb") as f:
        f.seek(start)
        text = f.read(end - start).decode(errors="replace")
    total_ms = 0.0
    executes = 0
    for m in DURATION.finditer(text):
        total_ms += float(m.group("ms"))
        executes += m.group("what") in ("execute", "statement")
    steps = invokes * CHAIN_NODES
    return total_ms / 1e3 / steps, executes / steps


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.profile_superstep",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("mode", choices=("run", "shares", "breakdown"))
    p.add_argument("file", nargs="?", help="shares: a py-spy --format raw file")
    p.add_argument("--dsn", help="PostgreSQL admin DSN (default: start the embedded server)")
    p.add_argument("--pg-path", default=str(DEFAULT_PG_PATH), help="embedded server data dir")
    p.add_argument("--server-log", help="server log file (default: <pg-path>/log if embedded)")
    p.add_argument("--seconds", type=float, default=20.0, help="run: how long")
    p.add_argument("--repeat", type=int, default=7, help="breakdown: rounds")
    p.add_argument("--invokes", type=int, default=5, help="breakdown: chain invokes per sample")
    args = p.parse_args(argv)
    if args.mode == "shares":
        shares(Path(args.file))
        return 0
    pg_path = Path(args.pg_path).expanduser()
    dsn = args.dsn or start_embedded_server(pg_path)
    if args.mode == "run":
        run(dsn, args.seconds)
        return 0
    log = Path(args.server_log) if args.server_log else (None if args.dsn else pg_path / "log")
    breakdown(dsn, log, args.repeat, args.invokes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
