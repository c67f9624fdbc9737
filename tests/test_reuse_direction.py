"""The contrast check on direction (issue #34): the same amount and object, the opposite move.

Development examples from held-out sets #4-#16 (development data since their runs), each
refused in both directions by the rule named: the embedding model reads the move the way it
reads an English prototype direction edit (:mod:`langgraph_actionckpt.reuse.judge`), or two
owners trade the ends of a transfer. Beside them, paraphrases of the same shapes (a verb
and its particle replaced, an owner moved) that must still be served. The end-to-end test
runs them through a graph on PostgreSQL 18.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt.reuse import contrast, structure
from langgraph_actionckpt.reuse.edits import _owners_traded

from .test_reuse import embeddings, needs_model
from .test_reuse_verifier import served_and_refused

__all__ = ["embeddings"]  # the module-scoped model fixture, shared with test_reuse

MODEL = "direction differs (model)"
REFUSED_DIRECTION = [
    ("add-and-take-off", "Add 2 weeks to the grace period on Mr. Ruiz's pawn ticket.",
     "Take 2 weeks off the grace period on Mr. Ruiz's pawn ticket.", MODEL),
    ("add-and-let-out", "Add 10 psi to the front tire of the Trek.",
     "Let 10 psi out of the front tire of the Trek.", MODEL),
    ("push-back-and-bring-forward",
     "Please push my oil change at the Marathon station back by 2 hours.",
     "Please bring my oil change at the Marathon station forward by 2 hours.", MODEL),
    ("earlier-and-pushed-back", "Move Tom's driving lesson 1 hour earlier.",
     "Push Tom's driving lesson back 1 hour.", MODEL),
    ("refund-and-charge",
     "Tasha's night game got rained out. Please put 30 dollars back on her card.",
     "Tasha's night game got rained out. Please charge 30 dollars to her card.", MODEL),
    ("owners-trade-ends", "Move 5 GB of data from my line to my daughter Zoe's on our family plan.",
     "Move 5 GB of data from my daughter Zoe's line to mine on our family plan.",
     "another owner"),
    ("owners-trade-card-and-source", "Put 25 dollars on my wife's car wash card from mine.",
     "Put 25 dollars on my car wash card from my wife's.", "another owner"),
    ("owner-phrase-trades-ends",
     "Move $150 of store credit from my account at the jewelry shop over to my sister Emma's.",
     "Move $150 of store credit from my sister Emma's account at the jewelry shop over to mine.",
     "another owner"),
]  # fmt: skip

SERVED_DIRECTION = [
    # a verb and its particle replaced the same way round, an owner moved with its end kept
    ("put-on-and-add-to", "Put 2 more pounds of bacon on the Mendes order.",
     "Add 2 pounds of bacon to the Mendes order."),
    ("add-and-pump-up", "Add 10 psi to the front tire of the Trek.",
     "Pump the Trek's front tire up by ten psi."),
    ("shift-nearer-and-move-closer", "Shift our seats 3 rows nearer the screen.",
     "Move our seats 3 rows closer to the screen."),
    ("sooner-and-earlier", "Start the Fortnite tournament 2 hours sooner.",
     "Move the Fortnite tournament 2 hours earlier."),
    ("put-back-and-refund",
     "Tasha's night game got rained out. Please put 30 dollars back on her card.",
     "Since the rain wiped out Tasha's night game, refund thirty dollars to her card."),
    ("send-back-and-refund", "Send the 45-dollar deposit from my repair ticket back to my card.",
     "Please refund the forty-five-dollar deposit on my repair ticket to my card."),
    ("owner-moved-end-kept", "Send Kofi 15 dollars from my cinema gift card.",
     "Put fifteen dollars from my cinema gift card onto Kofi's."),
    ("owners-in-another-order", "Put 25 dollars on my wife's car wash card from mine.",
     "Transfer twenty-five dollars from my car wash card onto my wife's."),
]  # fmt: skip


@needs_model
@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_DIRECTION], ids=[c[0] for c in REFUSED_DIRECTION]
)
def test_direction_refusals(a: str, b: str, why: str, embeddings: Any) -> None:
    embed = embeddings.embed_documents
    assert contrast(f"human: {a}", f"human: {b}", embed) == why
    assert contrast(f"human: {b}", f"human: {a}", embed) == why


@needs_model
@pytest.mark.parametrize(
    ("a", "b"), [c[1:] for c in SERVED_DIRECTION], ids=[c[0] for c in SERVED_DIRECTION]
)
def test_direction_shapes_a_paraphrase_keeps(a: str, b: str, embeddings: Any) -> None:
    embed = embeddings.embed_documents
    assert contrast(f"human: {a}", f"human: {b}", embed) is None
    assert contrast(f"human: {b}", f"human: {a}", embed) is None


def test_governed_owners_read_each_end() -> None:
    line = ["Move", "5", "GB", "from", "my", "line", "to", "my", "daughter", "Zoe's", "."]
    assert structure.governed_owners(line) == [("from", "my"), ("to", "zoe")]
    tab = ["from", "Dan's", "tab", "to", "mine"]
    assert structure.governed_owners(tab) == [("from", "dan"), ("to", "my")]
    # "her" before an article is an object, not an owner
    assert structure.governed_owners(["give", "her", "the", "keys"]) == []
    mine_to_zoe = [("from", "my"), ("to", "zoe")]
    assert _owners_traded(mine_to_zoe, [("from", "zoe"), ("to", "my")])
    # an owner moved to another end with the other owner's end kept is a paraphrase's shape
    kofi = [("send", "kofi"), ("from", "my")]
    assert not _owners_traded(kofi, [("from", "my"), ("onto", "kofi")])
    assert not _owners_traded(mine_to_zoe, mine_to_zoe)


@needs_model
def test_direction_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(
        pg18_dsn, tmp_path, embeddings, SERVED_DIRECTION, REFUSED_DIRECTION, "direction"
    )
