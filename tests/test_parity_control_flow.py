"""Control flow that must look the same as with the official savers (issue #13).

* Closing an ``astream`` mid-superstep keeps the writes of tasks that finished.
* Handoffs (``Command(graph=Command.PARENT)``, as langgraph-swarm's handoff
  tools raise) are control flow, not failures, in the action log.

Each scenario runs beside an ``InMemorySaver`` run of the same graph.
"""

from __future__ import annotations

import asyncio
import operator
from contextlib import aclosing
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)


class Sum(TypedDict):
    value: Annotated[int, operator.add]


def _parallel() -> StateGraph[Sum]:
    """A fast and a slow task in one superstep."""
    b: StateGraph[Sum] = StateGraph(Sum)

    async def fast(_: Sum) -> dict[str, int]:
        return {"value": 2}

    async def slow(_: Sum) -> dict[str, int]:
        await asyncio.sleep(0.5)
        return {"value": 10}

    b.add_node("fast", fast)
    b.add_node("slow", slow)
    b.add_edge(START, "fast")
    b.add_edge(START, "slow")
    b.add_edge("fast", END)
    b.add_edge("slow", END)
    return b


async def _closed_after_first_update(
    saver: BaseCheckpointSaver[Any], durability: Any
) -> tuple[Any, list[str]]:
    graph = _parallel().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": f"cancel-{durability}"}}
    async with aclosing(
        graph.astream({"value": 1}, config, stream_mode="updates", durability=durability)
    ) as stream:
        async for _ in stream:
            break
    state = await graph.aget_state(config)
    return state.values, sorted(t.name for t in state.tasks)


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
async def test_closing_astream_keeps_finished_task_writes(
    dsn: str, schema: str, durability: str
) -> None:
    expected = await _closed_after_first_update(InMemorySaver(), durability)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as asaver:
        await asaver.setup()
        assert await _closed_after_first_update(asaver, durability) == expected
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        saver.delete_thread(f"cancel-{durability}")
        assert await _closed_after_first_update(saver, durability) == expected


class Team(TypedDict):
    log: Annotated[list[str], operator.add]
    active: str


def _team() -> StateGraph[Team]:
    """Two agents (subgraphs) handing off to each other through the parent graph."""

    def agent(name: str, other: str) -> Any:
        def work(state: Team) -> Any:
            if len(state["log"]) >= 4:
                return {"log": [f"{name} done"]}
            return Command(
                graph=Command.PARENT,
                goto=other,
                update={"log": [f"{name} hands off"], "active": other},
            )

        sub: StateGraph[Team] = StateGraph(Team)
        sub.add_node("work", work)
        sub.add_edge(START, "work")
        sub.add_edge("work", END)
        return sub.compile()

    b: StateGraph[Team] = StateGraph(Team)
    b.add_node("alice", agent("alice", "bob"), destinations=("bob",))
    b.add_node("bob", agent("bob", "alice"), destinations=("alice",))
    b.add_edge(START, "alice")
    return b


def test_handoffs_are_not_failures(dsn: str, schema: str) -> None:
    inputs: Any = {"log": [], "active": "alice"}
    expected = (
        _team()
        .compile(checkpointer=InMemorySaver())
        .invoke(inputs, {"configurable": {"thread_id": "h"}})
    )
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _team().compile(checkpointer=saver)
        config: Any = {
            "configurable": {"thread_id": "h"},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        assert graph.invoke(inputs, config) == expected
        rows = saver.list_actions("h")
    failed = [(r.node, r.name, (r.error or {}).get("type")) for r in rows if r.status == "failed"]
    assert failed == []
    handoffs = [r for r in rows if isinstance(r.meta, dict) and r.meta.get("handoff")]
    # four handoffs, each ending the agent's node (and its subgraph's node)
    assert len(handoffs) >= 4, [(r.node, r.status, r.meta) for r in rows]
    assert all(r.meta["handoff"]["goto"] in (["alice"], ["bob"]) for r in handoffs)


async def test_handoffs_are_not_failures_async(dsn: str, schema: str) -> None:
    inputs: Any = {"log": [], "active": "alice"}
    expected = (
        await _team()
        .compile(checkpointer=InMemorySaver())
        .ainvoke(inputs, {"configurable": {"thread_id": "h"}})
    )
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
        await saver.setup()
        graph = _team().compile(checkpointer=saver)
        config: Any = {
            "configurable": {"thread_id": "h"},
            "callbacks": [AsyncActionCallbackHandler(saver)],
        }
        assert await graph.ainvoke(inputs, config) == expected
        rows = await saver.alist_actions("h")
    assert [r for r in rows if r.status == "failed"] == []
