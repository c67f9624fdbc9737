"""Three agents share one run; the process is SIGKILLed mid-run and all three recover together.

The story
---------
A small swarm works on one topic in parallel: a ``researcher``, an
``analyst`` and a ``critic``. Each agent is a LangGraph subgraph (its own
loop of rounds: look something up, ask the LLM about it, save a note), and
all three run as parallel nodes of one parent graph, checkpointed by one
``ActionSaver`` on one thread. Every action row carries the agent that took it
(``agent_id``, taken from the subgraph namespace), so the log reads per agent.

1. The swarm runs in a child process, killed with ``SIGKILL`` once the agents
   have done a few rounds between them, each agent at its own point.
2. The parent resumes the thread once. Each agent continues from its own last
   completed action: finished rounds come back from the subgraph checkpoints,
   and a lookup finished inside a round that was cut short is served from the
   action log (``replayed``).
3. Per agent, the script prints actions executed before the crash, executed
   after it and replayed, checks that nothing completed was executed twice (an
   idempotent action caught in flight by the kill may run again) and that the
   final state equals an uninterrupted run's.

    python examples/swarm.py [--dsn DSN] [--schema S] [--thread T]
"""

from __future__ import annotations

import operator
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Annotated, Any, TypedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    child_exit_hint,
    count_actions,
    example_args,
    get_model,
    log_call,
    new_thread_id,
    read_calls,
    resolve_dsn,
    run_child_and_kill,
    using_real_model,
    workdir_for,
)

AGENTS = {"researcher": 0.12, "analyst": 0.17, "critic": 0.22}  # agent -> seconds per lookup
ROUNDS = 3
TOPIC = "action-level checkpoints for agents"


class SwarmState(TypedDict, total=False):
    topic: str
    reports: Annotated[list[str], operator.add]


class AgentState(TypedDict, total=False):
    topic: str
    notes: Annotated[list[str], operator.add]
    reports: Annotated[list[str], operator.add]


class AgentOutput(TypedDict):
    reports: Annotated[list[str], operator.add]  # what an agent hands back to the swarm


def swarm_script(messages: list[Any], kwargs: dict[str, Any]) -> Any:
    from langchain_core.messages import AIMessage

    text = str(messages[-1].content)
    return AIMessage(content="insight: " + " ".join(text.split()[-6:]))


def build(saver: Any, calls: Path, llm_calls: Path) -> Any:
    from langchain_core.messages import HumanMessage
    from langgraph.graph import END, START, StateGraph

    from langgraph_actionckpt import action

    model = get_model(script=swarm_script, calls_file=llm_calls)

    def make_agent(agent: str, delay: float) -> Any:
        @action(name=f"{agent}.lookup")
        def lookup(topic: str, round_: int) -> str:
            time.sleep(delay)
            log_call(calls, agent=agent, name="lookup", key=round_)
            return f"{agent} source #{round_} on {topic}"

        @action(name=f"{agent}.save_note")
        def save_note(note: str) -> str:
            time.sleep(delay / 2)
            log_call(calls, agent=agent, name="save_note", key=note[:30])
            return note

        def work(state: AgentState) -> AgentState:
            n = len(state.get("notes", []))
            source = lookup(state["topic"], n)
            answer = model.invoke([HumanMessage(f"As the {agent}, what matters in: {source}")])
            return {"notes": [save_note(f"round {n}: {answer.content}")]}

        def report(state: AgentState) -> AgentState:
            return {"reports": [f"{agent}: " + " | ".join(state["notes"])]}

        g = StateGraph(AgentState, output_schema=AgentOutput)
        g.add_node("work", work)
        g.add_node("report", report)
        g.add_edge(START, "work")
        g.add_conditional_edges("work", lambda s: "report" if len(s["notes"]) >= ROUNDS else "work")
        g.add_edge("report", END)
        return g.compile()

    parent = StateGraph(SwarmState)
    for agent, delay in AGENTS.items():
        parent.add_node(agent, make_agent(agent, delay))
        parent.add_edge(START, agent)
        parent.add_edge(agent, END)
    return parent.compile(checkpointer=saver)


def run(dsn: str, schema: str, thread: str, workdir: Path, label: str, *, resume: bool) -> Any:
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = build(saver, workdir / f"{label}-calls.jsonl", workdir / f"{label}-llm.jsonl")
        config = {
            "configurable": {"thread_id": thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        return graph.invoke(None if resume else {"topic": TOPIC}, config)


def main(argv: list[str] | None = None) -> int:
    args = example_args(__doc__, argv)
    dsn = resolve_dsn(args.dsn)
    thread = args.thread or new_thread_id("swarm")
    workdir = workdir_for(thread, args.workdir)

    if args.child:
        run(dsn, args.schema, thread, workdir, "crash", resume=False)
        return 0

    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        saver.setup()
    print(f"thread {thread!r}: agents {', '.join(AGENTS)}, {ROUNDS} rounds each, in parallel")
    print("\n1. the swarm runs in a child process ...")
    rc = run_child_and_kill(
        [
            os.path.abspath(__file__),
            "--child",
            "--dsn",
            dsn,
            "--schema",
            args.schema,
            "--thread",
            thread,
            "--workdir",
            str(workdir),
        ],
        lambda: count_actions(dsn, args.schema, thread, action_type="function") >= 7,
    )
    if rc != -9:
        print(child_exit_hint(rc, "the kill"))
        return 1
    print(f"   child killed with SIGKILL mid-run: returncode={rc}")
    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        at_kill = saver.list_actions(thread, action_type=["function", "llm_completion"])
    before = {a.action_id for a in at_kill if a.status == "completed"}
    # caught in flight by the kill: ran (maybe), completion not yet stored; idempotent
    # actions are run again on resume, by design - never one whose completion was stored
    inflight = [a for a in at_kill if a.status in ("pending", "running")]
    print(f"   in flight at the kill: {', '.join(a.name for a in inflight) or 'none'}")

    print("\n2. resume the thread: all agents continue together ...")
    final = run(dsn, args.schema, thread, workdir, "crash", resume=True)
    print("\n3. an uninterrupted run of the same swarm, for reference ...")
    reference = run(dsn, args.schema, thread + "-reference", workdir, "reference", resume=False)

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        after = saver.list_actions(thread, action_type=["function", "llm_completion"])
    calls = read_calls(workdir / "crash-calls.jsonl")
    me = os.getpid()
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    for c in calls:
        stats[c["agent"]]["before" if c["pid"] != me else "after"] += 1
    for a in after:
        agent = a.agent_id or "?"
        stats[agent]["actions"] += 1
        if a.replayed:
            stats[agent]["replayed"] += 1
        if a.action_id in before:
            stats[agent]["kept"] += 1

    print(
        f"\n{'agent':<12}{'actions':>8}{'tool runs before crash':>24}"
        f"{'tool runs after':>17}{'kept from log':>15}{'replayed':>10}"
    )
    for agent in AGENTS:
        s = stats[agent]
        print(
            f"{agent:<12}{s['actions']:>8}{s['before']:>24}{s['after']:>17}"
            f"{s['kept']:>15}{s['replayed']:>10}"
        )

    ref_calls = read_calls(workdir / "reference-calls.jsonl")
    repeated = len(calls) - len(ref_calls)
    if not using_real_model():
        repeated += len(read_calls(workdir / "crash-llm.jsonl")) - len(
            read_calls(workdir / "reference-llm.jsonl")
        )
    print(
        f"\nexecutions repeated because of the crash: {repeated} "
        f"(allowed: the {len(inflight)} idempotent actions in flight at the kill)"
    )
    same = sorted(final["reports"]) == sorted(reference["reports"])
    if using_real_model():
        same = len(final["reports"]) == len(reference["reports"])
    for r in sorted(final["reports"]):
        print(f"  {r[:110]}")
    ok = same and 0 <= repeated <= len(inflight) and all(stats[a]["actions"] for a in AGENTS)
    verdict = "yes" if ok else "NO"
    print(f"all agents recovered; final state matches an uninterrupted run: {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
