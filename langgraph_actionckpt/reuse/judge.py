"""The model's reading of a small difference: does it move a request the way a cue word does?

The contrast check's cue classes (:mod:`.structure`) know the negation, tense and
quantifier words of a few languages only. A multilingual sentence model maps a
request in any of its languages near its English translation, and it moves a
request by about the same vector when a negation, a past tense, a future or an
"all" is added, whatever the language. :func:`meaning_shift` compares the move
from one request to the other with the moves of a few fixed English prototype
edits, embedded once per model: a difference of a word or two that moves the
request the way "Book the table." / "Don't book the table." does is a negation,
in Dutch or Korean as well. The same goes for a direction: the same amount and
object with the opposite move ("Add 2 weeks to the grace period" / "Take 2 weeks off
the grace period", "Push the visit back by 2 hours" / "Bring the visit forward by 2
hours"), which keeps every other word and so looks like a paraphrase that swaps a verb.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable

__all__ = ["SHIFT", "meaning_shift"]

Embed = Callable[[list[str]], list[list[float]]]
SHIFT = 0.45
"""Cosine similarity from which a move between two requests is read as a prototype's move."""

# (class, request, the request with that class's cue): the prototype edits
_PROTOTYPES = (
    ("negation", "Book the table.", "Don't book the table."),
    ("negation", "Send the report to Anna.", "Do not send the report to Anna."),
    ("past tense", "Is the shop open now?", "Was the shop open?"),
    ("past tense", "Is the road closed?", "Was the road closed yesterday?"),
    ("future", "Has the package arrived?", "Will the package arrive?"),
    ("quantifier", "Is the shop open?", "Are all the shops open?"),
    ("quantifier", "Is the room free?", "Are all the rooms free?"),
    ("direction", "Add 30 minutes to the meter.", "Take 30 minutes off the meter."),
    ("direction", "Refund 50 dollars to my card.", "Charge 50 dollars to my card."),
    ("direction", "Move the meeting 1 hour earlier.", "Move the meeting 1 hour later."),
    ("direction", "Push the meeting back by 1 hour.", "Bring the meeting forward by 1 hour."),
    ("direction", "Move the meeting 1 hour earlier.", "Push the meeting back 1 hour."),
)
_moves: dict[Hashable, list[tuple[str, list[float]]]] = {}
_CACHED_MODELS = 8


def _move(a: list[float], b: list[float]) -> list[float]:
    return [y - x for x, y in zip(a, b, strict=True)]


def _cosine(a: list[float], b: list[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def _prototypes(embed: Embed) -> list[tuple[str, list[float]]]:
    """The prototype moves under this model, embedded on first use (one call)."""
    moves = _moves.get(embed)
    if moves is None:
        vectors = embed([t for _, a, b in _PROTOTYPES for t in (a, b)])
        moves = [
            (cls, _move(vectors[2 * i], vectors[2 * i + 1]))
            for i, (cls, _, _) in enumerate(_PROTOTYPES)
        ]
        if len(_moves) >= _CACHED_MODELS:
            _moves.pop(next(iter(_moves)))
        _moves[embed] = moves
    return moves


def meaning_shift(a: str, b: str, embed: Embed, threshold: float = SHIFT) -> str | None:
    """The class of cue whose prototype move the move from ``a`` to ``b`` follows, or None.

    ``a`` and ``b`` are the parts of two requests that differ (the sentences in which
    they differ). Either direction counts: "Was ... open?" against "Is ... open now?"
    is the past-tense move backwards.
    """
    va, vb = embed([a, b])
    move = _move(va, vb)
    best = max((abs(_cosine(move, m)), cls) for cls, m in _prototypes(embed))
    return best[1] if best[0] >= threshold else None
