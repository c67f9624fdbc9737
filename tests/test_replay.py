"""Issue 5: replay with zero user code beyond the checkpointer and the callback.

Pattern: a node makes its calls, then a simulated crash ends the run; the thread
is resumed with ``invoke(None, config)`` and the real executions are counted
(``ScriptedChatModel(calls_file=...)`` lines, tool side-effect lists).

The in-process crash is :class:`Crash`, a ``BaseException`` like
``KeyboardInterrupt``: LangGraph stores no error write for it, exactly as after
a SIGKILL. (An ordinary exception marks the task's *last* LLM completion
non-replayable, by design; :func:`test_ordinary_exception_reasks_last_completion`
checks that rule.) Real SIGKILLs, including a non-idempotent tool caught in
flight, are in ``test_crash_matrix.py``.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import operator
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import RetryPolicy
from pydantic import BaseModel
from typing_extensions import TypedDict

from examples.fake_openai.models import ScriptedChatModel, read_calls
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    ThreadBusyError,
    action,
)


class Crash(BaseException):
    """A simulated process death (not an ``Exception``, like ``KeyboardInterrupt``)."""


class Once:
    """Raises :class:`Crash` the first time it is called, never again."""

    def __init__(self) -> None:
        self.armed = True

    def __call__(self) -> None:
        if self.armed:
            self.armed = False
            raise Crash()


class OutState(TypedDict):
    out: Annotated[list[str], operator.add]


def show(value: Any) -> str:
    """A comparable text of a call result (ids left out)."""
    if isinstance(value, BaseMessage):
        calls = [(c["name"], c["args"], c["id"]) for c in getattr(value, "tool_calls", [])]
        return f"{value.type}:{value.content}:{calls}"
    if isinstance(value, list):
        return "[" + ",".join(show(v) for v in value) + "]"
    if isinstance(value, BaseModel):
        return f"{type(value).__name__}:{value.model_dump()}"
    return repr(value)


def cfg_for(handler: Any, thread_id: str | None = None) -> dict[str, Any]:
    return {
        "configurable": {"thread_id": thread_id or f"r-{uuid.uuid4().hex[:10]}"},
        "callbacks": [handler] if handler is not None else [],
    }


def single_node(fn: Callable[..., Any]) -> StateGraph[Any]:
    builder = StateGraph(OutState)
    builder.add_node("node", fn)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder


def calls_in(path: Path) -> int:
    return len(read_calls(str(path)))


# ------------------------------------------------------------------ LLM call styles


class Plan(BaseModel):
    """A structured answer."""

    steps: int
    title: str


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def merge(chunks: list[Any]) -> Any:
    """Merged stream chunks (one message)."""
    return functools.reduce(operator.add, chunks)


SyncStyle = Callable[[ScriptedChatModel], list[Any]]

SYNC_STYLES: dict[str, SyncStyle] = {
    "invoke": lambda m: [m.invoke("q one"), m.invoke("q two")],
    "batch": lambda m: m.batch(["q one", "q two", "q one"]),
    "bind_tools": lambda m: [m.bind_tools([lookup]).invoke("q one"), m.invoke("q two")],
    "with_structured_output": lambda m: [
        m.with_structured_output(Plan).invoke("q one"),
        m.invoke("q two"),
    ],
    "lcel": lambda m: [
        (ChatPromptTemplate.from_messages([("human", "say {x}")]) | m).invoke({"x": "q one"}),
        (ChatPromptTemplate.from_messages([("human", "say {x}")]) | m).invoke({"x": "q two"}),
    ],
    "stream": lambda m: [
        "".join(str(c.content) for c in m.stream("q one")),
        merge(list(m.bind_tools([lookup]).stream("q two"))).tool_calls,
    ],
}
# distinct requests per style (identical requests in a batch are distinct occurrences)
DISTINCT = {"batch": 3}


@pytest.mark.parametrize("style", sorted(SYNC_STYLES))
def test_llm_styles_replay_sync(saver: ActionSaver, tmp_path: Path, style: str) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    crash = Once()

    def node(state: OutState) -> dict[str, Any]:
        results = SYNC_STYLES[style](model)
        crash()
        return {"out": [show(r) for r in results]}

    graph = single_node(node).compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(Crash):
        graph.invoke({"out": []}, cfg)
    expected_calls = DISTINCT.get(style, 2)
    assert calls_in(calls) == expected_calls
    out = graph.invoke(None, cfg)
    assert calls_in(calls) == expected_calls  # nothing executed twice
    # same results as a crash-free run on a fresh thread (which calls the model again)
    control = single_node(lambda s: {"out": [show(r) for r in SYNC_STYLES[style](model)]}).compile(
        checkpointer=saver
    )
    assert control.invoke({"out": []}, cfg_for(ActionCallbackHandler(saver)))["out"] == out["out"]
    rows = saver.list_actions(cfg["configurable"]["thread_id"], action_type="llm_completion")
    assert len(rows) == expected_calls
    assert all(r.status == "completed" and r.replayed == 1 for r in rows)


async def _astream_text(m: ScriptedChatModel, q: str) -> str:
    return "".join([str(c.content) async for c in m.astream(q)])


ASYNC_STYLES: dict[str, Callable[[ScriptedChatModel], Any]] = {
    "ainvoke": lambda m: _gather(m.ainvoke("q one"), m.ainvoke("q two")),
    "abatch": lambda m: m.abatch(["q one", "q two", "q one"]),
    "bind_tools": lambda m: _gather(m.bind_tools([lookup]).ainvoke("q one"), m.ainvoke("q two")),
    "with_structured_output": lambda m: _gather(
        m.with_structured_output(Plan).ainvoke("q one"), m.ainvoke("q two")
    ),
    "astream": lambda m: _gather(_astream_text(m, "q one"), _astream_text(m, "q two")),
}


async def _gather(*aws: Any) -> list[Any]:
    return [await a for a in aws]  # sequential: occurrence order stays deterministic


@pytest.mark.parametrize("style", sorted(ASYNC_STYLES))
async def test_llm_styles_replay_async(
    asaver: AsyncActionSaver, tmp_path: Path, style: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    crash = Once()

    async def node(state: OutState) -> dict[str, Any]:
        results = await ASYNC_STYLES[style](model)
        crash()
        return {"out": [show(r) for r in results]}

    graph = single_node(node).compile(checkpointer=asaver)
    cfg = cfg_for(AsyncActionCallbackHandler(asaver))
    with pytest.raises(Crash):
        await graph.ainvoke({"out": []}, cfg)
    expected_calls = DISTINCT.get(style.replace("abatch", "batch"), 2)
    assert calls_in(calls) == expected_calls
    out = await graph.ainvoke(None, cfg)
    assert calls_in(calls) == expected_calls
    assert len(out["out"]) == (3 if style == "abatch" else 2)
    rows = await asaver.alist_actions(
        cfg["configurable"]["thread_id"], action_type="llm_completion"
    )
    assert len(rows) == expected_calls and all(r.replayed == 1 for r in rows)


def test_streaming_model_under_stream_mode_messages(saver: ActionSaver, tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls), streaming=True)
    crash = Once()

    def node(state: MessagesState) -> dict[str, Any]:
        a = model.invoke([HumanMessage("tell me a long story please")])
        b = model.invoke([HumanMessage("and another one")])
        crash()
        return {"messages": [a, b]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    first: list[Any] = []
    with pytest.raises(Crash):
        for chunk, _meta in graph.stream({"messages": []}, cfg, stream_mode="messages"):
            first.append(chunk)
    assert len(first) > 2  # token chunks were streamed live
    assert calls_in(calls) == 2
    replayed = [c for c, _ in graph.stream(None, cfg, stream_mode="messages")]
    # Under stream_mode="messages" LangGraph runs the task on a worker and stores
    # even a BaseException as the task's error, so the rule "the last completion
    # of a failed task is asked again" applies: call 1 is replayed, call 2 re-asked.
    seeds = [c["seed"] for c in read_calls(str(calls))]
    assert len(seeds) == 3 and seeds[2] == seeds[1]
    rows = saver.list_actions(cfg["configurable"]["thread_id"], action_type="llm_completion")
    # call 2's row is on its second attempt, replayable again (the new answer)
    assert [(r.replayed, r.attempt, r.replayable) for r in rows] == [(1, 1, True), (0, 2, True)]
    # the replayed completion is emitted whole, the live one token by token
    whole = [m for m in replayed if str(m.content) == str(rows[0].output.content)]
    assert len(whole) == 1
    final = graph.get_state(cfg).values["messages"]
    assert [m.content for m in final] == [rows[0].output.content, rows[1].output.content]


# ------------------------------------------------------------------------ tools


class Effects:
    """Tool side effects, counted per tool."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.crash_b = Once()

    def tools(self) -> list[BaseTool]:
        @tool
        def tool_a(x: str) -> str:
            """Tool A."""
            self.log.append("a")
            return f"a({x})"

        @tool
        def tool_b(y: str) -> str:
            """Tool B (the process dies in it the first time)."""
            self.log.append("b")
            self.crash_b()
            return f"b({y})"

        return [tool_a, tool_b]


def _agent_graph(model: Any, tools: list[BaseTool]) -> StateGraph[Any]:
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder


def _make_agent(kind: str, model: Any, tools: list[BaseTool], saver: ActionSaver) -> Any:
    if kind == "toolnode":
        return _agent_graph(model, tools).compile(checkpointer=saver)
    if kind == "create_agent":
        from langchain.agents import create_agent

        return create_agent(model, tools, checkpointer=saver)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools, checkpointer=saver)


@pytest.mark.parametrize("kind", ["toolnode", "create_agent", "create_react_agent"])
def test_tool_calls_replay(saver: ActionSaver, tmp_path: Path, kind: str) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls), tool_calls_per_turn=2)
    fx = Effects()
    graph = _make_agent(kind, model, fx.tools(), saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(Crash):
        graph.invoke({"messages": [HumanMessage("use both tools")]}, cfg)
    assert sorted(fx.log) == ["a", "b"]
    out = graph.invoke(None, cfg)
    assert sorted(fx.log) == ["a", "b", "b"]  # a never ran again; b had crashed
    assert calls_in(calls) == 2  # the tool-calling turn was replayed, the answer is new
    asked = {c["name"]: c["args"] for c in out["messages"][1].tool_calls}
    tool_msgs = sorted(str(m.content) for m in out["messages"] if m.type == "tool")
    assert tool_msgs == [f"a({asked['tool_a']['x']})", f"b({asked['tool_b']['y']})"]
    # a crash-free run ends in the same messages (ids aside)
    calm = Effects()
    calm.crash_b.armed = False
    control = _make_agent(kind, model, calm.tools(), saver)
    other = control.invoke(
        {"messages": [HumanMessage("use both tools")]}, cfg_for(ActionCallbackHandler(saver))
    )
    assert [show(m) for m in other["messages"]] == [show(m) for m in out["messages"]]


def test_tools_invoked_directly_in_a_node(saver: ActionSaver) -> None:
    fx = Effects()
    tool_a, tool_b = fx.tools()
    fx.crash_b.armed = False
    crash = Once()

    def node(state: OutState) -> dict[str, Any]:
        a = tool_a.invoke({"x": "1"})
        b = tool_b.invoke({"y": "2"})
        a2 = tool_a.invoke({"x": "1"})  # same request again: its own occurrence
        crash()
        return {"out": [a, b, a2]}

    graph = single_node(node).compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(Crash):
        graph.invoke({"out": []}, cfg)
    assert fx.log == ["a", "b", "a"]
    assert graph.invoke(None, cfg)["out"] == ["a(1)", "b(2)", "a(1)"]
    assert fx.log == ["a", "b", "a"]
    rows = saver.list_actions(cfg["configurable"]["thread_id"], action_type="tool_call")
    assert [(r.name, r.replayed) for r in rows] == [("tool_a", 1), ("tool_b", 1), ("tool_a", 1)]
    assert rows[0].action_id != rows[2].action_id


async def test_tools_invoked_directly_async(asaver: AsyncActionSaver) -> None:
    fx = Effects()
    tool_a, tool_b = fx.tools()
    fx.crash_b.armed = False
    crash = Once()

    async def node(state: OutState) -> dict[str, Any]:
        a = await tool_a.ainvoke({"x": "1"})
        b = await tool_b.ainvoke({"y": "2"})
        crash()
        return {"out": [a, b]}

    graph = single_node(node).compile(checkpointer=asaver)
    cfg = cfg_for(AsyncActionCallbackHandler(asaver))
    with pytest.raises(Crash):
        await graph.ainvoke({"out": []}, cfg)
    assert (await graph.ainvoke(None, cfg))["out"] == ["a(1)", "b(2)"]
    assert fx.log == ["a", "b"]


# ---------------------------------------------------------------------- @action


@pytest.mark.parametrize("idempotent", [True, False])
def test_action_decorator_sync(saver: ActionSaver, idempotent: bool) -> None:
    ran: list[int] = []

    @action(idempotent=idempotent)
    def side_effect(n: int) -> dict[str, int]:
        ran.append(n)
        return {"n": n, "square": n * n}

    crash = Once()

    def node(state: OutState) -> dict[str, Any]:
        results = [side_effect(2), side_effect(3)]
        crash()
        return {"out": [repr(r) for r in results]}

    graph = single_node(node).compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(Crash):
        graph.invoke({"out": []}, cfg)
    out = graph.invoke(None, cfg)
    assert ran == [2, 3]
    assert out["out"] == [repr({"n": 2, "square": 4}), repr({"n": 3, "square": 9})]
    rows = saver.list_actions(cfg["configurable"]["thread_id"], action_type="function")
    assert [(r.status, r.idempotent, r.replayed) for r in rows] == [
        ("completed", idempotent, 1),
        ("completed", idempotent, 1),
    ]
    # outside any graph the function just runs
    assert side_effect(5) == {"n": 5, "square": 25} and ran[-1] == 5


@pytest.mark.parametrize("idempotent", [True, False])
async def test_action_decorator_async(asaver: AsyncActionSaver, idempotent: bool) -> None:
    ran: list[int] = []

    @action(idempotent=idempotent, name="charge")
    async def charge(amount: int) -> str:
        ran.append(amount)
        return f"charged {amount}"

    crash = Once()

    async def node(state: OutState) -> dict[str, Any]:
        results = [await charge(10), await charge(20)]
        crash()
        return {"out": results}

    graph = single_node(node).compile(checkpointer=asaver)
    cfg = cfg_for(AsyncActionCallbackHandler(asaver))
    with pytest.raises(Crash):
        await graph.ainvoke({"out": []}, cfg)
    out = await graph.ainvoke(None, cfg)
    assert ran == [10, 20]
    assert out["out"] == ["charged 10", "charged 20"]
    rows = await asaver.alist_actions(cfg["configurable"]["thread_id"], action_type="function")
    assert [(r.name, r.idempotent) for r in rows] == [("charge", idempotent)] * 2


# ------------------------------------------------------------- what is not replayed


def test_other_checkpointer_is_untouched(saver: ActionSaver, tmp_path: Path) -> None:
    """A graph compiled with InMemorySaver in the same process: no replay, no rows."""
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    crash = Once()

    def node(state: OutState) -> dict[str, Any]:
        results = [model.invoke("q one"), model.invoke("q two")]
        crash()
        return {"out": [show(r) for r in results]}

    graph = single_node(node).compile(checkpointer=InMemorySaver())
    for n, handler in enumerate((None, ActionCallbackHandler(saver))):
        crash.armed = True
        cfg = cfg_for(handler)
        with pytest.raises(Crash):
            graph.invoke({"out": []}, cfg)
        graph.invoke(None, cfg)
        assert calls_in(calls) == 4 * (n + 1)  # executed again: no replay for this graph
        rows = saver.list_actions(cfg["configurable"]["thread_id"])
        if handler is None:
            assert rows == []  # the hooks stayed inert
        else:  # our handler records what it sees, but nothing is ever served
            llm = [r for r in rows if r.action_type == "llm_completion"]
            assert len(llm) == 4
            assert all(not r.replayable and r.replayed == 0 for r in llm)


def test_durability_exit_runs_but_promises_no_replay(saver: ActionSaver, tmp_path: Path) -> None:
    """``durability="exit"``: nothing is saved before the run ends, so a crash loses
    the run and replay cannot help (documented). It must still work, and must not
    wait for checkpoints that are only written at exit."""
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    crash = Once()

    def step(name: str) -> Callable[[OutState], dict[str, Any]]:
        def node(state: OutState) -> dict[str, Any]:
            return {"out": [show(model.invoke(f"q {name}"))]}

        return node

    builder = StateGraph(OutState)
    for name in ("a", "b", "c"):
        builder.add_node(name, step(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")

    def last(state: OutState) -> dict[str, Any]:
        crash()
        return {}

    builder.add_node("last", last)
    builder.add_edge("c", "last")
    graph = builder.compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    t0 = time.monotonic()
    with pytest.raises(Crash):
        graph.invoke({"out": []}, cfg, durability="exit")
    assert time.monotonic() - t0 < saver.durable_timeout  # no per-task durability wait
    out = graph.invoke(None, cfg, durability="exit")  # no crash; no replay guarantee
    assert out is None or isinstance(out, dict)
    t0 = time.monotonic()
    done = graph.invoke({"out": []}, cfg_for(ActionCallbackHandler(saver)), durability="exit")
    assert time.monotonic() - t0 < saver.durable_timeout
    assert len(done["out"]) == 3


def test_ordinary_exception_reasks_last_completion(saver: ActionSaver, tmp_path: Path) -> None:
    """The rule: a node that failed with an exception may have failed *because of*
    its last LLM answer, so that one is asked again; earlier ones are replayed."""
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    fail = [True]

    def node(state: OutState) -> dict[str, Any]:
        a, b = model.invoke("q one"), model.invoke("q two")
        if fail[0]:
            fail[0] = False
            raise ValueError("bad answer")
        return {"out": [show(a), show(b)]}

    graph = single_node(node).compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(ValueError):
        graph.invoke({"out": []}, cfg)
    graph.invoke(None, cfg)
    seeds = [c["seed"] for c in read_calls(str(calls))]
    assert len(seeds) == 3 and seeds[1] == seeds[2]  # "q two" asked twice, "q one" once


def _flaky_script() -> Callable[[list[BaseMessage], dict[str, Any]], AIMessage]:
    answers = iter(["BAD", "GOOD", "GOOD", "GOOD"])
    return lambda messages, kwargs: AIMessage(content=next(answers))


def test_failed_attempt_output_not_replayed_into_retry(saver: ActionSaver, tmp_path: Path) -> None:
    """RetryPolicy: the answer that made attempt 1 fail is not served to attempt 2."""
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls), script=_flaky_script())
    attempts: list[str] = []

    def node(state: OutState) -> dict[str, Any]:
        answer = str(model.invoke("decide").content)
        attempts.append(answer)
        if answer == "BAD":
            raise ValueError("the model said BAD")
        return {"out": [answer]}

    builder = StateGraph(OutState)
    policy = RetryPolicy(max_attempts=3, initial_interval=0, retry_on=ValueError)
    builder.add_node("node", node, retry_policy=policy)
    builder.add_edge(START, "node")
    graph = builder.compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver))
    assert graph.invoke({"out": []}, cfg)["out"] == ["GOOD"]
    assert attempts == ["BAD", "GOOD"]
    assert calls_in(calls) == 2

    # without a retry policy: the failed run, resumed, asks the model again
    model2 = ScriptedChatModel(calls_file=str(tmp_path / "c2.jsonl"), script=_flaky_script())
    attempts.clear()

    def node2(state: OutState) -> dict[str, Any]:
        answer = str(model2.invoke("decide").content)
        attempts.append(answer)
        if answer == "BAD":
            raise ValueError("the model said BAD")
        return {"out": [answer]}

    graph2 = single_node(node2).compile(checkpointer=saver)
    cfg2 = cfg_for(ActionCallbackHandler(saver))
    with pytest.raises(ValueError):
        graph2.invoke({"out": []}, cfg2)
    assert graph2.invoke(None, cfg2)["out"] == ["GOOD"]
    assert attempts == ["BAD", "GOOD"]
    row = saver.list_actions(cfg2["configurable"]["thread_id"], action_type="llm_completion")
    # one action, asked twice: its row now holds attempt 2's answer
    assert [(r.attempt, r.output.content, r.replayable) for r in row] == [(2, "GOOD", True)]


# ------------------------------------------------------------------------ lease


def _lease_worker(
    dsn: str,
    schema: str,
    thread_id: str,
    lease: str,
    calls: str,
    effects: str,
    barrier: Any,
    results: Any,
    text: str,
) -> None:
    """One of two processes started on the same thread at once."""
    model = ScriptedChatModel(calls_file=calls)

    @tool
    def record(item: str) -> str:
        """Side effect: append to a file."""
        with open(effects, "a", encoding="utf-8") as fh:
            fh.write(f"{item}\n")
        return f"recorded {item}"

    def node(state: MessagesState) -> dict[str, Any]:
        a = model.invoke(state["messages"])
        time.sleep(0.3)  # keep the thread busy long enough for the other process to collide
        b = model.invoke([*state["messages"], a, HumanMessage("more")])
        r = record.invoke({"item": str(b.content)})
        return {"messages": [a, b, AIMessage(content=r)]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    with ActionSaver.from_conn_string(dsn, schema=schema, lease=lease) as saver:
        graph = builder.compile(checkpointer=saver)
        cfg = cfg_for(ActionCallbackHandler(saver), thread_id)
        barrier.wait()
        try:
            graph.invoke({"messages": [HumanMessage(text)]}, cfg)
            results.put(("ok", os.getpid()))
        except ThreadBusyError as exc:
            results.put(("busy", exc.thread_id))


@pytest.mark.parametrize("lease", ["wait", "error"])
def test_lease_two_processes_one_thread(
    saver: ActionSaver, dsn: str, schema: str, tmp_path: Path, lease: str
) -> None:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    results = ctx.Queue()
    thread_id = f"lease-{uuid.uuid4().hex[:8]}"
    calls, effects = str(tmp_path / "calls.jsonl"), str(tmp_path / "effects.txt")
    procs = [
        ctx.Process(
            target=_lease_worker,
            args=(dsn, schema, thread_id, lease, calls, effects, barrier, results, "same input"),
        )
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    outcomes = sorted(results.get(timeout=5)[0] for _ in procs)
    seeds = [c["seed"] for c in read_calls(calls)]
    lines = Path(effects).read_text().splitlines()
    assert len(seeds) == len(set(seeds))  # no model call executed twice
    assert len(lines) == len(set(lines))  # no side effect executed twice
    messages = saver.get_tuple(cfg_for(None, thread_id))
    assert messages is not None
    state = messages.checkpoint["channel_values"]["messages"]
    if lease == "wait":
        # the second process waited, then ran its own turn on top of the first's state
        assert outcomes == ["ok", "ok"]
        assert len(seeds) == 4 and len(lines) == 2
        assert [m.type for m in state] == ["human", "ai", "ai", "ai"] * 2
    else:
        assert outcomes == ["busy", "ok"]
        assert len(seeds) == 2 and len(lines) == 1
        assert [m.type for m in state] == ["human", "ai", "ai", "ai"]


def test_lease_released_after_run_and_on_release_all(saver: ActionSaver, dsn: str) -> None:
    from langgraph_actionckpt.db import lease as _lease

    graph = single_node(lambda s: {"out": ["x"]}).compile(checkpointer=saver)
    cfg = cfg_for(ActionCallbackHandler(saver), "lease-free")
    graph.invoke({"out": []}, cfg)
    assert not _lease.holds(saver, "lease-free")  # released when the root run ended
    saver.lease_mode = "error"
    with ActionSaver.from_conn_string(dsn, schema=saver.schema, lease="error") as other:
        assert _lease.acquire(other, "lease-free")
        with pytest.raises(ThreadBusyError):
            graph.invoke({"out": []}, cfg_for(ActionCallbackHandler(saver), "lease-free"))
        assert _lease.release_all(other) == 1
    graph.invoke({"out": []}, cfg_for(ActionCallbackHandler(saver), "lease-free"))
