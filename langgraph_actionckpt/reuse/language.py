"""Which languages the contrast check reads, and the language of a request.

The check's closed word classes (:mod:`.structure`: negation, tense, quantifiers)
cover ten languages. In any other language, a past tense, an "all" or an opposite
verb is a word the check cannot tell from a paraphrase's reworded verb, and on
held-out requests that is where almost all wrong reuse came from. So a candidate
whose differing text is in a language the check does not read is refused, unless
the two requests have the same words. The language is identified by ``py3langid``
(a maintained fork of langid.py: a naive Bayes model over byte n-grams for 97
languages, shipped inside the wheel as arrays, loaded once, no pickle). A short
request is often close to several languages ("Convert 999 USD to CHF." is Norwegian
by a hair), so a text counts as read when one of the languages the check reads comes first, or
when a fair share of the probability is on them (:data:`READ_SHARE`).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from langgraph_actionckpt.errors import VectorUnavailableError

__all__ = ["READ", "READ_SHARE", "language_of", "read_share", "unread", "without_roles"]

READ = frozenset({"en", "de", "fr", "es", "it", "pt", "ru", "ar", "zh", "ja"})
"""The languages whose negation, tense and quantifier words the contrast check knows."""

READ_SHARE = 0.25
"""Share of the probability on :data:`READ` (and its aliases) from which a text counts as read."""

# Nigerian Pidgin is an English creole the model picks for short English requests with
# a date; Wu and Cantonese are written with the same characters as Mandarin.
_ALIASES = {"pcm": "en", "wuu": "zh", "yue": "zh"}
_ROLE = re.compile(r"^\w+: ")  # the message type a rendered request line starts with
_identifier: Any = None
_lock = threading.Lock()


@lru_cache(maxsize=1024)
def _rank(text: str) -> list[tuple[str, float]]:
    """Every language with its probability for ``text``, best first (the contrast check
    asks twice about the same lines: for their numbers and, at the end, for the language)."""
    global _identifier
    if _identifier is None:
        with _lock:
            if _identifier is None:
                try:
                    from py3langid.langid import MODEL_FILE, LanguageIdentifier
                except ImportError as exc:  # pragma: no cover - a packaging error
                    raise VectorUnavailableError(
                        "reuse by meaning needs py3langid: "
                        "pip install 'langgraph-actionckpt[vector]'"
                    ) from exc
                _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return [(_ALIASES.get(code, code), float(p)) for code, p in _identifier.rank(text)]


def language_of(text: str) -> str:
    """The ISO 639-1 code of the language ``text`` is most likely written in."""
    return _rank(text)[0][0]


def read_share(text: str) -> float:
    """The probability that ``text`` is written in a language the check reads."""
    return _share(_rank(text))


def _share(ranked: list[tuple[str, float]]) -> float:
    return sum(p for code, p in ranked if code in READ)


def without_roles(lines: list[str]) -> str:
    """Rendered request lines as one text, without the message type each line starts with."""
    return " ".join(_ROLE.sub("", line) for line in lines)


def unread(lines: list[str]) -> str | None:
    """The language of ``lines`` (where two requests differ), when the check does not read it.

    All the lines are identified together (a short request alone is often closer to a
    neighbouring language than to its own), without the message type each rendered
    line starts with.
    """
    text = without_roles(lines)
    if not text.strip():
        return None
    ranked = _rank(text)
    best = ranked[0][0]
    return None if best in READ or _share(ranked) >= READ_SHARE else best
