"""The get_delta_channel_history fast path equals the base walk, on DeltaChannel graphs."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import ActionSaver, AsyncActionSaver


def _extend(current: list[str], writes: Any) -> list[str]:
    # DeltaChannel reducers receive the current value and the batch of writes
    return [*current, *(item for write in writes for item in write)]


class DeltaState(TypedDict):
    log: Annotated[list[str], DeltaChannel(_extend, snapshot_frequency=3)]
    counter: int
    note: str


def _graph(steps: int) -> StateGraph[Any]:
    def step(state: DeltaState) -> dict[str, Any]:
        n = state.get("counter", 0)
        return {"log": [f"entry {n}\x00"], "counter": n + 1, "note": f"n={n}"}

    builder = StateGraph(DeltaState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["counter"] >= steps else "step")
    return builder


def _strip(history: Any) -> dict[str, Any]:
    return {
        ch: {"writes": [(w[1], w[2]) for w in entry["writes"]], "seed": entry.get("seed")}
        for ch, entry in history.items()
    }


def test_delta_history_matches_base_walk(saver: ActionSaver) -> None:
    graph = _graph(10).compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "delta"}}
    out = graph.invoke({"log": [], "counter": 0}, config)
    reference = (
        _graph(10)
        .compile(checkpointer=InMemorySaver())
        .invoke({"log": [], "counter": 0}, {"configurable": {"thread_id": "ref"}})
    )
    assert out["log"] == reference["log"] == [f"entry {i}\x00" for i in range(10)]
    checked = 0
    for snapshot in graph.get_state_history(config):
        cfg = snapshot.config
        fast = saver.get_delta_channel_history(config=cfg, channels=["log", "counter", "note"])
        slow = BaseCheckpointSaver.get_delta_channel_history(
            saver, config=cfg, channels=["log", "counter", "note"]
        )
        assert _strip(fast) == _strip(slow), cfg
        checked += 1
    assert checked >= 10
    # state read back at every step is the reference prefix
    for snapshot in graph.get_state_history(config):
        log = snapshot.values.get("log", [])
        assert log == reference["log"][: len(log)]


async def test_delta_history_async(asaver: AsyncActionSaver) -> None:
    graph = _graph(7).compile(checkpointer=asaver)
    config = {"configurable": {"thread_id": "delta-a"}}
    out = await graph.ainvoke({"log": [], "counter": 0}, config)
    assert out["log"] == [f"entry {i}\x00" for i in range(7)]
    state = await graph.aget_state(config)
    fast = await asaver.aget_delta_channel_history(config=state.config, channels=["log"])
    slow = await BaseCheckpointSaver.aget_delta_channel_history(
        asaver, config=state.config, channels=["log"]
    )
    assert _strip(fast) == _strip(slow)
    assert _strip(fast)["log"]["writes"] or "seed" in fast["log"]
