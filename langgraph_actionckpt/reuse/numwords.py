"""Numbers written in words, as digits: the readers of ``text2num`` for eight languages.

A paraphrase writes "zweihundert", "quarante-cinq", "veinticinco", "cinquenta" or "a
hundred and fifty" where the request had 200, 45, 25, 50 or 150. :func:`digits` rewrites
the cardinal and ordinal numbers of English, German, French, Spanish, Italian, Portuguese,
Dutch and Danish as digits with ``text2num`` (maintained, a Rust core; it replaced the
hand-written cardinal tables of :mod:`.structure` for these languages), in the language
:func:`language_for` guesses (:mod:`.language`), English when it is another.

What only looks like a number stays a word:

* a number under three standing alone: "one of my ...", "un ami", "ein Haus", "uno alla
  volta", "a second" are pronouns, articles and nouns as often as numbers (text2num's
  ``threshold``); the small table of :mod:`.structure` reads "two", "deux", "zwei"...;
* in Spanish, Italian and Portuguese, an ordinal word standing alone: it is a noun as
  often ("un cuarto doble", "dois quartos", "un quarto d'ora", "quinta-feira");
* a multiplier in the plural standing alone: "hundreds of files", "cientos de archivos";
  and a hundred after "per", "por", "pour": "per cento" is percent.

A count in digits before a multiplier word is one number ("5 million", "2 mil"), and so is
an English count of dozens ("two dozen", "3 dozen").
"""

from __future__ import annotations

import re
import threading
from decimal import Decimal
from typing import Any

from langgraph_actionckpt.errors import VectorUnavailableError
from langgraph_actionckpt.reuse import language

__all__ = ["LANGUAGES", "THRESHOLD", "digits", "language_for"]

LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl", "da"})
"""The languages whose number words text2num reads."""
THRESHOLD = 3
"""A number standing alone is read from this value on (text2num's ``threshold``)."""

_NOUN_ORDINALS = frozenset({"es", "it", "pt"})  # where an ordinal alone is often a noun
_SUFFIXED_ORDINALS = frozenset({"en", "de"})  # "21st" and "12." (dates read them)
_POWERS = frozenset({100, 1000, 10**6, 10**9})
# words and punctuation; a hyphen joins no word ("quarante-cinq", "sixty-minute")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s-]")  # noqa: RUF001
_COUNT = re.compile(r"(\d+(?:\.\d+)?)\s+$")  # digits before a multiplier word
_DOZEN = re.compile(r"\b(\d+|an?|one|two)\s+dozen\b", re.I)
_PLURAL = ("s", "en")
# "per cento", "por ciento", "pour cent": percent, as "%" is (:mod:`.forms`), not a hundred
_PERCENT = re.compile(r"\b(?:per|por|pour)\s+(?:cento|ciento|cent)\b", re.I)
_find: Any = None
_lock = threading.Lock()


class _Token:
    """A word for text2num's ``find_numbers``: its text, and whether a line break is before it."""

    __slots__ = ("apart", "word")

    def __init__(self, word: str, apart: bool) -> None:
        self.word = word
        self.apart = apart

    def text(self) -> str:
        return self.word

    def nt_separated(self, previous: object) -> bool:
        return self.apart

    def not_a_number_part(self) -> bool:
        return False


def language_for(lines: list[str]) -> str:
    """The language to read the numbers of ``lines`` in: the one :mod:`.language` guesses,
    or English when text2num does not read it."""
    code = language.language_of(language.without_roles(lines)) if lines else "en"
    return code if code in LANGUAGES else "en"


def _finder() -> Any:
    global _find
    if _find is None:
        with _lock:
            if _find is None:
                try:
                    from text_to_num import find_numbers
                except ImportError as exc:  # pragma: no cover - a packaging error
                    raise VectorUnavailableError(
                        "reuse by meaning needs text2num: "
                        "pip install 'langgraph-actionckpt[vector]'"
                    ) from exc
                _find = find_numbers
    return _find


def _plain(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def digits(text: str, lang: str) -> str:
    """``text`` with the numbers written in words of ``lang`` as digits.

    Ordinals keep their English or German suffix ("the 21st of June", "am 12. Mai"), which
    :mod:`.forms` reads as days of the month.
    """
    text = _PERCENT.sub("percent", text)
    spans = [m.span() for m in _WORD.finditer(text)]
    tokens = [
        _Token(text[s:e], i > 0 and "\n" in text[spans[i - 1][1] : s])
        for i, (s, e) in enumerate(spans)
    ]
    out: list[str] = []
    last = 0
    for found in _finder()(tokens, lang, THRESHOLD):
        start, end = spans[found.start][0], spans[found.end - 1][1]
        alone = found.end - found.start == 1
        value = Decimal(str(found.value))
        count = _COUNT.search(text, last, start) if alone and value in _POWERS else None
        if count is not None:  # "5 million"
            start, written = count.start(), _plain(Decimal(count.group(1)) * value)
        elif alone and _word_alone(found.is_ordinal, value, text[start:end], lang):
            continue
        elif found.is_ordinal and lang in _SUFFIXED_ORDINALS:
            written = found.text
        else:
            written = _plain(value)
        out += [text[last:start], written]
        last = end
    out.append(text[last:])
    text = "".join(out)
    return _DOZEN.sub(_dozens, text) if lang == "en" else text


def _word_alone(ordinal: bool, value: Decimal, word: str, lang: str) -> bool:
    """Whether a number word standing alone is no number: an ordinal in Spanish, Italian or
    Portuguese ("dois quartos"), a multiplier in the plural ("hundreds of files")."""
    return (ordinal and lang in _NOUN_ORDINALS) or (
        value in _POWERS and word.lower().endswith(_PLURAL)
    )


def _dozens(match: re.Match[str]) -> str:
    count = match.group(1).lower()
    return str(12 * (int(count) if count.isdigit() else 2 if count == "two" else 1))
