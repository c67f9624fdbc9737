"""The reuse policy's reads and writes: look up, store, and add the vector column.

``_async_io.py`` is the source and ``_sync_io.py`` is generated from it
(``python .ci/gen_sync.py``). The decisions are in :mod:`.policy`; the SQL in
:mod:`.plans`.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db.migrations import plan_reuse_vector, plan_reuse_vector_state
from langgraph_actionckpt.errors import VectorUnavailableError
from langgraph_actionckpt.replay.context import TaskScope
from langgraph_actionckpt.reuse._run import arun_plan
from langgraph_actionckpt.reuse.plans import plan_exact, plan_nearest, plan_store
from langgraph_actionckpt.reuse.ticket import Matcher, Ticket


def vector_text(values: list[float]) -> str:
    """pgvector's text form of a vector (cast on the server; no adapter needed)."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def _observe(saver: Any, kind: str, outcome: str, tokens: int) -> None:
    observe = getattr(saver.metrics, "observe_reuse", None)
    if observe is not None:
        observe(kind, outcome, tokens)


async def lookup(
    policy: Matcher, scope: TaskScope, live: ActionRecord, ticket: Ticket
) -> ActionRecord | None:
    """Another thread's result for ``ticket`` as a new row of ``live``'s action, or None."""
    saver = scope.saver
    t0 = time.perf_counter()
    keyring = getattr(saver, "encryption", None)  # a reused row is read with the saver's keys
    found = await arun_plan(
        saver, partial(plan_exact, saver.schema, policy.scope, ticket.request_hash, keyring)
    )
    hit = None
    refused: list[dict[str, Any]] = []
    if found is not None:
        hit = policy.hit_record(live, found, 1.0, "exact")
    elif policy.embeddings is not None:
        iterative = await ensure(policy, saver)
        ticket.embedding = list(await policy.embeddings.aembed_query(ticket.text))
        candidates = await arun_plan(
            saver,
            partial(
                plan_nearest,
                saver.schema,
                policy.scope,
                ticket.key_hash,
                vector_text(ticket.embedding),
                policy.k,
                iterative,
                keyring,
            ),
        )
        chosen, refused = policy.choose(ticket, candidates)
        if chosen is not None:
            hit = policy.hit_record(live, chosen[0], chosen[1], "semantic")
    if hit is None:
        policy.miss_meta(live, policy.scope, refused)
        _observe(saver, ticket.kind, "miss", 0)
        return None
    hit.latency_ms = (time.perf_counter() - t0) * 1000.0
    _observe(saver, ticket.kind, "hit", int(hit.meta["reuse_saved"].get("total_tokens") or 0))
    return hit


async def store(policy: Matcher, scope: TaskScope, record: ActionRecord, ticket: Ticket) -> None:
    """Make a completed result reusable: its entry (and embedding) in ``reuse_entries``."""
    saver = scope.saver
    qvec = None
    if policy.embeddings is not None:
        await ensure(policy, saver)
        if ticket.embedding is None:
            ticket.embedding = list(await policy.embeddings.aembed_query(ticket.text))
        qvec = vector_text(ticket.embedding)
    entry = (
        record.thread_id,
        record.action_id,
        policy.scope,
        ticket.key_hash,
        ticket.request_hash,
        ticket.kind,
        ticket.name,
        ticket.text,
    )
    await arun_plan(saver, partial(plan_store, saver.schema, entry, qvec))


async def ensure(policy: Matcher, saver: Any) -> bool:
    """Add ``reuse_entries.embedding`` and its HNSW index once per saver (semantic policies).

    Returns:
        Whether pgvector's iterative index scans (0.8+) are available.

    Raises:
        VectorUnavailableError: The server has no pgvector.
    """
    key = (id(saver), saver.schema)
    ready = policy._ready.get(key)
    if ready is not None or policy.embeddings is None:
        return bool(ready)
    state = await arun_plan(saver, partial(plan_reuse_vector_state, saver.schema))
    if not state.available:
        raise VectorUnavailableError(
            "semantic reuse needs the pgvector extension, but the server (PostgreSQL "
            f"{state.server_version}) does not have it. Install pgvector on the server, use "
            "the embedded PostgreSQL (it ships pgvector), or use ExactReuse, which needs none."
        )
    dims = state.column_dims or len(await policy.embeddings.aembed_query("dimension probe"))
    await arun_plan(saver, partial(plan_reuse_vector, saver.schema, dims), pipeline=False)
    version = tuple(int(p) for p in (state.extension_version or "0.8").split(".")[:2])
    policy._ready[key] = version >= (0, 8)
    return version >= (0, 8)
