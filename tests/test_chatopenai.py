"""The real ``langchain_openai.ChatOpenAI`` client against ``FakeOpenAIServer``.

Inside LangGraph graphs checkpointed by ``ActionSaver`` with the callback
handler:

* token accounting: each ``llm_completion`` row carries exactly the usage the
  server reported (tool calls and plain answers, non-streaming and streaming);
* crash and resume: a child process whose graph makes several ChatOpenAI calls
  is SIGKILLed; the server (in this process, with a ``count_file``) proves that
  the resumed run sent 0 repeated HTTP requests for the calls that had
  completed, and the replayed responses equal the originals (also with
  ``streaming=True, stream_usage=True``).

This file doubles as the child's script: ``python tests/test_chatopenai.py
child DSN SCHEMA THREAD BASE_URL STREAMING``.
"""

from __future__ import annotations

import json
import operator
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, TypedDict

QUESTIONS = [
    "warm up: name one durable database",
    "first: what is a write-ahead log",
    "second: what does fsync guarantee",
    "third: what is a checkpoint",
]
PAUSE = 0.5  # seconds between interview calls (the child is killed in one of these)


class S(TypedDict, total=False):
    answers: Annotated[list[dict[str, Any]], operator.add]


def usage_for(request: dict[str, Any]) -> dict[str, int]:
    """The usage the test server reports for a request (distinct per prompt)."""
    n = len(request.get("messages") or [])
    text = json.dumps(request.get("messages"))
    return {"prompt_tokens": 40 + 3 * n + len(text) % 17, "completion_tokens": 7 + len(text) % 11}


def responder(request: dict[str, Any]) -> dict[str, Any]:
    from examples.fake_openai import default_responder

    reply = dict(default_responder(request))
    reply["usage"] = usage_for(request)
    return reply


def make_llm(base_url: str, *, streaming: bool) -> Any:
    from langchain_openai import ChatOpenAI

    kw: dict[str, Any] = {"streaming": True, "stream_usage": True} if streaming else {}
    return ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key="test", max_retries=0, **kw)


def build_interview(saver: Any, base_url: str, *, streaming: bool) -> Any:
    """warmup (1 call) -> interview (3 calls, a pause after each)."""
    from langchain_core.messages import HumanMessage
    from langgraph.graph import END, START, StateGraph

    llm = make_llm(base_url, streaming=streaming)

    def ask(q: str) -> dict[str, Any]:
        msg = llm.invoke([HumanMessage(q)])
        usage = msg.usage_metadata or {}
        return {
            "q": q,
            "content": msg.content,
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
        }

    def warmup(state: S) -> S:
        return {"answers": [ask(QUESTIONS[0])]}

    def interview(state: S) -> S:
        out = []
        for q in QUESTIONS[1:]:
            out.append(ask(q))
            time.sleep(PAUSE)
        return {"answers": out}

    g = StateGraph(S)
    g.add_node("warmup", warmup)
    g.add_node("interview", interview)
    g.add_edge(START, "warmup")
    g.add_edge("warmup", "interview")
    g.add_edge("interview", END)
    return g.compile(checkpointer=saver)


def run_interview(
    dsn: str, schema: str, thread: str, base_url: str, *, streaming: bool, resume: bool
) -> Any:
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = build_interview(saver, base_url, streaming=streaming)
        config = {
            "configurable": {"thread_id": thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        return graph.invoke(None if resume else {"answers": []}, config)


def child_main(argv: list[str]) -> int:
    dsn, schema, thread, base_url, streaming = argv
    run_interview(dsn, schema, thread, base_url, streaming=streaming == "1", resume=False)
    return 0


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "child":
    sys.exit(child_main(sys.argv[2:]))


# ----------------------------------------------------------------- the tests

import psycopg  # noqa: E402
import pytest  # noqa: E402
from psycopg import sql  # noqa: E402

from examples.fake_openai import (  # noqa: E402
    FakeOpenAIServer,
    read_count_file,
)
from langgraph_actionckpt import ActionCallbackHandler, ActionSaver  # noqa: E402


@pytest.fixture
def schema18(pg18_dsn: str) -> Any:
    name = f"t_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(pg18_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def _completed_llm(dsn: str, schema: str, thread: str) -> int:
    q = sql.SQL(
        "SELECT count(*) FROM {}.actions WHERE thread_id = %s "
        "AND action_type = 'llm_completion' AND status = 'completed'"
    ).format(sql.Identifier(schema))
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            return int(conn.execute(q, (thread,)).fetchone()[0])  # type: ignore[index]
    except psycopg.errors.UndefinedTable:
        return 0


def test_tool_calls_and_token_accounting(pg18_dsn: str, schema18: str) -> None:
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found: {query[:20]}"

    with (
        FakeOpenAIServer(responder=responder) as server,
        ActionSaver.from_conn_string(pg18_dsn, schema=schema18) as saver,
    ):
        saver.setup()
        agent = create_agent(
            make_llm(server.base_url, streaming=False), [lookup], checkpointer=saver
        )
        config = {
            "configurable": {"thread_id": "oa-tools"},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        out = agent.invoke({"messages": [{"role": "user", "content": "find the WAL docs"}]}, config)
        saver.writer.flush()
        rows = saver.list_actions("oa-tools", action_type="llm_completion")
        tools = saver.list_actions("oa-tools", action_type="tool_call")
        requests = server.chat_requests

    assert out["messages"][1].tool_calls[0]["name"] == "lookup"
    assert out["messages"][-1].content.startswith("Tool results: lookup -> found:")
    assert len(requests) == 2 and len(rows) == 2
    for row, request in zip(rows, requests, strict=True):
        usage = usage_for(request)
        assert row.status == "completed"
        assert row.input_tokens == usage["prompt_tokens"]
        assert row.output_tokens == usage["completion_tokens"]
        assert row.total_tokens == usage["prompt_tokens"] + usage["completion_tokens"]
        assert row.model and row.model.startswith("gpt-4o-mini")
    assert [t.name for t in tools] == ["lookup"] and tools[0].status == "completed"


def test_streaming_usage_is_recorded(pg18_dsn: str, schema18: str) -> None:
    with FakeOpenAIServer(responder=responder) as server:
        out = run_interview(
            pg18_dsn, schema18, "oa-stream", server.base_url, streaming=True, resume=False
        )
        requests = server.chat_requests
    assert all(r.get("stream") for r in requests)
    with ActionSaver.from_conn_string(pg18_dsn, schema=schema18) as saver:
        rows = saver.list_actions("oa-stream", action_type="llm_completion")
    assert len(rows) == len(QUESTIONS) == len(requests)
    for row, request, answer in zip(rows, requests, out["answers"], strict=True):
        usage = usage_for(request)
        assert (row.input_tokens, row.output_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
        assert (answer["input_tokens"], answer["output_tokens"]) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
        assert row.output.content == answer["content"]


@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "streaming"])
def test_crash_and_resume_makes_no_repeated_requests(
    pg18_dsn: str, schema18: str, tmp_path: Path, streaming: bool
) -> None:
    thread = f"oa-crash-{'s' if streaming else 'i'}"
    count_file = tmp_path / "requests.jsonl"
    with FakeOpenAIServer(responder=responder, count_file=count_file) as server:
        # 1. the child: warmup + two interview calls complete, then SIGKILL in the pause
        proc = subprocess.Popen(
            [
                sys.executable,
                os.path.abspath(__file__),
                "child",
                pg18_dsn,
                schema18,
                thread,
                server.base_url,
                "1" if streaming else "0",
            ],
        )
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if _completed_llm(pg18_dsn, schema18, thread) >= 3:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.02)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the child finished before the kill"

        with ActionSaver.from_conn_string(pg18_dsn, schema=schema18) as saver:
            before = saver.list_actions(thread, action_type="llm_completion", status="completed")
        done_prompts = [r.input["messages"][-1]["content"] for r in before]
        originals = {r.input["messages"][-1]["content"]: r.output for r in before}
        assert len(done_prompts) >= 3
        counts_before = Counter(r["last_user"] for r in read_count_file(count_file))

        # 2. resume here, same thread
        final = run_interview(
            pg18_dsn, schema18, thread, server.base_url, streaming=streaming, resume=True
        )
        counts_after = Counter(r["last_user"] for r in read_count_file(count_file))
        # the server ran here, so it saw the child's requests too
        usage_by_prompt = {r["messages"][-1]["content"]: usage_for(r) for r in server.chat_requests}

    # 0 repeated HTTP requests for calls that had completed
    for prompt in done_prompts:
        assert counts_before[prompt] == 1, prompt
        assert counts_after[prompt] == 1, f"completed call {prompt!r} was sent again"
    assert all(counts_after[q] >= 1 for q in QUESTIONS)
    assert (
        sum(counts_after.values()) - sum(counts_before.values())
        <= len(QUESTIONS) - len(done_prompts) + 1
    )  # the remaining calls (+1 if one was in flight at the kill)

    # the run completes, and replayed responses equal the originals
    answers = {a["q"]: a for a in final["answers"]}
    assert [a["q"] for a in final["answers"]] == QUESTIONS
    for prompt in done_prompts:
        original = originals[prompt]
        assert answers[prompt]["content"] == original.content
        assert answers[prompt]["input_tokens"] == original.usage_metadata["input_tokens"]
        assert answers[prompt]["output_tokens"] == original.usage_metadata["output_tokens"]

    with ActionSaver.from_conn_string(pg18_dsn, schema=schema18) as saver:
        rows = saver.list_actions(thread, action_type="llm_completion")
    replayed = {r.input["messages"][-1]["content"] for r in rows if r.replayed}
    # the warmup task had finished (restored from its checkpoint, not re-run);
    # the interview calls finished before the kill were served from the log
    assert replayed == set(done_prompts) - {QUESTIONS[0]}
    assert len(replayed) >= 2
    assert all(r.status == "completed" for r in rows)
    for r in rows:  # token accounting survives the crash: one row per call, server's usage
        usage = usage_by_prompt[r.input["messages"][-1]["content"]]
        assert (r.input_tokens, r.output_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )


def test_streamed_call_without_usage_says_usage_is_unknown(pg18_dsn: str, schema18: str) -> None:
    """``streaming=True`` without ``stream_usage``: the row says why it has no tokens."""
    from langchain_core.messages import HumanMessage
    from langchain_openai import ChatOpenAI
    from langgraph.graph import END, START, MessagesState, StateGraph

    from langgraph_actionckpt import ActionCallbackHandler
    from langgraph_actionckpt.actions.recorder import USAGE_UNKNOWN

    with FakeOpenAIServer(responder=responder) as server:
        llm = ChatOpenAI(
            model="gpt-4o-mini", base_url=server.base_url, api_key="test", streaming=True
        )
        builder: StateGraph[Any] = StateGraph(MessagesState)
        builder.add_node("ask", lambda s: {"messages": [llm.invoke(s["messages"])]})
        builder.add_edge(START, "ask")
        builder.add_edge("ask", END)
        with ActionSaver.from_conn_string(pg18_dsn, schema=schema18) as saver:
            saver.setup()
            graph = builder.compile(checkpointer=saver)
            config: Any = {
                "configurable": {"thread_id": "oa-nousage"},
                "callbacks": [ActionCallbackHandler(saver)],
            }
            graph.invoke({"messages": [HumanMessage("hello")]}, config)
            rows = saver.list_actions("oa-nousage", action_type="llm_completion")
    assert len(rows) == 1 and rows[0].total_tokens is None
    assert rows[0].meta["usage"] == USAGE_UNKNOWN
