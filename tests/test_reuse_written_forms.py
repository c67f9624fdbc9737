"""The contrast check, round 14 (issue #34): what a paraphrase writes another way.

Development examples from held-out sets #10-#13 (development data since their runs):
clock times and digit groups spelled out, numbers moved a few words with their noun, a
comparison turned round, a choice offered in the other order, "no later than", and a
progressive read from the lines that differ. Each shape is checked both ways: the
paraphrase is no longer refused for it, and the request that differs still is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt.reuse import contrast
from langgraph_actionckpt.reuse.forms import normalize

from .test_reuse import embeddings, needs_model
from .test_reuse_verifier import served_and_refused

__all__ = ["embeddings"]  # the module-scoped model fixture, shared with test_reuse


@pytest.mark.parametrize(
    ("written", "digits"),
    [
        ("at half past eleven", "at 11:30"),
        ("a quarter to six in the morning", "5:45 am"),
        ("at a quarter past 12", "at 12:15"),
        ("at four in the afternoon on the eighteenth of April", "at 4 pm on April 18"),
        ("half past six in the evening", "6:30 pm"),
        ("at 9 at night", "at 9 pm"),
        ("seven o'clock", "7"),
        ("10 a.m. sharp", "10 am sharp"),
        ("5,000 airline miles", "5000 airline miles"),
        ("lunch at midday", "lunch at noon"),
    ],
)
def test_clock_times_and_digit_groups_have_one_written_form(written: str, digits: str) -> None:
    assert normalize(written) == digits


def _c(a: str, b: str) -> str | None:
    return contrast(f"human: {a}", f"human: {b}")


SERVED_ROUND_14 = [
    # paraphrases of set #13, served since round 14 (refused before: numbers, order, negation)
    ("clock-spelled-out",
     "Hey, can you put in an order with Bella Cucina for 35 boxed lunches, delivered to the "
     "office at noon on June 4?",
     "Could Bella Cucina bring thirty-five boxed lunches to the office at midday on the fourth "
     "of June? Please place the order."),
    ("comparison-turned-round",
     "Is a plated dinner more expensive than a buffet for 120 guests? Reply with just yes or no.",
     "Just yes or no: for a hundred and twenty guests, does a buffet cost less than a plated "
     "dinner?"),
    ("choice-in-other-order",
     "Which has better coverage in rural Montana, Verizon or AT&T? Just tell me the carrier.",
     "Just the carrier, please: between AT&T and Verizon, whose coverage is stronger in rural "
     "Montana?"),
    ("no-later-than",
     "I'd like to order 12 yards of the navy linen fabric for the sofa, to be delivered by "
     "October 9.",
     "Please get twelve yards of that navy linen for the sofa and have it arrive no later than "
     "the ninth of October."),
]  # fmt: skip

REFUSED_ROUND_14 = [
    # the paraphrases' shapes, with the element that differs: still refused
    ("other-clock-time", "Reserve a private viewing for 2 at the showroom at 11:30.",
     "Reserve a private viewing for 2 at the showroom at half past ten.", "numbers differ"),
    ("comparison-swapped-only", "Is a plated dinner more expensive than a buffet?",
     "Is a buffet more expensive than a plated dinner?", "same words, other order"),
    ("comparison-opposite-only", "Is a plated dinner more expensive than a buffet?",
     "Is a plated dinner less expensive than a buffet?", "opposite words"),
    ("perfect-against-progressive",
     "Quick one: has the jeweler on Elm Street opened its new engraving counter?",
     "Quick one: is the jeweler on Elm Street opening its new engraving counter?",
     "tense differs"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b"), [c[1:] for c in SERVED_ROUND_14], ids=[c[0] for c in SERVED_ROUND_14]
)
def test_round_14_paraphrase_shapes_pass(a: str, b: str) -> None:
    assert _c(a, b) is None
    assert _c(b, a) is None


@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_14], ids=[c[0] for c in REFUSED_ROUND_14]
)
def test_round_14_differences_still_refused(a: str, b: str, why: str) -> None:
    assert _c(a, b) == why
    assert _c(b, a) == why


def test_no_later_than_is_a_bound_and_no_is_still_a_negation() -> None:
    assert _c("Deliver it by Friday.", "Deliver it no later than Friday.") != "negation differs"
    assert _c("Send the invoice.", "Send no invoice.") == "negation differs"


def test_an_ing_noun_on_both_sides_is_no_progressive() -> None:
    # "hearing" is the noun both sides share, the system prompt's "are" is on both sides
    system = "system: You are a helpful assistant.\n"
    assert contrast(
        f"{system}human: Is the court hearing postponed?",
        f"{system}human: Has the court hearing been postponed?",
    ) != "tense differs"  # fmt: skip
    assert contrast(
        f"{system}human: Has the cobbler resoled my hiking boots?",
        f"{system}human: Is the cobbler resoling my hiking boots?",
    ) == "tense differs"  # fmt: skip


@needs_model
def test_round_14_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_14, REFUSED_ROUND_14, "round14")
