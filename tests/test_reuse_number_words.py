"""Numbers written in words, read by text2num (issue #34): recall in six languages.

A paraphrase writing a number in words ("zweihundert", "quarante-cinq", "veinticinco",
"trenta", "cinquenta", "a hundred and fifty") is served the answer of the request writing
it in digits; a request whose number in words is another one is still refused. Each pair is
checked both ways. The words that only look like numbers ("one of my", "un ami", "dois
quartos", "hundreds of files") stay words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt.reuse import contrast
from langgraph_actionckpt.reuse.forms import normalize
from langgraph_actionckpt.reuse.numwords import digits, language_for

from .test_reuse import embeddings, needs_model
from .test_reuse_verifier import served_and_refused

__all__ = ["embeddings"]  # the module-scoped model fixture, shared with test_reuse


def _c(a: str, b: str) -> str | None:
    return contrast(f"human: {a}", f"human: {b}")


# (id, request in digits, paraphrase in words): served both ways
SERVED = [
    ("en-hundred-and-fifty", "Order 150 folding chairs for the gala on June 8.",
     "Order a hundred and fifty folding chairs for the gala on June 8."),
    ("en-two-dozen", "Order 24 carbon arrows for delivery on October 3.",
     "Order two dozen carbon arrows for delivery on October 3."),
    ("de-zweihundert", "Überweise bitte 200 Euro von meinem Konto an Jonas.",
     "Überweise bitte zweihundert Euro von meinem Konto an Jonas."),
    ("fr-quarante-cinq", "Envoie 45 euros à Théo depuis mon compte joint.",
     "Envoie quarante-cinq euros à Théo depuis mon compte joint."),
    ("es-veinticinco", "Compra 25 entradas para el concierto del sábado.",
     "Compra veinticinco entradas para el concierto del sábado."),
    ("it-trenta", "Manda 30 euro a Giulia dal mio conto.",
     "Manda trenta euro a Giulia dal mio conto."),
    ("pt-cinquenta", "Transfere 50 reais da minha conta para o Pedro.",
     "Transfere cinquenta reais da minha conta para o Pedro."),
]  # fmt: skip

# (id, request, another number in words, why): refused both ways
REFUSED = [
    ("en-other-number", "Order 150 folding chairs for the gala on June 8.",
     "Order a hundred and sixty folding chairs for the gala on June 8.", "numbers differ"),
    ("de-other-number", "Überweise bitte 200 Euro von meinem Konto an Jonas.",
     "Überweise bitte dreihundert Euro von meinem Konto an Jonas.", "numbers differ"),
    ("fr-other-number", "Envoie 45 euros à Théo depuis mon compte joint.",
     "Envoie quarante-six euros à Théo depuis mon compte joint.", "numbers differ"),
    ("es-other-number", "Compra 25 entradas para el concierto del sábado.",
     "Compra veintiséis entradas para el concierto del sábado.", "numbers differ"),
    ("it-other-number", "Manda 30 euro a Giulia dal mio conto.",
     "Manda quaranta euro a Giulia dal mio conto.", "numbers differ"),
    ("pt-other-number", "Transfere 50 reais da minha conta para o Pedro.",
     "Transfere sessenta reais da minha conta para o Pedro.", "numbers differ"),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), [c[1:] for c in SERVED], ids=[c[0] for c in SERVED])
def test_a_number_in_words_is_its_digits(a: str, b: str) -> None:
    assert _c(a, b) is None
    assert _c(b, a) is None


@pytest.mark.parametrize(("a", "b", "why"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_another_number_in_words_is_refused(a: str, b: str, why: str) -> None:
    assert _c(a, b) == why
    assert _c(b, a) == why


@pytest.mark.parametrize(("a", "b"), [(c[2], r[2]) for c, r in zip(SERVED, REFUSED, strict=False)])
def test_two_numbers_in_words_are_compared(a: str, b: str) -> None:
    assert _c(a, b) == "numbers differ"
    assert _c(b, a) == "numbers differ"


@pytest.mark.parametrize(
    ("lines", "lang"),
    [
        (["human: Überweise bitte zweihundert Euro an Jonas."], "de"),
        (["human: Envoie quarante-cinq euros à Théo."], "fr"),
        (["human: Compra veinticinco entradas para el concierto."], "es"),
        (["human: Manda trenta euro a Giulia dal mio conto."], "it"),
        (["human: Transfere cinquenta reais para o Pedro."], "pt"),
        (["human: Закажи два такси в аэропорт."], "en"),  # text2num does not read Russian
        ([], "en"),
    ],
)
def test_the_language_numbers_are_read_in(lines: list[str], lang: str) -> None:
    assert language_for(lines) == lang


@pytest.mark.parametrize(
    ("text", "lang", "read"),
    [
        # under the threshold: pronouns, articles, nouns
        ("One of my friends wants one.", "en", "One of my friends wants one."),
        ("Wait a second on the second floor.", "en", "Wait a second on the second floor."),
        ("Un ami veut une maison.", "fr", "Un ami veut une maison."),
        ("Ein Haus für eine Familie.", "de", "Ein Haus für eine Familie."),
        ("Paga uno alla volta.", "it", "Paga uno alla volta."),
        # an ordinal alone is a noun in Spanish, Italian and Portuguese
        ("Reserve dois quartos para sexta-feira.", "pt", "Reserve dois quartos para sexta-feira."),
        ("Un cuarto doble, por favor.", "es", "Un cuarto doble, por favor."),
        ("Tra un quarto d'ora.", "it", "Tra un quarto d'ora."),
        # a multiplier in the plural, alone; a hundred after "per" is percent
        ("Delete hundreds of files.", "en", "Delete hundreds of files."),
        ("Sube un 5 por ciento.", "es", "Sube un 5 percent."),
        # what is read
        ("5 million users, 2 dozen eggs", "en", "5000000 users, 24 eggs"),
        ("the twenty-first of June", "en", "the 21st of June"),
        ("am zwölften Mai", "de", "am 12. Mai"),
        ("a sixty-minute room", "en", "a 60-minute room"),
        ("quatre-vingt-dix-neuf euros", "fr", "99 euros"),
        ("dieciocho de mayo", "es", "18 de mayo"),
    ],
)
def test_what_is_read_as_a_number(text: str, lang: str, read: str) -> None:
    assert digits(text, lang) == read


def test_english_dates_and_clock_times_read_the_digits() -> None:
    assert normalize("at half past eleven on the twenty-first of June") == "at 11:30 on June 21"
    assert normalize("a quarter to two on the first of May") == "1:45 on May 1"


@needs_model
def test_number_words_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED, REFUSED, "numwords")
