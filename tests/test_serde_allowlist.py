"""A graph's own state types come back from our strict loader; other types do not.

Our savers revive only allowlisted types. LangGraph hands a compiled graph's state
types to the checkpointer only when ``LANGGRAPH_STRICT_MSGPACK`` is set; the package
does the same for its savers in the default mode too, so a graph whose state holds
pydantic models, dataclasses or enums gets them back after a resume, exactly as
with InMemorySaver, while a type the graph does not declare stays plain data and
its constructor is never called by a load.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from langgraph._internal import _serde
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from langgraph_actionckpt import ActionSaver, AsyncActionSaver

CONSTRUCTED: list[int] = []


class Plan(BaseModel):
    steps: list[str]


@dataclass
class Note:
    text: str


class Mood(enum.Enum):
    CALM = "calm"
    BUSY = "busy"


@dataclass
class Undeclared:
    """A type no schema of the graph names: a load must not construct it."""

    x: int

    def __post_init__(self) -> None:
        CONSTRUCTED.append(self.x)


class State(TypedDict):
    plan: Plan
    notes: list[Note]
    mood: Mood
    extra: Any


def _work(state: State) -> dict[str, Any]:
    return {
        "plan": Plan(steps=[*state["plan"].steps, "b"]),
        "notes": [*state["notes"], Note("hi")],
        "mood": Mood.BUSY,
        "extra": Undeclared(7),
    }


def _builder() -> StateGraph[State]:
    builder: StateGraph[State] = StateGraph(State)
    builder.add_node("work", _work)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder


INPUT: State = {"plan": Plan(steps=["a"]), "notes": [], "mood": Mood.CALM, "extra": None}


def _declared(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k != "extra"}


@pytest.fixture(params=[False, True], ids=["default-mode", "strict-mode"])
def strict(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """LangGraph's mode, as ``LANGGRAPH_STRICT_MSGPACK`` would set it at import."""
    monkeypatch.setattr(_serde, "STRICT_MSGPACK_ENABLED", request.param)
    return bool(request.param)


def _reference() -> dict[str, Any]:
    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "ref"}}
    _builder().compile(checkpointer=saver).invoke(INPUT, config)
    return dict(_builder().compile(checkpointer=saver).get_state(config).values)


def _check(values: dict[str, Any], reference: dict[str, Any], constructed_before: int) -> None:
    assert _declared(values) == _declared(reference)
    assert isinstance(values["plan"], Plan)
    assert all(isinstance(n, Note) for n in values["notes"])
    assert values["mood"] is Mood.BUSY
    # the undeclared type stays data, and loading it called no constructor
    assert values["extra"] == {"x": 7}
    assert len(CONSTRUCTED) == constructed_before


def test_graph_state_types_load_back(saver: ActionSaver, strict: bool) -> None:
    reference = _reference()
    config: Any = {"configurable": {"thread_id": "types"}}
    graph = _builder().compile(checkpointer=saver)
    assert graph.checkpointer is saver  # one saver, not a per-graph clone
    graph.invoke(INPUT, config)
    constructed = len(CONSTRUCTED)
    # a freshly compiled graph (as in the process that resumes) reads it back
    values = dict(_builder().compile(checkpointer=saver).get_state(config).values)
    _check(values, reference, constructed)
    history = list(_builder().compile(checkpointer=saver).get_state_history(config))
    plans = [h.values["plan"] for h in history if "plan" in h.values]
    assert plans == [Plan(steps=["a", "b"]), Plan(steps=["a"])]
    assert all(isinstance(p, Plan) for p in plans)


async def test_graph_state_types_load_back_async(asaver: AsyncActionSaver, strict: bool) -> None:
    reference = _reference()
    config: Any = {"configurable": {"thread_id": "types"}}
    await _builder().compile(checkpointer=asaver).ainvoke(INPUT, config)
    constructed = len(CONSTRUCTED)
    snapshot = await _builder().compile(checkpointer=asaver).aget_state(config)
    _check(dict(snapshot.values), reference, constructed)


def test_a_saver_shared_by_two_graphs_allows_both(dsn: str, schema: str) -> None:
    class Other(TypedDict):
        note: Note

    other: StateGraph[Other] = StateGraph(Other)
    other.add_node("w", lambda s: {"note": Note("other")})
    other.add_edge(START, "w")
    other.add_edge("w", END)
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        other.compile(checkpointer=saver).invoke(
            {"note": Note("")}, {"configurable": {"thread_id": "o"}}
        )
        _builder().compile(checkpointer=saver).invoke(INPUT, {"configurable": {"thread_id": "m"}})
        got = other.compile(checkpointer=saver).get_state({"configurable": {"thread_id": "o"}})
        assert got.values["note"] == Note("other")
        got = _builder().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "m"}})
        assert isinstance(got.values["plan"], Plan)
