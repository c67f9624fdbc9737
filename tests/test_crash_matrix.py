"""Issue 5, done-when 1 and 2: SIGKILL after every action, resume, compare.

Each case runs ``tests/crash_worker.py`` in a child process that SIGKILLs itself
right after its k-th live action is durably logged (or inside a tool body),
then resumes the thread in a new process. Real executions are counted outside
the processes (model calls file, tool effects file) and checked:

* every completed action is executed exactly once overall; a duplicate is only
  allowed for an idempotent action that was *in flight* at the kill (its side
  effect happened, its completion was not logged yet), and at most one;
* the final state equals an uninterrupted run's (message ids ignored);
* a non-idempotent action caught in flight is never executed again: the resume
  raises ``InFlightActionError`` naming it, ``resolve_action`` settles it.

Run with ``-s`` to see the summary table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from psycopg import sql

from examples.fake_openai.models import read_calls
from langgraph_actionckpt import ActionSaver

from .conftest import drop_schema, fetch, new_schema_name
from .crash_worker import EXIT_INFLIGHT, charge_output

WORKER = Path(__file__).with_name("crash_worker.py")
ROOT = WORKER.parents[1]
# actions per uninterrupted run: (LLM completions, tool calls)
ACTIONS = {"reference": (4, 3), "create_agent": (2, 2), "toolnode": (2, 2)}
MAX_PARALLEL = 4


@dataclass
class Outcome:
    """What a child process left behind."""

    rc: int
    data: dict[str, Any]
    stderr: str


@dataclass
class Case:
    """One crash-and-resume scenario."""

    graph: str
    mode: str
    durability: str
    kill_after: int = 0
    kill_inside: str | None = None
    server: str = "pg18"
    thread: str = field(default_factory=lambda: f"crash-{uuid.uuid4().hex[:12]}")


@dataclass
class Report:
    """The counted result of a case (one summary table row)."""

    case: Case
    executions: int = 0
    distinct: int = 0
    duplicates: int = 0
    in_flight: int = 0
    problems: list[str] = field(default_factory=list)


class Workdir:
    """Files of one thread: model calls, tool effects, outputs."""

    def __init__(self, root: Path, thread: str) -> None:
        self.dir = root / thread
        self.dir.mkdir(parents=True, exist_ok=True)
        self.calls = str(self.dir / "calls.jsonl")
        self.effects = str(self.dir / "effects.txt")

    def seeds(self) -> Counter[str]:
        return Counter(c["seed"] for c in read_calls(self.calls))

    def effect_keys(self) -> Counter[str]:
        if not os.path.exists(self.effects):
            return Counter()
        with open(self.effects, encoding="utf-8") as fh:
            return Counter(line.strip() for line in fh if line.strip())


def run_worker(
    dsn: str, schema: str, case: Case, work: Workdir, *, resume: bool, tag: str, **extra: Any
) -> Outcome:
    """Run crash_worker.py for ``case`` and wait for it."""
    out = str(work.dir / f"{tag}.json")
    cmd = [
        sys.executable,
        str(WORKER),
        "--dsn", dsn,
        "--schema", schema,
        "--thread", case.thread,
        "--calls", work.calls,
        "--effects", work.effects,
        "--out", out,
        "--mode", case.mode,
        "--durability", case.durability,
        "--graph", case.graph,
    ]  # fmt: skip
    if resume:
        cmd.append("--resume")
    else:
        if case.kill_after:
            cmd += ["--kill-after", str(case.kill_after)]
        if case.kill_inside:
            cmd += ["--kill-inside", case.kill_inside]
    for key, value in extra.items():
        cmd += [f"--{key.replace('_', '-')}", str(value)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    data = json.loads(Path(out).read_text()) if os.path.exists(out) else {}
    return Outcome(proc.returncode, data, proc.stderr[-3000:])


def completed_ids(dsn: str, schema: str, thread: str) -> set[str]:
    """Action ids logged as completed for a thread (what the log promises to replay)."""
    rows = fetch(
        dsn,
        sql.SQL("SELECT action_id FROM {}.actions WHERE thread_id = %s AND status = 'completed'")
        .format(sql.Identifier(schema))
        .as_string(None),
        (thread,),
    )
    return {r[0] for r in rows}


def baseline(dsn: str, schema: str, root: Path, graph: str, mode: str) -> dict[str, Any]:
    """Final state of an uninterrupted run; also checks its action counts."""
    case = Case(graph, mode, "async")
    work = Workdir(root, case.thread)
    done = run_worker(dsn, schema, case, work, resume=False, tag="base")
    assert done.rc == 0, done.stderr
    n_llm, n_tools = ACTIONS[graph]
    assert sum(work.seeds().values()) == n_llm == len(work.seeds())
    assert sum(work.effect_keys().values()) == n_tools == len(work.effect_keys())
    return dict(done.data["state"])


def run_case(dsn: str, schema: str, root: Path, case: Case, expected: dict[str, Any]) -> Report:
    """Crash, count what was in flight, resume, count again."""
    rep = Report(case)
    work = Workdir(root, case.thread)
    crashed = run_worker(dsn, schema, case, work, resume=False, tag="crash")
    if crashed.rc != -9:
        rep.problems.append(f"crash run ended with rc={crashed.rc}: {crashed.stderr}")
        return rep
    done_ids = completed_ids(dsn, schema, case.thread)
    in_flight = {k for k in work.effect_keys() if k.split(" ", 1)[1] not in done_ids}
    rep.in_flight = len(in_flight)
    resumed = run_worker(dsn, schema, case, work, resume=True, tag="resume")
    if resumed.rc != 0:
        rep.problems.append(f"resume rc={resumed.rc}: {resumed.data} {resumed.stderr}")
        return rep
    if resumed.data["state"] != expected:
        rep.problems.append(f"final state differs: {resumed.data['state']} != {expected}")
    seeds, keys = work.seeds(), work.effect_keys()
    n_llm, n_tools = ACTIONS[case.graph]
    rep.executions = sum(seeds.values()) + sum(keys.values())
    rep.distinct = len(seeds) + len(keys)
    rep.duplicates = rep.executions - rep.distinct
    if len(seeds) != n_llm or len(keys) != n_tools:
        rep.problems.append(f"distinct actions {len(seeds)}+{len(keys)} != {n_llm}+{n_tools}")
    for seed, n in seeds.items():  # LLM calls never run in parallel here: never in flight
        if n != 1:
            rep.problems.append(f"LLM call {seed} executed {n} times")
    for key, n in keys.items():
        allowed = 2 if key in in_flight and not key.startswith("charge ") else 1
        if n > allowed:
            rep.problems.append(f"tool {key} executed {n} times (allowed {allowed})")
    return rep


def _table(reports: list[Report]) -> str:
    head = f"{'graph':<13}{'k':>3} {'mode':<6}{'durab.':<7}{'exec':>5}{'dist':>5}{'dup':>4}"
    head += f"{'inflight':>9}  result"
    lines = [head, "-" * len(head)]
    for r in sorted(
        reports, key=lambda r: (r.case.graph, r.case.mode, r.case.durability, r.case.kill_after)
    ):
        c = r.case
        lines.append(
            f"{c.graph:<13}{c.kill_after:>3} {c.mode:<6}{c.durability:<7}{r.executions:>5}"
            f"{r.distinct:>5}{r.duplicates:>4}{r.in_flight:>9}  "
            + ("ok" if not r.problems else "FAIL")
        )
    return "\n".join(lines)


@pytest.fixture
def matrix_env(first_dsn: str) -> Iterator[tuple[str, str, Path]]:
    """A set-up schema on the first server under test, and a scratch directory."""
    schema = new_schema_name()
    with ActionSaver.from_conn_string(first_dsn, schema=schema) as s:
        s.setup()
    with tempfile.TemporaryDirectory(prefix="crash-matrix-") as tmp:
        yield first_dsn, schema, Path(tmp)
    drop_schema(first_dsn, schema)


def _run_matrix(dsn: str, schema: str, root: Path, graph: str) -> list[Report]:
    n_llm, n_tools = ACTIONS[graph]
    with ThreadPoolExecutor(MAX_PARALLEL) as pool:
        bases = {m: pool.submit(baseline, dsn, schema, root, graph, m) for m in ("sync", "async")}
        expected = {m: f.result() for m, f in bases.items()}
        assert expected["sync"] == expected["async"]
        cases = [
            Case(graph, mode, durability, kill_after=k)
            for mode in ("sync", "async")
            for durability in ("sync", "async")
            for k in range(1, n_llm + n_tools + 1)
        ]
        futures = [pool.submit(run_case, dsn, schema, root, c, expected[c.mode]) for c in cases]
        reports = [f.result() for f in futures]
    print(f"\n{graph}: SIGKILL after action k, resume in a new process\n" + _table(reports))
    problems = [(r.case, p) for r in reports for p in r.problems]
    assert not problems, problems
    return reports


@pytest.mark.parametrize("graph", ["reference", "create_agent", "toolnode"])
def test_crash_matrix(matrix_env: tuple[str, str, Path], graph: str) -> None:
    dsn, schema, root = matrix_env
    reports = _run_matrix(dsn, schema, root, graph)
    if graph == "reference":  # every action runs alone: nothing is ever in flight
        assert all(r.duplicates == 0 and r.in_flight == 0 for r in reports)


def test_crash_pg15_case(pg15_dsn: str) -> None:
    """One case on the system PostgreSQL 15."""
    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(pg15_dsn, schema=schema) as s:
            s.setup()
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            expected = baseline(pg15_dsn, schema, root, "reference", "sync")
            for mode, k in (("sync", 4), ("async", 6)):
                rep = run_case(
                    pg15_dsn, schema, root, Case("reference", mode, "async", kill_after=k),
                    expected,
                )  # fmt: skip
                assert not rep.problems, rep.problems
                assert rep.duplicates == 0 and rep.executions == 7
    finally:
        drop_schema(pg15_dsn, schema)


# ------------------------------------------------ killed inside a tool body


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_killed_inside_non_idempotent_tool(matrix_env: tuple[str, str, Path], mode: str) -> None:
    """charge is caught in flight: never run again, reported, then settled by a person."""
    dsn, schema, root = matrix_env
    expected = baseline(dsn, schema, root, "reference", mode)
    for resolution in ("output", "retry"):
        case = Case("reference", mode, "async", kill_inside="charge")
        work = Workdir(root, case.thread)
        crashed = run_worker(dsn, schema, case, work, resume=False, tag="crash")
        assert crashed.rc == -9, crashed.stderr
        (charge_key,) = [k for k in work.effect_keys() if k.startswith("charge ")]
        action_id = charge_key.split(" ", 1)[1]

        # the resume refuses to run it again, and names it
        for attempt in range(2):
            refused = run_worker(dsn, schema, case, work, resume=True, tag=f"refused{attempt}")
            assert refused.rc == EXIT_INFLIGHT, refused.stderr
            assert refused.data["name"] == "charge"
            assert refused.data["action_id"] == action_id
            assert action_id in refused.data["message"]
        assert work.effect_keys()[charge_key] == 1

        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            row = s.get_action(case.thread, action_id)
            assert row is not None and row.status == "running" and row.idempotent is False
            if resolution == "output":
                s.resolve_action(case.thread, action_id, output=charge_output(42))
            else:
                s.resolve_action(case.thread, action_id, retry=True)
        done = run_worker(dsn, schema, case, work, resume=True, tag="done")
        assert done.rc == 0, done.stderr
        assert done.data["state"] == expected
        keys = work.effect_keys()
        charged = sum(n for k, n in keys.items() if k.startswith("charge "))
        assert charged == (1 if resolution == "output" else 2)
        # everything else ran exactly once
        assert all(n == 1 for k, n in keys.items() if not k.startswith("charge "))
        assert all(n == 1 for n in work.seeds().values())
        print(f"\nkilled inside charge ({mode}), resolved by {resolution}: charge ran {charged}x")


def test_killed_inside_idempotent_tool(matrix_env: tuple[str, str, Path]) -> None:
    """An idempotent tool caught in flight is simply run once more."""
    dsn, schema, root = matrix_env
    expected = baseline(dsn, schema, root, "reference", "sync")
    case = Case("reference", "sync", "async", kill_inside="lookup")
    work = Workdir(root, case.thread)
    assert run_worker(dsn, schema, case, work, resume=False, tag="crash").rc == -9
    done = run_worker(dsn, schema, case, work, resume=True, tag="done")
    assert done.rc == 0, done.stderr
    assert done.data["state"] == expected
    keys = work.effect_keys()
    assert [n for k, n in keys.items() if k.startswith("lookup ")] == [2]
    assert all(n == 1 for k, n in keys.items() if not k.startswith("lookup "))
    assert all(n == 1 for n in work.seeds().values())
