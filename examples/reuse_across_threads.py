"""Reuse by meaning: one answer serves paraphrases in other threads; a negation is never served.

The story
---------
Customers open threads with a support bot. Many ask the same thing in other
words. With ``SemanticReuse`` (offline multilingual Universal Sentence Encoder
embeddings, pgvector HNSW in PostgreSQL) the second customer's paraphrase is served from the first
thread's completed answer: no model call, no tokens. A customer asking the
*opposite* ("turn off" instead of "turn on") scores above the threshold too, but
the contrast check refuses it: that thread calls the model. Every reused row
names its source thread and the similarity; the table at the end shows the
tokens and the money saved (at gpt-4o-mini list prices).

    python examples/reuse_across_threads.py [--dsn DSN] [--schema S] [--thread T]
"""

from __future__ import annotations

import operator
import sys
from pathlib import Path
from typing import Annotated, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common
from fake_openai.models import ScriptedChatModel, read_calls
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.ops.cost import PriceTable
from langgraph_actionckpt.ops.embeddings import LocalEmbeddings
from langgraph_actionckpt.reuse import SemanticReuse

SYSTEM = "You are the support bot of Acme Notes. Answer in one sentence."
QUESTIONS = [
    "How do I turn on dark mode in the settings?",
    "How do I turn dark mode on in the settings?",  # paraphrase: reused
    "How do I turn off dark mode in the settings?",  # negation: never reused
    "How do I export my notes to PDF?",
    "What are the steps to export my notes to PDF?",  # paraphrase: reused
]


class State(TypedDict):
    question: str
    answers: Annotated[list[str], operator.add]


def build(model: Any) -> StateGraph[Any]:
    def answer(state: State) -> dict[str, Any]:
        reply = model.invoke([SystemMessage(SYSTEM), HumanMessage(state["question"])])
        return {"answers": [str(reply.content)]}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder


def run(dsn: str, schema: str, thread: str, workdir: Path) -> dict[str, Any]:
    """Ask every question in its own thread; return what was reused and saved."""
    calls = workdir / "calls.jsonl"
    model = ScriptedChatModel(calls_file=str(calls), model="gpt-4o-mini")
    policy = SemanticReuse(LocalEmbeddings(), scope=f"acme-notes-{thread}")
    prices = PriceTable()
    rows: list[dict[str, Any]] = []
    with ActionSaver.from_conn_string(dsn, schema=schema, reuse=policy, setup=True) as saver:
        policy.ensure(saver)
        graph = build(model).compile(checkpointer=saver)
        for i, question in enumerate(QUESTIONS):
            tid = f"{thread}-customer-{i + 1}"
            config = {"configurable": {"thread_id": tid}}
            graph.invoke({"question": question, "answers": []}, config)
            row = next(r for r in saver.list_actions(tid) if r.action_type == "llm_completion")
            src = (row.meta or {}).get("reused_from")
            saved = (row.meta or {}).get("reuse_saved") or {}
            cost = None
            if src:
                source = saver.get_action(src["thread_id"], src["action_id"])
                cost = prices.cost(source) if source is not None else None
            refused = ((row.meta or {}).get("reuse_miss") or {}).get("refused") or []
            rows.append(
                {
                    "thread": tid,
                    "question": question,
                    "reused_from": src["thread_id"] if src else None,
                    "similarity": src["similarity"] if src else None,
                    "refused": refused[0]["reason"] if refused else None,
                    "tokens_saved": saved.get("total_tokens") or 0,
                    "usd_saved": cost or 0.0,
                }
            )
    return {"rows": rows, "model_calls": len(read_calls(str(calls)))}


def main() -> None:
    args = _common.example_args(__doc__)
    dsn = _common.resolve_dsn(args.dsn)
    thread = args.thread or _common.new_thread_id("reuse")
    work = _common.workdir_for(thread, args.workdir)
    print(f"thread prefix: {thread} | schema: {args.schema}")
    result = run(dsn, args.schema, thread, work)
    for r in result["rows"]:
        if r["reused_from"]:
            how = f"REUSED from {r['reused_from']} (similarity {r['similarity']:.3f})"
        else:
            why = f", refused a candidate: {r['refused']}" if r["refused"] else ""
            how = f"model called{why}"
        print(f"{r['question']:<50} {how}")
    tokens = sum(r["tokens_saved"] for r in result["rows"])
    usd = sum(r["usd_saved"] for r in result["rows"])
    print(f"questions: {len(QUESTIONS)}, model calls: {result['model_calls']}")
    print(f"tokens saved: {tokens}, cost saved: ${usd:.6f} (gpt-4o-mini list prices)")
    negated = result["rows"][2]
    served = "yes" if negated["reused_from"] else "no"
    print(f"negated request served from a cached answer: {served}")


if __name__ == "__main__":
    main()
