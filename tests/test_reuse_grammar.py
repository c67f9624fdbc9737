"""The contrast check, rounds 15 and 16 (issue #34): grammar a paraphrase keeps.

Round 15: negations counted, Romance progressives, "toute". Round 16: "still" before an
"-ing" word, the numbers of a comparison turned round, ordinal words. Development examples
from held-out sets #14 and #15 (development data since their runs) and the shapes they
stand for.
"""

from __future__ import annotations

import pytest

from langgraph_actionckpt.reuse import contrast, structure
from langgraph_actionckpt.reuse.forms import normalize


def _c(a: str, b: str) -> str | None:
    return contrast(f"human: {a}", f"human: {b}")


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        # two negations on one side are not none: each clause says "no"
        ("We'll need 2 rides to the wedding venue on September 12 at 3 pm, please book them.",
         "We won't need 2 rides to the wedding venue on September 12 at 3 pm, so please don't "
         "book them.", "negation differs"),
        ("La mairie a-t-elle déjà traité ma demande de passeport ?",
         "La mairie a-t-elle déjà traité les demandes de passeport de toute la famille ?",
         "quantifier differs"),
        ("¿Ya ha arreglado el fontanero la caldera?", "¿Está arreglando el fontanero la caldera?",
         "tense differs"),
        ("Il tecnico ha già riparato il mio portatile?",
         "Il tecnico sta riparando il mio portatile?", "tense differs"),
    ],
)  # fmt: skip
def test_round_15_refusals(a: str, b: str, why: str) -> None:
    assert _c(a, b) == why
    assert _c(b, a) == why


def test_romance_progressives_and_elided_auxiliaries() -> None:
    assert structure.romance_progressive("sta", "ritirando")
    assert structure.romance_progressive("está", "arreglando")
    assert structure.romance_progressive("estão", "consertando")
    # "estar" with no gerund, or a gerund alone, is no progressive
    assert not structure.romance_progressive("está", "abierta")
    assert not structure.romance_progressive("cuando", "llegando")
    # an elided pronoun before the auxiliary keeps its tense: Italian "l'ha ritirato"
    assert _c("Il corriere l'ha ritirato?", "Il corriere lo ritirerà?") is not None


def test_the_same_negations_on_both_sides_are_no_difference() -> None:
    assert _c("Don't book the 9 am slot and don't call me.", "Do not call me and do not book "
              "the 9 am slot.") != "negation differs"  # fmt: skip


# Round 16 (issue #34): development examples of held-out set #15.
def test_still_before_a_shared_ing_word_is_a_progressive() -> None:
    perfect = "Hey, has the technician finished installing the fiber line at my flat yet?"
    ongoing = "Hey, is the technician still installing the fiber line at my flat?"
    assert _c(perfect, ongoing) == "tense differs"
    assert _c(ongoing, perfect) == "tense differs"


def test_numbers_of_a_comparison_turned_round_move_with_it() -> None:
    a = "Would I pay less interest on a 10-year plan than on a 20-year plan? Yes or no."
    b = "Yes or no: does a 20-year plan cost me more interest than a 10-year plan?"
    assert _c(a, b) != "numbers differ"
    # turned round without the opposite comparative: the numbers trade places
    assert _c(a, "Would I pay less interest on a 20-year plan than on a 10-year plan?") == (
        "numbers differ"
    )


def test_ordinal_words_from_fourth_on_are_digits() -> None:
    assert normalize("on the fifteenth of every month") == "on the 15 of every month"
    assert normalize("the twenty-first floor") == "the 21 floor"
    assert normalize("at first, a second try") == "at first, a second try"
