"""The contrast check, round 13 (issue #34): a restriction added, a thing changing owner.

Development examples from held-out sets #5-#12 (development data since their runs),
each refused by the rule named, in both directions, and paraphrases of the same shapes
that must still be served. The end-to-end test runs them through a graph on PostgreSQL 18.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt.reuse import contrast, structure
from langgraph_actionckpt.reuse.edits import _owner_moved

from .test_reuse import embeddings, needs_model
from .test_reuse_verifier import served_and_refused

__all__ = ["embeddings"]  # the module-scoped model fixture, shared with test_reuse

REFUSED_ROUND_13 = [
    ("replaced-and-restricted", "Is sourdough healthier than white bread? Answer in one sentence.",
     "Is rye bread healthier than white bread for diabetics? Answer in one sentence.",
     "a restriction added"),
    ("replaced-next-to-restriction",
     "Are orchids harder to keep alive than succulents? Answer in two sentences.",
     "Are orchids harder to keep alive than ferns in a dark flat? Answer in two sentences.",
     "a restriction added"),
    ("replaced-and-when-clause", "Which is more tender, flank steak or skirt steak? Short answer.",
     "Which is more tender, hanger steak or skirt steak when grilled? Short answer.",
     "a restriction added"),
    ("restriction-inserted", "Is the vacuum station working again?",
     "Is the vacuum station by the exit working again?", "a restriction added"),
    ("lend-and-borrow", "Lend my 9-foot fly rod to Kenji for the trip.",
     "Borrow Kenji's 9-foot fly rod for the trip.", "another owner"),
    ("our-and-theirs", "Lend our 4-liter water filter to the Hansen family for the weekend.",
     "Borrow the Hansen family's 4-liter water filter for the weekend.", "another owner"),
]  # fmt: skip

SERVED_ROUND_13 = [
    # the phrase names what the other side has, or a thing moves in the same direction
    ("restriction-named-elsewhere", "Is the marina's fuel dock open?",
     "Is the fuel dock at the marina open for business?"),
    ("same-owner-reworded", "Lend my 9-foot fly rod to Kenji for the trip.",
     "Let Kenji borrow my 9-foot fly rod for the trip."),
    ("two-owners-in-any-order", "Put 25 dollars on my wife's car wash card from mine.",
     "Transfer twenty-five dollars from my car wash card onto my wife's."),
]  # fmt: skip


@needs_model
@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_13], ids=[c[0] for c in REFUSED_ROUND_13]
)
def test_round_13_refusals(a: str, b: str, why: str, embeddings: Any) -> None:
    embed = embeddings.embed_documents
    assert contrast(f"human: {a}", f"human: {b}", embed) == why
    assert contrast(f"human: {b}", f"human: {a}", embed) == why


@needs_model
@pytest.mark.parametrize(
    ("a", "b"), [c[1:] for c in SERVED_ROUND_13], ids=[c[0] for c in SERVED_ROUND_13]
)
def test_round_13_shapes_a_paraphrase_keeps(a: str, b: str, embeddings: Any) -> None:
    embed = embeddings.embed_documents
    assert contrast(f"human: {a}", f"human: {b}", embed) is None
    assert contrast(f"human: {b}", f"human: {a}", embed) is None


def test_possessors_read_owners_and_left_out_things() -> None:
    tokens = ["Put", "25", "dollars", "on", "my", "wife's", "card", "from", "mine", "."]
    assert structure.possessors(tokens) == {
        "wife": frozenset({"my"}),
        "card": frozenset({"wife", "my"}),
    }
    # "her" before an article is an object, not an owner
    assert structure.possessors(["Give", "her", "the", "keys"]) == {}
    mine = {"rod": frozenset({"my"})}
    assert _owner_moved(mine, {"rod": frozenset({"kenji"})})
    assert not _owner_moved(mine, {"rod": frozenset({"my", "kenji"})})
    # a third person's pronoun may name the same owner ("Mr. Haddad's card" / "his card")
    assert not _owner_moved({"card": frozenset({"haddad"})}, {"card": frozenset({"his"})})


@needs_model
def test_round_13_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_13, REFUSED_ROUND_13, "round13")
