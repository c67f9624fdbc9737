"""Issue 33: action-level runs without a LangGraph graph (``ActionRun``).

In-process tests record and replay ``@action`` functions, a fake chat model, a
tool and ``run.step`` inside a run, sync and async, on the system PostgreSQL.
The crash matrix runs ``tests/any_agent_worker.py`` (parallel agents sharing one
run) in a child process SIGKILLed between and inside actions, resumes it in a
new process and counts real executions outside both processes:

* zero completed calls repeated: every action completed at the kill keeps its
  row (same attempt, same completion time), and its side effect or model call
  happened once;
* every non-idempotent action caught in flight stops the resume with
  ``InFlightActionError`` and never runs twice; ``resolve_action`` settles it;
* the final outputs equal an uninterrupted run's;
* ``runs_to_resume`` lists the run after every kill (between actions too: each
  agent's run row says it did not finish) and not once it is resumed to its end.

Run with ``-s`` to see the summary table.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import subprocess
import sys
import tempfile
import uuid
import warnings
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.tools import tool

from examples.fake_openai.models import read_calls
from langgraph_actionckpt import (
    ActionRun,
    ActionSaver,
    AsyncActionSaver,
    ConfigurationError,
    InFlightActionError,
    ThreadBusyError,
    action,
    arun_progress,
    current_action,
    run_progress,
)
from langgraph_actionckpt.actions.records import ActionRecord

from .any_agent_worker import ACTIONS_PER_AGENT, EXIT_INFLIGHT, charge_output
from .conftest import drop_schema, new_schema_name

WORKER = Path(__file__).with_name("any_agent_worker.py")
ROOT = WORKER.parents[1]


@pytest.fixture
def pg(pg15_dsn: str) -> Iterator[tuple[str, str]]:
    """A set-up schema on the system PostgreSQL."""
    schema = new_schema_name()
    with ActionSaver.from_conn_string(pg15_dsn, schema=schema) as s:
        s.setup()
    yield pg15_dsn, schema
    drop_schema(pg15_dsn, schema)


class Program:
    """A small agent loop: two @action calls, a model call, a tool call and a step."""

    def __init__(self) -> None:
        self.executed: Counter[str] = Counter()
        self.model = FakeListChatModel(responses=["first answer", "second answer"])
        executed = self.executed

        @action(name="double")
        def double(x: int) -> int:
            executed["double"] += 1
            return 2 * x

        @action(name="double")
        async def adouble(x: int) -> int:
            executed["double"] += 1
            return 2 * x

        @tool
        def lookup(query: str) -> str:
            """Look something up."""
            executed["lookup"] += 1
            return f"found {query}"

        def add(a: int, b: int) -> int:
            executed["add"] += 1
            return a + b

        async def aadd(a: int, b: int) -> int:
            return add(a, b)

        self.double, self.adouble, self.lookup, self.add, self.aadd = (
            double,
            adouble,
            lookup,
            add,
            aadd,
        )

    def run(self, saver: Any, run_id: str, agent: str = "a") -> list[Any]:
        with ActionRun(saver, run_id, agent_id=agent) as run:
            x = self.double(3)
            answer = self.model.invoke("hello").content
            found = self.lookup.invoke({"query": "q"})
            y = self.double(4)
            total = run.step("add", self.add, x, y)
            return [x, answer, found, y, total]

    async def arun(self, saver: Any, run_id: str, agent: str = "a") -> list[Any]:
        async with ActionRun(saver, run_id, agent_id=agent) as run:
            x = await self.adouble(3)
            answer = (await self.model.ainvoke("hello")).content
            found = await self.lookup.ainvoke({"query": "q"})
            y = await self.adouble(4)
            total = await run.step("add", self.aadd, x, y)
            return [x, answer, found, y, total]


def _split(records: list[ActionRecord]) -> tuple[list[ActionRecord], list[ActionRecord]]:
    """A run's rows: its actions, and its agents' run rows (action type ``run``)."""
    return [r for r in records if r.action_type != "run"], [
        r for r in records if r.action_type == "run"
    ]


async def _in_mode(mode: str, dsn: str, schema: str, body: Any) -> Any:
    """Run ``body(saver, sync)`` with the saver of ``mode``."""
    if mode == "sync":
        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            return await asyncio.to_thread(body, s, True)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as a:
        return await body(a, False)


def _body(program: Program, run_id: str) -> Any:
    def body(saver: Any, sync: bool) -> Any:
        return program.run(saver, run_id) if sync else program.arun(saver, run_id)

    return body


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_record_then_replay(pg: tuple[str, str], mode: str) -> None:
    dsn, schema = pg
    program = Program()
    first = asyncio.run(_in_mode(mode, dsn, schema, _body(program, "run-1")))
    assert first == [6, "first answer", "found q", 8, 14]
    assert program.executed == Counter(double=2, lookup=1, add=1)

    # the same program under the same run id: everything is served from the log
    again = Program()
    second = asyncio.run(_in_mode(mode, dsn, schema, _body(again, "run-1")))
    assert second == first
    assert again.executed == Counter()
    assert again.model.i == 0  # the model was not asked

    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        rows, (marker,) = _split(s.list_actions("run-1"))
    # the agent's run row: written first, closed by each normal exit (two entries)
    assert (marker.action_id, marker.name, marker.status, marker.attempt) == (
        "run-1/a:run",
        "a",
        "completed",
        2,
    )
    assert marker.replayed == 0 and marker.step is None and marker.task_id == "run-1/a"
    assert [(r.action_type, r.name, r.step) for r in rows] == [
        ("function", "double", 0),
        ("llm_completion", rows[1].name, 1),
        ("tool_call", "lookup", 2),
        ("function", "double", 3),
        ("function", "add", 4),
    ]
    for r in rows:
        assert r.status == "completed" and r.replayed == 1
        assert (r.run_id, r.agent_id, r.node, r.task_id) == ("run-1", "a", "a", "run-1/a")
        assert r.action_id.startswith("run-1/a:")
    # another run id is another run: nothing served
    third = Program()
    assert asyncio.run(_in_mode(mode, dsn, schema, _body(third, "run-2"))) == first
    assert third.executed == Counter(double=2, lookup=1, add=1)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_keys_follow_the_request_not_the_position(pg: tuple[str, str], mode: str) -> None:
    """A call inserted before logged ones: they are still served; a warning names the change."""
    dsn, schema = pg
    calls: list[int] = []

    @action(name="square")
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    @action(name="square")
    async def asquare(x: int) -> int:
        calls.append(x)
        return x * x

    def body(values: list[int]) -> Any:
        def run(saver: Any, sync: bool) -> Any:
            async def arun() -> list[int]:
                async with ActionRun(saver, "r"):
                    return [await asquare(v) for v in values]

            if not sync:
                return arun()
            with ActionRun(saver, "r"):
                return [square(v) for v in values]

        return run

    assert asyncio.run(_in_mode(mode, dsn, schema, body([2, 3, 2]))) == [4, 9, 4]
    assert calls == [2, 3, 2]  # the second square(2) is another call (n = 1)
    with pytest.warns(RuntimeWarning, match=r"call #0 .* is not the call the log has") as seen:
        assert asyncio.run(_in_mode(mode, dsn, schema, body([5, 2, 3, 2]))) == [25, 4, 9, 4]
    assert calls == [2, 3, 2, 5]
    assert len([w for w in seen if "is not the call" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same program as logged now: no warning
        assert asyncio.run(_in_mode(mode, dsn, schema, body([5, 2, 3, 2]))) == [25, 4, 9, 4]
    assert calls == [2, 3, 2, 5]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_non_idempotent_cut_off_is_refused_then_resolved(pg: tuple[str, str], mode: str) -> None:
    """A charge stopped from outside is ``interrupted``: the run refuses it until settled."""
    dsn, schema = pg
    effects: list[str | None] = []
    stop = [True]

    def charge(amount: int) -> str:
        effects.append(current_action())
        if stop[0]:
            raise KeyboardInterrupt  # after the effect, as a kill would be
        return f"charged {amount}"

    async def acharge(amount: int) -> str:
        return charge(amount)

    def body(saver: Any, sync: bool) -> Any:
        async def arun() -> str:
            async with ActionRun(saver, "pay", agent_id="cashier") as run:
                return str(await run.step("charge", acharge, 7, idempotent=False))

        if not sync:
            return arun()
        with ActionRun(saver, "pay", agent_id="cashier") as run:
            return str(run.step("charge", charge, 7, idempotent=False))

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(_in_mode(mode, dsn, schema, body))
    stop[0] = False
    for _ in range(2):
        with pytest.raises(InFlightActionError) as caught:
            asyncio.run(_in_mode(mode, dsn, schema, body))
        assert caught.value.name == "charge" and caught.value.action_id == effects[0]
    assert len(effects) == 1
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        progress = run_progress(s, "pay")
        assert [r.action_id for r in progress.in_flight] == [effects[0]]
        assert progress.agents["cashier"].in_flight == progress.in_flight
        s.resolve_action("pay", effects[0], output="charged 7 (checked by hand)")
    assert asyncio.run(_in_mode(mode, dsn, schema, body)) == "charged 7 (checked by hand)"
    assert len(effects) == 1


def test_idempotent_cut_off_runs_again(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    seen: list[str | None] = []

    @action
    def fetch(url: str) -> str:
        seen.append(current_action())
        if len(seen) == 1:
            raise KeyboardInterrupt
        return f"page {url}"

    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        with pytest.raises(KeyboardInterrupt), ActionRun(s, "crawl"):
            fetch("x")
        with ActionRun(s, "crawl"):
            assert fetch("x") == "page x"
    assert len(seen) == 2 and seen[0] == seen[1]


def test_streaming(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        model = FakeListChatModel(responses=["streamed words here", "another"])
        with ActionRun(s, "st"):
            first = "".join(str(c.content) for c in model.stream("hi"))
        with ActionRun(s, "st"):
            second = "".join(str(c.content) for c in model.stream("hi"))
        assert first == second == "streamed words here"
        assert model.i == 1  # the second stream was served, the model not asked
        (row,), _ = _split(s.list_actions("st"))
        assert row.action_type == "llm_completion" and row.replayed == 1


def test_parallel_agents_and_progress(pg: tuple[str, str]) -> None:
    """Agents of one run in asyncio tasks; the recovery query sees each of them."""
    dsn, schema = pg
    executed: Counter[str] = Counter()

    @action
    async def work(agent: str, i: int) -> str:
        executed[agent] += 1
        await asyncio.sleep(0.001 * (i % 3))
        return f"{agent}-{i}"

    async def agent(saver: AsyncActionSaver, name: str) -> list[str]:
        async with ActionRun(saver, "swarm", agent_id=name):
            return [await work(name, i) for i in range(4)]

    async def main() -> tuple[list[list[str]], Any]:
        async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
            out = await asyncio.gather(*(agent(saver, n) for n in ("x", "y", "z")))
            return out, await arun_progress(saver, "swarm")

    out, progress = asyncio.run(main())
    assert out == [[f"{n}-{i}" for i in range(4)] for n in ("x", "y", "z")]
    assert sorted(progress.agents) == ["x", "y", "z"]
    for name, agent_progress in progress.agents.items():
        assert agent_progress.completed == 4 and not agent_progress.in_flight
        last = agent_progress.last_completed
        assert last is not None and last.output == f"{name}-3"
    assert progress.last_completed is not None and not progress.in_flight
    again, _ = asyncio.run(main())
    assert again == out and executed == Counter(x=4, y=4, z=4)


def test_one_worker_per_run(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    with (
        ActionSaver.from_conn_string(dsn, schema=schema) as one,
        ActionSaver.from_conn_string(dsn, schema=schema, lease="error") as two,
    ):
        with ActionRun(one, "leased", agent_id="a"):
            with ActionRun(one, "leased", agent_id="b"):
                pass  # a second agent of the run in this process shares the lease
            with pytest.raises(ThreadBusyError), ActionRun(two, "leased"):
                pass
            with (
                pytest.raises(ConfigurationError, match="already running"),
                ActionRun(one, "leased", agent_id="a"),
            ):
                pass
        with ActionRun(two, "leased"):  # released when the last agent left
            pass


def test_bad_configuration(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    with pytest.raises(ConfigurationError, match="saver of this package"):
        ActionRun(object(), "r")
    with (
        ActionSaver.from_conn_string(dsn, schema=schema, replay=False) as off,
        pytest.raises(ConfigurationError, match="replay=True"),
    ):
        ActionRun(off, "r")
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        with pytest.raises(ConfigurationError, match="run id"):
            ActionRun(s, "r" * 300)
        run = ActionRun(s, "r")
        with pytest.raises(ConfigurationError, match="entered"):
            run.step("x", len, "abc")


# ------------------------------------------------ the crash matrix (child processes)


@dataclass
class Case:
    """One crash-and-resume scenario."""

    mode: str
    agents: int
    kill_after: int = 0
    kill_inside: str | None = None
    run: str = field(default_factory=lambda: f"any-{uuid.uuid4().hex[:12]}")


@dataclass
class Report:
    """The counted result of a case (one summary table row)."""

    case: Case
    completed_at_kill: int = 0
    served: int = 0
    live: int = 0
    rerun: int = 0
    refused: int = 0
    problems: list[str] = field(default_factory=list)


def _worker(dsn: str, schema: str, case: Case, work: Path, tag: str, crash: bool) -> int:
    cmd = [
        sys.executable, str(WORKER),
        "--dsn", dsn, "--schema", schema, "--run", case.run,
        "--calls", str(work / "calls.jsonl"), "--effects", str(work / "effects.txt"),
        "--out", str(work / f"{tag}.json"), "--mode", case.mode, "--agents", str(case.agents),
    ]  # fmt: skip
    if crash and case.kill_after:
        cmd += ["--kill-after", str(case.kill_after)]
    if crash and case.kill_inside:
        cmd += ["--kill-inside", case.kill_inside]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if proc.returncode not in (0, -9, EXIT_INFLIGHT):
        raise AssertionError(f"{case}: rc={proc.returncode}\n{proc.stderr[-3000:]}")
    return proc.returncode


def _effects(work: Path) -> Counter[str]:
    path = work / "effects.txt"
    if not path.exists():
        return Counter()
    return Counter(line.strip() for line in path.read_text().splitlines() if line.strip())


def _rows(dsn: str, schema: str, run: str) -> dict[str, ActionRecord]:
    """The run's actions by key (its agents' run rows left out)."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        return {r.action_id: r for r in _split(s.list_actions(run))[0]}


def _listed(dsn: str, schema: str, run: str) -> bool:
    """Whether ``runs_to_resume`` lists the run (the schema holds the other cases' runs too)."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        return run in {p.run_id for p in s.runs_to_resume(limit=1000, action_runs_only=True)}


def _seed(row: ActionRecord) -> str:
    """The ScriptedChatModel seed of a completed LLM row (its answer starts with it)."""
    return str(getattr(row.output, "content", "")).split(":", 1)[0].removeprefix("answer-")


def baseline(dsn: str, schema: str, root: Path, mode: str, agents: int) -> dict[str, Any]:
    case = Case(mode, agents)
    work = root / case.run
    work.mkdir()
    assert _worker(dsn, schema, case, work, "base", crash=False) == 0
    assert len(_rows(dsn, schema, case.run)) == ACTIONS_PER_AGENT * agents
    return dict(json.loads((work / "base.json").read_text())["outputs"])


def run_case(dsn: str, schema: str, root: Path, case: Case, expected: Any) -> Report:
    rep = Report(case)
    work = root / case.run
    work.mkdir()
    if _worker(dsn, schema, case, work, "crash", crash=True) != -9:
        rep.problems.append("the crash run was not killed")
        return rep
    at_kill = _rows(dsn, schema, case.run)
    done = {k: r for k, r in at_kill.items() if r.status == "completed"}
    rep.completed_at_kill = len(done)
    if not _listed(dsn, schema, case.run):  # wherever the kill landed, between actions too
        rep.problems.append("the killed run is not listed by runs_to_resume")
    effects_at_kill = _effects(work)
    refusals: set[str] = set()
    for attempt in range(case.agents + 1):
        rc = _worker(dsn, schema, case, work, f"resume{attempt}", crash=False)
        if rc == 0:
            break
        refused = json.loads((work / f"resume{attempt}.json").read_text())
        # a charge whose intent row the server committed just after the kill counts too
        if refused["name"] != "charge" or refused["action_id"] in done:
            rep.problems.append(f"unexpected refusal {refused}")
            return rep
        refusals.add(refused["action_id"])
        rep.refused += 1
        agent = refused["action_id"].split("/", 1)[1].split(":", 1)[0]
        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            s.resolve_action(case.run, refused["action_id"], output=charge_output(agent))
    else:
        rep.problems.append("the run never finished")
        return rep
    outputs = json.loads((work / f"resume{attempt}.json").read_text())["outputs"]
    if outputs != expected:
        rep.problems.append(f"outputs differ: {outputs} != {expected}")
    if _listed(dsn, schema, case.run):
        rep.problems.append("the run resumed to its end is still listed by runs_to_resume")
    after = _rows(dsn, schema, case.run)
    for key, old in done.items():  # zero completed calls repeated: the row is untouched
        new = after[key]
        if (new.attempt, new.completed_at, new.status) != (
            old.attempt,
            old.completed_at,
            "completed",
        ):
            rep.problems.append(f"completed {key} was executed again")
        rep.served += new.replayed > old.replayed
    rep.rerun = sum(1 for k in at_kill if k not in done and after[k].status == "completed")
    rep.live = sum(1 for k in after if k not in at_kill)
    effects = _effects(work)
    for line, n in effects.items():
        name, key = line.split(" ", 1)
        if key in done and n != effects_at_kill[line]:
            rep.problems.append(f"{line}: completed before the kill, executed again")
        if name == "charge" and n != 1:
            rep.problems.append(f"{line}: non-idempotent, executed {n} times")
        if n > 2:
            rep.problems.append(f"{line}: executed {n} times")
    seeds = Counter(c["seed"] for c in read_calls(str(work / "calls.jsonl")))
    for row in done.values():
        if row.action_type == "llm_completion" and seeds[_seed(row)] != 1:
            rep.problems.append(f"LLM call {_seed(row)} completed before the kill, asked again")
    # a refused charge may have been cut before its body ran: settled, it never runs
    never_ran = {k for k in refusals if f"charge {k}" not in effects}
    if len(effects) != 3 * case.agents - len(never_ran) or len(seeds) != 2 * case.agents:
        rep.problems.append(f"distinct actions {len(effects)}+{len(seeds)}")
    cut = {k for k, r in at_kill.items() if r.name == "charge" and r.status == "running"}
    if not cut <= refusals:
        rep.problems.append(f"non-idempotent actions in flight not surfaced: {cut - refusals}")
    return rep


def _table(reports: list[Report]) -> str:
    head = f"{'mode':<6}{'agents':>7}{'kill':>12}{'done@kill':>10}{'served':>7}{'new':>5}"
    head += f"{'rerun':>6}"
    head += f"{'refused':>8}  result"
    lines = [head, "-" * len(head)]
    for r in reports:
        c = r.case
        kill = f"after {c.kill_after}" if c.kill_after else f"in {c.kill_inside}"
        lines.append(
            f"{c.mode:<6}{c.agents:>7}{kill:>12}{r.completed_at_kill:>10}{r.served:>7}{r.live:>5}"
            f"{r.rerun:>6}{r.refused:>8}  " + ("ok" if not r.problems else "FAIL")
        )
    return "\n".join(lines)


@pytest.fixture
def matrix(pg: tuple[str, str]) -> Iterator[tuple[str, str, Path]]:
    with tempfile.TemporaryDirectory(prefix="any-agent-") as tmp:
        yield pg[0], pg[1], Path(tmp)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_crash_matrix(matrix: tuple[str, str, Path], mode: str) -> None:
    dsn, schema, root = matrix
    agents = 2 if mode == "sync" else 3
    expected = baseline(dsn, schema, root, mode, agents)
    total = ACTIONS_PER_AGENT * agents
    cases = [Case(mode, agents, kill_after=k) for k in range(1, total)]
    cases += [Case(mode, agents, kill_inside=n) for n in ("lookup", "charge", "note")]
    with ThreadPoolExecutor(2) as pool:
        reports = list(pool.map(lambda c: run_case(dsn, schema, root, c, expected), cases))
    print(f"\nActionRun, {agents} parallel agents ({mode}): SIGKILL, resume\n" + _table(reports))
    problems = [(r.case, p) for r in reports for p in r.problems]
    assert not problems, problems
    assert sum(r.served for r in reports) > 0 and sum(r.refused for r in reports) > 0


# ------------------------------------------------ saver.run and the recovery query


def test_saver_run_is_an_action_run(saver: ActionSaver) -> None:
    program = Program()
    with saver.run("via-saver", agent_id="a") as run:
        assert isinstance(run, ActionRun) and (run.run_id, run.agent_id) == ("via-saver", "a")
        first = program.double(3)
    with saver.run("via-saver", agent_id="a"):
        assert program.double(3) == first == 6
    assert program.executed == Counter(double=1)
    (row,), _ = _split(saver.list_actions("via-saver"))
    assert (row.agent_id, row.task_id, row.replayed) == ("a", "via-saver/a", 1)


async def test_async_saver_run_is_an_action_run(asaver: AsyncActionSaver) -> None:
    program = Program()
    for _ in range(2):
        async with asaver.run("via-asaver") as run:
            assert run.agent_id == "root"
            assert await program.adouble(5) == 10
    assert program.executed == Counter(double=1)
    (row,), _ = _split(await asaver.alist_actions("via-asaver"))
    assert (row.agent_id, row.replayed) == ("root", 1)


def _unfinished(saver: ActionSaver) -> dict[str, str]:
    """Three runs that need resuming and two that do not; their agents' cut-off keys."""
    cut: dict[str, str] = {}

    def charge() -> str:
        cut["pay"] = str(current_action())
        raise KeyboardInterrupt  # after the effect, as a kill would be

    def fail() -> str:
        raise ValueError("boom")

    with saver.run("done", agent_id="a") as run:
        run.step("ok", len, "abc")
    # a failure the agent handled (pytest.raises, the inner context, catches it)
    with saver.run("handled", agent_id="h") as run, pytest.raises(ValueError):
        run.step("fail", fail)
    with pytest.raises(KeyboardInterrupt), saver.run("pay", agent_id="cashier") as run:
        run.step("ok", len, "abc")
        run.step("charge", charge, idempotent=False)
    with pytest.raises(ValueError), saver.run("broken", agent_id="b") as run:
        run.step("fail", fail)
    # a graph's thread: rows not keyed as an ActionRun's
    saver.record_actions(
        [ActionRecord("graph-thread", "g1", "tool_call", name="search", status="running")]
    )
    return cut


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_runs_to_resume(dsn: str, schema: str, mode: str) -> None:
    """Runs with an action in flight or an agent not finished, newest first, bounded."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        cut = _unfinished(saver)

    async def query(**kwargs: Any) -> list[Any]:
        """The saver's own method, checked against its twin of the other world."""
        if mode == "sync":
            with ActionSaver.from_conn_string(dsn, schema=schema) as s:
                got = await asyncio.to_thread(lambda: s.runs_to_resume(**kwargs))
                twin = await s.aruns_to_resume(**kwargs)  # in a worker thread
        else:
            async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as a:
                got = await a.aruns_to_resume(**kwargs)
                twin = await asyncio.to_thread(lambda: a.runs_to_resume(**kwargs))  # on its loop
        assert [r.run_id for r in twin] == [r.run_id for r in got]
        return got

    def ask(**kwargs: Any) -> list[Any]:
        return asyncio.run(query(**kwargs))

    runs = ask()
    assert [r.run_id for r in runs] == ["graph-thread", "broken", "pay"]  # last activity first
    pay = runs[2]
    assert [r.action_id for r in pay.in_flight] == [cut["pay"]]
    cashier = pay.agents["cashier"]
    assert cashier.completed == 1 and cashier.last_completed is not None
    assert cashier.last_completed.name == "ok" and cashier.in_flight == pay.in_flight
    assert not cashier.in_flight[0].idempotent
    assert cashier.run is not None and cashier.run.status == "interrupted"  # Ctrl-C
    assert cashier.finished is False and cashier.run.error["type"] == "KeyboardInterrupt"
    broken = runs[1]
    assert broken.agents["b"].finished is False and broken.agents["b"].run.status == "failed"
    assert broken.in_flight == [] and broken.agents["b"].completed == 0
    failed = broken.agents["b"].failed
    assert failed is not None and failed.name == "fail" and failed.error["type"] == "ValueError"
    assert cashier.failed is None
    assert runs[0].agents["root"].in_flight[0].name == "search"
    assert runs[0].agents["root"].run is None  # a graph's thread: no run rows
    assert [r.run_id for r in ask(action_runs_only=True)] == ["broken", "pay"]
    assert [r.run_id for r in ask(limit=1)] == ["graph-thread"]
    assert ask(since=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=1)) == []
    assert len(ask(since=dt.timedelta(hours=1))) == 3
    with pytest.raises(ConfigurationError, match="limit"):
        ask(limit=0)
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.resolve_action("pay", cut["pay"], output="charged (checked by hand)")
        saver.resolve_action("graph-thread", "g1", output="found")
    # settled, but the cashier did not finish: listed until its program runs again
    (pay,) = [r for r in ask() if r.run_id == "pay"]
    assert pay.in_flight == [] and pay.agents["cashier"].finished is False
    with (
        ActionSaver.from_conn_string(dsn, schema=schema) as saver,
        saver.run("pay", agent_id="cashier") as run,
    ):
        run.step("ok", len, "abc")
        assert run.step("charge", len, idempotent=False) == "charged (checked by hand)"
    assert [r.run_id for r in ask()] == ["broken"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_runs_to_resume_after_a_kill(dsn: str, schema: str, mode: str, tmp_path: Path) -> None:
    """SIGKILL inside a non-idempotent action: the run is listed with it in flight, until
    it is settled and the run resumed."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        s.setup()
    case = Case(mode, agents=2, kill_inside="charge")
    assert _worker(dsn, schema, case, tmp_path, "crash", crash=True) == -9

    def to_resume() -> list[Any]:
        return _to_resume(dsn, schema, mode)

    (run,) = to_resume()
    assert run.run_id == case.run
    # the charge killed inside its body (the other agent's may have been in flight too)
    charges = [r for r in run.in_flight if r.name == "charge"]
    assert charges and f"charge {charges[0].action_id}" in _effects(tmp_path)
    for charge in charges:
        assert charge.status == "running" and not charge.idempotent
        agent = run.agents[str(charge.agent_id)]
        assert charge in agent.in_flight
        assert agent.completed >= 2 and agent.last_completed is not None  # LLM call, lookup
    assert _worker(dsn, schema, case, tmp_path, "refused", crash=False) == EXIT_INFLIGHT
    assert [r.run_id for r in to_resume()] == [case.run]  # still there: not settled
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        for charge in charges:
            s.resolve_action(case.run, charge.action_id, output=charge_output(charge.agent_id))
    assert _worker(dsn, schema, case, tmp_path, "resumed", crash=False) == 0
    assert to_resume() == []


def _to_resume(dsn: str, schema: str, mode: str) -> list[Any]:
    """``runs_to_resume(action_runs_only=True)`` with the saver of ``mode``."""
    if mode == "sync":
        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            return s.runs_to_resume(action_runs_only=True)

    async def ask() -> list[Any]:
        async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as a:
            return await a.aruns_to_resume(action_runs_only=True)

    return asyncio.run(ask())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_killed_between_actions_is_listed(dsn: str, schema: str, mode: str, tmp_path: Path) -> None:
    """SIGKILL between two actions: nothing in flight, every logged action completed, and
    the run is listed all the same (its agent did not finish) until it is resumed to the end;
    a run that finished is not listed."""
    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        s.setup()
    finished = Case(mode, agents=1)
    assert _worker(dsn, schema, finished, tmp_path, "finished", crash=False) == 0
    assert _to_resume(dsn, schema, mode) == []  # a finished run is not listed
    case = Case(mode, agents=1, kill_after=2)  # after the LLM call and the lookup
    assert _worker(dsn, schema, case, tmp_path, "crash", crash=True) == -9
    rows = _rows(dsn, schema, case.run)
    assert [r.status for r in rows.values()] == ["completed", "completed"]
    (run,) = _to_resume(dsn, schema, mode)
    assert run.run_id == case.run and run.in_flight == []
    agent = run.agents["a0"]
    assert agent.completed == 2 and agent.in_flight == [] and agent.failed is None
    assert agent.last_completed is not None and agent.last_completed.name == "lookup"
    assert agent.finished is False and agent.run is not None
    assert (agent.run.action_id, agent.run.status) == (f"{case.run}/a0:run", "running")

    # the CLI: the run row is not an action in flight; to-resume says the agent did not finish
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    cli = CliRunner()
    inflight = json.loads(cli.invoke(app, ["inflight", *base]).stdout)["inflight"]
    assert [a for a in inflight if a["thread_id"] == case.run] == []
    doc = json.loads(cli.invoke(app, ["to-resume", *base]).stdout)["runs"]
    assert [(r["run_id"], r["agents"]["a0"]["finished"]) for r in doc] == [(case.run, False)]
    text = cli.invoke(app, ["to-resume", *base[:-1]]).stdout
    assert "not finished" in text

    assert _worker(dsn, schema, case, tmp_path, "resumed", crash=False) == 0
    assert _to_resume(dsn, schema, mode) == []
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        (marker,) = _split(s.list_actions(case.run))[1]
    assert (marker.status, marker.attempt) == ("completed", 2)  # the resume: a new attempt


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_exception_exit_is_listed(dsn: str, schema: str, mode: str) -> None:
    """An agent's block that raised after completed actions (none failed) stays listed;
    its run row says how it ended. It never stops a resume: only actions are refused."""

    class Stop(Exception):
        pass

    def body(raise_it: bool) -> Any:
        def run(saver: Any, sync: bool) -> Any:
            async def arun() -> None:
                async with ActionRun(saver, "raised", agent_id="r") as run:
                    await run.step("ok", _alen, "abc")
                    if raise_it:
                        raise Stop("the agent's own code")

            if not sync:
                return arun()
            with ActionRun(saver, "raised", agent_id="r") as run:
                run.step("ok", len, "abc")
                if raise_it:
                    raise Stop("the agent's own code")
            return None

        return run

    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        s.setup()
    with pytest.raises(Stop):
        asyncio.run(_in_mode(mode, dsn, schema, body(True)))
    (run,) = _to_resume(dsn, schema, mode)
    agent = run.agents["r"]
    assert (run.in_flight, agent.failed, agent.completed) == ([], None, 1)
    assert agent.run is not None and agent.run.status == "failed"
    assert agent.run.error["type"] == "Stop" and agent.finished is False
    asyncio.run(_in_mode(mode, dsn, schema, body(False)))  # served, then finished
    assert _to_resume(dsn, schema, mode) == []


async def _alen(text: str) -> int:
    return len(text)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from .conftest import server_dsn
    from .service_fixtures import running

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("svc"), n=2)


def test_remote_savers_run_too(service: Any) -> None:
    """``saver.run`` on the checkpoint service's savers: recorded, then served."""
    from langgraph_actionckpt.service.remote import AsyncRemoteActionSaver, RemoteActionSaver

    token, _, _ = service.tenant()
    program = Program()
    with RemoteActionSaver.from_target(service.target, token=token) as remote:
        remote.setup()
        for _ in range(2):
            with remote.run("remote-run", agent_id="a") as run:
                assert run.step("add", program.add, 1, 2) == 3

    async def arun() -> list[ActionRecord]:
        async with AsyncRemoteActionSaver.from_target(service.target, token=token) as aremote:
            for _ in range(2):
                async with aremote.run("remote-arun", agent_id="a"):
                    assert await program.adouble(4) == 8
            return [
                *await aremote.alist_actions("remote-run"),
                *await aremote.alist_actions("remote-arun"),
            ]

    rows, markers = _split(asyncio.run(arun()))
    assert program.executed == Counter(add=1, double=1)
    assert [(r.name, r.agent_id, r.replayed) for r in rows] == [("add", "a", 1), ("double", "a", 1)]
    assert [(r.action_id, r.status, r.attempt) for r in markers] == [
        ("remote-run/a:run", "completed", 2),
        ("remote-arun/a:run", "completed", 2),
    ]
