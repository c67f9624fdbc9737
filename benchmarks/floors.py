"""Issue #35's figures in one command: ours against same-rows floors, 64 threads, storage.

Run from the repository root::

    python -m benchmarks.floors --dsn postgresql://postgres@127.0.0.1:5432/test --rounds 3
    python -m benchmarks.floors --parts supersteps,recording --rounds 5

Parts (``--parts``, all by default), each printed with the load average when it ran:

* ``supersteps``: scenario a's chain of 30 trivial nodes on fresh threads, ours against the
  same-rows floor (``benchmarks.same_rows``) of its world, both durabilities, in ABBA rounds
  as ``floor_pairs`` times them (median of the per-round ratios; client and server CPU too).
  The floor's rows are read back from ours' own warm-up thread of the same pair, so it
  inserts the same bytes; its statement shape is the cheapest of ``same_rows.SHAPES``,
  measured first (per transaction, outside any graph, ``synchronous_commit`` off so that
  the WAL flush every shape waits for alike does not decide).
* ``recording``: ``bench_recorder``'s sync and async handler runs against the COPY floor
  of the same action rows (captured from a handler run) into an ``actions`` table with our
  indexes; one of each per round, the order rotating; actions/s over the floor's rows/s.
* ``threads``: ``bench_saver``'s scenario d (64 graphs at once, a 5-node chain):
  ``AsyncActionSaver`` over ``InMemorySaver (async)`` and over ``AsyncPostgresSaver``.
* ``storage``: 1,000 turns, each appending one ~1 KB ``HumanMessage`` to a list held by
  LangGraph's ``DeltaChannel`` (with ``_messages_delta_reducer``): bytes of ours over the
  official ``PostgresSaver``'s; and scenario b's ``operator.add`` and ``add_messages`` lists,
  ours over the raw appended bytes. Every final state read back equals InMemorySaver's.
* ``growth``: the thread-length curves of ``bench_scale`` (10 to 100,000 checkpoints per
  thread) from its JSON (``--scale-json``, the committed run by default): this part is not
  measured again here (the full curve takes minutes and gigabytes).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo
from rich.console import Console
from rich.table import Table

from benchmarks import same_rows
from benchmarks.bench_recorder import _bench_async, _calls, bench_sync
from benchmarks.bench_saver import (
    CHAIN_NODES,
    Durability,
    Report,
    Sizes,
    Variant,
    _run_appender,
    build_chain,
    make_payloads,
    scenario_d,
)
from benchmarks.floor_pairs import PAIRS, Sample, Side, measure_pair, open_side
from benchmarks.savers import (
    OUR_SCHEMA,
    SAVERS,
    BenchEnv,
    SaverHandle,
    open_action_saver,
    open_inmemory,
    open_postgres,
    scratch_database,
    server_dsn,
    server_parser,
)

console = Console(width=None if sys.stdout.isatty() else 160)
PARTS = ("supersteps", "recording", "threads", "storage", "growth")
FLOOR_SCHEMA = "floor_x"
TURNS = 1_000
TARGETS = {
    "superstep": 1.15,  # ours / same-rows floor, at most
    "recording": 0.6,  # ours / COPY floor, at least
    "inmemory": 0.6,  # 64 threads, ours / InMemorySaver, at least
    "peer": 2.0,  # 64 threads, ours / AsyncPostgresSaver, at least
    "delta": 0.8,  # DeltaChannel bytes, ours / official, at most
    "raw": 3.0,  # operator.add bytes, ours / raw, at most
    "growth": 1.3,  # largest / smallest, at most
}
SCALE_JSON = Path(__file__).resolve().parent / "scale.json"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


# --------------------------------------------------------------------------------------------
# Per superstep: ours / same-rows floor
# --------------------------------------------------------------------------------------------


def latest_thread(dsn: str) -> str:
    """The thread of ours' most recent checkpoint (the warm-up invoke's)."""
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            f"SELECT thread_id FROM {OUR_SCHEMA}.checkpoints ORDER BY created_at DESC LIMIT 1"
        ).fetchone()
    assert row is not None, "ours stored no checkpoint"
    return str(row[0])


async def supersteps(
    env: BenchEnv, rounds: int, invokes: int
) -> tuple[list[tuple[str, Durability, list[tuple[Sample, Sample]]]], dict[str, Any]]:
    """Each world's saver against its same-rows floor, both durabilities, ABBA rounds."""
    rows: list[tuple[str, Durability, list[tuple[Sample, Sample]]]] = []
    info: dict[str, Any] = {}
    shape: same_rows.Shape | None = None
    with ExitStack() as stack:
        async with AsyncExitStack() as astack:
            for world in ("sync", "async"):
                ours = await open_side(PAIRS[world][0], env, stack, astack)
                floor_dsn = stack.enter_context(scratch_database(env))
                conn = stack.enter_context(psycopg.Connection.connect(floor_dsn, autocommit=True))
                same_rows.create_floor_schema(conn, FLOOR_SCHEMA)
                aconn = await astack.enter_async_context(
                    await psycopg.AsyncConnection.connect(floor_dsn, autocommit=True)
                )
                floor_db = str(conn.info.dbname)
                for durability in ("sync", "async"):
                    await ours.run(1, durability)
                    ours_dsn = make_conninfo(env.dsn, dbname=ours.dbname)
                    with psycopg.Connection.connect(ours_dsn, autocommit=True) as oc:
                        steps = same_rows.capture_steps(oc, OUR_SCHEMA, latest_thread(ours_dsn))
                    prepared = same_rows.prepare(conn, FLOOR_SCHEMA, steps)
                    info[f"{world}/{durability}"] = {
                        "puts": len(steps),
                        "rows": {t: sum(len(s.rows[t]) for s in steps) for t in same_rows.TABLES},
                    }
                    if shape is None:
                        timings = same_rows.time_shapes(conn, prepared, rounds=5, threads=3)
                        info["shapes"] = [t.__dict__ for t in timings]
                        shape = min(timings, key=lambda t: t.wall_us).shape
                        _print_shapes(timings, shape)
                    saver: Any = (
                        same_rows.SameRowsFloorSaver(conn, prepared, shape)
                        if world == "sync"
                        else same_rows.AsyncSameRowsFloorSaver(aconn, prepared, shape)
                    )
                    graph = build_chain(CHAIN_NODES, is_async=world == "async").compile(
                        checkpointer=saver
                    )
                    floor = Side(f"same-rows floor ({shape})", graph, floor_db, world == "async")
                    console.print(f"  {ours.name} / {floor.name}, durability={durability}")
                    pairs = await measure_pair(ours, floor, durability, rounds, invokes)
                    rows.append((f"{ours.name} / same-rows floor", durability, pairs))
    return rows, info


def _print_shapes(timings: Sequence[same_rows.ShapeTiming], chosen: str) -> None:
    table = Table(
        title="one superstep's transaction, per statement shape (outside any graph, "
        "synchronous_commit off)"
    )
    for col in ("shape", "wall per transaction", "client CPU", ""):
        table.add_column(col)
    for t in timings:
        mark = "cheapest: the floor uses it" if t.shape == chosen else ""
        table.add_row(t.shape, f"{t.wall_us:.0f} us", f"{t.cpu_us:.0f} us", mark)
    console.print(table)


def _ratio(pairs: list[tuple[Sample, Sample]], key: Callable[[Sample], float]) -> float:
    ratios = [key(a) / key(b) for a, b in pairs if key(b) > 0]
    return statistics.median(ratios) if ratios else float("nan")


def print_supersteps(rows: list[tuple[str, Durability, list[tuple[Sample, Sample]]]]) -> list[str]:
    med = statistics.median
    table = Table(title=f"per superstep, ours / same-rows floor (<= {TARGETS['superstep']})")
    for col in ("pair", "durability", "ours", "floor", "ours / floor", "rounds min..max",
                "cpu ours / floor", "server ours / floor", "target"):  # fmt: skip
        table.add_column(col)
    verdicts = []
    for pair, durability, pairs in rows:
        ratio = _ratio(pairs, lambda s: s.wall)
        each = [a.wall / b.wall for a, b in pairs]
        ok = ratio <= TARGETS["superstep"]
        verdicts.append(f"per superstep {pair} durability={durability}: {ratio:.2f} {_met(ok)}")
        table.add_row(
            pair,
            durability,
            f"{med(a.wall for a, _ in pairs) * 1e3:.3f} ms",
            f"{med(b.wall for _, b in pairs) * 1e3:.3f} ms",
            f"{ratio:.2f}",
            f"{min(each):.2f}..{max(each):.2f}",
            f"{med(a.cpu for a, _ in pairs) * 1e3:.3f} / {med(b.cpu for _, b in pairs) * 1e3:.3f}"
            f" ms = {_ratio(pairs, lambda s: s.cpu):.2f}",
            f"{med(a.server for a, _ in pairs) * 1e3:.3f} / "
            f"{med(b.server for _, b in pairs) * 1e3:.3f} ms",
            _met(ok),
        )
    console.print(table)
    return verdicts


# --------------------------------------------------------------------------------------------
# Recording: ours / COPY floor of the same rows
# --------------------------------------------------------------------------------------------


def capture_recorded(dsn: str, n: int) -> tuple[same_rows.Columns, list[bytes]]:
    """The action rows the sync handler stores for ``bench_recorder``'s n tool calls."""
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    schema = f"floors_cap_{os.getpid()}"
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        same_rows.drop_schema(conn, schema)
        try:
            with ActionSaver.from_conn_string(dsn, schema=schema, replay=False) as saver:
                saver.setup()
                handler = ActionCallbackHandler(saver)
                for rid, args, kwargs, output in _calls(n):
                    handler.on_tool_start(*args, run_id=rid, **kwargs)
                    handler.on_tool_end(output, run_id=rid)
                saver.writer.flush()
            return same_rows.capture_actions(conn, schema)
        finally:
            same_rows.drop_schema(conn, schema)


def copy_floor_rate(dsn: str, columns: same_rows.Columns, lines: list[bytes]) -> float:
    """Rows/s of the COPY floor into a fresh schema with our tables and indexes."""
    schema = f"floors_rec_{os.getpid()}"
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        same_rows.drop_schema(conn, schema)
        same_rows.create_floor_schema(conn, schema)
        try:
            return len(lines) / same_rows.copy_floor(conn, schema, columns, lines)
        finally:
            same_rows.drop_schema(conn, schema)


def recording(dsn: str, n: int, rounds: int, batch: int) -> dict[str, list[float]]:
    columns, lines = capture_recorded(dsn, n)
    assert len(lines) == n, (len(lines), n)
    runs: dict[str, Callable[[], float]] = {
        "sync handler": lambda: bench_sync(dsn, n, batch)["throughput"],
        "async handler": lambda: asyncio.run(_bench_async(dsn, n, batch))["throughput"],
        "COPY floor": lambda: copy_floor_rate(dsn, columns, lines),
    }
    names = list(runs)
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            out[name].append(runs[name]())
    return out


def print_recording(got: dict[str, list[float]], n: int) -> list[str]:
    table = Table(title=f"recording {n:,} tool calls, ours / COPY floor of the same rows (>= 0.6)")
    for col in ("", "median", "min..max", "/ COPY floor (per round, median)", "target"):
        table.add_column(col)
    floor = got["COPY floor"]
    verdicts = []
    for name, rates in got.items():
        ratio = statistics.median(a / b for a, b in zip(rates, floor, strict=True))
        row = [name, f"{statistics.median(rates):,.0f}/s", f"{min(rates):,.0f}..{max(rates):,.0f}"]
        if name == "COPY floor":
            table.add_row(*row, "", "")
            continue
        ok = ratio >= TARGETS["recording"]
        verdicts.append(f"recording {name}: {ratio:.2f} of the COPY floor {_met(ok)}")
        table.add_row(*row, f"{ratio:.2f}", _met(ok))
    console.print(table)
    return verdicts


# --------------------------------------------------------------------------------------------
# 64 threads
# --------------------------------------------------------------------------------------------

THREAD_SAVERS = ("AsyncActionSaver", "AsyncPostgresSaver", "InMemorySaver (async)")


def threads(env: BenchEnv, rounds: int) -> Report:
    report = Report()
    scenario_d(env, [SAVERS[n] for n in THREAD_SAVERS], Sizes.full(rounds), report)
    report.compute_ratios()
    return report


def print_threads(report: Report) -> list[str]:
    if report.failures:  # a saver raised or read back a wrong state: no ratio to print
        raise SystemExit(f"scenario d failed: {report.failures}")
    table = Table(title="64 threads at once (supersteps/s, rounds interleaved)")
    for col in ("saver", "durability", "median", "x AsyncPostgresSaver", "/ InMemorySaver",
                "target"):  # fmt: skip
        table.add_column(col)
    verdicts = []
    for r in report.results:
        durability = r.metric.rsplit("=", 1)[-1]
        if r.saver != "AsyncActionSaver":
            table.add_row(r.saver, durability, f"{r.median:,.0f}/s", "", "", "")
            continue
        ok = (r.ratio or 0) >= TARGETS["peer"] and (r.ref_ratio or 0) >= TARGETS["inmemory"]
        verdicts.append(
            f"64 threads durability={durability}: {r.ratio:.2f}x AsyncPostgresSaver, "
            f"{r.ref_ratio:.2f} of InMemorySaver {_met(ok)}"
        )
        table.add_row(
            r.saver,
            durability,
            f"{r.median:,.0f}/s",
            f"{r.ratio:.2f}",
            f"{r.ref_ratio:.2f}",
            f">= {TARGETS['peer']}, >= {TARGETS['inmemory']}: {_met(ok)}",
        )
    console.print(table)
    return verdicts


# --------------------------------------------------------------------------------------------
# Storage at 1,000 turns
# --------------------------------------------------------------------------------------------


def run_delta(handle: SaverHandle, n: int, texts: Sequence[str]) -> dict[str, Any]:
    """n turns on a fresh thread (``durability="sync"``), read back through the saver."""
    return _run_appender(handle, "DeltaChannel", n, texts)[1]


def storage(env: BenchEnv, n: int) -> dict[str, Any]:
    payloads = make_payloads(n)
    raw = sum(len(p.encode()) for p in payloads)
    out: dict[str, Any] = {"turns": n, "raw": raw}
    with open_inmemory(env) as ref:
        reference = run_delta(ref, n, payloads)
    assert len(reference["messages"]) == n
    for name, opener in (("ours", open_action_saver), ("official", open_postgres)):
        with opener(env) as handle:
            state = run_delta(handle, n, payloads)
            out[f"delta {name}"] = handle.size_bytes()
        if state != reference:
            raise AssertionError(f"DeltaChannel, {name}: the state read back differs")
    variants: tuple[Variant, ...] = ("operator.add", "add_messages")
    for variant in variants:
        with open_inmemory(env) as ref:
            _, expected = _run_appender(ref, variant, n, payloads)
        with open_action_saver(env) as handle:
            _, state = _run_appender(handle, variant, n, payloads)
            out[f"{variant} ours"] = handle.size_bytes()
        if state != expected:
            raise AssertionError(f"{variant}, ours: the state read back differs")
    return out


def print_storage(got: dict[str, Any]) -> list[str]:
    raw = got["raw"]
    delta = got["delta ours"] / got["delta official"]
    add = got["operator.add ours"] / raw
    table = Table(
        title=f"storage after {got['turns']:,} turns (~1 KB appended a turn; raw {raw:,} B)"
    )
    for col in (
        "list",
        "ours",
        "official PostgresSaver",
        "ours / official",
        "ours / raw",
        "target",
    ):
        table.add_column(col)
    table.add_row(
        "DeltaChannel messages",
        f"{got['delta ours'] / 1e6:.2f} MB",
        f"{got['delta official'] / 1e6:.2f} MB",
        f"{delta:.2f}",
        f"{got['delta ours'] / raw:.2f}x",
        f"<= {TARGETS['delta']}: {_met(delta <= TARGETS['delta'])}",
    )
    table.add_row(
        "operator.add",
        f"{got['operator.add ours'] / 1e6:.2f} MB",
        "",
        "",
        f"{add:.2f}x",
        f"<= {TARGETS['raw']}x: {_met(add <= TARGETS['raw'])}",
    )
    table.add_row(
        "add_messages",
        f"{got['add_messages ours'] / 1e6:.2f} MB",
        "",
        "",
        f"{got['add_messages ours'] / raw:.2f}x",
        "",
    )
    console.print(table)
    return [
        f"storage DeltaChannel: ours / official {delta:.2f} {_met(delta <= TARGETS['delta'])}",
        f"storage operator.add: ours / raw {add:.2f} {_met(add <= TARGETS['raw'])}",
    ]


# --------------------------------------------------------------------------------------------
# Growth (bench_scale's run, read back)
# --------------------------------------------------------------------------------------------


def print_growth(path: Path) -> list[str]:
    from benchmarks.bench_scale import Curve

    data = json.loads(path.read_text())
    verdicts = []
    console.print(f"growth, from {path} (bench_scale; not measured in this run)")
    for c in data["curves"]:
        if not c["name"].endswith("thread length"):
            continue
        curve = Curve(c["name"], c["unit"], c["x"], c["samples"])
        ok = curve.ratio <= TARGETS["growth"]
        line = (
            f"growth {curve.name} ({curve.x[0]:,}..{curve.x[-1]:,} checkpoints): largest / "
            f"smallest median {curve.ratio:.2f}x (fastest samples {curve.min_ratio:.2f}x) "
            + _met(ok)
        )
        console.print(f"  {line}")
        verdicts.append(line)
    return verdicts


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


@contextmanager
def part(name: str) -> Iterator[None]:
    console.print(f"[bold]{name}[/bold] ({load()})")
    t0 = time.perf_counter()
    yield
    console.print(f"  {name}: {time.perf_counter() - t0:.0f} s, then {load()}")


def main(argv: Sequence[str] | None = None) -> int:
    p = server_parser("benchmarks.floors", __doc__)
    p.add_argument("--parts", default=",".join(PARTS), help="comma list of " + ",".join(PARTS))
    p.add_argument("--rounds", type=int, default=3, help="paired rounds (and scenario d waves)")
    p.add_argument("--invokes", type=int, default=10, help="chain invokes per superstep sample")
    p.add_argument("--actions", type=int, default=20_000, help="tool calls per recording run")
    p.add_argument("--turns", type=int, default=TURNS, help="turns of the storage part")
    p.add_argument("--scale-json", default=str(SCALE_JSON), help="bench_scale's JSON")
    p.add_argument("--json", dest="json_out", help="also write the results to this JSON file")
    args = p.parse_args(argv)
    parts = [s.strip() for s in args.parts.split(",") if s.strip()]
    env = BenchEnv(dsn=server_dsn(args))
    verdicts: list[str] = []
    result: dict[str, Any] = {"load_start": os.getloadavg()}
    console.print(f"benchmarks.floors, rounds={args.rounds} ({load()})")
    if "supersteps" in parts:
        with part("per superstep"):
            rows, info = asyncio.run(supersteps(env, args.rounds, args.invokes))
        verdicts += print_supersteps(rows)
        result["supersteps"] = {
            "info": info,
            "ratios": {f"{p} {d}": _ratio(s, lambda x: x.wall) for p, d, s in rows},
        }
    if "recording" in parts:
        # a database of its own: CREATE INDEX CONCURRENTLY in setup() waits for every
        # open transaction of its database, and the given one may be shared
        with part("recording"), scratch_database(env) as rec_dsn:
            rec = recording(rec_dsn, args.actions, args.rounds, batch=200)
        verdicts += print_recording(rec, args.actions)
        result["recording"] = rec
    if "threads" in parts:
        with part("64 threads"):
            report = threads(env, args.rounds)
        verdicts += print_threads(report)
        result["threads"] = [
            (r.saver, r.metric, r.median, r.ratio, r.ref_ratio) for r in report.results
        ]
    if "storage" in parts:
        with part("storage"):
            got = storage(env, args.turns)
        verdicts += print_storage(got)
        result["storage"] = got
    if "growth" in parts:
        verdicts += print_growth(Path(args.scale_json))
    console.print(f"[bold]summary[/bold] ({load()})")
    for line in verdicts:
        console.print(f"  {line}", markup=False)
    result["verdicts"] = verdicts
    result["load_end"] = os.getloadavg()
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
