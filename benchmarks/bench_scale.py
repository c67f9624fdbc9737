"""Flat growth: what a superstep, a ``get_tuple`` and recording an action cost as the data grows.

Run from the repository root::

    python -m benchmarks.bench_scale --quick                 # < 1 min, small sizes
    python -m benchmarks.bench_scale --out benchmarks        # full, ~30 min (see below)
    python -m benchmarks.bench_scale --dsn postgresql://postgres@127.0.0.1:5432/test

Two curves, each drawn into a PNG under ``--out`` with the numbers in ``scale.json``:

1. Thread length (``thread_length.png``). One looping node (constant-size state: a counter)
   runs on ``ActionSaver`` until each thread holds 10, 100, ... checkpoints, all written by the
   real saver's ``put`` (``durability="async"`` while building). Then, in rounds that visit
   every length in turn: the cost per superstep of 20 more supersteps with
   ``durability="sync"`` on that thread, and the latency of ``get_tuple`` (latest, the median
   of 20 calls). Lengths up to 1,000 get one thread per repetition, so the measured supersteps
   do not lengthen the short threads; the longer ones grow by < 3 %.
2. Table size (``table_size.png``). One schema per size, in one database. In each, a template
   thread is written by the real saver (a looping graph of 100 checkpoints plus 900 tool-call
   actions through ``ActionCallbackHandler``: 1,000 action rows), then its rows in every table
   are copied on the server (``INSERT ... SELECT`` over ``generate_series``) under new thread ids,
   up to 10, 100, 1,000 and 10,000 threads: the largest schema holds 1,000,000 checkpoints and
   10,000,000 action rows. After ``ANALYZE`` (what autovacuum would do), in rounds that visit
   every schema in turn, on fresh threads: the per-superstep cost of the 30-node chain of
   ``bench_saver`` scenario a (``durability="sync"``, each invoke timed alone, the median kept),
   ``get_tuple`` on that thread, and recording 2,000 tool-call actions (sustained actions/s
   until the writer flushed, and the caller-path median per action).

Every sample is a median of single calls where it can be (get_tuple, chain invokes), and the
sizes take turns in shuffled order in each round, so that a burst of load on a shared machine
spoils single calls or one round, not one size.

"Flat" (issue #14 e): the largest over the smallest median of each curve is at most 1.3x. The
exit status is 1 when a curve is above it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import psycopg
from langgraph.graph import END, START, StateGraph
from psycopg import sql
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from benchmarks.bench_saver import CHAIN_NODES, build_chain, gc_paused, thread_config
from benchmarks.savers import (
    BenchEnv,
    redact_dsn,
    scratch_database,
    server_dsn,
    server_parser,
)

console = Console(width=None if sys.stdout.isatty() else 160)
FLAT_TARGET = 1.3
SEGMENT = 20  # supersteps per timed sample on a long thread
TEMPLATE_CKPT = 100  # checkpoints of the template thread (its looping graph)
TEMPLATE_ACTIONS = 1000  # its action rows: one per superstep (node) + tool calls
SEED = 14


@dataclass(frozen=True)
class Sizes:
    lengths: tuple[int, ...]  # checkpoints per thread
    threads: tuple[int, ...]  # copies of the template thread (x 100 checkpoints, x 1,000 actions)
    repeat: int
    gets: int  # get_tuple calls per sample
    chain_invokes: int  # 30-node chain invokes per sample
    record: int  # actions recorded per sample

    @classmethod
    def full(cls, repeat: int | None) -> Sizes:
        return cls(
            (10, 100, 1_000, 10_000, 100_000), (10, 100, 1_000, 10_000), repeat or 11, 20, 3, 2000
        )

    @classmethod
    def quick(cls, repeat: int | None) -> Sizes:
        return cls((10, 100, 500), (1, 10, 50), repeat or 3, 10, 1, 300)


@dataclass
class Curve:
    name: str
    unit: str  # "s" or "1/s"
    x: list[int] = field(default_factory=list)
    samples: list[list[float]] = field(default_factory=list)

    @property
    def medians(self) -> list[float]:
        return [statistics.median(s) for s in self.samples]

    @property
    def ratio(self) -> float:
        """Largest over smallest median (for a rate too: the best over the worst point)."""
        m = self.medians
        return max(m) / min(m) if m and min(m) > 0 else float("nan")

    @property
    def min_ratio(self) -> float:
        """Largest over smallest of each point's least disturbed sample (the fastest: the
        smallest time, the highest rate)."""
        m = [max(s) if self.unit == "1/s" else min(s) for s in self.samples]
        return max(m) / min(m) if m and min(m) > 0 else float("nan")


# --------------------------------------------------------------------------------------------
# Graphs and recording
# --------------------------------------------------------------------------------------------


class LoopState(TypedDict):
    x: int
    target: int


def _step(state: LoopState) -> dict[str, int]:
    return {"x": state["x"] + 1}


def _route(state: LoopState) -> str:
    return "step" if state["x"] < state["target"] else END


def build_loop() -> StateGraph[LoopState]:
    """One node looping on itself until ``x`` reaches ``target``: one checkpoint per superstep,
    a state of constant size."""
    builder: StateGraph[LoopState] = StateGraph(LoopState)
    builder.add_node("step", _step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", _route, ["step", END])
    return builder


def loop_to(graph: Any, thread_id: str, checkpoints: int, durability: str) -> None:
    """Run the loop on a fresh thread until it holds ``checkpoints`` checkpoints (the input's,
    the START step's and one per superstep)."""
    config = thread_config(thread_id, recursion_limit=10**7)
    graph.invoke({"x": 0, "target": checkpoints - 2}, config, durability=durability)


def count_hint(graph: Any, thread_id: str) -> int:
    return sum(1 for _ in graph.checkpointer.list({"configurable": {"thread_id": thread_id}}))


def record_actions(saver: Any, thread_id: str, n: int, batch: int = 100) -> tuple[float, float]:
    """Record ``n`` tool calls (~300 B in, ~300 B out) through the handler on ``thread_id``.

    Returns (actions/s until the writer flushed, caller-path median seconds per action).
    """
    from langgraph_actionckpt import ActionCallbackHandler

    handler = ActionCallbackHandler(saver)
    meta = {
        "thread_id": thread_id,
        "langgraph_node": "tools",
        "langgraph_step": 3,
        "langgraph_checkpoint_ns": "tools:00000000-0000-0000-0000-000000000001",
    }
    query = "q " * 150
    answer = "a " * 150
    per_action: list[float] = []
    with gc_paused():
        t_start = time.perf_counter()
        for i in range(0, n, batch):
            t0 = time.perf_counter()
            for _ in range(min(batch, n - i)):
                rid = uuid.uuid4()
                handler.on_tool_start(
                    {"name": "search"},
                    query,
                    run_id=rid,
                    parent_run_id=None,
                    metadata=meta,
                    inputs={"query": query},
                    tool_call_id=f"call_{rid.hex[:8]}",
                )
                handler.on_tool_end(answer, run_id=rid)
            per_action.append((time.perf_counter() - t0) / min(batch, n - i))
        saver.writer.flush()
        elapsed = time.perf_counter() - t_start
    return n / elapsed, statistics.median(per_action)


def progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def call_median(fn: Callable[[], object], calls: int) -> float:
    """The median time of ``calls`` calls, each timed alone (a burst of load on the shared
    machine then spoils single calls, not the sample)."""
    times = []
    with gc_paused():
        for _ in range(calls):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


# --------------------------------------------------------------------------------------------
# Curve 1: thread length
# --------------------------------------------------------------------------------------------


def thread_length(db: str, sizes: Sizes) -> tuple[Curve, Curve, dict[str, float]]:
    from langgraph_actionckpt import ActionSaver

    step_curve = Curve("per superstep vs thread length", "s")
    get_curve = Curve("get_tuple (latest) vs thread length", "s")
    build: dict[str, float] = {}
    shuffle = random.Random(SEED)
    with ActionSaver.from_conn_string(db, schema="scale_len") as saver:
        saver.setup()
        graph = build_loop().compile(checkpointer=saver)
        # short threads: one per repetition (+ warm-up), so timed supersteps do not lengthen them
        threads = {
            n: [f"len{n}-{r}" for r in range(sizes.repeat + 1 if n <= 1000 else 1)]
            for n in sizes.lengths
        }
        total = sum(n * len(ts) for n, ts in threads.items())
        with progress() as bar:
            task = bar.add_task("thread length: building threads (real puts)", total=total)
            for n, ts in threads.items():
                t0 = time.perf_counter()
                for t in ts:
                    loop_to(graph, t, n, "async")
                    bar.advance(task, n)
                build[str(n)] = (time.perf_counter() - t0) / (n * len(ts))
        for n, ts in threads.items():
            got = count_hint(graph, ts[0])
            assert got == n, f"thread {ts[0]}: {got} checkpoints, expected {n}"
            step_curve.x.append(n)
            get_curve.x.append(n)
            step_curve.samples.append([])
            get_curve.samples.append([])

        def segment(thread_id: str) -> float:
            config = thread_config(thread_id, recursion_limit=10**7)
            x = graph.get_state(config).values["x"]
            with gc_paused():
                t0 = time.perf_counter()
                graph.invoke({"target": x + SEGMENT}, config, durability="sync")
                return (time.perf_counter() - t0) / (SEGMENT + 2)

        for ts in threads.values():  # warm-up: plans prepared, caches hot
            segment(ts[-1])
            saver.get_tuple({"configurable": {"thread_id": ts[-1], "checkpoint_ns": ""}})
        with progress() as bar:
            task = bar.add_task("thread length: measuring", total=sizes.repeat * len(threads))
            order = list(enumerate(threads.values()))
            for r in range(sizes.repeat):
                shuffle.shuffle(order)  # no length always first or last in a round
                for i, ts in order:
                    # get_tuple first: on a short thread, before this round's supersteps
                    query = {"configurable": {"thread_id": ts[r % len(ts)], "checkpoint_ns": ""}}
                    get_curve.samples[i].append(
                        call_median(lambda q=query: saver.get_tuple(q), sizes.gets)  # type: ignore[misc]
                    )
                    step_curve.samples[i].append(segment(ts[r % len(ts)]))
                    bar.advance(task)
    return step_curve, get_curve, build


# --------------------------------------------------------------------------------------------
# Curve 2: table size
# --------------------------------------------------------------------------------------------

COLUMNS_SQL = """
SELECT c.table_name, c.column_name
FROM information_schema.columns c
WHERE c.table_schema = %s AND c.is_identity = 'NO' AND c.is_generated = 'NEVER'
  AND c.table_name IN (SELECT table_name FROM information_schema.columns
                       WHERE table_schema = %s AND column_name = 'thread_id')
ORDER BY c.table_name, c.ordinal_position
"""


def copy_statements(conn: psycopg.Connection[Any], schema: str) -> list[sql.Composed]:
    """One ``INSERT ... SELECT`` per per-thread table: the template's rows under thread ids
    ``fill-<g>`` for g in [%(lo)s, %(hi)s) (identity columns regenerated)."""
    columns: dict[str, list[str]] = {}
    for table, column in conn.execute(COLUMNS_SQL, (schema, schema)).fetchall():
        columns.setdefault(table, []).append(column)
    out = []
    for table, cols in columns.items():
        select = [
            sql.SQL("'fill-' || g") if c == "thread_id" else sql.Identifier("t", c) for c in cols
        ]
        out.append(
            sql.SQL(
                "INSERT INTO {tbl} ({cols}) SELECT {sel} FROM {tbl} AS t "
                "CROSS JOIN generate_series(%(lo)s::int, %(hi)s::int - 1) AS g "
                "WHERE t.thread_id = 'template'"
            ).format(
                tbl=sql.Identifier(schema, table),
                cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
                sel=sql.SQL(", ").join(select),
            )
        )
    return out


def table_counts(conn: psycopg.Connection[Any], schema: str) -> dict[str, int]:
    """Exact row counts of the checkpoint and action tables."""
    out = {}
    for table in ("checkpoints", "actions"):
        row = conn.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, table))
        ).fetchone()
        out[table] = int(row[0]) if row else 0
    return out


def table_size(db: str, sizes: Sizes) -> tuple[list[Curve], dict[str, Any]]:
    """One schema per table size, all filled first, then measured in shuffled rounds."""
    from langgraph_actionckpt import ActionSaver

    curves = [
        Curve("per superstep (30-node chain) vs table size", "s"),
        Curve("get_tuple (latest) vs table size", "s"),
        Curve("recording: actions/s vs table size", "1/s"),
        Curve("recording: caller path per action vs table size", "s"),
    ]
    info: dict[str, Any] = {"points": []}
    shuffle = random.Random(SEED)
    schemas = {n: f"scale_t{n}" for n in sizes.threads}
    with ExitStack() as stack, psycopg.connect(db, autocommit=True) as admin:
        savers = {}
        for n, schema in schemas.items():
            saver = stack.enter_context(ActionSaver.from_conn_string(db, schema=schema))
            saver.setup()
            # the template thread, written by the real saver: 100 checkpoints, 1,000 actions
            loop_to(build_loop().compile(checkpointer=saver), "template", TEMPLATE_CKPT, "sync")
            record_actions(saver, "template", TEMPLATE_ACTIONS - (TEMPLATE_CKPT - 2))
            info.setdefault("template", table_counts(admin, schema))
            savers[n] = saver
        chunk = 500  # threads per transaction (550,000 rows)
        with progress() as bar:
            fill = bar.add_task("table size: filling (INSERT ... SELECT)", total=sum(schemas))
            for n, schema in schemas.items():
                t0 = time.perf_counter()
                copies = copy_statements(admin, schema)
                bar.advance(fill, 1)  # the template counts as one thread
                for lo in range(1, n, chunk):
                    hi = min(n, lo + chunk)
                    with admin.transaction():
                        for stmt in copies:
                            admin.execute(stmt, {"lo": lo, "hi": hi})
                    bar.advance(fill, hi - lo)
                for table in ("checkpoints", "actions", "writes"):  # what autovacuum would do
                    admin.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(schema, table)))
                counts = table_counts(admin, schema)
                fill_s = time.perf_counter() - t0
                info["points"].append({"threads": n, "fill_s": fill_s, **counts})
                for c in curves:
                    c.x.append(counts["checkpoints"])
                    c.samples.append([])
        chains = {
            n: build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=s)
            for n, s in savers.items()
        }
        fresh = (f"m{i}" for i in range(10**9))

        def measure(n: int) -> tuple[float, float, float, float]:
            graph, saver, thread = chains[n], savers[n], next(fresh)
            invokes = []
            for i in range(sizes.chain_invokes):  # each invoke timed alone, the median kept
                config = thread_config(f"{thread}-{i}")
                invokes.append(
                    call_median(lambda c=config: graph.invoke({"x": 0}, c, durability="sync"), 1)
                )  # type: ignore[misc]
            step = statistics.median(invokes) / CHAIN_NODES
            q = {"configurable": {"thread_id": f"{thread}-0", "checkpoint_ns": ""}}
            get = call_median(lambda: saver.get_tuple(q), sizes.gets)
            rate, caller = record_actions(saver, f"{thread}-rec", sizes.record)
            return step, get, rate, caller

        order = list(enumerate(schemas))
        for _ in range(2):  # warm-up: statements prepared on every connection, caches hot
            for _i, n in order:
                measure(n)
        with progress() as bar:
            task = bar.add_task("table size: measuring", total=len(order) * sizes.repeat)
            for _ in range(sizes.repeat):
                shuffle.shuffle(order)  # no size always first or last in a round
                for i, n in order:
                    for c, v in zip(curves, measure(n), strict=True):
                        c.samples[i].append(v)
                    bar.advance(task)
        info["final"] = {n: table_counts(admin, s) for n, s in schemas.items()}
    return curves, info


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def fmt(value: float, unit: str) -> str:
    if unit == "1/s":
        return f"{value:,.0f}/s"
    return f"{value * 1e3:.3f} ms" if value >= 1e-3 else f"{value * 1e6:.1f} us"


def print_curve(curve: Curve, xlabel: str) -> None:
    table = Table(title=curve.name, title_justify="left")
    table.add_column(xlabel, justify="right")
    table.add_column("median", justify="right")
    table.add_column("min..max", justify="right")
    for x, s in zip(curve.x, curve.samples, strict=True):
        spread = f"{fmt(min(s), curve.unit)}..{fmt(max(s), curve.unit)}"
        table.add_row(f"{x:,}", fmt(statistics.median(s), curve.unit), spread)
    console.print(table)
    verdict = "flat" if curve.ratio <= FLAT_TARGET else "NOT FLAT"
    console.print(
        f"  largest / smallest median: {curve.ratio:.2f}x ({verdict}); "
        f"of the fastest samples: {curve.min_ratio:.2f}x"
    )


def plot(curves: Sequence[Curve], xlabel: str, title: str, path: Path) -> None:
    """One panel per curve (two per row): medians with min..max bars and
    the 1.3x band over the best point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullFormatter

    cols = 2
    rows = (len(curves) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(11, 4.0 * rows), squeeze=False)
    for ax, c in zip(axes.flat, curves, strict=False):
        if c.unit == "1/s":
            scale, unit = 1.0, "actions/s (higher is better)"
        elif max(c.medians) < 1e-3:
            scale, unit = 1e6, "us"
        else:
            scale, unit = 1e3, "ms"
        med = [m * scale for m in c.medians]
        lo = [med[i] - min(s) * scale for i, s in enumerate(c.samples)]
        hi = [max(s) * scale - med[i] for i, s in enumerate(c.samples)]
        ax.errorbar(
            c.x, med, yerr=[lo, hi], marker="o", capsize=3, label="ActionSaver: median, min..max"
        )
        band = min(med) * FLAT_TARGET if c.unit != "1/s" else max(med) / FLAT_TARGET
        ax.axhline(band, color="red", linewidth=0.8, linestyle=":", label="1.3x the best median")
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(bottom=0, top=max(m + h for m, h in zip(med, hi, strict=True)) * 1.15)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(unit)
        ratio = f"largest/smallest: median {c.ratio:.2f}x, fastest sample {c.min_ratio:.2f}x"
        ax.set_title(f"{c.name}\n{ratio}", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    for ax in list(axes.flat)[len(curves) :]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_all(result: dict[str, Any], out: Path) -> list[Curve]:
    """Draw the PNGs of a result (as ``scale.json`` holds it); return its curves."""
    fields = ("name", "unit", "x", "samples")
    curves = [Curve(**{k: c[k] for k in fields}) for c in result["curves"]]
    by_name = {c.name: c for c in curves}
    length = [c for n, c in by_name.items() if n.endswith("thread length")]
    table = [c for n, c in by_name.items() if n.endswith("table size")]
    if length:
        plot(
            length,
            "checkpoints in the thread",
            "ActionSaver, threads grown by the real saver's puts (a looping graph)",
            out / "thread_length.png",
        )
    if table:
        last = result["table_size"]["points"][-1]
        plot(
            table,
            "checkpoints in the tables (action rows: 10x)",
            f"ActionSaver on fresh threads while the tables grow to {last['checkpoints']:,} "
            f"checkpoints and {last['actions']:,} action rows (bulk-copied threads)",
            out / "table_size.png",
        )
    return curves


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = server_parser("benchmarks.bench_scale", __doc__)
    p.add_argument("--quick", action="store_true", help="small sizes (< 1 min)")
    p.add_argument("--repeat", type=int, help="samples per point (default 11, quick 3)")
    p.add_argument("--out", default=".", help="directory for the PNGs and scale.json")
    p.add_argument(
        "--only",
        choices=("length", "table"),
        help="run one curve only (its numbers go to scale-length.json / scale-table.json)",
    )
    p.add_argument("--keep-databases", action="store_true", help="do not drop the scratch db")
    p.add_argument(
        "--replot", metavar="JSON", nargs="+", help="only redraw the PNGs of scale*.json files"
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = Sizes.quick(args.repeat) if args.quick else Sizes.full(args.repeat)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"sizes": asdict(sizes), "quick": args.quick, "curves": []}
    if not args.replot:
        dsn = server_dsn(args)
        env = BenchEnv(dsn=dsn, keep_databases=args.keep_databases)
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute("SHOW server_version").fetchone()
        result["server"] = row[0] if row else None
        console.print(f"server: PostgreSQL {result['server']}  dsn: {redact_dsn(dsn)}")
    all_curves: list[Curve] = []
    t_all = time.perf_counter()
    if args.replot:
        for name in args.replot:  # e.g. one file per curve from two --only runs
            part = json.loads(Path(name).read_text())
            result["curves"] += part.pop("curves")
            result.update(part)
        all_curves = plot_all(result, out)
        console.print(f"redrew the PNGs of {', '.join(args.replot)} into {out}")
    else:
        if args.only in (None, "length"):
            with scratch_database(env) as db:
                step, get, build = thread_length(db, sizes)
            result["thread_length_build_s_per_superstep"] = build
            all_curves += [step, get]
        if args.only in (None, "table"):
            with scratch_database(env) as db:
                curves, info = table_size(db, sizes)
            result["table_size"] = info
            all_curves += curves
        result["curves"] = [
            asdict(c)
            | {
                "medians": c.medians,
                "ratio": c.ratio,
                "min_ratio": c.min_ratio,
            }
            for c in all_curves
        ]
        result["elapsed_s"] = time.perf_counter() - t_all
        json_path = out / (f"scale-{args.only}.json" if args.only else "scale.json")
        json_path.write_text(json.dumps(result, indent=2))
        plot_all(result, out)
        console.print(f"wrote {json_path} and the PNGs ({result['elapsed_s']:.0f} s)")
    for c in all_curves:
        label = "checkpoints in the " + ("thread" if c.name.endswith("length") else "tables")
        print_curve(c, label)
    bad = [c.name for c in all_curves if not c.ratio <= FLAT_TARGET]
    for name in bad:
        console.print(f"[red]not flat (> {FLAT_TARGET}x): {name}[/red]")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
