"""The reuse policies: which results may be served to another thread, and when.

The policy object is handed to the saver (``reuse=``) or to one run
(``config["configurable"]["actionckpt_reuse"]``). The replay layer asks it, for
every idempotent, reusable action that the task's own log cannot serve, for a
:class:`Ticket` (no I/O), then to look the ticket up (``areuse_lookup`` /
``reuse_lookup``), and, after a miss, to store the completed result
(``areuse_store`` / ``reuse_store``). The I/O is in ``_async_io`` (the sync
twin is generated); what is decided here needs no database.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langchain_core.embeddings import Embeddings

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.replay.context import TaskScope
from langgraph_actionckpt.replay.core import now
from langgraph_actionckpt.replay.exact import TYPED
from langgraph_actionckpt.reuse import _async_io, _sync_io
from langgraph_actionckpt.reuse.calibrate import DEFAULT_THRESHOLD, calibrate
from langgraph_actionckpt.reuse.contrast import contrast
from langgraph_actionckpt.reuse.entries import EntryThresholds
from langgraph_actionckpt.reuse.keys import CONTEXT_MODES, function_key, llm_key, tool_key
from langgraph_actionckpt.reuse.ticket import Ticket

__all__ = ["KINDS", "ExactReuse", "SemanticReuse", "Ticket", "Verifier"]

KINDS = ("llm_completion", "tool_call", "function")
_LEARN_BELOW = 0.1  # how far below the calibrated threshold an entry may learn to serve
Verifier = Callable[[str, str, ActionRecord], bool]
"""``verifier(request_text, cached_request_text, cached_record) -> serve?``"""


class SemanticReuse:
    """Serve a completed result from another thread when the request means the same.

    A lookup tries, in order: the same whole request in ``scope`` (exact), then
    the nearest stored requests with the same key (action, model, parameters,
    tool schema and, with ``context="exact"``, every earlier message) whose
    cosine similarity reaches the action's threshold, accepted only if the
    contrast check (:func:`~langgraph_actionckpt.reuse.contrast.contrast`) finds
    no difference that matters and ``verifier`` (if any) agrees.

    Never reused: non-idempotent actions, failed results, tools that do not
    declare ``metadata={"reusable": True}``, ``@action`` functions without
    ``reusable=True``, and anything outside ``scope``.

    Args:
        embeddings: Any LangChain ``Embeddings`` (offline: ``LocalEmbeddings``
            from ``langgraph_actionckpt.ops.embeddings``). ``None``: exact reuse only.
        threshold: Cosine similarity a candidate must reach (default calibrated
            for the offline USE multilingual v3 model with the contrast check).
        scope: Results are shared only between runs naming the same scope (an
            app, a tenant).
        verifier: ``verifier(request_text, cached_request_text, cached_record)``
            returns True to serve; called after the contrast check.
        thresholds: Per action name (model, tool or function name) thresholds.
        contrast: Run the contrast check (strongly advised).
        context: ``"exact"``: earlier messages must be identical; ``"similar"``:
            the whole conversation is compared by meaning.
        kinds: Action kinds to reuse.
        k: Candidates fetched per lookup.
        max_wrong_rate: Learn a threshold per cached entry from the answers the
            model gave to requests it did not serve (:mod:`.entries`), bounding
            each entry's wrong reuse by this share; ``None``: one threshold.

    Raises:
        ConfigurationError: A threshold outside (0, 1], a ``max_wrong_rate``
            outside [0, 1), an unknown context mode or kind.
    """

    def __init__(
        self,
        embeddings: Embeddings | None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        scope: str = "default",
        verifier: Verifier | None = None,
        thresholds: Mapping[str, float] | None = None,
        contrast: bool = True,
        context: str = "exact",
        kinds: Iterable[str] = KINDS,
        k: int = 4,
        max_wrong_rate: float | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.scope = str(scope)
        self.verifier = verifier
        self.thresholds = dict(thresholds or {})
        self.threshold = threshold
        self.contrast = contrast
        self.context = context
        self.kinds = tuple(kinds)
        self.k = k
        for value in (threshold, *self.thresholds.values()):
            if not 0 < value <= 1:
                raise ConfigurationError(f"a reuse threshold must be in (0, 1], got {value!r}")
        if context not in CONTEXT_MODES:
            raise ConfigurationError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
        unknown = set(self.kinds) - set(KINDS)
        if unknown:
            raise ConfigurationError(f"unknown action kinds {sorted(unknown)}; use {KINDS}")
        if max_wrong_rate is not None and not 0 <= max_wrong_rate < 1:
            raise ConfigurationError(f"max_wrong_rate must be in [0, 1), got {max_wrong_rate!r}")
        # an entry's learned threshold stays within reach of the calibrated one
        self.entries = (
            None
            if max_wrong_rate is None
            else EntryThresholds(max_wrong_rate, floor=max(0.0, threshold - _LEARN_BELOW))
        )
        self._ready: dict[tuple[int, str], bool] = {}
        self._lock = threading.Lock()

    @property
    def semantic(self) -> bool:
        """Whether lookups go beyond the exact request."""
        return self.embeddings is not None

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """The contrast check's view of replaced words, by the policy's own model."""
        assert self.embeddings is not None  # choose() and calibrate() run for semantic policies
        return self.embeddings.embed_documents(texts)

    def threshold_for(self, name: str) -> float:
        """The similarity threshold of action ``name``."""
        return self.thresholds.get(name, self.threshold)

    def calibrate(
        self,
        pairs: Iterable[tuple[str, str, bool]],
        target_wrong_rate: float = 0.01,
        *,
        name: str | None = None,
    ) -> float:
        """Set the threshold (of ``name``, or the default) from labelled request texts.

        Args:
            pairs: ``(text_a, text_b, should_reuse)``.
            target_wrong_rate: Largest share of must-not pairs that may be reused.
            name: Calibrate this action's threshold only.

        Returns:
            The new threshold.
        """
        if self.embeddings is None:
            raise ConfigurationError("calibrating needs embeddings (this policy is exact only)")
        items = list(pairs)
        vectors = self.embeddings.embed_documents([t for a, b, _ in items for t in (a, b)])
        scored: list[tuple[float | None, bool]] = []
        for i, (a, b, ok) in enumerate(items):
            va, vb = vectors[2 * i], vectors[2 * i + 1]
            refused = self.contrast and contrast(b, a, self._embed) is not None
            scored.append((None if refused else _cosine(va, vb), ok))
        value = min(1.0, calibrate(scored, target_wrong_rate))
        if name is None:
            self.threshold = value
        else:
            self.thresholds[name] = value
        return value

    # ------------------------------------------------------------- tickets

    def ticket(
        self, kind: str, name: str, request: Any, extra: Any, request_hash: str
    ) -> Ticket | None:
        """The ticket of a reusable request, or None when this policy does not reuse it."""
        if kind not in self.kinds:
            return None
        if kind == "llm_completion":
            key, text = llm_key(list(request[0]), str(extra), self.context)
        elif kind == "tool_call":
            key, text = tool_key(name, request, extra)
        else:
            key, text = function_key(name, request)
        return Ticket(kind, name, key, request_hash, text)

    def choose(
        self, ticket: Ticket, candidates: list[tuple[ActionRecord, str, float]]
    ) -> tuple[tuple[ActionRecord, float] | None, list[dict[str, Any]]]:
        """The first candidate to serve, and why the others were refused."""
        refused: list[dict[str, Any]] = []
        base = self.threshold_for(ticket.name)
        for record, text, similarity in candidates:
            entry = (record.thread_id, record.action_id)
            limit = base if self.entries is None else self.entries.threshold(entry, base)
            reason = None
            if similarity < limit:
                reason = "below threshold" if limit == base else "below the entry's threshold"
                learnable = self.entries is not None and similarity >= self.entries.floor
                if learnable and not (self.contrast and contrast(ticket.text, text, self._embed)):
                    ticket.near.append((entry, similarity, record.output))
            elif self.contrast:
                reason = contrast(ticket.text, text, self._embed)
            if (
                reason is None
                and self.verifier is not None
                and not self.verifier(ticket.text, text, record)
            ):
                reason = "verifier"
            if reason is None:
                return (record, similarity), refused
            refused.append(
                {
                    "action_id": record.action_id,
                    "similarity": round(similarity, 4),
                    "reason": reason,
                }
            )
        return None, refused

    def hit_record(
        self, live: ActionRecord, source: ActionRecord, similarity: float, mode: str
    ) -> ActionRecord:
        """This thread's row for a reused result: the source's output and where it came from."""
        saved = {
            "model": source.model,
            "input_tokens": source.input_tokens,
            "output_tokens": source.output_tokens,
            "total_tokens": source.total_tokens,
            "latency_ms": source.latency_ms,
        }
        # the source's exact form of a result its readable form loses
        typed = source.meta.get(TYPED) if isinstance(source.meta, dict) else None
        return dataclasses.replace(
            live,
            status="completed",
            output=source.output,
            model=source.model,
            provider=source.provider,
            completed_at=now(),
            meta={
                "reused_from": {
                    "thread_id": source.thread_id,
                    "action_id": source.action_id,
                    "similarity": round(similarity, 6),
                    "mode": mode,
                    "scope": self.scope,
                },
                "reuse_saved": saved,
                **({TYPED: typed} if typed else {}),
            },
        )

    @staticmethod
    def miss_meta(live: ActionRecord, scope: str, refused: list[dict[str, Any]]) -> None:
        """Note on the live row that a lookup found nothing to serve (and why)."""
        meta = dict(live.meta) if isinstance(live.meta, dict) else {}
        meta["reuse_miss"] = {"scope": scope, "refused": refused[:3]}
        live.meta = meta

    # ------------------------------------------------------------------ I/O

    async def areuse_lookup(
        self, scope: TaskScope, live: ActionRecord, ticket: Ticket
    ) -> ActionRecord | None:
        """Look the ticket up; a hit is a new row for ``live``'s action (not yet written)."""
        return await _async_io.lookup(self, scope, live, ticket)

    def reuse_lookup(
        self, scope: TaskScope, live: ActionRecord, ticket: Ticket
    ) -> ActionRecord | None:
        """Sync twin of :meth:`areuse_lookup`."""
        return _sync_io.lookup(self, scope, live, ticket)

    async def areuse_store(self, scope: TaskScope, record: ActionRecord, ticket: Ticket) -> None:
        """Store a completed result so that later requests can reuse it."""
        self.learn(record, ticket)
        await _async_io.store(self, scope, record, ticket)

    def reuse_store(self, scope: TaskScope, record: ActionRecord, ticket: Ticket) -> None:
        """Sync twin of :meth:`areuse_store`."""
        self.learn(record, ticket)
        _sync_io.store(self, scope, record, ticket)

    def learn(self, record: ActionRecord, ticket: Ticket) -> None:
        """Label the candidates the lookup did not serve with the model's own answer."""
        if self.entries is None:
            return
        for entry, similarity, output in ticket.near:
            self.entries.observe(
                entry, similarity, EntryThresholds.same_answer(output, record.output)
            )
        ticket.near.clear()

    async def aensure(self, saver: Any) -> None:
        """Add the embedding column and its HNSW index (semantic policies; idempotent).

        Raises:
            VectorUnavailableError: The server has no pgvector.
        """
        await _async_io.ensure(self, saver)

    def ensure(self, saver: Any) -> None:
        """Sync twin of :meth:`aensure`."""
        _sync_io.ensure(self, saver)

    def __repr__(self) -> str:
        """A short description."""
        mode = "semantic" if self.semantic else "exact"
        return f"{type(self).__name__}(scope={self.scope!r}, {mode}, threshold={self.threshold})"


class ExactReuse(SemanticReuse):
    """Serve another thread's result only for the very same request (same hash).

    Same model, parameters, tools and every message; no embeddings, no pgvector.

    Args:
        scope: Results are shared only between runs naming the same scope.
        kinds: Action kinds to reuse.
    """

    def __init__(self, *, scope: str = "default", kinds: Iterable[str] = KINDS) -> None:
        super().__init__(None, scope=scope, kinds=kinds)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0
