"""The contrast check: refuse reuse when two similar requests differ where it matters.

Sentence embeddings place a request and its negation, or the same request about
another city or amount, very close together ("turn on dark mode" and "turn off
dark mode" score above 0.9 with all-MiniLM-L6-v2). No threshold separates them
from paraphrases. :func:`contrast` is a cheap, deterministic second opinion run
on every candidate above the threshold: it finds the differences a paraphrase
does not make and names the first one found, so the candidate is refused.

It compares, over the whole request text:

* numbers (digits and number words), in order;
* dates and times (weekdays, months, today/tomorrow, am/pm...);
* negation (``not``, ``n't``, ``no``, ``never``, ``without``...): odd against even;
* opposite words (on/off, enable/disable, add/remove, buy/sell, before/after...);
* names: capitalised words inside a sentence, all-caps codes, quoted strings,
  identifiers with digits, dots or underscores, in order;
* word order: the same words in another order (swapped roles: "is a lion faster
  than a horse" against "is a horse faster than a lion").

It errs on the side of refusing: a paraphrase that reorders two names or says
"avoid" for "don't" is not reused, which costs one model call, never a wrong answer.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["contrast", "contrast_verifier"]

_TOKEN = re.compile(
    r"(?<!\w)'[^'\n]{1,80}'(?!\w)|\"[^\"\n]{1,80}\"|[A-Za-z0-9][\w.\-:/@']*|[.!?;\n]"
)
_SENT_END = {".", "!", "?", ";", "\n"}

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "twenty": "20", "thirty": "30", "fifty": "50", "hundred": "100", "thousand": "1000",
    "million": "1e6", "billion": "1e9", "dozen": "12", "half": "0.5", "once": "x1",
    "twice": "x2", "first": "#1", "second": "#2", "third": "#3", "single": "1", "double": "x2",
    "triple": "x3", "pair": "2", "couple": "2",
}  # fmt: skip
_TIME_WORDS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "today", "tomorrow", "yesterday", "tonight",
    "morning", "afternoon", "evening", "night", "noon", "midnight", "weekend", "weekday",
    "am", "pm", "last", "next", "previous", "week", "month", "year", "hour", "minute",
    "daily", "weekly", "monthly", "yearly", "annual", "quarter", "q1", "q2", "q3", "q4",
    "winter", "spring", "summer", "autumn", "fall",
}  # fmt: skip
_NEGATIONS = {
    "not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor",
    "cannot", "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
    "weren't", "shouldn't", "wouldn't", "couldn't", "mustn't", "haven't", "hasn't", "hadn't",
    "nowhere", "except", "excluding", "avoid", "refuse", "stop",
}  # fmt: skip
# Groups of (one side, the other side): a request using words of only one side
# against one using words of only the other is refused.
_OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        (
            "on enable enabled activate open opened up show connect allow allowed",
            "off disable disabled deactivate close closed down hide disconnect block blocked",
        ),
        ("start resume continue", "stop pause end halt"),
        ("add put insert include append attach", "remove delete drop exclude detach"),
        (
            "increase raise higher highest more maximum max most largest biggest bigger larger",
            "decrease lower lowest less fewer minimum min least smallest smaller tiniest",
        ),
        ("buy purchase long", "sell short"),
        ("before earlier prior", "after later"),
        ("accept approve yes confirm", "decline reject deny no"),
        ("lock locked", "unlock unlocked"),
        ("follow subscribe mute archive read", "unfollow unsubscribe unmute unarchive unread"),
        ("ascending asc", "descending desc"),
        ("upgrade", "downgrade"),
        (
            "pros advantages benefits good positive best",
            "cons disadvantages risks drawbacks bad negative worst",
        ),
        ("safe", "unsafe dangerous"),
        ("warm hot", "cold cool"),
        ("cheap cheapest inexpensive", "expensive priciest"),
        ("in into zoom-in", "out zoom-out"),
        ("always", "never sometimes"),
        ("true", "false"),
        ("north", "south"),
        ("east", "west"),
        ("import", "export"),
        ("encrypt", "decrypt"),
        ("win", "lose"),
        ("plus sum add", "minus subtract difference"),
        ("multiply times product", "divide quotient"),
        ("first", "last"),
        ("left", "right"),
        ("input", "output"),
        ("send", "receive"),
        ("push", "pull"),
        ("formal", "informal casual"),
        ("long longer", "short shorter brief"),
        ("happy", "sad"),
        ("heavy", "light"),
        ("fast faster", "slow slower"),
        ("early", "late"),
        ("high", "low"),
    )
)  # fmt: skip
# Words that carry no meaning for the word-order check.
_STOP = {
    "a", "an", "the", "is", "are", "was", "were", "be", "to", "of", "in", "on", "at", "for",
    "and", "or", "it", "this", "that", "me", "my", "i", "you", "your", "please", "can",
    "could", "would", "will", "do", "does", "with", "from", "by", "as", "than", "into",
    "what", "which", "who", "how", "human", "system", "ai", "tool",
}  # fmt: skip
_ACRONYMS = {
    "CEO", "CTO", "CFO", "COO", "VP", "HR", "PR", "AI", "ML", "API", "SQL", "CSS", "HTML",
    "JSON", "PDF", "FAQ", "OK", "TV", "ID", "URL", "UI", "UX", "FYI", "ASAP", "PM", "AM",
}  # fmt: skip
_POSSESSIVE = re.compile(r"(?:'s|s')$")


def _tokens(text: str) -> list[str]:
    """Words, numbers, quoted strings and sentence ends (a role prefix ends a sentence)."""
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        if tok[0] in "'\"":
            out.append(tok)
            continue
        core = tok.rstrip(".:-/@'")
        tail = tok[len(core) :]
        if core:
            out.append(core)
        if tail.startswith((".", ":")):
            out.append("\n" if tail.startswith(":") else ".")
    return out


@dataclass(slots=True)
class _Features:
    words: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    times: set[str] = field(default_factory=set)
    names: list[tuple[str, bool]] = field(default_factory=list)  # (name, sentence-initial)
    quoted: list[str] = field(default_factory=list)
    negations: int = 0


def _features(text: str) -> _Features:
    f = _Features()
    start = True
    for tok in _tokens(text):
        if tok in _SENT_END:
            start = True
            continue
        low = _POSSESSIVE.sub("", tok.lower())
        f.words.append(low)
        if tok[0] in "'\"":
            f.quoted.append(low.strip("'\""))
        elif any(c.isdigit() for c in tok):
            f.numbers.extend(re.findall(r"\d+(?:[.,]\d+)?", tok))
            if any(c.isalpha() for c in tok):
                f.names.append((low, False))
        elif low in _NUMBER_WORDS:
            f.numbers.append(_NUMBER_WORDS[low])
        elif low in _TIME_WORDS:
            f.times.add(low)
        elif ("_" in tok or "." in tok[1:-1]) and len(tok) > 2:
            f.names.append((low, False))
        elif tok[0].isupper() and low != "i" and tok not in _ACRONYMS:
            f.names.append((low, start and not tok.isupper()))
        if low in _NEGATIONS or low.endswith("n't"):
            f.negations += 1
        start = False
    return f


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _one_word_replaced(ca: list[str], cb: list[str]) -> bool:
    """The same content words but one or two replaced in place ("by bus" / "by taxi")."""
    sa, sb = [_stem(w) for w in ca], [_stem(w) for w in cb]
    ops = [op for op in difflib.SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes()]
    changed = [op for op in ops if op[0] != "equal"]
    same = sum(op[2] - op[1] for op in ops if op[0] == "equal")
    if len(changed) != 1 or same < 1:
        return False
    tag, i1, i2, j1, j2 = changed[0]
    return tag == "replace" and i2 - i1 <= 2 and j2 - j1 <= 2


def contrast(a: str, b: str) -> str | None:
    """Why requests ``a`` and ``b`` must not share an answer, or None if no reason is found.

    Args:
        a: The rendered text of one request.
        b: The rendered text of the other.

    Returns:
        A short reason (``"numbers differ"``, ``"negation differs"``...) or None.
    """
    fa, fb = _features(a), _features(b)
    if fa.numbers != fb.numbers:
        return "numbers differ"
    if fa.times != fb.times:
        return "dates or times differ"
    if fa.negations % 2 != fb.negations % 2:
        return "negation differs"
    wa, wb = set(fa.words), set(fb.words)
    da, db = wa - wb, wb - wa
    for pos, neg in _OPPOSITES:
        if (da & pos and db & neg) or (da & neg and db & pos):
            return "opposite words"
    # a capitalised first word is a name only if the other text names it inside a sentence
    known = {n for n, initial in fa.names + fb.names if not initial}
    na = [n for n, initial in fa.names if not initial or n in known]
    nb = [n for n, initial in fb.names if not initial or n in known]
    if set(na) != set(nb) or set(fa.quoted) != set(fb.quoted):
        return "names differ"
    if na != nb:
        return "names in another order"
    ca = [w for w in fa.words if w not in _STOP]
    cb = [w for w in fb.words if w not in _STOP]
    if ca != cb and Counter(ca) == Counter(cb):
        return "same words, other order"
    if _one_word_replaced(ca, cb):
        return "a word replaced"
    return None


def contrast_verifier(new: str, cached: str, record: object = None) -> bool:
    """A verifier that accepts a candidate only when :func:`contrast` finds no reason."""
    return contrast(new, cached) is None
