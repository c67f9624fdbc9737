"""Issue 4: the action log of a real agent graph, recorded by the callback handlers.

The graph: an ``agent`` node (a tool-calling :class:`ScriptedChatModel` with token
usage), a ``ToolNode`` with two tools (one raises), a conditional edge, and a
subgraph whose node calls the model again. Run sync (``ActionSaver`` +
``ActionCallbackHandler``) and async (``AsyncActionSaver`` +
``AsyncActionCallbackHandler``) on both servers.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from psycopg import sql
from pydantic import BaseModel

from examples.fake_openai.models import ScriptedChatModel
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionRecord,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    action,
    current_action,
)
from langgraph_actionckpt.actions.reads import records_from_jsonl

from .conftest import fetch

# The README query: which runs ended with a failed tool call, and with which error.
# "Ended with" = the thread's last action (highest step_index) is a failed tool call.
FAILED_TOOL_RUNS_SQL = """
SELECT last.thread_id,
       last.run_id,
       last.name               AS tool,
       last.error ->> 'message' AS error
FROM (
    SELECT DISTINCT ON (thread_id) *
    FROM {schema}.actions
    ORDER BY thread_id, step_index DESC
) AS last
WHERE last.action_type = 'tool_call'
  AND last.status = 'failed'
ORDER BY last.thread_id
"""


def failed_tool_runs_query(schema: str) -> sql.Composed:
    """:data:`FAILED_TOOL_RUNS_SQL` with the schema quoted as an identifier."""
    return sql.SQL(FAILED_TOOL_RUNS_SQL).format(schema=sql.Identifier(schema))


# ------------------------------------------------------------------------ graph

SEEN_ACTION_IDS: list[tuple[str, str | None]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    SEEN_ACTION_IDS.append(("add", current_action()))
    return a + b


@tool
def explode(reason: str) -> str:
    """A tool that always fails."""
    SEEN_ACTION_IDS.append(("explode", current_action()))
    raise ValueError(f"explode failed: {reason}")


def _route(state: MessagesState) -> str:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "summary"


def build_graph(*, is_async: bool, handle_errors: bool = True, tools: Sequence[Any] = ()) -> Any:
    """agent -> (tools -> agent)* -> summary subgraph (whose node calls the model) -> END."""
    tool_list = list(tools) or [add, explode]
    model = ScriptedChatModel(tool_calls_per_turn=len(tool_list))
    bound = model.bind_tools(tool_list)

    def summarize(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke([HumanMessage("summarize"), *state["messages"][-1:]])]}

    async def asummarize(state: MessagesState) -> dict[str, Any]:
        msg = await model.ainvoke([HumanMessage("summarize"), *state["messages"][-1:]])
        return {"messages": [msg]}

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    async def aagent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    sub = StateGraph(MessagesState)
    sub.add_node("summarize", asummarize if is_async else summarize)
    sub.add_edge(START, "summarize")
    sub.add_edge("summarize", END)

    builder = StateGraph(MessagesState)
    builder.add_node("agent", aagent if is_async else agent)
    builder.add_node("tools", ToolNode(tool_list, handle_tool_errors=handle_errors))
    builder.add_node("summary", sub.compile())
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", _route, ["tools", "summary"])
    builder.add_edge("tools", "agent")
    builder.add_edge("summary", END)
    return builder


def _config(handler: Any, thread_id: str | None = None) -> dict[str, Any]:
    return {
        "configurable": {"thread_id": thread_id or f"th-{uuid.uuid4().hex[:10]}"},
        "callbacks": [handler] if handler is not None else [],
    }


def _normalized(rows: Sequence[ActionRecord]) -> dict[str, list[Any]]:
    """Per kind, the (name, node) sequence in step_index order; parallel tool calls
    of one task sorted.

    Kinds are compared separately: node rows come from the saver's write
    path and llm/tool rows from the action writer, two queues whose interleaving
    in ``step_index`` is not deterministic (each one's own order is).
    """
    out: dict[str, list[Any]] = {}
    for r in rows:
        out.setdefault(r.action_type, []).append((r.task_id, r.name, r.node))
    tools = out.get("tool_call", [])
    by_task: dict[Any, list[Any]] = {}
    for task_id, name, node in tools:
        by_task.setdefault(task_id, []).append((name, node))
    out["tool_call"] = [sorted(v) for v in by_task.values()]
    for kind in ("node", "llm_completion"):
        out[kind] = [(name, node) for _, name, node in out.get(kind, [])]
    return out


def _check_log(rows: list[ActionRecord]) -> None:
    """Everything the brief asks the log to account for."""
    assert [r.step_index for r in rows] == sorted(r.step_index or 0 for r in rows)
    nodes = [r.name for r in rows if r.action_type == "node"]
    assert nodes == ["agent", "tools", "agent", "summary", "summarize"], nodes
    assert all(r.status == "completed" for r in rows if r.action_type == "node")

    llm = [r for r in rows if r.action_type == "llm_completion"]
    assert [r.node for r in llm] == ["agent", "agent", "summarize"]
    for r in llm:
        assert r.status == "completed"
        assert r.input_tokens and r.output_tokens and r.total_tokens
        assert r.total_tokens == r.input_tokens + r.output_tokens
        assert r.model == "scripted-1"
        assert isinstance(r.output, AIMessage)
        assert r.output.usage_metadata is not None
        assert r.output.usage_metadata["total_tokens"] == r.total_tokens
        assert r.replayable and r.replayed == 0
    # the first completion asked for both tools; its tool calls are stored intact
    calls = {tc["name"]: tc for tc in llm[0].output.tool_calls}
    assert set(calls) == {"add", "explode"}
    assert llm[2].agent_id == "summary"  # the subgraph's path

    tools = {r.name: r for r in rows if r.action_type == "tool_call"}
    assert set(tools) == {"add", "explode"}
    ok, bad = tools["add"], tools["explode"]
    assert ok.status == "completed"
    assert ok.input == calls["add"]["args"]
    assert isinstance(ok.output, ToolMessage)
    assert ok.output.content == str(calls["add"]["args"]["a"] + calls["add"]["args"]["b"])
    assert ok.meta["tool_call_id"] == calls["add"]["id"]
    assert ok.output.tool_call_id == calls["add"]["id"]
    assert bad.status == "failed"
    assert bad.input == calls["explode"]["args"]
    assert bad.error["type"] == "ValueError"
    assert bad.error["message"] == f"explode failed: {calls['explode']['args']['reason']}"
    assert bad.meta["tool_call_id"] == calls["explode"]["id"]
    assert [r.node for r in tools.values()] == ["tools", "tools"]

    # each node row carries its branch decision
    branches = [
        (r.node, r.output["routes"]) for r in rows if r.action_type == "node" and r.output["routes"]
    ]
    assert branches == [("agent", ["tools"]), ("tools", ["agent"]), ("agent", ["summary"])]

    statuses = {r.status for r in rows if r is not bad}
    assert statuses == {"completed"}


# ------------------------------------------------------------------------ tests


def test_sync_graph_log(saver: ActionSaver, dsn: str, schema: str) -> None:
    graph = build_graph(is_async=False).compile(checkpointer=saver)
    handler = ActionCallbackHandler(saver)
    SEEN_ACTION_IDS.clear()
    cfg = _config(handler)
    out = graph.invoke({"messages": [HumanMessage("add some numbers")]}, cfg)
    assert out["messages"][-1].content.startswith("answer-")
    thread_id = cfg["configurable"]["thread_id"]
    rows = saver.list_actions(thread_id)
    _check_log(rows)

    # current_action() inside each tool body was that tool's row
    ids = {r.name: r.action_id for r in rows if r.action_type == "tool_call"}
    assert sorted(SEEN_ACTION_IDS) == sorted(ids.items())

    # same graph, fresh thread: same normalized sequence
    cfg2 = _config(handler)
    graph.invoke({"messages": [HumanMessage("add some numbers")]}, cfg2)
    rows2 = saver.list_actions(cfg2["configurable"]["thread_id"])
    _check_log(rows2)
    assert _normalized(rows) == _normalized(rows2)

    # the run continued past the failed tool, so it did not *end* with it
    assert fetch(dsn, failed_tool_runs_query(schema).as_string(None)) == []


async def test_async_graph_log(asaver: AsyncActionSaver, dsn: str, schema: str) -> None:
    graph = build_graph(is_async=True).compile(checkpointer=asaver)
    handler = AsyncActionCallbackHandler(asaver)
    SEEN_ACTION_IDS.clear()
    cfg = _config(handler)
    out = await graph.ainvoke({"messages": [HumanMessage("add some numbers")]}, cfg)
    assert out["messages"][-1].content.startswith("answer-")
    rows = await asaver.alist_actions(cfg["configurable"]["thread_id"])
    _check_log(rows)
    ids = {r.name: r.action_id for r in rows if r.action_type == "tool_call"}
    assert sorted(SEEN_ACTION_IDS) == sorted(ids.items())

    cfg2 = _config(handler)
    await graph.ainvoke({"messages": [HumanMessage("add some numbers")]}, cfg2)
    rows2 = await asaver.alist_actions(cfg2["configurable"]["thread_id"])
    assert _normalized(rows) == _normalized(rows2)


def _failing_run_rows(rows: list[ActionRecord], thread_id: str) -> None:
    last = rows[-1]
    assert last.action_type == "tool_call" and last.name == "explode"
    assert last.status == "failed"
    tools_node = next(r for r in rows if r.action_type == "node" and r.name == "tools")
    assert tools_node.status == "failed"
    assert tools_node.error["type"] == "ValueError"


def test_failing_tool_propagates_and_readme_query(
    saver: ActionSaver, dsn: str, schema: str
) -> None:
    ok_graph = build_graph(is_async=False).compile(checkpointer=saver)
    bad_graph = build_graph(is_async=False, handle_errors=False, tools=[explode]).compile(
        checkpointer=saver
    )
    handler = ActionCallbackHandler(saver)
    ok_cfg = _config(handler, "ok-thread")
    ok_graph.invoke({"messages": [HumanMessage("fine")]}, ok_cfg)
    failed: list[str] = []
    for i in range(2):
        cfg = _config(handler, f"bad-thread-{i}")
        with pytest.raises(ValueError, match="explode failed"):
            bad_graph.invoke({"messages": [HumanMessage(f"break {i}")]}, cfg)
        failed.append(cfg["configurable"]["thread_id"])
        _failing_run_rows(saver.list_actions(failed[-1]), failed[-1])

    result = fetch(dsn, failed_tool_runs_query(schema).as_string(None))
    assert [r[0] for r in result] == failed
    for thread_id, _run_id, tool_name, message in result:
        assert tool_name == "explode"
        reason = saver.list_actions(thread_id, action_type="tool_call")[0].input["reason"]
        assert message == f"explode failed: {reason}"


async def test_failing_tool_propagates_async(
    asaver: AsyncActionSaver, dsn: str, schema: str
) -> None:
    graph = build_graph(is_async=True, handle_errors=False, tools=[explode]).compile(
        checkpointer=asaver
    )
    cfg = _config(AsyncActionCallbackHandler(asaver), "bad-async")
    with pytest.raises(ValueError, match="explode failed"):
        await graph.ainvoke({"messages": [HumanMessage("break")]}, cfg)
    rows = await asaver.alist_actions("bad-async")
    _failing_run_rows(rows, "bad-async")
    result = fetch(dsn, failed_tool_runs_query(schema).as_string(None))
    assert [(r[0], r[2]) for r in result] == [("bad-async", "explode")]


# --------------------------------------------------------- @action value round trip


class Point(BaseModel):
    x: int
    label: str


HOSTILE_IN: dict[str, Any] = {
    "nul": "a\x00b\x00",
    "surrogate": "lone \ud800 and \udfff",
    "marker": "\ue000 starts with the escape marker \\0",
    "bytes": b"\x00\xff\xfe raw",
    "when": dt.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=dt.UTC),
    "point": Point(x=3, label="p\x00"),
    "np_int": np.int64(42),
    "np_float": np.float32(1.5),
    "nested": {"__ack__": "user key that looks like our tag", "t": (1, "two")},
}
# What comes back, per the documented encoding: pydantic models and numpy scalars
# as their plain data; every other value exactly.
HOSTILE_BACK: dict[str, Any] = {
    **HOSTILE_IN,
    "point": {"x": 3, "label": "p\x00"},
    "np_int": 42,
    "np_float": 1.5,
}


@action(name="echo_values")
def echo_values(values: dict[str, Any]) -> dict[str, Any]:
    SEEN_ACTION_IDS.append(("echo_values", current_action()))
    return dict(values)


@action(name="aecho_values", idempotent=False)
async def aecho_values(values: dict[str, Any]) -> dict[str, Any]:
    SEEN_ACTION_IDS.append(("aecho_values", current_action()))
    return dict(values)


def _values_graph(is_async: bool) -> Any:
    class S(MessagesState):
        done: bool

    def node(state: S) -> dict[str, Any]:
        echo_values(HOSTILE_IN)
        return {"done": True}

    async def anode(state: S) -> dict[str, Any]:
        await aecho_values(HOSTILE_IN)
        return {"done": True}

    builder = StateGraph(S)
    builder.add_node("node", anode if is_async else node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder


def _check_values(row: ActionRecord) -> None:
    assert row.status == "completed"
    assert row.input == {"args": [HOSTILE_BACK], "kwargs": {}}
    assert row.output == HOSTILE_BACK
    assert isinstance(row.output["bytes"], bytes)
    assert row.output["when"].tzinfo is not None
    assert isinstance(row.output["nested"]["t"], tuple)


def test_action_values_round_trip(saver: ActionSaver, dsn: str, schema: str) -> None:
    graph = _values_graph(False).compile(checkpointer=saver)
    SEEN_ACTION_IDS.clear()
    cfg = _config(ActionCallbackHandler(saver), "values-\x00-thread")
    graph.invoke({"messages": [], "done": False}, cfg)
    (row,) = saver.list_actions("values-\x00-thread", action_type="function")
    _check_values(row)
    assert row.name == "echo_values"
    assert [("echo_values", row.action_id)] == SEEN_ACTION_IDS
    assert saver.get_action("values-\x00-thread", row.action_id) == row

    # JSONL export round trips through records_from_jsonl, row for row
    text = saver.export_actions_jsonl("values-\x00-thread")
    assert records_from_jsonl(text) == saver.list_actions("values-\x00-thread")
    assert "\x00" not in text  # NUL is escaped in the export too
    # what an operator sees in SQL: the JSONB holds tagged, readable values
    raw = fetch(
        dsn,
        sql.SQL("SELECT output -> 'when', output -> 'np_int' FROM {}.actions WHERE action_id = %s")
        .format(sql.Identifier(schema))
        .as_string(None),
        (row.action_id,),
    )
    assert raw[0][0] == {"__ack__": "datetime", "v": "2024-02-29T23:59:58.123456+00:00"}
    assert raw[0][1] == {"__ack__": "numpy", "dtype": "int64", "v": 42}


async def test_action_values_round_trip_async(asaver: AsyncActionSaver) -> None:
    graph = _values_graph(True).compile(checkpointer=asaver)
    SEEN_ACTION_IDS.clear()
    await graph.ainvoke({"messages": [], "done": False}, _config(None, "avalues"))
    (row,) = await asaver.alist_actions("avalues", action_type="function")
    _check_values(row)
    assert row.idempotent is False
    assert [("aecho_values", row.action_id)] == SEEN_ACTION_IDS
    text = await asaver.aexport_actions_jsonl("avalues")
    assert records_from_jsonl(text) == await asaver.alist_actions("avalues")


# ------------------------------------------------------ failed writes are not lost


def _app_dsn(dsn: str, app: str) -> str:
    return psycopg.conninfo.make_conninfo(dsn, application_name=app)


def _terminate(dsn: str, app: str) -> int:
    rows = fetch(
        dsn,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
        (app,),
    )
    return len(rows)


def test_rows_survive_terminated_backends(dsn: str, schema: str) -> None:
    app = f"ackpt-{uuid.uuid4().hex[:8]}"
    killed: list[int] = []
    model = ScriptedChatModel()

    def node(state: MessagesState) -> dict[str, Any]:
        first = model.invoke([HumanMessage("one"), *state["messages"]])
        killed.append(_terminate(dsn, app))  # every saver connection dies mid-node
        second = model.invoke([HumanMessage("two"), *state["messages"]])
        return {"messages": [first, second]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    for pool_size in (0, 2):
        with ActionSaver.from_conn_string(
            _app_dsn(dsn, app), schema=schema, pool_size=pool_size, pool_check=False
        ) as s:
            s.setup()
            graph = builder.compile(checkpointer=s)
            tid = f"kill-{pool_size}"
            graph.invoke({"messages": [HumanMessage("go")]}, _config(ActionCallbackHandler(s), tid))
        assert killed[-1] >= 1
        rows = fetch(
            dsn,
            sql.SQL(
                "SELECT action_type, status FROM {}.actions"
                " WHERE thread_id = %s ORDER BY step_index"
            )
            .format(sql.Identifier(schema))
            .as_string(None),
            (tid,),
        )
        assert rows == [
            ("node", "completed"),
            ("llm_completion", "completed"),
            ("llm_completion", "completed"),
        ]


def test_writer_keeps_rows_while_table_is_unavailable(dsn: str, schema: str) -> None:
    """A flush that fails keeps its rows; they land on the next flush."""
    with ActionSaver.from_conn_string(dsn, schema=schema, writer_interval=3600.0) as saver:
        saver.setup()
        _writer_keeps_rows(saver, dsn, schema)


def _writer_keeps_rows(saver: ActionSaver, dsn: str, schema: str) -> None:
    ident = sql.Identifier(schema)
    rec = [
        ActionRecord(thread_id="w", action_id=f"a{i}", action_type="function", status="completed")
        for i in range(3)
    ]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("ALTER TABLE {}.actions RENAME TO actions_away").format(ident))
        try:
            for r in rec:
                saver.writer.enqueue(r)
            with pytest.raises(psycopg.errors.UndefinedTable):
                saver.writer.flush()
            assert saver.writer.depth == 3  # nothing dropped
        finally:
            conn.execute(sql.SQL("ALTER TABLE {}.actions_away RENAME TO actions").format(ident))
    saver.writer.flush()
    assert saver.writer.depth == 0
    assert [r.action_id for r in saver.list_actions("w")] == ["a0", "a1", "a2"]
