"""Issue 17: fork a thread at an action, as if that action had answered differently.

A node makes three LLM calls in sequence, each seeing the previous answer. The
run completes; the thread is forked at the second call with another answer and
the new thread is resumed: the first call is served from the log (the model is
not called), the second returns the edited answer, the third sees it and runs
live. The source thread's rows are byte-equal before and after.
"""

from __future__ import annotations

import datetime as dt
import json
import operator
import uuid
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from psycopg import sql
from typer.testing import CliRunner
from typing_extensions import TypedDict

from examples.fake_openai.models import ScriptedChatModel
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    ConfigurationError,
)
from langgraph_actionckpt.actions.record import COLUMNS, ActionRecord
from langgraph_actionckpt.checkpoints.fork import edited_output, enclosing_tasks, plan_fork
from langgraph_actionckpt.db.driver import BEGIN, COMMIT
from langgraph_actionckpt.db.encoding import to_jsonable
from langgraph_actionckpt.ops.cli import app

from .conftest import fetch
from .test_plans import AQ, Q, drive, named, replies

runner = CliRunner()


class OutState(TypedDict):
    out: Annotated[list[str], operator.add]


class Model:
    """A scripted model that records every real call (the messages it was sent)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.llm = ScriptedChatModel(script=self._answer)

    def _answer(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        seen = [str(m.content) for m in messages]
        self.calls.append(seen)
        return AIMessage(content=f"answer {len(self.calls)} to [{seen[-1]}]")


def three_calls_graph(model: Model) -> StateGraph[Any]:
    """One node, three LLM calls in sequence; each sees the previous answer."""

    def node(state: OutState) -> dict[str, Any]:
        first = model.llm.invoke([HumanMessage("plan the trip")])
        second = model.llm.invoke([HumanMessage("pick a city"), first])
        third = model.llm.invoke([HumanMessage("book a hotel"), second])
        return {"out": [str(first.content), str(second.content), str(third.content)]}

    async def anode(state: OutState) -> dict[str, Any]:
        first = await model.llm.ainvoke([HumanMessage("plan the trip")])
        second = await model.llm.ainvoke([HumanMessage("pick a city"), first])
        third = await model.llm.ainvoke([HumanMessage("book a hotel"), second])
        return {"out": [str(first.content), str(second.content), str(third.content)]}

    builder = StateGraph(OutState)
    builder.add_node("trip", _either(node, anode))
    builder.add_edge(START, "trip")
    builder.add_edge("trip", END)
    return builder


def _either(sync_fn: Any, async_fn: Any) -> Any:
    from langchain_core.runnables import RunnableLambda

    return RunnableLambda(sync_fn, afunc=async_fn)


def snapshot(dsn: str, schema: str, thread_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of a thread, in a stable order (what "untouched" is checked against)."""
    orders = {
        "checkpoints": "checkpoint_ns, checkpoint_id",
        "blobs": "checkpoint_ns, channel, version",
        "writes": "checkpoint_ns, checkpoint_id, task_id, idx",
        "actions": "step_index",
    }
    return {
        table: fetch(
            dsn,
            sql.SQL("SELECT * FROM {} WHERE thread_id = %s ORDER BY {}").format(
                sql.Identifier(schema, table), sql.SQL(order)
            ),
            (thread_id,),
        )
        for table, order in orders.items()
    }


def check_fork_result(
    model: Model,
    source: list[ActionRecord],
    forked: list[ActionRecord],
    result: dict[str, Any],
    first_answer: str,
) -> None:
    """The assertions of the three-call fork, shared by the sync and async tests."""
    # only the third call reached the model, and it saw the edited answer
    assert len(model.calls) == 1, model.calls
    assert model.calls[0] == ["book a hotel", "Lyon, obviously"]
    assert result["out"] == [first_answer, "Lyon, obviously", "answer 1 to [Lyon, obviously]"]
    # the new thread's log: call 1 served, call 2 edited and served, call 3 live
    assert [a.status for a in forked] == ["completed"] * 3
    assert forked[0].action_id == source[0].action_id and forked[0].replayed == 1
    assert forked[1].action_id == source[1].action_id and forked[1].replayed == 1
    assert isinstance(forked[1].output, AIMessage)
    assert forked[1].output.content == "Lyon, obviously"
    assert forked[1].meta["forked_from"] == {
        "thread_id": source[1].thread_id,
        "action_id": source[1].action_id,
    }
    assert forked[2].action_id != source[2].action_id  # another request: a new action
    assert forked[2].replayed == 0 and forked[2].output.content == result["out"][2]
    assert all(a.task_id == source[0].task_id for a in forked)  # the same task, re-run


def test_fork_three_calls_sync(saver: ActionSaver, dsn: str, schema: str) -> None:
    model = Model()
    graph = three_calls_graph(model).compile(checkpointer=saver)
    thread = f"trip-{uuid.uuid4().hex[:8]}"
    first = graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    assert len(model.calls) == 3
    source = saver.list_actions(thread, action_type="llm_completion")
    assert len(source) == 3
    before = snapshot(dsn, schema, thread)

    new = saver.fork_at_action(thread, source[1].action_id, output="Lyon, obviously")
    assert new != thread
    model.calls.clear()
    # with the callback handler: its rows join the served ones (meta.forked_from stays)
    handler = ActionCallbackHandler(saver)
    result = graph.invoke(None, {"configurable": {"thread_id": new}, "callbacks": [handler]})

    forked = saver.list_actions(new, action_type="llm_completion")
    check_fork_result(model, source, forked, result, first["out"][0])
    assert snapshot(dsn, schema, thread) == before
    # the new thread's history ends where the source's did: one more run of the node
    assert [n.status for n in saver.list_actions(new, action_type="node")] == ["completed"]
    assert graph.get_state({"configurable": {"thread_id": new}}).values == result


async def test_fork_three_calls_async(asaver: AsyncActionSaver, dsn: str, schema: str) -> None:
    model = Model()
    graph = three_calls_graph(model).compile(checkpointer=asaver)
    thread = f"trip-{uuid.uuid4().hex[:8]}"
    first = await graph.ainvoke({"out": []}, {"configurable": {"thread_id": thread}})
    source = await asaver.alist_actions(thread, action_type="llm_completion")
    assert len(source) == 3
    before = snapshot(dsn, schema, thread)

    edited = AIMessage(content="Lyon, obviously")
    new = await asaver.afork_at_action(
        thread, source[1].action_id, output=edited, new_thread_id=f"{thread}-lyon"
    )
    assert new == f"{thread}-lyon"
    model.calls.clear()
    handler = AsyncActionCallbackHandler(asaver)
    result = await graph.ainvoke(None, {"configurable": {"thread_id": new}, "callbacks": [handler]})

    forked = await asaver.alist_actions(new, action_type="llm_completion")
    check_fork_result(model, source, forked, result, first["out"][0])
    assert snapshot(dsn, schema, thread) == before


def test_fork_twins(saver: ActionSaver) -> None:
    """The sync saver's async twin (in a worker thread) forks too."""
    import asyncio

    model = Model()
    graph = three_calls_graph(model).compile(checkpointer=saver)
    thread = f"trip-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    source = saver.list_actions(thread, action_type="llm_completion")
    new = asyncio.run(saver.afork_at_action(thread, source[2].action_id, output="done"))
    model.calls.clear()
    result = graph.invoke(None, {"configurable": {"thread_id": new}})
    assert model.calls == []  # calls 1 and 2 served, call 3 edited: nothing live
    assert result["out"][2] == "done"


# ------------------------------------------------------------------- tools


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    WEATHER_CALLS.append(city)
    return f"sunny in {city}"


WEATHER_CALLS: list[str] = []


def test_fork_at_a_tool_call(saver: ActionSaver) -> None:
    model = Model()

    def node(state: OutState) -> dict[str, Any]:
        report = weather.invoke({"city": "Lyon"})
        advice = model.llm.invoke([HumanMessage("what to wear?"), HumanMessage(report)])
        return {"out": [report, str(advice.content)]}

    builder = StateGraph(OutState)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    graph = builder.compile(checkpointer=saver)
    thread = f"w-{uuid.uuid4().hex[:8]}"
    WEATHER_CALLS.clear()
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    (call,) = saver.list_actions(thread, action_type="tool_call")

    new = saver.fork_at_action(thread, call.action_id, output="snow in Lyon")
    model.calls.clear()
    result = graph.invoke(None, {"configurable": {"thread_id": new}})
    assert WEATHER_CALLS == ["Lyon"]  # the tool ran once, in the source thread only
    assert result["out"] == ["snow in Lyon", "answer 1 to [snow in Lyon]"]
    assert model.calls == [["what to wear?", "snow in Lyon"]]


def test_edited_output_forms() -> None:
    llm = ActionRecord(thread_id="t", action_id="a", action_type="llm_completion")
    assert edited_output(llm, "hi") == AIMessage(content="hi")
    message = AIMessage(content="x", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])
    assert edited_output(llm, message) is message
    with pytest.raises(ConfigurationError, match="AIMessage or a string"):
        edited_output(llm, {"content": "x"})
    with pytest.raises(ConfigurationError, match="new output"):
        edited_output(llm, None)
    logged = ToolMessage(content="err", tool_call_id="c9", name="f", status="error")
    tool_row = ActionRecord(thread_id="t", action_id="a", action_type="tool_call", output=logged)
    out = edited_output(tool_row, {"ok": 1})
    assert isinstance(out, ToolMessage)
    assert (out.tool_call_id, out.name, out.status) == ("c9", "f", "success")
    assert json.loads(str(out.content)) == {"ok": 1}
    fn_row = ActionRecord(thread_id="t", action_id="a", action_type="function", output=1)
    assert edited_output(fn_row, {"n": 2}) == {"n": 2}


def test_enclosing_tasks() -> None:
    assert enclosing_tasks("") == []
    assert enclosing_tasks("outer:1a2b") == ["1a2b"]
    assert enclosing_tasks("outer:1a2b|inner:3c4d") == ["1a2b", "3c4d"]


# ------------------------------------------------------------------ errors


@pytest.fixture
def ran(saver: ActionSaver) -> tuple[str, list[ActionRecord]]:
    """A finished three-call thread and its LLM actions."""
    graph = three_calls_graph(Model()).compile(checkpointer=saver)
    thread = f"trip-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    return thread, saver.list_actions(thread, action_type="llm_completion")


def test_fork_errors(saver: ActionSaver, ran: tuple[str, list[ActionRecord]]) -> None:
    thread, acts = ran
    aid = acts[0].action_id
    with pytest.raises(ConfigurationError, match="no action"):
        saver.fork_at_action("no-such-thread", aid, output="x")
    with pytest.raises(ConfigurationError, match="no action"):
        saver.fork_at_action(thread, "no-such-action", output="x")
    (node,) = saver.list_actions(thread, action_type="node")
    with pytest.raises(ConfigurationError, match="'node' row"):
        saver.fork_at_action(thread, node.action_id, output="x")
    saver.fork_at_action(thread, aid, output="x", new_thread_id=thread + "-b")
    with pytest.raises(ConfigurationError, match="already exists"):
        saver.fork_at_action(thread, aid, output="y", new_thread_id=thread + "-b")
    with pytest.raises(ConfigurationError, match="new thread id"):
        saver.fork_at_action(thread, aid, output="x", new_thread_id=thread)
    with pytest.raises(ConfigurationError, match="AIMessage or a string"):
        saver.fork_at_action(thread, aid, output=42)
    # an action that is not completed
    saver.record_actions(
        [
            ActionRecord(
                thread_id=thread,
                action_id="open-call",
                action_type="tool_call",
                status="running",
                task_id=acts[0].task_id,
                checkpoint_id=acts[0].checkpoint_id,
            )
        ]
    )
    with pytest.raises(ConfigurationError, match="'running', not completed"):
        saver.fork_at_action(thread, "open-call", output="x")
    # an action outside any task
    saver.record_actions(
        [
            ActionRecord(
                thread_id=thread, action_id="loose", action_type="function", status="completed"
            )
        ]
    )
    with pytest.raises(ConfigurationError, match="not taken inside a checkpointed"):
        saver.fork_at_action(thread, "loose", output="x")
    # a failed fork wrote nothing
    assert saver.list_actions("no-such-thread") == []
    assert saver.get_tuple({"configurable": {"thread_id": thread}}) is not None


def test_fork_after_the_checkpoint_was_pruned(
    saver: ActionSaver, ran: tuple[str, list[ActionRecord]]
) -> None:
    thread, acts = ran
    saver.prune([thread], strategy="delete")
    with pytest.raises(ConfigurationError, match="is not stored"):
        saver.fork_at_action(thread, acts[1].action_id, output="x", new_thread_id="p-1")
    assert saver.list_actions("p-1") == []


# --------------------------------------------------------------------- CLI


def test_cli_fork(
    saver: ActionSaver, ran: tuple[str, list[ActionRecord]], dsn: str, schema: str, tmp_path: Path
) -> None:
    thread, acts = ran
    base = ["--dsn", dsn, "--schema", schema]
    res = runner.invoke(
        app, ["fork", thread, acts[1].action_id, "--output", "Lyon, obviously", *base]
    )
    assert res.exit_code == 0, res.output
    new = res.stdout.strip()
    assert saver.get_action(new, acts[1].action_id).output.content == "Lyon, obviously"  # type: ignore[union-attr]

    answer = tmp_path / "answer.txt"
    answer.write_text("Paris, then", encoding="utf-8")
    res = runner.invoke(
        app,
        [
            *("--json", "fork", thread, acts[1].action_id),
            *("--output-file", str(answer), "--new-thread", "cli-paris", *base),
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc == {"thread_id": "cli-paris", "forked_from": thread, "action_id": acts[1].action_id}
    model = Model()
    graph = three_calls_graph(model).compile(checkpointer=saver)
    result = graph.invoke(None, {"configurable": {"thread_id": "cli-paris"}})
    assert result["out"][1:] == ["Paris, then", "answer 1 to [Paris, then]"]

    # errors: the same thread id again, a missing action, no output
    res = runner.invoke(
        app,
        ["fork", thread, acts[1].action_id, "--output", "x", "--new-thread", "cli-paris", *base],
    )
    assert res.exit_code == 1 and "already exists" in res.stderr
    res = runner.invoke(app, ["--json", "fork", thread, "nope", "--output", "x", *base])
    assert res.exit_code == 1 and json.loads(res.stdout)["type"] == "ConfigurationError"
    res = runner.invoke(app, ["fork", thread, acts[1].action_id, *base])
    assert res.exit_code == 2 and "--output" in res.output
    res = runner.invoke(app, ["fork", thread, acts[1].action_id, "--output-json", "{x", *base])
    assert res.exit_code == 2 and "not JSON" in res.output
    # structured output: an LLM completion takes text only, and says so
    res = runner.invoke(app, ["fork", thread, acts[1].action_id, "--output-json", "[1]", *base])
    assert res.exit_code == 1 and "AIMessage or a string" in res.stderr


def test_fork_inside_a_subgraph(saver: ActionSaver, dsn: str, schema: str) -> None:
    """A later node of the parent graph and a call inside a subgraph: only what follows reruns."""
    model = Model()

    def ask(prompt: str, state: OutState) -> dict[str, Any]:
        seen = [HumanMessage(prompt), *(AIMessage(x) for x in state["out"][-1:])]
        return {"out": [str(model.llm.invoke(seen).content)]}

    def inner(state: OutState) -> dict[str, Any]:
        first = model.llm.invoke([HumanMessage("inner 1")])
        second = model.llm.invoke([HumanMessage("inner 2"), first])
        return {"out": [str(first.content), str(second.content)]}

    sub = StateGraph(OutState)
    sub.add_node("inner", inner)
    sub.add_edge(START, "inner")
    sub.add_edge("inner", END)
    builder = StateGraph(OutState)
    builder.add_node("intro", lambda s: ask("intro", s))
    builder.add_node("sub", sub.compile())
    builder.add_node("outro", lambda s: ask("outro", s))
    builder.add_edge(START, "intro")
    builder.add_edge("intro", "sub")
    builder.add_edge("sub", "outro")
    builder.add_edge("outro", END)
    graph = builder.compile(checkpointer=saver)
    thread = f"sub-{uuid.uuid4().hex[:8]}"
    first = graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    assert len(model.calls) == 4
    llm = saver.list_actions(thread, action_type="llm_completion")
    target = next(
        a for a in llm if a.node == "inner" and a.input["messages"][0]["content"] == "inner 2"
    )
    assert target.checkpoint_ns.startswith("sub:")
    before = snapshot(dsn, schema, thread)

    new = saver.fork_at_action(thread, target.action_id, output="EDITED")
    model.calls.clear()
    result = graph.invoke(None, {"configurable": {"thread_id": new}})
    # intro is not run again, inner's first call is served, outro sees the edit
    assert model.calls == [["outro", "EDITED"]]
    assert result["out"] == [*first["out"][:-2], "EDITED", "answer 1 to [EDITED]"]
    assert snapshot(dsn, schema, thread) == before


# ------------------------------------------------------ the plan, fake rows


def db_row(record: ActionRecord) -> tuple[Any, ...]:
    """A record as ``SELECT <COLUMNS>`` returns it (JSON columns as psycopg decodes them)."""
    return tuple(
        to_jsonable(getattr(record, c))
        if c in ("input", "output", "error", "meta")
        else getattr(record, c)
        for c in COLUMNS
    )


LOGGED = ActionRecord(
    thread_id="t1",
    action_id="task-1:llm_completion:m:abc:0",
    action_type="llm_completion",
    status="completed",
    step_index=7,
    checkpoint_ns="outer:task-0",
    checkpoint_id="ckpt-3",
    task_id="task-1",
    output=AIMessage(content="Paris"),
    started_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
)


def test_plan_fork_copies_in_one_transaction() -> None:
    plan = plan_fork(Q, AQ, "t1", LOGGED.action_id, "Lyon", "t2")
    ops, result = drive(plan, replies(db_row(LOGGED), (True, False)))
    assert result == "t2"
    assert ops[1] is BEGIN and ops[-1] is COMMIT
    params = named(ops[2])
    assert params["source"] == "t1" and params["target"] == "t2"
    assert params["checkpoint_id"] == "ckpt-3" and params["ns"] == "outer:task-0"
    assert params["skip_tasks"] == ["task-1", "task-0"]  # the task and the one enclosing it
    assert params["step_index"] == 7
    assert json.loads(params["meta"]) == {
        "forked_from": {"thread_id": "t1", "action_id": LOGGED.action_id}
    }
    # state check, three copies, blob collection, actions, the edit
    assert len(ops) == 2 + 1 + 3 + 1 + 1 + 1 + 1


@pytest.mark.parametrize(
    ("state", "match"), [((True, True), "already exists"), ((False, False), "is not stored")]
)
def test_plan_fork_refuses_before_any_write(state: tuple[bool, bool], match: str) -> None:
    plan = plan_fork(Q, AQ, "t1", LOGGED.action_id, "Lyon", "t2")
    ops: list[Any] = []

    def answer(op: Any) -> Any:
        ops.append(op)
        if op.fetch != "one":
            return None
        return db_row(LOGGED) if len(ops) == 1 else state

    with pytest.raises(ConfigurationError, match=match):
        drive(plan, answer)
    assert [op.fetch for op in ops] == ["one", "begin", "one"]  # the driver rolls back


def test_fork_beside_a_parallel_task(saver: ActionSaver) -> None:
    """A sibling task of the same superstep keeps its finished writes: it is not run again."""
    model = Model()

    def left(state: OutState) -> dict[str, Any]:
        first = model.llm.invoke([HumanMessage("left 1")])
        second = model.llm.invoke([HumanMessage("left 2"), first])
        return {"out": [f"L:{second.content}"]}

    def right(state: OutState) -> dict[str, Any]:
        return {"out": [f"R:{model.llm.invoke([HumanMessage('right')]).content}"]}

    builder = StateGraph(OutState)
    builder.add_node("left", left)
    builder.add_node("right", right)
    builder.add_node("join", lambda s: {"out": [" + ".join(sorted(s["out"]))]})
    builder.add_edge(START, "left")
    builder.add_edge(START, "right")
    builder.add_edge(["left", "right"], "join")
    builder.add_edge("join", END)
    graph = builder.compile(checkpointer=saver)
    thread = f"par-{uuid.uuid4().hex[:8]}"
    first = graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    assert len(model.calls) == 3
    calls = saver.list_actions(thread, action_type="llm_completion", node="left")
    new = saver.fork_at_action(thread, calls[1].action_id, output="EDITED")
    model.calls.clear()
    result = graph.invoke(None, {"configurable": {"thread_id": new}})
    assert model.calls == []  # left's first call served, its second edited, right not re-run
    right_out = next(x for x in first["out"] if x.startswith("R:"))
    assert sorted(result["out"][:2]) == sorted(["L:EDITED", right_out])
    assert result["out"][2] == " + ".join(sorted(["L:EDITED", right_out]))
    nodes = saver.list_actions(new, action_type="node", node="right")
    assert len(nodes) == 1  # the copied row of its one run


def test_cli_fork_a_tool_with_json(saver: ActionSaver, dsn: str, schema: str) -> None:
    """``--output-json``: a tool's structured result."""

    @tool
    def stock(item: str) -> dict[str, int]:
        """Units in stock."""
        return {"units": 3}

    def node(state: OutState) -> dict[str, Any]:
        return {"out": [json.dumps(stock.invoke({"item": "tent"}))]}

    builder = StateGraph(OutState)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    graph = builder.compile(checkpointer=saver)
    thread = f"s-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
    (call,) = saver.list_actions(thread, action_type="tool_call")
    res = runner.invoke(
        app,
        [
            *("fork", thread, call.action_id, "--output-json", '{"units": 0}'),
            *("--dsn", dsn, "--schema", schema),
        ],
    )
    assert res.exit_code == 0, res.output
    result = graph.invoke(None, {"configurable": {"thread_id": res.stdout.strip()}})
    assert json.loads(result["out"][0]) == {"units": 0}


def test_fork_of_an_encrypted_thread(dsn: str, schema: str) -> None:
    """With encryption on, the fork's copied rows and the edited output open at the new thread."""
    from langgraph_actionckpt.crypto import KeyRing

    ring = KeyRing({"k1": bytes(range(32))})
    with ActionSaver.from_conn_string(dsn, schema=schema, encryption=ring) as esaver:
        esaver.setup()
        model = Model()
        graph = three_calls_graph(model).compile(checkpointer=esaver)
        thread = f"sealed-{uuid.uuid4().hex[:8]}"
        first = graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
        source = esaver.list_actions(thread, action_type="llm_completion")
        new = esaver.fork_at_action(thread, source[1].action_id, output="Lyon, obviously")
        model.calls.clear()
        handler = ActionCallbackHandler(esaver)
        result = graph.invoke(None, {"configurable": {"thread_id": new}, "callbacks": [handler]})
        forked = esaver.list_actions(new, action_type="llm_completion")
        check_fork_result(model, source, forked, result, first["out"][0])
        # nothing of the edit is stored in plain text
        raw = fetch(
            dsn,
            sql.SQL("SELECT output::text FROM {} WHERE thread_id = %s").format(
                sql.Identifier(schema, "actions")
            ),
            (new,),
        )
        assert raw and not any("Lyon" in str(r) for r in raw)
