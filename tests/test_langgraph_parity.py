"""Graph-level parity: LangGraph features behave with our savers as with InMemorySaver.

The conformance suite checks the saver API call by call; these run whole graphs
(interrupts and resumes, Send fan-out, subgraphs with and without their own
history, forks from a past checkpoint, update_state, the functional API) on
InMemorySaver and on our saver, and compare what a user sees: outputs, state,
pending tasks, interrupts and history.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Interrupt, Send, interrupt

from langgraph_actionckpt import ActionSaver, AsyncActionSaver

# ----------------------------------------------------------------- the graphs


class FanState(TypedDict):
    topics: list[str]
    results: Annotated[list[str], operator.add]
    approved: str


def _plan(state: FanState) -> dict[str, Any]:
    return {"results": ["planned"]}


def _fan_out(state: FanState) -> list[Send]:
    return [Send("research", {"topic": t}) for t in state["topics"]]


def _research(arg: dict[str, Any]) -> dict[str, Any]:
    return {"results": [f"found {arg['topic']}"]}


def _approve(state: FanState) -> dict[str, Any]:
    answer = interrupt({"question": "approve?", "n": len(state["results"])})
    return {"approved": answer, "results": [f"approved by {answer}"]}


def fan_graph() -> StateGraph[FanState]:
    b: StateGraph[FanState] = StateGraph(FanState)
    b.add_node("plan", _plan)
    b.add_node("research", _research)
    b.add_node("approve", _approve)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", _fan_out, ["research"])
    b.add_edge("research", "approve")
    b.add_edge("approve", END)
    return b


class Counter(TypedDict):
    count: int
    log: Annotated[list[str], operator.add]


def _bump(state: Counter) -> dict[str, Any]:
    return {"count": state.get("count", 0) + 1, "log": [f"sub {state.get('count', 0)}"]}


def sub_graph(checkpointer: Any) -> Any:
    b: StateGraph[Counter] = StateGraph(Counter)
    b.add_node("bump", _bump)
    b.add_edge(START, "bump")
    b.add_edge("bump", END)
    return b.compile(checkpointer=checkpointer)


class Outer(TypedDict):
    log: Annotated[list[str], operator.add]
    seen: list[int]


def outer_graph(sub_checkpointer: Any) -> StateGraph[Outer]:
    sub = sub_graph(sub_checkpointer)

    def call_sub(state: Outer) -> dict[str, Any]:
        out = sub.invoke({"log": []})
        return {
            "log": [f"outer saw {out['count']}"],
            "seen": [*state.get("seen", []), out["count"]],
        }

    b: StateGraph[Outer] = StateGraph(Outer)
    b.add_node("call_sub", call_sub)
    b.add_node("inline_sub", sub_graph(None))
    b.add_edge(START, "call_sub")
    b.add_edge("call_sub", "inline_sub")
    b.add_edge("inline_sub", END)
    return b


@task
def _double(x: int) -> int:
    return 2 * x


def functional(checkpointer: BaseCheckpointSaver[Any]) -> Any:
    @entrypoint(checkpointer=checkpointer)
    def flow(numbers: list[int]) -> dict[str, Any]:
        doubled = [f.result() for f in [_double(n) for n in numbers]]
        answer = interrupt({"doubled": doubled})
        return {"doubled": doubled, "answer": answer, "previous": None}

    return flow


# ------------------------------------------------------------------ scenarios


def _plain(value: Any) -> Any:
    """Interrupts compared by value (their ids derive from random checkpoint ids)."""
    if isinstance(value, Interrupt):
        return ("interrupt", _plain(value.value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _snap(snapshot: Any) -> dict[str, Any]:
    """What a user looks at in a StateSnapshot (ids and timestamps differ by design)."""
    return {
        "values": snapshot.values,
        "next": snapshot.next,
        "interrupts": [i.value for i in snapshot.interrupts],
        "tasks": [
            (t.name, [i.value for i in t.interrupts], t.error is not None) for t in snapshot.tasks
        ],
        "step": snapshot.metadata.get("step") if snapshot.metadata else None,
        "source": snapshot.metadata.get("source") if snapshot.metadata else None,
    }


def scenario_fan_interrupt_resume(saver: BaseCheckpointSaver[Any]) -> list[Any]:
    graph = fan_graph().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "fan"}}
    seen = [graph.invoke({"topics": ["a", "b", "c"], "results": [], "approved": ""}, config)]
    seen.append(_snap(graph.get_state(config)))
    seen.append(graph.invoke(Command(resume="alice"), config))
    seen.append([_snap(s) for s in graph.get_state_history(config)])
    return seen


def scenario_fork_and_update(saver: BaseCheckpointSaver[Any]) -> list[Any]:
    graph = fan_graph().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "fork"}}
    graph.invoke({"topics": ["x", "y"], "results": [], "approved": ""}, config)
    graph.invoke(Command(resume="bob"), config)
    history = list(graph.get_state_history(config))
    # fork from the checkpoint before the fan-out ran, with one more topic
    before = next(s for s in history if s.next == ("plan",))
    forked = graph.update_state(before.config, {"topics": ["x", "y", "z"]})
    seen: list[Any] = [graph.invoke(None, forked)]
    seen.append(graph.invoke(Command(resume="carol"), forked))
    seen.append(_snap(graph.get_state(config)))
    seen.append(len(list(graph.get_state_history(config))))
    # replaying from a past checkpoint id re-runs from there
    seen.append(graph.invoke(None, before.config))
    return seen


def scenario_subgraphs(saver: BaseCheckpointSaver[Any]) -> list[Any]:
    # checkpointer=True: the subgraph keeps its own history per thread
    graph = outer_graph(True).compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "subs"}}
    seen = [graph.invoke({"log": [], "seen": []}, config)]
    seen.append(graph.invoke({"log": []}, config))
    state = graph.get_state(config, subgraphs=True)
    seen.append(_snap(state))
    seen.append([_snap(s) for s in graph.get_state_history(config)])
    return seen


def scenario_functional(saver: BaseCheckpointSaver[Any]) -> list[Any]:
    flow = functional(saver)
    config: Any = {"configurable": {"thread_id": "func"}}
    # parallel tasks finish in any order: compare the updates as a set
    seen = [sorted(repr(_plain(u)) for u in flow.stream([1, 2, 3], config, stream_mode="updates"))]
    seen.append(flow.invoke(Command(resume="yes"), config))
    seen.append(_snap(flow.get_state(config)))
    return seen


SCENARIOS: dict[str, Callable[[BaseCheckpointSaver[Any]], list[Any]]] = {
    "fan-out, interrupt, resume": scenario_fan_interrupt_resume,
    "fork and update_state": scenario_fork_and_update,
    "subgraphs, own history": scenario_subgraphs,
    "functional API": scenario_functional,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_graph_features_match_inmemory_saver(saver: ActionSaver, name: str) -> None:
    scenario = SCENARIOS[name]
    assert _plain(scenario(saver)) == _plain(scenario(InMemorySaver()))


# ------------------------------------------------------------ async twins


async def ascenario_fan_interrupt_resume(saver: BaseCheckpointSaver[Any]) -> list[Any]:
    graph = fan_graph().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "afan"}}
    seen = [await graph.ainvoke({"topics": ["a", "b"], "results": [], "approved": ""}, config)]
    seen.append(_snap(await graph.aget_state(config)))
    seen.append(await graph.ainvoke(Command(resume="dave"), config))
    seen.append([_snap(s) async for s in graph.aget_state_history(config)])
    history = [s async for s in graph.aget_state_history(config)]
    before = next(s for s in history if s.next == ("plan",))
    forked = await graph.aupdate_state(before.config, {"topics": ["q"]})
    seen.append(await graph.ainvoke(None, forked))
    seen.append(await graph.ainvoke(Command(resume="erin"), forked))
    return seen


async def test_graph_features_match_inmemory_saver_async(asaver: AsyncActionSaver) -> None:
    ours = await ascenario_fan_interrupt_resume(asaver)
    assert _plain(ours) == _plain(await ascenario_fan_interrupt_resume(InMemorySaver()))
