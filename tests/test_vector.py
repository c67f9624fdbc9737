"""Similarity search with pgvector (pg18) and the clear failure without it (pg15)."""

from __future__ import annotations

import json
import math
import re
import time
import zlib
from collections.abc import Iterator

import pytest
from langchain_core.embeddings import Embeddings
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import VectorUnavailableError
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.vector import BackgroundEmbedder, VectorIndex, action_text

from .conftest import drop_schema, fetch, new_schema_name

DIMS = 64


class HashEmbeddings(Embeddings):
    """Deterministic bag-of-words embeddings: words hashed into 64 dims, L2-normalized."""

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * DIMS
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[zlib.crc32(word.encode()) % (DIMS - 1)] += 1.0
        vec[DIMS - 1] = 0.05  # never the zero vector (cosine undefined)
        norm = math.sqrt(sum(v * v for v in vec))
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


class BrokenEmbeddings(HashEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("embedding service down")


ERRORS = {
    "t-429a": "429 rate limit exceeded, retry later",
    "t-503": "503 service unavailable",
    "t-timeout": "timeout after 30 seconds",
    "t-429b": "HTTP 429: rate limit exceeded for model",
}


def record_tool_calls(saver: ActionSaver) -> None:
    records = []
    for thread_id, message in ERRORS.items():
        records.append(
            ActionRecord(
                thread_id,
                "call-1",
                "tool_call",
                name="search",
                status="completed",
                input={"query": "weather in paris"},
                output="sunny, 21 degrees",
            )
        )
        records.append(
            ActionRecord(
                thread_id,
                "call-2",
                "tool_call",
                name="fetch_page",
                status="failed",
                input={"url": "https://example.com"},
                error={"type": "HTTPError", "message": message},
            )
        )
    records.append(ActionRecord("t-run", "call-1", "tool_call", name="slow", status="running"))
    saver.record_actions(records)


@pytest.fixture
def pg18_saver(pg18_dsn: str) -> Iterator[ActionSaver]:
    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(pg18_dsn, schema=schema) as s:
            s.setup()
            yield s
    finally:
        drop_schema(pg18_dsn, schema)


@pytest.fixture
def pg15_saver(pg15_dsn: str) -> Iterator[ActionSaver]:
    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(pg15_dsn, schema=schema) as s:
            s.setup()
            yield s
    finally:
        drop_schema(pg15_dsn, schema)


def test_nearest_failures(pg18_saver: ActionSaver, pg18_dsn: str) -> None:
    saver = pg18_saver
    record_tool_calls(saver)
    index = VectorIndex(saver, None, HashEmbeddings())
    assert index.ensure() == DIMS
    assert index.ensure() == DIMS  # idempotent
    assert VectorIndex(saver, None, HashEmbeddings(), dims=DIMS).ensure() == DIMS

    assert index.embed_pending(batch_size=3) == 8  # the running action waits
    assert index.embed_pending() == 0
    rows = fetch(
        pg18_dsn,
        f'SELECT count(*) FROM "{saver.schema}".actions WHERE embedding IS NULL',
    )
    assert rows[0][0] == 1
    idx = fetch(
        pg18_dsn,
        "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname = %s",
        (saver.schema, "actions_embedding_hnsw_idx"),
    )
    assert "hnsw" in idx[0][0] and "vector_cosine_ops" in idx[0][0]

    hits = index.similar_actions("rate limit 429", k=2, status="failed")
    assert {r.thread_id for r, _ in hits} == {"t-429a", "t-429b"}
    assert all(r.status == "failed" for r, _ in hits)
    assert hits[0][1] <= hits[1][1] < 1.0

    everything = index.similar_actions("rate limit 429", k=20)
    assert len(everything) == 8
    assert [d for _, d in everything] == sorted(d for _, d in everything)
    assert (
        index.similar_actions("weather", k=3, status="completed", action_type="tool_call")[0][
            0
        ].name
        == "search"
    )
    assert index.similar_actions("rate limit", k=5, action_type="node") == []

    # search by an action: its nearest other failure is the other 429
    target = saver.get_action("t-429a", "call-2")
    assert target is not None
    nearest = index.similar_actions(target, k=1, status="failed")
    assert nearest[0][0].thread_id == "t-429b"


def test_background_embedder(pg18_saver: ActionSaver) -> None:
    saver = pg18_saver
    index = VectorIndex(saver, None, HashEmbeddings())
    index.ensure()
    with BackgroundEmbedder(index, interval=0.05, batch_size=4) as bg:
        record_tool_calls(saver)
        bg.wake()
        deadline = time.monotonic() + 10
        while bg.embedded < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert bg.embedded == 8 and bg.last_error is None

    broken = BackgroundEmbedder(VectorIndex(saver, None, BrokenEmbeddings()), interval=0.01)
    saver.record_actions([ActionRecord("t-new", "a", "tool_call", status="completed")])
    broken.start()
    deadline = time.monotonic() + 10
    while broken.passes < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    broken.stop()
    assert broken.embedded == 0 and isinstance(broken.last_error, RuntimeError)


def test_cli_similar(pg18_saver: ActionSaver, pg18_dsn: str) -> None:
    record_tool_calls(pg18_saver)
    result = CliRunner().invoke(
        app,
        [
            "similar",
            "rate limit 429",
            "-k",
            "2",
            "--status",
            "failed",
            "--embeddings",
            "tests.test_vector:HashEmbeddings",
            "--dsn",
            pg18_dsn,
            "--schema",
            pg18_saver.schema,
            "--json",
        ],
    )
    assert result.exit_code == 0, (result.stdout, result.stderr)
    out = json.loads(result.stdout)
    assert out["embedded"] == 8
    assert {r["thread_id"] for r in out["results"]} == {"t-429a", "t-429b"}
    assert all("429" in r["error"] for r in out["results"])
    show = ["--dsn", pg18_dsn, "--schema", pg18_saver.schema, "--json"]
    for r in out["results"]:  # the hit's number in its thread, as `show` numbers it
        shown = json.loads(CliRunner().invoke(app, ["show", r["thread_id"], *show]).stdout)
        want = {a["action_id"]: a["position"] for a in shown["actions"]}
        assert r["position"] == want[r["action_id"]] >= 1


def test_action_text_is_compact_and_bounded() -> None:
    text = action_text("tool_call", "fetch", {"url": "u"}, None, {"message": "boom"})
    assert text == 'tool_call | fetch | input: {"url":"u"} | error: {"message":"boom"}'
    long = action_text("llm_completion", "m", "x" * 50_000, "y" * 50_000, None)
    assert len(long) <= 8000


def test_without_pgvector(pg15_saver: ActionSaver, pg15_dsn: str) -> None:
    saver = pg15_saver
    index = VectorIndex(saver, None, HashEmbeddings())
    with pytest.raises(VectorUnavailableError, match="pgvector extension") as info:
        index.ensure()
    assert "pg_available_extensions" in str(info.value)
    with pytest.raises(VectorUnavailableError):
        index.similar_actions("rate limit")
    with pytest.raises(VectorUnavailableError, match="embedding model"):
        VectorIndex(saver, None, None)

    # everything else keeps working on this server
    record_tool_calls(saver)
    assert len(saver.list_actions("t-503")) == 2
    runner = CliRunner()
    base = ["--dsn", pg15_dsn, "--schema", saver.schema, "--json"]
    runs = json.loads(runner.invoke(app, ["runs", *base]).stdout)["runs"]
    assert {r["thread_id"] for r in runs} == {*ERRORS, "t-run"}
    result = runner.invoke(
        app, ["similar", "429", "--embeddings", "tests.test_vector:HashEmbeddings", *base]
    )
    assert result.exit_code == 1
    err = json.loads(result.stdout)
    assert err["type"] == "VectorUnavailableError" and "pgvector" in err["error"]
    assert "embedding" not in {
        r[0]
        for r in fetch(
            pg15_dsn,
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = 'actions'",
            (saver.schema,),
        )
    }
