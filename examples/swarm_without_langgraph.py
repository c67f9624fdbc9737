"""Three asyncio agents, no LangGraph: one run, SIGKILLed mid-run, resumed with nothing repeated.

The story
---------
A swarm of plain asyncio coroutines - a ``researcher``, an ``analyst`` and a
``critic`` - works on one topic. There is no graph: each agent is a loop of
rounds (look something up with a LangChain tool, ask the model about it with the
real ``ChatOpenAI`` talking to a local OpenAI-compatible server, keep a note with
an ``@action``), and each runs under ``saver.run(run_id, agent_id=...)`` (an
``ActionRun``). All three share one run: one lease, one log, rows told apart by
``agent_id``.

1. The swarm runs in a child process, killed with ``SIGKILL`` once a few
   lookups are logged, each agent at its own point. ``saver.runs_to_resume()``
   (``actionckpt to-resume``) lists the run, each agent's last completed action,
   its actions in flight, and that it did not finish (an agent killed between
   two actions has nothing in flight, and is listed all the same).
2. The parent runs the same program again under the same run id. Every action
   the log has as completed is served (the model is not asked again, the tool
   does not run again); an action caught in flight runs again; the rest is
   recorded live.
3. An uninterrupted run of the same program gives the reference output; the
   script checks that both are equal and that no completed call was repeated,
   and prints the counts (recorded, served, re-run) and the command that shows
   the run's rows.

    python examples/swarm_without_langgraph.py [--dsn DSN] [--schema S] [--thread RUN]
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    child_exit_hint,
    count_actions,
    example_args,
    log_call,
    new_thread_id,
    read_calls,
    resolve_dsn,
    run_child_and_kill,
    workdir_for,
)

AGENTS = {"researcher": 0.05, "analyst": 0.08, "critic": 0.11}  # agent -> seconds per lookup
ROUNDS = 3
TOPIC = "action-level checkpoints for agents"


def make_program(calls_file: Path, base_url: str) -> Any:
    """The agents' code: the same in every process, which is what makes replay valid."""
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    from langgraph_actionckpt import action, current_action

    model = ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key="sk-local", temperature=0)

    @tool
    async def lookup(query: str, agent: str) -> str:
        """Look a topic up (slow, idempotent)."""
        log_call(calls_file, kind="lookup", agent=agent, key=current_action())
        await asyncio.sleep(AGENTS[agent])
        return f"source on {query[:60]}"

    @action(name="keep_note")
    async def keep_note(agent: str, text: str) -> str:
        log_call(calls_file, kind="keep_note", agent=agent, key=current_action())
        return f"{agent} noted: {text[:70]}"

    async def agent_loop(saver: Any, run_id: str, agent: str) -> list[str]:
        notes: list[str] = []
        async with saver.run(run_id, agent_id=agent):
            last = TOPIC
            for n in range(ROUNDS):
                source = await lookup.ainvoke({"query": f"{last} (round {n})", "agent": agent})
                answer = await model.ainvoke(f"As the {agent}, round {n}: what matters in {source}")
                last = str(answer.content)
                notes.append(await keep_note(agent, last))
        return notes

    async def swarm(saver: Any, run_id: str) -> dict[str, list[str]]:
        results = await asyncio.gather(*(agent_loop(saver, run_id, a) for a in AGENTS))
        return dict(zip(AGENTS, results, strict=True))

    return swarm


async def arun(
    dsn: str, schema: str, run_id: str, workdir: Path, base_url: str
) -> dict[str, list[str]]:
    """Run the swarm once in this process (in a notebook: ``await arun(...)``)."""
    from langgraph_actionckpt import AsyncActionSaver

    swarm = make_program(workdir / f"{run_id}-calls.jsonl", base_url)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
        return dict(await swarm(saver, run_id))


def run(dsn: str, schema: str, run_id: str, workdir: Path, base_url: str) -> dict[str, list[str]]:
    """Run the swarm once in this process."""
    return asyncio.run(arun(dsn, schema, run_id, workdir, base_url))


def main(argv: list[str] | None = None) -> int:
    args = example_args(__doc__, argv)
    dsn = resolve_dsn(args.dsn)
    run_id = args.thread or new_thread_id("swarm-plain")
    workdir = workdir_for(run_id, args.workdir)
    if args.child:
        run(dsn, args.schema, run_id, workdir, os.environ["SWARM_MODEL_URL"])
        return 0

    from fake_openai import FakeOpenAIServer

    # One local model server for every process: the model's settings (its base URL
    # included) are part of each completion's request, so they must not change.
    with FakeOpenAIServer(delay=0.02, count_file=workdir / "llm.jsonl") as server:
        return crash_and_resume(args, dsn, run_id, workdir, server.base_url)


def kill_mid_run(dsn: str, schema: str, run_id: str, workdir: Path, base_url: str) -> int:
    """Run the swarm in a child process and SIGKILL it once 4 lookups are logged."""
    child = [os.path.abspath(__file__), "--child", "--dsn", dsn, "--schema", schema,
             "--thread", run_id, "--workdir", str(workdir)]  # fmt: skip
    return run_child_and_kill(
        child,
        lambda: count_actions(dsn, schema, run_id, action_type="tool_call") >= 4,
        env={"SWARM_MODEL_URL": base_url},
    )


def runs_to_resume(dsn: str, schema: str) -> list[Any]:
    """What an orchestrator asks after a crash: the runs left unfinished, agent by agent."""
    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        return list(saver.runs_to_resume(action_runs_only=True))


def show_progress(progress: Any) -> None:
    """Print each agent's completed actions, last one, actions in flight, whether it finished."""
    for agent in AGENTS:
        p = progress.agents.get(agent)
        last = p.last_completed.name if p and p.last_completed else "-"
        flying = ", ".join(a.name or "?" for a in p.in_flight) if p else ""
        done = "yes" if p and p.finished else "no"
        print(f"   {agent:<11} completed {p.completed if p else 0}, last {last}, "
              f"in flight: {flying or 'none'}, finished: {done}")  # fmt: skip


def snapshot(dsn: str, schema: str, run_id: str) -> dict[str, Any]:
    """The run's actions by key (taken after the kill, to count what the resume did).

    Each agent's run row (action type ``run``: its entry into the run and how it
    left) is not an action, and is left out of the counts.
    """
    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        return {a.action_id: a for a in saver.list_actions(run_id) if a.action_type != "run"}


def counts(dsn: str, schema: str, run_id: str, workdir: Path, at_kill: dict[str, Any]) -> Any:
    """What the resumed run did, from the log and the calls file (see the module doc).

    Returns a namespace: ``recorded`` (rows the run has), ``done`` (completed
    before the kill), ``served`` (of those, served after it), ``fresh``
    (recorded by the resume), ``rerun`` (calls caught in flight at the kill that
    ran again), ``repeated`` (completed calls executed again: 0) and
    ``llm_live`` (model calls the resume had to make).
    """
    from types import SimpleNamespace

    by_key = snapshot(dsn, schema, run_id)
    after = list(by_key.values())
    done = {k for k, a in at_kill.items() if a.status == "completed"}
    me = os.getpid()
    calls = read_calls(workdir / f"{run_id}-calls.jsonl")
    keys_before = {c["key"] for c in calls if c["pid"] != me}
    fresh = [a for a in after if a.action_id not in done]
    served = [k for k in done if k in by_key and by_key[k].replayed > at_kill[k].replayed]
    return SimpleNamespace(
        recorded=len(after),
        done=len(done),
        served=len(served),
        fresh=len(fresh),
        rerun=sum(1 for c in calls if c["pid"] == me and c["key"] in keys_before),
        repeated=sum(1 for c in calls if c["pid"] == me and c["key"] in done),
        llm_live=sum(1 for a in fresh if a.action_type == "llm_completion"),
        by_agent={
            agent: (
                sum(1 for a in after if a.agent_id == agent),
                sum(1 for a in after if a.agent_id == agent and a.action_id in done),
            )
            for agent in AGENTS
        },
    )


def crash_and_resume(args: Any, dsn: str, run_id: str, workdir: Path, base_url: str) -> int:
    """Crash the swarm in a child, run it again here, compare with an uninterrupted run."""
    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        saver.setup()
    print(f"run {run_id!r}: agents {', '.join(AGENTS)}, {ROUNDS} rounds each, no graph")
    print("\n1. the swarm runs in a child process ...")
    rc = kill_mid_run(dsn, args.schema, run_id, workdir, base_url)
    if rc != -9:
        print(child_exit_hint(rc, "the kill"))
        return 1
    print(f"   child killed with SIGKILL mid-run: returncode={rc}")
    at_kill = snapshot(dsn, args.schema, run_id)
    todo = {p.run_id: p for p in runs_to_resume(dsn, args.schema)}
    print(f"   saver.runs_to_resume() lists it: {run_id in todo}")
    if run_id in todo:
        show_progress(todo[run_id])
    llm_before = len(read_calls(workdir / "llm.jsonl"))

    print("\n2. the same program again, same run id: the log serves what was completed ...")
    final = run(dsn, args.schema, run_id, workdir, base_url)
    llm_after = len(read_calls(workdir / "llm.jsonl")) - llm_before
    left = [p.run_id for p in runs_to_resume(dsn, args.schema)]
    print(f"   runs_to_resume() after the resume lists it: {run_id in left}")
    print("\n3. an uninterrupted run of the same program, for reference ...")
    reference = run(dsn, args.schema, run_id + "-reference", workdir, base_url)

    c = counts(dsn, args.schema, run_id, workdir, at_kill)
    print(f"\n{'agent':<11}{'actions':>8}{'served':>8}{'recorded':>9}")
    for agent, (n, n_served) in c.by_agent.items():
        print(f"{agent:<11}{n:>8}{n_served:>8}{n - n_served:>9}")
    print(f"\nactions completed before the kill: {c.done}, served after it: {c.served}")
    print(f"recorded by the resumed run: {c.fresh} (re-run after the kill: {c.rerun})")
    live = f"calls not completed before it: {c.llm_live}"
    print(f"model requests after the kill: {llm_after} ({live})")
    print(f"completed calls repeated: {c.repeated}")
    print(f"counts: actions recorded {c.recorded}, served {c.served}, re-run {c.rerun}")
    same = final == reference
    print(f"final output matches an uninterrupted run: {'yes' if same else 'NO'}")
    print(f"\nthe run's rows: actionckpt --dsn {dsn!r} --schema {args.schema} show {run_id}")
    print(f"runs to resume: actionckpt --dsn {dsn!r} --schema {args.schema} to-resume")
    ok = same and not c.repeated and c.served == c.done and llm_after == c.llm_live
    return 0 if ok and run_id in todo and run_id not in left else 1


if __name__ == "__main__":
    sys.exit(main())
