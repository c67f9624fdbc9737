"""Tests for the fake OpenAI-compatible server, driven by the real clients."""

from __future__ import annotations

import base64
import json
import math
import os
import signal
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from pydantic import BaseModel

from examples.fake_openai import (
    FakeOpenAIServer,
    default_responder,
    deterministic_embedding,
    last_user_text,
    read_count_file,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@tool
def get_weather(city: str, days: int) -> str:
    """Return the weather forecast for a city."""
    return f"sunny in {city} for {days} day(s)"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


def _llm(srv: FakeOpenAIServer, **kwargs: Any) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI(
        model="gpt-4o-mini",
        base_url=srv.base_url,
        api_key="test",  # type: ignore[arg-type]
        **kwargs,
    )


def _as_chunks(messages: Iterable[BaseMessage]) -> list[AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    for message in messages:
        assert isinstance(message, AIMessageChunk)
        chunks.append(message)
    return chunks


def _sum_chunks(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    assert chunks, "stream yielded no chunks"
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


# --------------------------------------------------------------------------- #
# Basics
# --------------------------------------------------------------------------- #
def test_base_url_and_close() -> None:
    srv = FakeOpenAIServer()
    assert srv.base_url.startswith("http://127.0.0.1:")
    assert srv.base_url.endswith("/v1")
    assert srv.port > 0
    with urllib.request.urlopen(srv.url + "/health", timeout=5) as resp:
        assert json.loads(resp.read()) == {"status": "ok"}
    srv.close()
    srv.close()  # idempotent
    assert srv.closed
    with pytest.raises(OSError):
        urllib.request.urlopen(srv.url + "/health", timeout=2)


def test_invoke_text_and_usage(server: FakeOpenAIServer) -> None:
    msg = _llm(server).invoke("hello there how are you doing today my good friend")
    assert isinstance(msg, AIMessage)
    assert msg.content == "Answer: hello there how are you doing today my"
    usage = msg.usage_metadata
    assert usage is not None
    assert usage["input_tokens"] == 10  # word count of the prompt
    assert usage["output_tokens"] == 9  # word count of the answer
    assert usage["total_tokens"] == 19
    assert msg.response_metadata["finish_reason"] == "stop"
    assert server.request_count == 1
    body = server.requests[0]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][-1] == {
        "role": "user",
        "content": "hello there how are you doing today my good friend",
    }


def test_prefix_cache_reports_cache_read(server: FakeOpenAIServer) -> None:
    llm = _llm(server)
    first = llm.invoke("what is the capital of France")
    assert first.usage_metadata is not None
    assert first.usage_metadata["input_token_details"].get("cache_read", 0) == 0
    # Second turn re-sends the first user message: that prefix is "cached".
    second = llm.invoke(
        [
            HumanMessage("what is the capital of France"),
            first,
            HumanMessage("and of Italy"),
        ]
    )
    assert second.usage_metadata is not None
    assert second.usage_metadata["input_token_details"]["cache_read"] == 6
    # 6 (question) + 7 ("Answer: what is the capital of France") + 3
    assert second.usage_metadata["input_tokens"] == 6 + 7 + 3


def test_fixed_cached_and_reasoning_tokens() -> None:
    with FakeOpenAIServer(cached_tokens=2, reasoning_tokens=4) as srv:
        msg = _llm(srv).invoke("one two three")
    usage = msg.usage_metadata
    assert usage is not None
    assert usage["input_token_details"]["cache_read"] == 2
    assert usage["output_token_details"]["reasoning"] == 4
    # "Answer: one two three" is 4 words + 4 reasoning tokens
    assert usage["output_tokens"] == 8
    assert usage["total_tokens"] == 3 + 8


# --------------------------------------------------------------------------- #
# Tools
# --------------------------------------------------------------------------- #
def test_bind_tools_returns_tool_call(server: FakeOpenAIServer) -> None:
    msg = _llm(server).bind_tools([get_weather, add]).invoke("weather in Paris")
    assert isinstance(msg, AIMessage)
    assert msg.response_metadata["finish_reason"] == "tool_calls"
    assert len(msg.tool_calls) == 1
    call = msg.tool_calls[0]
    assert call["name"] == "get_weather"  # first tool
    assert call["args"] == {"city": "weather in Paris", "days": 1}
    assert call["id"] and call["id"].startswith("call_")
    # the tool's schema reached the server
    tools = server.requests[0]["tools"]
    assert [t["function"]["name"] for t in tools] == ["get_weather", "add"]
    # the args are valid for the real tool
    assert get_weather.invoke(call["args"]) == "sunny in weather in Paris for 1 day(s)"


def test_tool_call_ids_are_deterministic() -> None:
    ids = []
    for _ in range(2):
        with FakeOpenAIServer() as srv:
            msg = _llm(srv).bind_tools([get_weather]).invoke("weather in Oslo")
            ids.append(msg.tool_calls[0]["id"])
    assert ids[0] == ids[1]


def test_tool_loop_summarises_results(server: FakeOpenAIServer) -> None:
    llm = _llm(server).bind_tools([get_weather])
    history: list[Any] = [HumanMessage("weather in Lima")]
    ai = llm.invoke(history)
    assert isinstance(ai, AIMessage) and ai.tool_calls
    history.append(ai)
    for call in ai.tool_calls:
        history.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    final = llm.invoke(history)
    assert final.tool_calls == []
    assert final.content == "Tool results: get_weather -> sunny in weather in Lima for 1 day(s)"
    assert server.request_count == 2


def test_tool_choice_forces_named_tool(server: FakeOpenAIServer) -> None:
    msg = _llm(server).bind_tools([get_weather, add], tool_choice="add").invoke("sum it")
    assert [c["name"] for c in msg.tool_calls] == ["add"]
    assert msg.tool_calls[0]["args"] == {"a": 1, "b": 1}


def test_structured_output_json_schema(server: FakeOpenAIServer) -> None:
    class Person(BaseModel):
        name: str
        age: int

    result = _llm(server).with_structured_output(Person).invoke("Ada Lovelace")
    assert isinstance(result, Person)
    assert result == Person(name="Ada Lovelace", age=1)


# --------------------------------------------------------------------------- #
# Script and custom responder
# --------------------------------------------------------------------------- #
def test_script_consumed_in_order_then_default() -> None:
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}, "id": "call_x"}]},
        {"content": "five", "usage": {"prompt_tokens": 100, "completion_tokens": 7}},
    ]
    with FakeOpenAIServer(script=script) as srv:
        llm = _llm(srv)
        first = llm.invoke("anything")
        assert first.tool_calls == [
            {
                "name": "add",
                "args": {"a": 2, "b": 3},
                "id": "call_x",
                "type": "tool_call",
            }
        ]
        second = llm.invoke("anything")
        assert second.content == "five"
        assert second.usage_metadata is not None
        assert second.usage_metadata["input_tokens"] == 100
        assert second.usage_metadata["output_tokens"] == 7
        assert srv.pending_script == 0
        third = llm.invoke("back to default")
        assert third.content == "Answer: back to default"


def test_custom_responder_and_counts() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any] | None:
        text = last_user_text(request)
        if text.startswith("upper:"):
            return {"content": text.removeprefix("upper:").upper()}
        return None  # fall back to the default responder

    with FakeOpenAIServer(responder=responder) as srv:
        llm = _llm(srv)
        assert llm.invoke("upper:abc").content == "ABC"
        assert llm.invoke("upper:abc").content == "ABC"
        assert llm.invoke("plain words").content == "Answer: plain words"
        assert srv.request_count == 3
        assert srv.count_for("upper:") == 2
        assert srv.counts_by(last_user_text) == {"upper:abc": 2, "plain words": 1}


def test_responder_exception_becomes_500() -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")

    with FakeOpenAIServer(responder=responder) as srv:
        with pytest.raises(openai.InternalServerError, match="boom"):
            _llm(srv, max_retries=2).invoke("x")
        # x-should-retry: false -> the client did not retry
        assert srv.request_count == 1
        assert [str(e) for e in srv.errors] == ["boom"]


def test_default_responder_direct() -> None:
    assert default_responder({"messages": [{"role": "user", "content": "hi"}]}) == {
        "content": "Answer: hi"
    }
    reply = default_responder(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [get_weather_schema()],
            "tool_choice": "none",
        }
    )
    assert reply == {"content": "Answer: hi"}


def get_weather_schema() -> dict[str, Any]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return convert_to_openai_tool(get_weather)


# --------------------------------------------------------------------------- #
# Streaming
# --------------------------------------------------------------------------- #
def test_stream_text_with_usage(server: FakeOpenAIServer) -> None:
    llm = _llm(server, streaming=True, stream_usage=True)
    chunks = _as_chunks(llm.stream("one two three four five six"))
    content_chunks = [c for c in chunks if c.content]
    assert len(content_chunks) >= 2  # content really is split across chunks
    total = _sum_chunks(chunks)
    assert total.content == "Answer: one two three four five six"
    assert total.usage_metadata is not None
    assert total.usage_metadata["input_tokens"] == 6
    assert total.usage_metadata["output_tokens"] == 7
    assert total.usage_metadata["total_tokens"] == 13
    body = server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_stream_without_usage_chunk(server: FakeOpenAIServer) -> None:
    llm = _llm(server, streaming=True, stream_usage=False)
    total = _sum_chunks(_as_chunks(llm.stream("a b c")))
    assert total.content == "Answer: a b c"
    assert total.usage_metadata is None


def test_stream_tool_call(server: FakeOpenAIServer) -> None:
    llm = _llm(server, streaming=True, stream_usage=True).bind_tools([get_weather])
    chunks = _as_chunks(llm.stream("weather in Rome"))
    assert sum(1 for c in chunks if c.tool_call_chunks) >= 2  # args split
    total = _sum_chunks(chunks)
    assert total.tool_calls == [
        {
            "name": "get_weather",
            "args": {"city": "weather in Rome", "days": 1},
            "id": total.tool_calls[0]["id"],
            "type": "tool_call",
        }
    ]
    assert total.response_metadata.get("finish_reason") == "tool_calls"
    assert total.usage_metadata is not None
    assert total.usage_metadata["total_tokens"] > 0


def test_raw_sse_format(server: FakeOpenAIServer) -> None:
    payload = json.dumps(
        {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "x y"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    ).encode()
    req = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=payload,
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        text = resp.read().decode()
    events = [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    parsed = [json.loads(e) for e in events[:-1]]
    assert parsed[0]["choices"][0]["delta"]["role"] == "assistant"
    assert parsed[-2]["choices"][0]["finish_reason"] == "stop"
    assert parsed[-1]["choices"] == []
    assert parsed[-1]["usage"]["prompt_tokens"] == 2
    assert all(p["object"] == "chat.completion.chunk" for p in parsed)


# --------------------------------------------------------------------------- #
# Failures, delay, counting
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("status", [500, 429])
def test_fail_next_then_retry_recovers(server: FakeOpenAIServer, status: int) -> None:
    server.fail_next(1, status)
    msg = _llm(server, max_retries=1).invoke("retry me")
    assert msg.content == "Answer: retry me"
    assert server.request_count == 2
    assert [r.status for r in server.records] == [status, 200]
    assert server.requests[0] == server.requests[1]


def test_fail_next_without_retries_raises(server: FakeOpenAIServer) -> None:
    server.fail_next(2, 429)
    with pytest.raises(openai.RateLimitError) as info:
        _llm(server).invoke("x")
    assert info.value.status_code == 429
    body = info.value.body
    assert isinstance(body, dict) and body["code"] == "rate_limit_exceeded"
    with pytest.raises(openai.RateLimitError):
        _llm(server).invoke("x")
    assert _llm(server).invoke("x").content == "Answer: x"
    assert server.request_count == 3


def test_delay() -> None:
    with FakeOpenAIServer(delay=0.3) as srv:
        start = time.monotonic()
        _llm(srv).invoke("slow")
        assert time.monotonic() - start >= 0.3
        srv.delay = 0.0
        start = time.monotonic()
        _llm(srv).invoke("fast")
        assert time.monotonic() - start < 0.3


def test_count_file_one_line_per_request(tmp_path: Path) -> None:
    count_file = tmp_path / "calls.jsonl"
    with FakeOpenAIServer(count_file=count_file) as srv:
        srv.fail_next(1, 500)
        llm = _llm(srv, max_retries=1)
        llm.invoke("first question")
        llm.invoke("second question")
    lines = count_file.read_text().splitlines()
    assert len(lines) == 3
    entries = read_count_file(count_file)
    assert [e["status"] for e in entries] == [500, 200, 200]
    assert [e["last_user"] for e in entries] == [
        "first question",
        "first question",
        "second question",
    ]
    assert [e["index"] for e in entries] == [0, 1, 2]
    assert all(e["pid"] == os.getpid() for e in entries)


def test_concurrent_requests_are_all_recorded(server: FakeOpenAIServer) -> None:
    llm = _llm(server)
    results: list[str] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        content = llm.invoke(f"q{i}").content
        with lock:
            results.append(str(content))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f"Answer: q{i}" for i in range(8))
    assert server.request_count == 8
    assert server.wait_for_requests(8, timeout=0.1)
    assert sorted(r["messages"][-1]["content"] for r in server.requests) == sorted(
        f"q{i}" for i in range(8)
    )


@pytest.mark.asyncio
async def test_ainvoke(server: FakeOpenAIServer) -> None:
    msg = await _llm(server).ainvoke("async hello world")
    assert msg.content == "Answer: async hello world"
    assert msg.usage_metadata is not None
    assert msg.usage_metadata["input_tokens"] == 3
    server.fail_next(1, 500)
    again = await _llm(server, max_retries=1).ainvoke("async hello world")
    assert again.content == "Answer: async hello world"
    assert server.request_count == 3


@pytest.mark.asyncio
async def test_astream_tool_call(server: FakeOpenAIServer) -> None:
    llm = _llm(server, streaming=True, stream_usage=True).bind_tools([add])
    chunks = _as_chunks([c async for c in llm.astream("add numbers")])
    total = _sum_chunks(chunks)
    assert [(c["name"], c["args"]) for c in total.tool_calls] == [("add", {"a": 1, "b": 1})]
    assert total.usage_metadata is not None


# --------------------------------------------------------------------------- #
# Embeddings and models
# --------------------------------------------------------------------------- #
def test_embeddings(server: FakeOpenAIServer) -> None:
    emb = OpenAIEmbeddings(
        base_url=server.base_url,
        api_key="test",  # type: ignore[arg-type]
        model="text-embedding-3-small",
        check_embedding_ctx_length=False,
        max_retries=0,
    )
    vectors = emb.embed_documents(["hello world", "goodbye", "hello world"])
    assert len(vectors) == 3
    assert all(len(v) == 16 for v in vectors)
    assert vectors[0] == pytest.approx(vectors[2])
    assert vectors[0] != pytest.approx(vectors[1])
    assert math.isclose(math.sqrt(sum(x * x for x in vectors[0])), 1.0, rel_tol=1e-6)
    assert vectors[1] == pytest.approx(deterministic_embedding("goodbye", 16))
    query = emb.embed_query("hello world")
    assert query == pytest.approx(vectors[0])
    assert len(server.embedding_requests) == 2
    assert server.chat_requests == []


def test_embeddings_custom_dim_and_base64() -> None:
    with FakeOpenAIServer(embedding_dim=8) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)
        res = client.embeddings.create(model="m", input=["abc"], encoding_format="base64")
        raw = res.data[0].embedding
        assert isinstance(raw, str)  # the SDK leaves explicit base64 undecoded
        decoded = struct.unpack("<8f", base64.b64decode(raw))
        assert decoded == pytest.approx(deterministic_embedding("abc", 8), abs=1e-6)
        res2 = client.embeddings.create(model="m", input="abc", dimensions=4)
        assert len(res2.data[0].embedding) == 4
        assert res2.usage.prompt_tokens == 1


def test_models_endpoint(server: FakeOpenAIServer) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
    ids = [m.id for m in client.models.list()]
    assert "gpt-4o-mini" in ids
    assert server.request_count == 0  # GETs are not counted


# --------------------------------------------------------------------------- #
# CLI (child process) + count file survives SIGKILL
# --------------------------------------------------------------------------- #
def test_cli_serves_and_counts_after_sigkill(tmp_path: Path) -> None:
    count_file = tmp_path / "child.jsonl"
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES)}  # as `cd examples && python -m fake_openai`
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fake_openai",
            "--port",
            "0",
            "--count-file",
            str(count_file),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        llm = ChatOpenAI(
            model="gpt-4o-mini",
            base_url=base_url,
            api_key="test",  # type: ignore[arg-type]
            max_retries=0,
        )
        assert llm.invoke("from the parent").content == "Answer: from the parent"
        assert llm.invoke("again").content == "Answer: again"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    entries = read_count_file(count_file)
    assert [e["last_user"] for e in entries] == ["from the parent", "again"]
    assert all(e["pid"] == proc.pid for e in entries)


def test_cli_sigterm_exits_cleanly() -> None:
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES)}  # as `cd examples && python -m fake_openai`
    proc = subprocess.Popen(
        [sys.executable, "-m", "fake_openai"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        with urllib.request.urlopen(base_url + "/models", timeout=5) as resp:
            assert json.loads(resp.read())["object"] == "list"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
