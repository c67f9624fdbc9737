"""Issue #14's targets in one table: runs the three benchmarks that measure them, then checks each.

Run from the repository root::

    python -m benchmarks.targets                      # one run of everything (~10 min)
    python -m benchmarks.targets --runs 3             # three consecutive runs, one table each
    python -m benchmarks.targets --from-dir DIR       # only re-read the JSON of an earlier run

Each benchmark runs in its own process, exactly as by hand, and writes its JSON next to the
others (``--out``, default a new temporary directory, printed): ``bench_saver`` (scenarios a,
b and d with the savers the targets compare), ``floor_pairs`` (target a measured in
alternating rounds) and ``bench_recorder`` (target d). The table gives, per target, what was
measured, the goal and whether it holds. Targets e, f and g are not timings of one run: the
plots of ``bench_scale``, the profile in ``benchmarks/README.md`` and
``tests/test_distribution.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.savers import server_parser

ROOT = Path(__file__).resolve().parent.parent  # the benchmarks run as ``python -m`` from here
console = Console(width=None if sys.stdout.isatty() else 160)
SAVERS = (
    "ActionSaver,AsyncActionSaver,DurableFloor,AsyncDurableFloor,"
    "AsyncPostgresSaver,InMemorySaver (async)"
)
A_MAX = 1.2
B_MAX = {300: 2.5, 1000: 2.0}
C_MIN_PEER = 2.5
C_MIN_INMEMORY = 0.6
D_MIN_RATE = 60_000
D_MAX_CALLER_US = 12.0


@dataclass
class Check:
    """One measured value against its goal."""

    target: str
    what: str
    value: float | None
    goal: str
    met: bool


def run_benchmarks(out: Path, args: argparse.Namespace) -> None:
    """Run the three benchmarks one after the other, each writing its JSON into ``out``."""
    server = ["--pg-path", args.pg_path] + (["--dsn", args.dsn] if args.dsn else [])
    quick = ["--quick"] if args.quick else []
    rounds = ["--rounds", "1", "--invokes", "1"] if args.quick else ["--rounds", str(args.rounds)]
    commands = [
        ["benchmarks.bench_saver", "--scenarios", "a,b,d", "--repeat", str(args.repeat),
         "--savers", SAVERS, "--json", str(out / "saver.json"), *quick, *server],
        ["benchmarks.floor_pairs", *rounds, "--json", str(out / "pairs.json"), *server],
        ["benchmarks.bench_recorder", "--json", str(out / "recorder.json"), *quick]
        + (["--dsn", args.dsn] if args.dsn else []),
    ]  # fmt: skip
    for cmd in commands:
        console.print(f"$ python -m {' '.join(cmd)}", markup=False)
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", *cmd], check=False, cwd=ROOT)
        console.print(f"  exit {done.returncode} after {time.perf_counter() - t0:.0f} s")
        if done.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed (exit {done.returncode})")


def _saver_results(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())["results"])


def _find(
    results: list[dict[str, Any]], scenario: str, saver: str, prefix: str = "", suffix: str = ""
) -> dict[str, Any]:
    """The first result of ``saver`` in ``scenario`` whose metric has that prefix and suffix."""
    for r in results:
        same = r["scenario"] == scenario and r["saver"] == saver
        if same and r["metric"].startswith(prefix) and r["metric"].endswith(suffix):
            return r
    return {}


def _threads_result(
    saver: list[dict[str, Any]], durability: str
) -> tuple[str, float | None, float | None]:
    """c's row (scenario d of bench_saver): its metric, x AsyncPostgresSaver, / InMemorySaver."""
    r = _find(saver, "d", "AsyncActionSaver", suffix=f"threads, durability={durability}")
    label = r.get("metric", f"64 threads, durability={durability} (not measured)")
    return label, r.get("ratio"), r.get("ref_ratio")


def _recorder(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "recorder.json").read_text()))


def checks(out: Path) -> list[Check]:
    """Every check of targets a-d from the JSON files in ``out``."""
    found: list[Check] = []
    saver = _saver_results(out / "saver.json")
    for name in ("ActionSaver", "AsyncActionSaver"):
        for durability in ("sync", "async"):
            r = _find(saver, "a", name, f"per superstep, durability={durability}")
            v = r.get("ref_ratio")
            what = f"{name}, durability={durability}: / floor (bench_saver)"
            found.append(Check("a", what, v, f"<= {A_MAX}", v is not None and v <= A_MAX))
    for pair in json.loads((out / "pairs.json").read_text()):
        v = pair["wall_ratio"]
        what = f"{pair['pair']}, durability={pair['durability']}: / floor (floor_pairs)"
        found.append(Check("a", what, v, f"<= {A_MAX}", v <= A_MAX))
    for variant in ("operator.add", "add_messages"):
        for steps, limit in B_MAX.items():
            r = _find(saver, "b", "ActionSaver", f"{variant}, {steps} steps: x raw")
            v = r["samples"][0] if r.get("samples") else None
            same = bool(r.get("ok"))
            what = f"{variant}, {steps} supersteps: x raw"
            if v is None:
                what += " (not measured)"
            elif not same:
                what += " (STATE DIFFERS from InMemorySaver)"
            found.append(Check("b", what, v, f"<= {limit}", v is not None and v <= limit and same))
    for durability in ("sync", "async"):
        label, peer, share = _threads_result(saver, durability)
        found.append(
            Check(
                "c",
                f"{label}: x AsyncPostgresSaver",
                peer,
                f">= {C_MIN_PEER}",
                peer is not None and peer >= C_MIN_PEER,
            )
        )
        found.append(
            Check(
                "c",
                f"{label}: / InMemorySaver",
                share,
                f">= {C_MIN_INMEMORY}",
                share is not None and share >= C_MIN_INMEMORY,
            )
        )
    recorder = _recorder(out)
    for world in ("sync", "async"):
        rate = float(recorder[world]["throughput"])
        caller = float(recorder[world]["caller_us_median"])
        goal = f">= {D_MIN_RATE:,}"
        found.append(Check("d", f"{world} handler: actions/s", rate, goal, rate >= D_MIN_RATE))
        found.append(
            Check(
                "d",
                f"{world} handler: caller path median, us",
                caller,
                f"<= {D_MAX_CALLER_US:.0f}",
                caller <= D_MAX_CALLER_US,
            )
        )
    return found


def context(out: Path) -> list[str]:
    """What the machine gave the peers and floors in this run: c's and d's checks move with it.

    c's "x AsyncPostgresSaver" compares two savers whose limits differ (ours the CPU, the peer
    its commits' round trips), so the peer's share of ``InMemorySaver`` says how much of
    ``InMemorySaver``'s throughput ours needs to pass; d compares a rate with the COPY floor
    of the same rows.
    """
    lines: list[str] = []
    saver = _saver_results(out / "saver.json")
    for durability in ("sync", "async"):
        _label, peer, share = _threads_result(saver, durability)
        if peer and share:
            lines.append(
                f"c, durability={durability}: AsyncPostgresSaver ran at {share / peer:.2f} of "
                f"InMemorySaver's throughput, so {C_MIN_PEER}x it needs ours at "
                f"{C_MIN_PEER * share / peer:.2f} of InMemorySaver's (ours: {share:.2f})"
            )
    recorder = _recorder(out)
    floor = recorder.get("copy_floor_rows_per_s")
    if floor:
        shares = ", ".join(
            f"{world} {float(recorder[world]['throughput']) / floor:.2f}"
            for world in ("sync", "async")
        )
        lines.append(
            f"d: the COPY floor of the same rows ran at {floor:,.0f} rows/s; ours reached {shares} "
            f"of it ({D_MIN_RATE:,}/s is {D_MIN_RATE / floor:.2f} of it)"
        )
    tool_call = recorder.get("tool_call")
    if tool_call:
        alone = float(tool_call["alone_us"])
        lines.append(
            f"d: a tool call made by LangChain (tool.invoke) cost {alone:.0f} us alone, so one "
            f"process makes at most {1e6 / alone:,.0f} a second ({D_MIN_RATE:,}/s is "
            f"{D_MIN_RATE * alone / 1e6:.0f}x that); ActionCallbackHandler added "
            f"{float(tool_call['handler_added_us']):.0f} us to it over a no-op handler"
        )
    return lines


def _shown(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def print_table(found: Sequence[Check], title: str) -> None:
    table = Table(title=title)
    for col in ("target", "measured", "value", "goal", "met"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for c in found:
        value = _shown(c.value)
        table.add_row(c.target, c.what, value, c.goal, "yes" if c.met else "NO")
    console.print(table)
    console.print(f"{sum(c.met for c in found)} of {len(found)} checks met")


def main(argv: Sequence[str] | None = None) -> int:
    p = server_parser("benchmarks.targets", __doc__)
    p.add_argument("--runs", type=int, default=1, help="consecutive runs (default 1)")
    p.add_argument("--repeat", type=int, default=5, help="bench_saver --repeat (default 5)")
    p.add_argument("--rounds", type=int, default=11, help="floor_pairs --rounds (default 11)")
    p.add_argument(
        "--quick", action="store_true", help="smoke run: small sizes (b's sizes are not measured)"
    )
    p.add_argument("--out", help="directory for the JSON files (default: a new temporary one)")
    p.add_argument("--from-dir", nargs="+", help="only check the JSON already in these dirs")
    args = p.parse_args(argv)
    if args.from_dir:
        dirs = [Path(d) for d in args.from_dir]
    else:
        base = Path(args.out or tempfile.mkdtemp(prefix="actionckpt-targets-"))
        console.print(f"JSON goes to {base}", markup=False)
        dirs = []
        for i in range(1, args.runs + 1):
            out = base / f"run{i}" if args.runs > 1 else base
            out.mkdir(parents=True, exist_ok=True)
            started = time.strftime("%H:%M:%S")
            console.print(f"run {i} of {args.runs}, started {started}", markup=False)
            run_benchmarks(out, args)
            dirs.append(out)
    all_met = True
    for i, out in enumerate(dirs, 1):
        found = checks(out)
        all_met &= all(c.met for c in found)
        print_table(found, f"issue #14 targets a-d, run {i} ({out})")
        for line in context(out):
            console.print(f"  {line}", markup=False)
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
