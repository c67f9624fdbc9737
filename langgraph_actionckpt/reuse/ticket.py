"""A reusable request as a policy matches it, and what the reuse I/O asks of a policy.

:mod:`.policy` makes tickets and decides; ``_async_io`` / ``_sync_io`` do the lookups and
stores. Both import this module, so the I/O never imports the policy that calls it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.embeddings import Embeddings

from langgraph_actionckpt.actions.record import ActionRecord

__all__ = ["Matcher", "Ticket"]


@dataclass(slots=True)
class Ticket:
    """One reusable request, as the policy matches it.

    Attributes:
        kind: ``llm_completion``, ``tool_call`` or ``function``.
        name: The action name (model, tool or function).
        key_hash: What must match exactly (model, parameters, tools; prior context).
        request_hash: The whole request's hash (exact reuse).
        text: The whole request as text (embedded; shown to the verifier).
        embedding: Its vector, once a semantic lookup computed it.
        near: Candidates not served only for their similarity (``max_wrong_rate``):
            ``((thread_id, action_id), similarity, output)``, labelled once the
            model has answered.
    """

    kind: str
    name: str
    key_hash: str
    request_hash: str
    text: str
    embedding: list[float] | None = None
    near: list[tuple[tuple[str, str], float, Any]] = field(default_factory=list)


class Matcher(Protocol):
    """The members of a reuse policy (:class:`~.policy.SemanticReuse`) its I/O uses."""

    scope: str
    embeddings: Embeddings | None
    k: int
    _ready: dict[tuple[int, str], bool]  # per (saver, schema): iterative index scans or not

    def choose(
        self, ticket: Ticket, candidates: list[tuple[ActionRecord, str, float]]
    ) -> tuple[tuple[ActionRecord, float] | None, list[dict[str, Any]]]: ...

    def hit_record(
        self, live: ActionRecord, source: ActionRecord, similarity: float, mode: str
    ) -> ActionRecord: ...

    @staticmethod
    def miss_meta(live: ActionRecord, scope: str, refused: list[dict[str, Any]]) -> None: ...
