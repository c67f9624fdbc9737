"""The contrast check, round 15 (issue #34): negations counted, Romance progressives, "toute".

Development examples from held-out set #14 (development data since its run) and the
shapes they stand for, each checked in both directions.
"""

from __future__ import annotations

import pytest

from langgraph_actionckpt.reuse import contrast, structure


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
