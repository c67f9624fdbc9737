"""The recorder and the handlers' wiring, without a database.

The :class:`ActionRecorder` turns LangChain callback events into action rows
and does no I/O, so these tests feed it events by hand and look at the rows it
returns. The last tests check that the two handlers (one generated from the
other) and the two writers expose the same hooks and methods.
"""

from __future__ import annotations

import inspect
import uuid
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.errors import GraphInterrupt

from langgraph_actionckpt import ActionCallbackHandler, AsyncActionCallbackHandler
from langgraph_actionckpt.actions.join import pending_llm_run, register_run, run_registry
from langgraph_actionckpt.actions.recorder import ActionRecorder, Callback
from langgraph_actionckpt.actions.runs import OpenRun, run_key
from langgraph_actionckpt.actions.writer import AsyncActionWriter, SyncActionWriter

TASK = "6c8e1d52-0000-4000-8000-000000000001"


def node_meta(thread: str = "t1", node: str = "agent", **extra: Any) -> dict[str, Any]:
    """The metadata LangGraph gives the runs inside one task of node ``node``."""
    return {
        "thread_id": thread,
        "langgraph_node": node,
        "langgraph_step": 2,
        "langgraph_checkpoint_ns": f"{node}:{TASK}",
        "run_id": "run-1",
        **extra,
    }


def start_node(rec: ActionRecorder, node: str = "agent") -> uuid.UUID:
    rid = uuid.uuid4()
    row = rec.chain_start(
        Callback(None, rid, uuid.uuid4(), node_meta(node=node), {"name": node}), {"messages": []}
    )
    assert row is not None and row.action_id == f"{TASK}:node"
    return rid


def chat_result(message: AIMessage) -> LLMResult:
    return LLMResult(generations=[[ChatGeneration(message=message)]])


def test_node_start_row_and_non_node_chains() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    row = rec.chain_start(
        Callback(None, rid, uuid.uuid4(), node_meta(), {"name": "agent"}), {"b": 1, "a": 2}
    )
    assert row is not None
    assert (row.action_type, row.status, row.node, row.step) == ("node", "running", "agent", 2)
    assert (row.thread_id, row.task_id, row.agent_id, row.run_id) == ("t1", TASK, "root", "run-1")
    assert row.input == {"keys": ["a", "b"]}
    assert row.lc_run_id == str(rid)
    # a chain inside the node (not the node itself), LangGraph plumbing, no thread
    assert (
        rec.chain_start(Callback(None, uuid.uuid4(), rid, node_meta(), {"name": "RunnableSeq"}), {})
        is None
    )
    meta = node_meta(node="__start__")
    assert (
        rec.chain_start(Callback(None, uuid.uuid4(), None, meta, {"name": "__start__"}), {}) is None
    )
    no_thread = {k: v for k, v in node_meta().items() if k != "thread_id"}
    assert (
        rec.chain_start(Callback(None, uuid.uuid4(), None, no_thread, {"name": "agent"}), {})
        is None
    )
    assert (
        ActionRecorder(record_chains=False).chain_start(
            Callback(None, uuid.uuid4(), None, node_meta(), {"name": "agent"}), {}
        )
        is None
    )


def test_chain_error_is_interrupted_or_failed_by_exception_type() -> None:
    rec = ActionRecorder()
    rid = start_node(rec)
    row = rec.chain_error(GraphInterrupt(()), rid)
    assert row is not None and row.status == "interrupted" and row.completed_at is not None

    class MyInterrupt(GraphInterrupt):
        """Named differently: the type, not the name, decides."""

    rid = start_node(rec)
    row = rec.chain_error(MyInterrupt(()), rid)
    assert row is not None and row.status == "interrupted"

    class GraphInterruptLookalike(Exception):
        """Same idea, unrelated type: a failure."""

    rid = start_node(rec)
    row = rec.chain_error(GraphInterruptLookalike("boom"), rid)
    assert row is not None and row.status == "failed"
    assert row.error["type"] == "GraphInterruptLookalike" and row.error["message"] == "boom"
    # the run is forgotten: a second error for it records nothing
    assert rec.chain_error(ValueError(), rid) is None


def test_llm_row_of_its_own_with_usage_ttft_and_parent() -> None:
    rec = ActionRecorder()
    node = start_node(rec)
    rid = uuid.uuid4()
    params = {"model": "gpt-test", "temperature": 0, "tools": [{"function": {"name": "search"}}]}
    rec.llm_start(
        Callback(None, rid, node, node_meta(), {"invocation_params": params}), [HumanMessage("hi")]
    )
    assert pending_llm_run.get() == str(rid)
    rec.llm_token(rid)
    first = rec._runs[run_key(rid)].first_token
    rec.llm_token(rid)  # only the first token counts
    assert rec._runs[run_key(rid)].first_token == first
    message = AIMessage(
        "hello",
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        response_metadata={"model_name": "gpt-test-1", "model_provider": "openai"},
    )
    row = rec.llm_end(chat_result(message), rid)
    assert row is not None
    assert (row.action_type, row.status, row.replayable) == ("llm_completion", "completed", False)
    assert row.action_id == f"{TASK}:llm_completion:run:{rid}"
    assert row.parent_action_id == f"{TASK}:node"
    assert (row.input_tokens, row.output_tokens, row.total_tokens) == (3, 2, 5)
    assert (row.model, row.provider, row.name) == ("gpt-test-1", "openai", "gpt-test")
    assert row.input == {"messages": [HumanMessage("hi")]}
    assert row.output.content == "hello"
    assert row.ttft_ms is not None and row.latency_ms is not None
    assert row.ttft_ms <= row.latency_ms
    assert row.meta["tools"] == ["search"]
    assert "tools" not in row.meta["invocation_params"]


def test_llm_row_joined_to_the_replay_layers_row() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    rec.llm_start(
        Callback(None, rid, None, node_meta(ls_provider="fake"), {"name": "FakeLLM"}), ["prompt"]
    )
    register_run(str(rid), "t1", "t1:llm:abc", True)
    row = rec.llm_end(LLMResult(generations=[]), rid)
    assert row is not None and str(rid) not in run_registry
    assert (row.action_id, row.name, row.status) == ("t1:llm:abc", None, "completed")
    assert row.ttft_ms is None  # replayed: no time to first token
    assert row.provider == "fake" and row.replayable is True


def test_llm_error_rows() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    rec.llm_start(Callback(None, rid, None, node_meta(), {}), ["p"])
    row = rec.llm_error(TimeoutError("slow"), rid)
    assert row is not None and row.status == "failed" and row.replayable is False
    assert row.name == "llm" and row.error["type"] == "TimeoutError"
    rid = uuid.uuid4()
    rec.llm_start(Callback(None, rid, None, node_meta(), {}), ["p"])
    register_run(str(rid), "t1", "t1:llm:x", False)
    row = rec.llm_error(TimeoutError("slow"), rid)
    assert row is not None and (row.action_id, row.name, row.status) == ("t1:llm:x", None, "failed")


def test_tool_rows_own_and_joined() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    meta = node_meta(node="tools")
    rec.tool_start(
        Callback(None, rid, None, meta, {"tool_call_id": "call_1", "name": "search"}),
        "{'q': 1}",
        {"q": 1},
    )
    row = rec.tool_end(ToolMessage("bad", tool_call_id="call_1", status="error"), rid)
    assert row is not None and row.status == "failed" and row.input == {"q": 1}
    assert row.meta == {"tool_call_id": "call_1"} and row.name == "search"

    rid = uuid.uuid4()
    rec.tool_start(Callback(None, rid, None, meta, {}), "x", None)
    row = rec.tool_end(None, rid, ValueError("tool broke"))
    assert row is not None and row.status == "failed" and row.input == "x"
    assert row.name == "tool" and row.error["message"] == "tool broke" and row.output is None

    # joined to a live call the replay layer is still logging: never "completed" early
    rid = uuid.uuid4()
    register_run(str(rid), "t1", "t1:tool:live", False)
    rec.tool_start(Callback(None, rid, None, meta, {"name": "search"}), "x", None)
    row = rec.tool_end("result", rid)
    assert row is not None and (row.action_id, row.status, row.name) == (
        "t1:tool:live",
        "running",
        None,
    )
    rid = uuid.uuid4()
    register_run(str(rid), "t1", "t1:tool:replayed", True)
    rec.tool_start(Callback(None, rid, None, meta, {"name": "search"}), "x", None)
    row = rec.tool_end(None, rid, ValueError("x"))
    assert row is not None and row.status == "failed"


def test_retriever_rows_and_runs_outside_a_thread() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    rec.retriever_start(Callback(None, rid, None, node_meta(), {"name": "docs"}), "what")
    row = rec.retriever_end([Document("d1")], rid)
    assert row is not None and row.status == "completed" and row.input == {"query": "what"}
    assert row.output == [Document("d1")] and row.action_type == "retriever"
    rid = uuid.uuid4()
    rec.retriever_start(Callback(None, rid, None, node_meta(), {}), "what")
    row = rec.retriever_end(None, rid, LookupError("down"))
    assert row is not None and row.status == "failed" and row.name == "retriever"
    # no thread: nothing is recorded, and the run is still forgotten
    rid = uuid.uuid4()
    rec.tool_start(Callback(None, rid, None, {}, {"name": "t"}), "x", None)
    assert rec.tool_end("y", rid) is None and rid not in rec._runs


def test_root_thread_and_lease_bookkeeping() -> None:
    rec = ActionRecorder()
    rid = uuid.uuid4()
    assert rec.root_thread(None, {"thread_id": 7}) == "7"
    assert rec.root_thread(uuid.uuid4(), {"thread_id": 7}) is None
    assert rec.root_thread(None, None) is None
    rec.hold_lease(rid, "7")
    assert rec.lease_end(rid) == "7" and rec.lease_end(rid) is None


def test_handler_refuses_other_checkpointers() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    for cls in (ActionCallbackHandler, AsyncActionCallbackHandler):
        with pytest.raises(TypeError, match="InMemorySaver"):
            cls(InMemorySaver())  # type: ignore[arg-type]


def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def test_twins_have_the_same_hooks_and_methods() -> None:
    sync_hooks = {n for n in _public(ActionCallbackHandler) if n.startswith("on_")}
    async_hooks = {n for n in _public(AsyncActionCallbackHandler) if n.startswith("on_")}
    assert sync_hooks == async_hooks
    for name in ("on_chain_start", "on_llm_end", "on_tool_error", "on_retriever_end"):
        assert inspect.iscoroutinefunction(getattr(AsyncActionCallbackHandler, name))
        assert not inspect.iscoroutinefunction(getattr(ActionCallbackHandler, name))
    # both writers serve both worlds; only close/aclose follow the saver's world
    assert _public(SyncActionWriter) - {"close"} == _public(AsyncActionWriter) - {"aclose"}


def test_callback_bundles_the_start_keywords() -> None:
    rid, parent = uuid.uuid4(), uuid.uuid4()
    kwargs: dict[str, Any] = {"run_id": rid, "parent_run_id": parent, "metadata": {"a": 1}}
    call = Callback.of({"name": "s"}, {**kwargs, "name": "n", "tags": []})
    assert call == Callback({"name": "s"}, rid, parent, {"a": 1}, {"name": "n", "tags": []})
    assert call.name() == "n" and Callback.of({"name": "s"}, {"run_id": rid}).name() == "s"
    bare = Callback.of(None, {"run_id": rid})
    assert (bare.parent_run_id, bare.metadata, bare.name("tool")) == (None, None, "tool")


def test_open_run_record_fills_the_fields_it_names() -> None:
    """``OpenRun.record`` fills the fields a run knows; the rest keep their defaults."""
    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.actions.runs import OpenRun

    parent = uuid.uuid4()
    meta = node_meta(node="tools", agent_id="a1")
    meta["langgraph_checkpoint_ns"] = f"outer:{TASK}|tools:{TASK}"
    run = OpenRun("tool", Callback(None, uuid.uuid4(), parent, meta, {}), "search")
    expected = ActionRecord(
        thread_id="t1",
        action_id="act",
        action_type="tool_call",
        name="search",
        status="running",
        run_id="run-1",
        checkpoint_ns=f"outer:{TASK}",
        task_id=TASK,
        node="tools",
        agent_id="a1",
        step=2,
        parent_action_id="up",
        lc_run_id="lc",
    )
    assert run.record("lc", "tool_call", "act", "up") == expected
    bare = OpenRun("tool", Callback(None, uuid.uuid4(), None, None, {}), None)
    assert bare.record("lc", "tool_call", "act", None) == ActionRecord(
        thread_id="", action_id="act", action_type="tool_call", agent_id="root", lc_run_id="lc"
    )


def test_open_run_own_record_fills_the_fields_it_names() -> None:
    """``OpenRun.own_record``: the row of a run only the callbacks see, timed and not replayable."""
    from dataclasses import replace

    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.actions.runs import OpenRun

    meta = node_meta(node="tools", agent_id="a1")
    meta["langgraph_checkpoint_ns"] = f"outer:{TASK}|tools:{TASK}"
    run = OpenRun("tool", Callback(None, uuid.uuid4(), uuid.uuid4(), meta, {}), "search")
    row = run.own_record("lc", "tool_call", "up", {"q": 1}, {"tool_call_id": "c1"})
    assert row.started_at is not None and row.started_at == row.completed_at
    assert row.started_at.tzinfo is not None and row.latency_ms is not None
    expected = ActionRecord(
        thread_id="t1",
        action_id=f"{TASK}:tool_call:run:lc",
        action_type="tool_call",
        name="search",
        status="running",
        run_id="run-1",
        checkpoint_ns=f"outer:{TASK}",
        task_id=TASK,
        node="tools",
        agent_id="a1",
        step=2,
        replayable=False,
        input={"q": 1},
        latency_ms=row.latency_ms,
        parent_action_id="up",
        lc_run_id="lc",
        meta={"tool_call_id": "c1"},
        started_at=row.started_at,
        completed_at=row.started_at,
    )
    assert row == expected
    bare = OpenRun("llm", Callback(None, uuid.uuid4(), None, None, {}), None)
    own = bare.own_record("lc", "llm_completion", None, None, None)
    assert own == replace(
        ActionRecord(
            thread_id="", action_id="run:llm_completion:run:lc", action_type="llm_completion"
        ),
        agent_id="root",
        replayable=False,
        latency_ms=own.latency_ms,
        lc_run_id="lc",
        started_at=own.started_at,
        completed_at=own.started_at,
    )


def test_open_run_keys_and_text_of_its_run_ids() -> None:
    """A UUID run id's text is ``str(uuid)``; its key is its number (any other id: itself)."""
    ids = [uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1), uuid.UUID(int=1 << 127)]
    ids += [uuid.uuid4() for _ in range(200)] + [uuid.uuid1()]
    for rid in ids:
        parent = uuid.uuid4()
        run = OpenRun("tool", Callback(None, rid, parent, None, {}))
        assert (run.rid, run.key, run.parent, run.parent_key) == (
            str(rid),
            rid.int,
            parent,
            parent.int,
        )
    odd = OpenRun("tool", Callback(None, "run-7", None, None, {}))  # type: ignore[arg-type]
    assert (odd.rid, odd.key, odd.parent_key) == ("run-7", "run-7", None)
    assert run_key(ids[0]) == 0 and run_key("run-7") == "run-7"
