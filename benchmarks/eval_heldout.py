"""Reuse by meaning on the held-out pairs, end to end through the public API, once.

The method is in ``benchmarks/RESULTS.md`` (fixed before any result). For each pair
of ``benchmarks/reuse_heldout.jsonl`` (or ``--pairs``, e.g. held-out set #2,
``benchmarks/reuse_heldout2.jsonl``): a one-node graph with a counting model, the
default ``SemanticReuse(LocalEmbeddings(), scope=<the pair's own>)`` on the saver;
thread 1 asks request a, thread 2 asks b; b was served when the model was not
called for it. Prints wrong reuse and recall with 95% Wilson intervals, by kind
and by language, and the must-not pairs that were served.

    python -m benchmarks.eval_heldout [--pairs PATH] [--dsn DSN]
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from examples.fake_openai.models import ScriptedChatModel, read_calls
from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.ops.embeddings import LocalEmbeddings
from langgraph_actionckpt.reuse import SemanticReuse

PAIRS = Path(__file__).with_name("reuse_heldout.jsonl")


class State(TypedDict):
    messages: list[Any]
    out: Annotated[list[str], operator.add]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of k successes in n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {k / n:.1%} (95% CI {lo:.1%}-{hi:.1%})" if n else "-"


def build(model: ScriptedChatModel) -> Any:
    def ask(state: State) -> dict[str, Any]:
        return {"out": [str(model.invoke(state["messages"]).content)]}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder


def messages(request: dict[str, Any]) -> list[Any]:
    kinds = {"system": SystemMessage, "human": HumanMessage}
    return [kinds[role](text) for role, text in request["messages"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", default=None, help="default: the embedded PostgreSQL")
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="default: held-out set #1")
    args = parser.parse_args()
    if args.dsn is None:
        from langgraph_actionckpt.embedded_postgres import embedded_dsn

        args.dsn = embedded_dsn()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines()]
    embeddings = LocalEmbeddings()
    schema = f"eval_heldout_{uuid.uuid4().hex[:8]}"
    served: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as tmp:
        calls = str(Path(tmp) / "calls.jsonl")
        model = ScriptedChatModel(calls_file=calls)
        t0 = time.perf_counter()
        with ActionSaver.from_conn_string(args.dsn, schema=schema, setup=True) as saver:
            graph = build(model).compile(checkpointer=saver)
            for pair in pairs:
                policy = SemanticReuse(embeddings, scope=f"heldout-{pair['id']}")
                for side in ("a", "b"):
                    before = len(read_calls(calls))
                    conf = {"thread_id": f"{pair['id']}-{side}", "actionckpt_reuse": policy}
                    graph.invoke(
                        {"messages": messages(pair[side]), "out": []}, {"configurable": conf}
                    )
                    if side == "b":
                        served[pair["id"]] = len(read_calls(calls)) == before
        elapsed = time.perf_counter() - t0
    _drop(args.dsn, schema)
    report(args.pairs, pairs, served, elapsed)


def _drop(dsn: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def report(
    path: Path, pairs: list[dict[str, Any]], served: dict[str, bool], elapsed: float
) -> None:
    should = [p for p in pairs if p["label"] == "reuse"]
    must_not = [p for p in pairs if p["label"] == "distinct"]
    wrong = [p for p in must_not if served[p["id"]]]
    hits = [p for p in should if served[p["id"]]]
    print(f"{len(pairs)} held-out pairs ({path.name}), end to end, default settings", end="")
    print(f" ({elapsed:.0f} s)")
    print(f"wrong reuse: {rate(len(wrong), len(must_not))}")
    print(f"recall:      {rate(len(hits), len(should))}")
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for p in pairs:
        if p["label"] == "distinct":
            by_kind[p["kind"]][0] += served[p["id"]]
            by_kind[p["kind"]][1] += 1
            by_lang[p["lang"]][0] += served[p["id"]]
            by_lang[p["lang"]][1] += 1
        else:
            by_lang[p["lang"]][2] += served[p["id"]]
            by_lang[p["lang"]][3] += 1
    print("must-not pairs served, by kind:", {k: f"{w}/{n}" for k, (w, n) in by_kind.items()})
    print(
        "by language (wrong, recall):",
        {k: (f"{w}/{n}", f"{h}/{m}") for k, (w, n, h, m) in by_lang.items()},
    )
    for p in wrong:
        a, b = p["a"]["messages"][-1][1], p["b"]["messages"][-1][1]
        print(f"  served wrongly {p['id']}: {a!r} -> {b!r}")


if __name__ == "__main__":
    main()
