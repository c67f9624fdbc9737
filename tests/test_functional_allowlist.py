"""Functional API: a task's or entrypoint's declared types come back after an interrupt.

A ``@task`` that returns a pydantic model, run inside an ``@entrypoint`` that
calls ``interrupt()``, has its result stored as a pending write; on resume the
entrypoint runs again and gets the task's result from the checkpoint, not from
a new execution. With ``InMemorySaver`` that result is the model itself; our
strict loader revives only allowlisted types, so the package adds task return
annotations and the entrypoint's input/output types to the allowlist. Each test
runs the same graph on ``InMemorySaver`` beside ours and compares.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt
from pydantic import BaseModel

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.checkpoints.allowlist import graph_allowlist


class Draft(BaseModel):
    title: str
    words: int


@dataclass
class Review:
    approved: bool
    note: str


class Tone(enum.Enum):
    FORMAL = "formal"
    CASUAL = "casual"


class Brief(BaseModel):
    topic: str
    tone: Tone


class Outcome(BaseModel):
    draft: Draft
    review: Review
    runs: int


EXECUTIONS: list[str] = []


@task
def write_draft(brief: Brief) -> Draft:
    EXECUTIONS.append("write_draft")
    return Draft(title=f"On {brief.topic}", words=120)


@task
async def awrite_draft(brief: Brief) -> Draft:
    EXECUTIONS.append("awrite_draft")
    return Draft(title=f"On {brief.topic}", words=120)


def _seen(draft: Any) -> dict[str, Any]:
    """What the entrypoint observed about the task's result (type and content)."""
    return {"type": type(draft).__name__, "is_model": isinstance(draft, Draft)}


def make_graph(checkpointer: Any) -> Any:
    @entrypoint(checkpointer=checkpointer)
    def review_flow(brief: Brief) -> Outcome:
        draft = write_draft(brief).result()
        seen = _seen(draft)  # before the interrupt on the first run, after it on resume
        answer = interrupt({"draft": draft.title if isinstance(draft, Draft) else draft})
        assert seen["is_model"], f"the task's result came back as {seen['type']}"
        return Outcome(draft=draft, review=Review(approved=answer == "ok", note=answer), runs=1)

    return review_flow


def make_async_graph(checkpointer: Any) -> Any:
    @entrypoint(checkpointer=checkpointer)
    async def areview_flow(brief: Brief) -> Outcome:
        draft = await awrite_draft(brief)
        seen = _seen(draft)
        answer = interrupt({"draft": draft.title if isinstance(draft, Draft) else draft})
        assert seen["is_model"], f"the task's result came back as {seen['type']}"
        return Outcome(draft=draft, review=Review(approved=answer == "ok", note=answer), runs=1)

    return areview_flow


BRIEF = Brief(topic="checkpoints", tone=Tone.FORMAL)


def _run(graph: Any, thread: str) -> tuple[Any, Any]:
    config = {"configurable": {"thread_id": thread}}
    first = graph.invoke(BRIEF, config)
    assert "__interrupt__" in first
    result = graph.invoke(Command(resume="ok"), config)
    return result, graph.get_state(config).values


async def _arun(graph: Any, thread: str) -> tuple[Any, Any]:
    config = {"configurable": {"thread_id": thread}}
    first = await graph.ainvoke(BRIEF, config)
    assert "__interrupt__" in first
    result = await graph.ainvoke(Command(resume="ok"), config)
    return result, (await graph.aget_state(config)).values


def test_allowlist_names_task_and_entrypoint_types() -> None:
    allowlist = graph_allowlist(make_graph(InMemorySaver()))
    for cls in (Draft, Brief, Tone, Outcome, Review):
        assert (cls.__module__, cls.__name__) in allowlist, cls


def test_task_result_after_interrupt_matches_inmemory(saver: ActionSaver) -> None:
    ref_result, ref_state = _run(make_graph(InMemorySaver()), "ref")
    EXECUTIONS.clear()
    result, state = _run(make_graph(saver), "ours")
    assert EXECUTIONS == ["write_draft"]  # the resume took the result from the checkpoint
    assert isinstance(ref_result, Outcome) and isinstance(result, Outcome)
    assert result == ref_result
    assert type(state) is type(ref_state) and state == ref_state


async def test_task_result_after_interrupt_matches_inmemory_async(
    asaver: AsyncActionSaver,
) -> None:
    ref_result, ref_state = await _arun(make_async_graph(InMemorySaver()), "ref")
    EXECUTIONS.clear()
    result, state = await _arun(make_async_graph(asaver), "ours")
    assert EXECUTIONS == ["awrite_draft"]
    assert isinstance(ref_result, Outcome) and isinstance(result, Outcome)
    assert result == ref_result
    assert type(state) is type(ref_state) and state == ref_state


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict-env"])
def test_same_under_langgraph_strict_mode(
    saver: ActionSaver, strict: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if strict:
        monkeypatch.setenv("LANGGRAPH_STRICT_MSGPACK", "true")
    EXECUTIONS.clear()
    result, _ = _run(make_graph(saver), f"strict-{strict}")
    assert isinstance(result, Outcome) and isinstance(result.draft, Draft)
    assert EXECUTIONS == ["write_draft"]
