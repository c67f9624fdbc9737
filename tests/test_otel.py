"""OpenTelemetry spans per action: names, GenAI attributes, nesting, replay marks, row ids.

The SDK's in-memory exporter collects the spans of real graph runs on real
PostgreSQL; the handler gets the test's own TracerProvider (the global one can
be set only once per process).
"""

from __future__ import annotations

import asyncio
import json
import operator
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from typer.testing import CliRunner

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.recorder import ActionRecorder, Callback
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.timeline_html import timeline_data

MODEL = "gpt-4o-mini"


class State(TypedDict):
    out: Annotated[list[str], operator.add]


def reply(text: str, tokens: int) -> AIMessage:
    return AIMessage(
        content=text,
        usage_metadata={
            "input_tokens": tokens,
            "output_tokens": tokens // 2,
            "total_tokens": tokens + tokens // 2,
        },
        response_metadata={"model_name": MODEL, "finish_reason": "stop"},
    )


@tool
def lookup(city: str) -> str:
    """Look up the weather of a city."""
    return f"sunny in {city}"


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def graph_of(node: Any) -> StateGraph[Any]:
    """START -> agent (the node under test) -> END."""
    builder = StateGraph(State)
    builder.add_node("agent", node)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder


class FakeOpenAI(GenericFakeChatModel):
    """A scripted chat model that names itself as an OpenAI model would."""

    model_name: str = MODEL

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "openai"
        return params


def model_of(*texts: str) -> GenericFakeChatModel:
    return FakeOpenAI(messages=iter([reply(t, 100) for t in texts]))


def one_pass_sync(fail: list[bool]) -> tuple[Any, GenericFakeChatModel]:
    """A node: LLM, tool, LLM; raises after all three while ``fail[0]`` is set."""
    model = model_of("plan", "draft", "draft again")

    def agent(state: State) -> dict[str, Any]:
        first = model.invoke("plan the trip")
        found = lookup.invoke({"city": "lisbon"})
        second = model.invoke(f"write it up: {found}")
        if fail[0]:
            fail[0] = False
            raise ValueError("the draft was bad")
        return {"out": [str(first.content), str(second.content)]}

    return agent, model


def one_pass_async(fail: list[bool]) -> tuple[Any, GenericFakeChatModel]:
    model = model_of("plan", "draft", "draft again")

    async def agent(state: State) -> dict[str, Any]:
        first = await model.ainvoke("plan the trip")
        found = await lookup.ainvoke({"city": "lisbon"})
        second = await model.ainvoke(f"write it up: {found}")
        if fail[0]:
            fail[0] = False
            raise ValueError("the draft was bad")
        return {"out": [str(first.content), str(second.content)]}

    return agent, model


def by_name(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def hex_ids(span: ReadableSpan) -> tuple[str, str]:
    ctx = span.get_span_context()
    assert ctx is not None
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


def parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def span_id(span: ReadableSpan) -> int:
    ctx = span.get_span_context()
    assert ctx is not None
    return ctx.span_id


async def run_graph(
    mode: str, dsn: str, schema: str, provider: TracerProvider, fail: bool
) -> tuple[str, list[ActionRecord]]:
    """Run the LLM-tool-LLM node under a caller span; with ``fail``, fail once and resume."""
    if mode == "sync":
        with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
            saver.setup()
            return await run_with(saver, provider, fail)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as asaver:
        await asaver.setup()
        return await run_with(asaver, provider, fail)


async def run_with(
    saver: ActionSaver | AsyncActionSaver, provider: TracerProvider, fail: bool
) -> tuple[str, list[ActionRecord]]:
    thread = f"otel-{uuid.uuid4().hex[:8]}"
    flag = [fail]
    caller = provider.get_tracer("the-app")
    if isinstance(saver, ActionSaver):
        node, _ = one_pass_sync(flag)
        graph = graph_of(node).compile(checkpointer=saver)
        handler = ActionCallbackHandler(saver, tracer_provider=provider)
        cfg: Any = {"configurable": {"thread_id": thread}, "callbacks": [handler]}
        with caller.start_as_current_span("request"):
            if fail:
                with pytest.raises(ValueError):
                    graph.invoke({"out": []}, cfg)
                with caller.start_as_current_span("retry"):
                    graph.invoke(None, cfg)
            else:
                graph.invoke({"out": []}, cfg)
        return thread, saver.list_actions(thread)
    anode, _ = one_pass_async(flag)
    agraph = graph_of(anode).compile(checkpointer=saver)
    ahandler = AsyncActionCallbackHandler(saver, tracer_provider=provider)
    cfg = {"configurable": {"thread_id": thread}, "callbacks": [ahandler]}
    with caller.start_as_current_span("request"):
        if fail:
            with pytest.raises(ValueError):
                await agraph.ainvoke({"out": []}, cfg)
            with caller.start_as_current_span("retry"):
                await agraph.ainvoke(None, cfg)
        else:
            await agraph.ainvoke({"out": []}, cfg)
    return thread, await saver.alist_actions(thread)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_spans_per_action_nest_and_follow_the_genai_conventions(
    mode: str,
    dsn: str,
    schema: str,
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    thread, rows = await run_graph(mode, dsn, schema, provider, fail=False)
    done = list(exporter.get_finished_spans())
    (request,) = by_name(done, "request")
    (graph,) = by_name(done, "invoke_agent LangGraph")
    (node,) = by_name(done, "node agent")
    chats = by_name(done, f"chat {MODEL}")
    (tool_span,) = by_name(done, "execute_tool lookup")
    assert len(chats) == 2
    # nesting: caller -> graph -> node -> actions, one trace
    assert parent_id(graph) == span_id(request)
    assert parent_id(node) == span_id(graph)
    assert all(parent_id(s) == span_id(node) for s in [*chats, tool_span])
    assert len({hex_ids(s)[0] for s in done}) == 1

    assert graph.attributes is not None and node.attributes is not None
    assert graph.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert graph.attributes["gen_ai.conversation.id"] == thread
    assert node.attributes["actionckpt.node"] == "agent"
    assert node.attributes["actionckpt.status"] == "completed"

    chat = chats[0]
    attrs = chat.attributes
    assert attrs is not None and chat.kind is SpanKind.CLIENT
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.request.model"] == MODEL
    assert attrs["gen_ai.provider.name"] == attrs["gen_ai.system"] == "openai"
    assert attrs["gen_ai.response.model"] == MODEL
    assert attrs["gen_ai.usage.input_tokens"] == 100
    assert attrs["gen_ai.usage.output_tokens"] == 50
    assert tuple(attrs["gen_ai.response.finish_reasons"]) == ("stop",)  # type: ignore[arg-type]
    assert attrs["actionckpt.replayed"] is False
    assert attrs["actionckpt.status"] == "completed"

    tattrs = tool_span.attributes
    assert tattrs is not None
    assert tattrs["gen_ai.operation.name"] == "execute_tool"
    assert tattrs["gen_ai.tool.name"] == "lookup"
    assert tattrs["actionckpt.status"] == "completed"

    # the rows carry their span's ids, and each span names its row
    by_action = {r.action_id: r for r in rows}
    for span in [node, *chats, tool_span]:
        assert span.attributes is not None
        row = by_action[str(span.attributes["actionckpt.action_id"])]
        assert (row.trace_id, row.span_id) == hex_ids(span), row.action_type
    assert {r.action_type for r in rows} == {"node", "llm_completion", "tool_call"}


async def test_replayed_actions_are_marked_not_hidden(
    mode: str,
    dsn: str,
    schema: str,
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """The node fails after LLM, tool, LLM; the resume serves the first two from the log."""
    provider, exporter = spans
    _, rows = await run_graph(mode, dsn, schema, provider, fail=True)
    done = list(exporter.get_finished_spans())
    (retry,) = by_name(done, "retry")
    first_trace = hex_ids(by_name(done, "request")[0])[0]
    retry_trace = hex_ids(retry)[0]
    assert first_trace == retry_trace  # the retry ran under the same request span

    nodes = by_name(done, "node agent")
    assert [n.attributes["actionckpt.status"] for n in nodes if n.attributes] == [
        "failed",
        "completed",
    ]
    failed_node = nodes[0]
    assert failed_node.status.status_code is StatusCode.ERROR
    assert failed_node.attributes is not None
    assert failed_node.attributes["error.type"] == "ValueError"

    resumed = [s for s in done if s.parent is not None and s.parent.span_id == span_id(nodes[1])]
    marks = [
        (s.name, s.attributes["actionckpt.status"], s.attributes["actionckpt.replayed"])
        for s in resumed
        if s.attributes
    ]
    # first LLM call and the tool: served from the log; the last LLM answer before
    # the failure is asked again (README "How replay works")
    assert marks == [
        (f"chat {MODEL}", "replayed", True),
        ("execute_tool lookup", "replayed", True),
        (f"chat {MODEL}", "completed", False),
    ]
    replayed_chat = resumed[0]
    assert replayed_chat.attributes is not None
    assert "gen_ai.usage.input_tokens" not in replayed_chat.attributes  # no tokens spent now
    assert replayed_chat.attributes["actionckpt.saved.input_tokens"] == 100

    # a served row keeps the span of the run that executed it; a re-run row gets the new one
    first_run = [s for s in done if s.parent is not None and s.parent.span_id == span_id(nodes[0])]
    by_action = {r.action_id: r for r in rows}
    for before, after in zip(first_run, resumed, strict=True):
        assert before.attributes is not None and after.attributes is not None
        key = after.attributes["actionckpt.action_id"]
        assert before.attributes["actionckpt.action_id"] == key
        row = by_action[str(key)]
        executed = after if after.attributes["actionckpt.replayed"] is False else before
        assert (row.trace_id, row.span_id) == hex_ids(executed)
        if after.attributes["actionckpt.replayed"]:
            # the served span links to the span that executed the action
            (link,) = after.links
            assert (
                format(link.context.trace_id, "032x"),
                format(link.context.span_id, "016x"),
            ) == (hex_ids(before))
            assert after.attributes["actionckpt.origin.trace_id"] == hex_ids(before)[0]
        else:
            assert not after.links
    node_row = by_action[str(nodes[1].attributes["actionckpt.action_id"])]  # type: ignore[index]
    assert (node_row.trace_id, node_row.span_id) == hex_ids(nodes[1])


def test_tracing_off_records_no_ids(
    saver: ActionSaver, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    node, _ = one_pass_sync([False])
    graph = graph_of(node).compile(checkpointer=saver)
    handler = ActionCallbackHandler(saver, tracing=False, tracer_provider=provider)
    thread = f"otel-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}, "callbacks": [handler]})
    rows = saver.list_actions(thread)
    assert rows and all(r.trace_id is None and r.span_id is None for r in rows)
    assert exporter.get_finished_spans() == ()


def test_default_is_off_until_an_application_configures_a_provider(saver: ActionSaver) -> None:
    from langgraph_actionckpt.actions.otel import tracing_configured

    assert not tracing_configured()  # no test sets the process-wide provider
    node, _ = one_pass_sync([False])
    graph = graph_of(node).compile(checkpointer=saver)
    handler = ActionCallbackHandler(saver)  # tracing=None: follows the global provider
    thread = f"otel-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}, "callbacks": [handler]})
    assert all(r.trace_id is None for r in saver.list_actions(thread))


def test_show_and_the_timeline_print_the_trace(
    dsn: str, schema: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    thread, rows = asyncio.run(run_graph("sync", dsn, schema, provider, fail=False))
    (graph_span,) = by_name(list(exporter.get_finished_spans()), "invoke_agent LangGraph")
    trace_id = hex_ids(graph_span)[0]
    args = ["show", thread, "--dsn", dsn, "--schema", schema]
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    actions = json.loads(shown.output)["actions"]
    assert actions and {a["trace_id"] for a in actions} == {trace_id}
    table = CliRunner().invoke(app, [*args], env={"COLUMNS": "400"})
    assert table.exit_code == 0 and trace_id in table.output
    assert {b["trace"] for b in timeline_data(rows)["bars"]} == {trace_id}


def test_subgraph_nodes_nest_under_their_parent_node(
    saver: ActionSaver, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans

    def inner(state: State) -> dict[str, Any]:
        return {"out": [lookup.invoke({"city": "porto"})]}

    sub = StateGraph(State)
    sub.add_node("inner", inner)
    sub.add_edge(START, "inner")
    builder = StateGraph(State)
    builder.add_node("outer", sub.compile())
    builder.add_edge(START, "outer")
    graph = builder.compile(checkpointer=saver)
    handler = ActionCallbackHandler(saver, tracer_provider=provider)
    thread = f"otel-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}, "callbacks": [handler]})
    done = list(exporter.get_finished_spans())
    (root,) = by_name(done, "invoke_agent LangGraph")
    (outer,) = by_name(done, "node outer")
    (inner_span,) = by_name(done, "node inner")
    (tool_span,) = by_name(done, "execute_tool lookup")
    assert parent_id(root) is None  # no caller span: the graph's span starts the trace
    assert parent_id(outer) == span_id(root)
    assert parent_id(inner_span) == span_id(outer)
    assert parent_id(tool_span) == span_id(inner_span)
    assert inner_span.attributes is not None and inner_span.attributes["actionckpt.checkpoint_ns"]
    rows = {r.action_id: r for r in saver.list_actions(thread)}
    for span in (outer, inner_span, tool_span):
        assert span.attributes is not None
        row = rows[str(span.attributes["actionckpt.action_id"])]
        assert (row.trace_id, row.span_id) == hex_ids(span)


class ListObserver:
    """An observer without OpenTelemetry: what the recorder tells it, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, Any]] = []

    def wants(self) -> bool:
        return True

    def start(self, action: Any, parent: Any | None) -> Any:
        handle = f"{action.kind}:{action.name}"
        self.events.append(("start", handle, parent))
        return handle

    def end(self, handle: Any, outcome: Any) -> None:
        self.events.append(("end", handle, outcome.status))

    def ids(self, handle: Any) -> tuple[str, str] | None:
        return "t" * 32, handle[:16].ljust(16, "0")


def test_the_recorder_tells_any_observer_with_parents() -> None:
    observer = ListObserver()
    recorder = ActionRecorder(observer=observer)
    root, node, llm = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    meta = {
        "thread_id": "t1",
        "langgraph_node": "agent",
        "langgraph_step": 1,
        "langgraph_checkpoint_ns": "agent:task-1",
    }
    recorder.chain_start(Callback({}, root, None, {"thread_id": "t1"}, {"name": "LangGraph"}), {})
    row = recorder.chain_start(Callback({}, node, root, meta, {"name": "agent"}), {"out": []})
    assert row is not None and row.trace_id == "t" * 32
    recorder.llm_start(
        Callback({}, llm, node, {**meta, "ls_model_name": MODEL}, {}), ["hi"], chat=False
    )
    done = recorder.llm_end(LLMResult(generations=[[ChatGeneration(message=reply("x", 10))]]), llm)
    assert done is not None and done.span_id is not None
    recorder.chain_end(node)
    recorder.chain_end(root)
    assert observer.events == [
        ("start", "agent:LangGraph", None),
        ("start", "node:agent", "agent:LangGraph"),
        ("start", f"text_completion:{MODEL}", "node:agent"),
        ("end", f"text_completion:{MODEL}", "completed"),
        ("end", "node:agent", "completed"),
        ("end", "agent:LangGraph", "completed"),
    ]


def test_node_spans_without_node_rows(
    saver: ActionSaver, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    """record_chains=False: no node rows, the node spans are still there."""
    provider, exporter = spans
    node, _ = one_pass_sync([False])
    graph = graph_of(node).compile(checkpointer=saver)
    handler = ActionCallbackHandler(saver, record_chains=False, tracer_provider=provider)
    thread = f"otel-{uuid.uuid4().hex[:8]}"
    graph.invoke({"out": []}, {"configurable": {"thread_id": thread}, "callbacks": [handler]})
    done = list(exporter.get_finished_spans())
    (node_span,) = by_name(done, "node agent")
    assert [parent_id(s) for s in by_name(done, f"chat {MODEL}")] == [span_id(node_span)] * 2
