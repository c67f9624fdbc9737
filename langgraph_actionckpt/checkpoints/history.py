"""The delta channel history plan (``get_delta_channel_history``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import Checkpoint, DeltaChannelHistory, PendingWrite

from langgraph_actionckpt.checkpoints.blobs import ChainResolver, StoredBlob
from langgraph_actionckpt.checkpoints.budget import load_errors, refused
from langgraph_actionckpt.checkpoints.codec import Codec, thread_key
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.checkpoints.plans_read import blob_place, load_write, opened_blob
from langgraph_actionckpt.checkpoints.plans_write import INLINE_VERSION
from langgraph_actionckpt.checkpoints.rows import (
    BlobChainRow,
    CheckpointBytesRow,
    DeltaChainRow,
    DeltaWriteRow,
)
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.encoding import escape_text, unescape_text


def empty_history(channels: Sequence[str]) -> dict[str, DeltaChannelHistory]:
    """The history of channels with no ancestor: no writes, no seed."""
    return {c: {"writes": []} for c in channels}


def plan_delta_history(
    queries: Queries,
    codec: Codec,
    config: RunnableConfig,
    target: str,
    channels: Sequence[str],
) -> Plan[dict[str, DeltaChannelHistory]]:
    """Parent-chain walk in at most four queries, whatever the chain length.

    1. A recursive query walks the parent chain from the target and stops
       when every channel has met an ancestor that stores a value for it
       (inline values are listed in ``channels`` too, with an empty version).
    2. One query fetches the writes of the visited ancestors for the channels.
    3. The seeds are loaded: blob values in one query, inline ones from their
       checkpoint rows in another.

    Args:
        queries: The schema's statements.
        codec: Decodes the values.
        config: Thread and namespace.
        target: The checkpoint whose history is read (the caller resolves "latest").
        channels: The channels.

    Returns:
        Per channel: the writes since its seed (oldest first) and the seed value.
    """
    if not channels:
        return {}
    thread_id, ns = thread_key(config)
    wanted = [escape_text(c) for c in channels]
    base = {"thread_id": thread_id, "ns": ns}
    chain_rows = yield Op(
        queries.delta_chain, {**base, "checkpoint_id": target, "channels": wanted}, "all"
    )
    ancestors = [r for r in map(DeltaChainRow._make, chain_rows) if r.depth > 0]
    if not ancestors:
        return empty_history(channels)
    remaining_at = {r.checkpoint_id: set(r.before) for r in ancestors}
    order = {r.checkpoint_id: r.depth for r in ancestors}
    write_rows = yield Op(
        queries.delta_writes, {**base, "ids": list(order), "channels": wanted}, "all"
    )
    per_ckpt: dict[str, list[DeltaWriteRow]] = {}
    for w in map(DeltaWriteRow._make, write_rows):
        # a write counts only where its channel was still unresolved
        if w.channel in remaining_at.get(w.checkpoint_id, ()):
            per_ckpt.setdefault(w.checkpoint_id, []).append(w)
    budget = codec.budget()
    top = Place(queries.schema, "checkpoints", thread_id, ns, target, column="checkpoint")
    collected: dict[str, list[PendingWrite]] = {c: [] for c in channels}
    for cid in sorted(per_ckpt, key=lambda c: -order[c]):  # oldest ancestor first
        for w in sorted(per_ckpt[cid], key=lambda w: (w.task_path, w.task_id, w.position)):
            where = top.at(
                table="writes", checkpoint_id=w.checkpoint_id, task_id=w.task_id,
                channel=w.channel, column="blobs",
            )  # fmt: skip
            value = load_write(codec, where, w.type, w.blob, w.ref_type, w.ref_count, budget)
            collected[unescape_text(w.channel)].append(
                (unescape_text(w.task_id), unescape_text(w.channel), value)
            )
    blob_targets: list[tuple[str, str]] = []
    inline_seeds: dict[str, list[str]] = {}
    for a in ancestors:
        for channel, version in zip(a.found or (), a.found_versions or (), strict=True):
            if version == INLINE_VERSION:
                inline_seeds.setdefault(a.checkpoint_id, []).append(channel)
            else:
                blob_targets.append((channel, version))
    seeds: dict[str, Any] = {}
    if blob_targets:
        blob_rows = yield Op(
            queries.blob_chains,
            {
                "thread_id": thread_id,
                "ns": [ns] * len(blob_targets),
                "channels": [c for c, _ in blob_targets],
                "versions": [v for _, v in blob_targets],
            },
            "all",
        )
        per: dict[str, dict[str, StoredBlob]] = {}
        for b in map(BlobChainRow._make, blob_rows):
            per.setdefault(b.channel, {})[b.version] = opened_blob(codec, b, budget)
        resolver = ChainResolver(per)
        for channel, version in blob_targets:
            where = blob_place(top, channel, version)
            with load_errors(where):
                vtype, vdata = resolver.resolve(channel, version)
                if vtype != "empty":
                    value = codec.loads(vtype, vdata, where, budget, opened=True)
                    seeds[unescape_text(channel)] = value
    if inline_seeds:
        ckpt_rows = yield Op(queries.checkpoint_bytes, {**base, "ids": list(inline_seeds)}, "all")
        for c in map(CheckpointBytesRow._make, ckpt_rows):
            where = top.at(checkpoint_id=c.checkpoint_id)
            checkpoint = cast(Checkpoint, codec.loads(c.type, c.checkpoint, where, budget))
            inline = checkpoint.get("channel_values") if isinstance(checkpoint, dict) else None
            if not isinstance(inline, dict):
                raise refused(where, "the checkpoint holds no map of channel values")
            for channel in inline_seeds[c.checkpoint_id]:
                if unescape_text(channel) in inline:
                    seeds[unescape_text(channel)] = inline[unescape_text(channel)]
    result: dict[str, DeltaChannelHistory] = {}
    for ch in channels:
        entry: DeltaChannelHistory = {"writes": collected[ch]}
        if ch in seeds:
            entry["seed"] = seeds[ch]
        result[ch] = entry
    return result
