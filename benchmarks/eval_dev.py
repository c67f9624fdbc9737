"""Reuse by meaning on the development sets, offline: the lookup's decision without a graph.

For each pair it computes what a lookup computes (``benchmarks.eval_heldout`` runs the
same pairs end to end): the request texts as the ticket renders them, their cosine
similarity under the default model, the default threshold and the contrast check, and
serves ``b`` from ``a`` when they pass (or are the same request). It is for developing
the decision on data already looked at; a held-out set is still evaluated once, end to
end, with ``benchmarks.eval_heldout``.

    python -m benchmarks.eval_dev [--sets PATH ...] [--show-wrong] [--show-missed]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.eval_heldout import rate
from langgraph_actionckpt.ops.embeddings import LocalEmbeddings
from langgraph_actionckpt.reuse.calibrate import DEFAULT_THRESHOLD
from langgraph_actionckpt.reuse.contrast import contrast
from langgraph_actionckpt.reuse.keys import render_messages, tool_key

HERE = Path(__file__).parent
DEVELOPMENT = [
    HERE / "reuse_pairs.jsonl",
    *(HERE / f"reuse_heldout{n}.jsonl" for n in ("", *range(2, 18))),
]


def text(request: dict[str, Any]) -> str:
    """The ticket's text of a pair's request (canonical messages, last first; or a tool call)."""
    if "tool" in request:
        return tool_key(request["tool"], request["args"], None)[1]
    return render_messages([{"type": role, "content": body} for role, body in request["messages"]])


def evaluate(path: Path, embeddings: LocalEmbeddings, args: argparse.Namespace) -> None:
    pairs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    texts = [(text(p["a"]), text(p["b"])) for p in pairs]
    vectors = embeddings.embed_documents([t for pair in texts for t in pair])
    embed = embeddings.embed_documents
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    wrong, missed = [], []
    for i, (pair, (ta, tb)) in enumerate(zip(pairs, texts, strict=True)):
        va, vb = vectors[2 * i], vectors[2 * i + 1]
        similarity = sum(x * y for x, y in zip(va, vb, strict=True)) / math.sqrt(
            sum(x * x for x in va) * sum(y * y for y in vb)
        )
        # bound tools are part of the key: requests with other tools never share an answer
        same_key = pair["a"].get("tools") == pair["b"].get("tools")
        reason = None if ta == tb else contrast(tb, ta, embed)
        served = same_key and (ta == tb or (similarity >= DEFAULT_THRESHOLD and reason is None))
        lang = pair.get("lang") or "?"
        should = pair["label"] == "reuse"
        slot = counts[lang]
        if should:
            slot[2] += served
            slot[3] += 1
            if not served:
                missed.append((pair, round(similarity, 3), reason))
        else:
            slot[0] += served
            slot[1] += 1
            if served:
                wrong.append((pair, round(similarity, 3)))
    w = sum(c[0] for c in counts.values())
    n = sum(c[1] for c in counts.values())
    h = sum(c[2] for c in counts.values())
    m = sum(c[3] for c in counts.values())
    print(f"{path.name}: wrong {rate(w, n)}; recall {rate(h, m)}")
    by_language = {k: f"{c[0]}/{c[1]}, {c[2]}/{c[3]}" for k, c in counts.items()}
    print("  by language (wrong, recall):", by_language)
    if args.show_wrong:
        for pair, sim in wrong:
            print(f"    WRONG {pair['id']} {sim}: {_last(pair['a'])!r} -> {_last(pair['b'])!r}")
    if args.show_missed:
        for pair, sim, reason in missed:
            a, b = _last(pair["a"]), _last(pair["b"])
            print(f"    MISSED {pair['id']} {sim} {reason}: {a!r} -> {b!r}")


def _last(request: dict[str, Any]) -> str:
    return str(request["messages"][-1][1] if "messages" in request else request)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, nargs="*", default=DEVELOPMENT)
    parser.add_argument("--show-wrong", action="store_true")
    parser.add_argument("--show-missed", action="store_true")
    args = parser.parse_args()
    embeddings = LocalEmbeddings()
    t0 = time.perf_counter()
    for path in args.sets:
        evaluate(path, embeddings, args)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
