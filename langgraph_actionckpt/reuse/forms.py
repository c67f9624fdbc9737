"""One written form for what a paraphrase spells another way: symbols, numbers, dates, times.

The contrast check (:mod:`.contrast`) compares two requests word by word, after
:func:`normalize`: full-width characters as ASCII (NFKC), currency and unit symbols as
the words they stand for ("$5" and "5 dollars"; any other currency sign, Unicode category
Sc, a word of its own, so "5₩" and "5₺" differ), numbers written in words as digits
(:mod:`.numwords`: "zweihundert" is "200"), English days of the month as "<month>
<day>" ("the third of April" is "April 3"), clock times in digits ("half past eleven" is
"11:30", "four in the afternoon" is "4 pm", "10 a.m." is "10 am") and digit groups without
their separators ("5,000" is "5000").
"""

from __future__ import annotations

# ruff: noqa: RUF001  (the symbols of other scripts)
import re
import unicodedata
from functools import partial

from langgraph_actionckpt.reuse import numwords

__all__ = ["normalize"]

# Symbols read as words, so that a paraphrase writing the word agrees with one using
# the symbol, and a change of symbol is a change of word (the edit checks see it).
_SYMBOL_WORDS = {
    "$": " dollar ", "€": " euro ", "£": " pound ", "¥": " yen ", "₽": " ruble ",
    "₹": " rupee ", "%": " percent ", "°": " degree ", "＄": " dollar ", "％": " percent ",
}  # fmt: skip
_SYMBOLS = re.compile("|".join(re.escape(s) for s in _SYMBOL_WORDS))


def _currency_words(text: str) -> str:
    """Any other currency sign (Unicode category Sc) as a word of its own: its name."""
    return "".join(
        f" {unicodedata.name(c, 'currency').lower().replace(' ', '-')} "
        if unicodedata.category(c) == "Sc"
        else c
        for c in text
    )


_MONTH = "january|february|march|april|may|june|july|august|september|october|november|december"
# the ordinals under text2num's threshold (:mod:`.numwords` writes "third" on as "3rd")
_ORDINALS = {"first": 1, "second": 2}
_ORDINAL = "first|second"
_DAY = rf"(?:\d{{1,2}}(?:st|nd|rd|th)|{_ORDINAL})"
# English day-of-month forms, each rewritten as "<month> <day>": "the third of April",
# "April the 3rd", "3 April"; and "22nd" alone as 22
_DATES = (
    (re.compile(rf"\b(?:the\s+)?({_DAY})\s+of\s+({_MONTH})\b", re.I), 2, 1),
    (re.compile(rf"\b({_MONTH})\s+(?:the\s+)?({_DAY})\b", re.I), 1, 2),
    (re.compile(rf"\b(\d{{1,2}})\s+({_MONTH})\b", re.I), 2, 1),
)
_SUFFIXED = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)


def _day(text: str) -> str:
    """The day of month an ordinal names, in digits ("first", "3rd")."""
    return str(_ORDINALS.get(text.lower()) or _SUFFIXED.sub(r"\1", text))


def _month_day(match: re.Match[str], month: int, day: int) -> str:
    return f"{match.group(month)} {_day(match.group(day))}"


def _dates(text: str) -> str:
    """Days of the month in one form, so that a paraphrase moving or spelling them agrees."""
    for pattern, month, day in _DATES:
        text = pattern.sub(partial(_month_day, month=month, day=day), text)
    # an ordinal alone as its digits: "15th" ("on the fifteenth of every month"); "first"
    # and "second" alone have other senses ("at first", "a second")
    return _SUFFIXED.sub(r"\1", text)


_HOUR_WORDS = {"one": 1, "two": 2}  # under text2num's threshold: the other hours are digits
_HOUR = r"(\d{1,2}|one|two)"
# English clock times, each rewritten as digits: "half past eleven" (11:30), "a quarter to
# six" (5:45), "seven o'clock" (7); (pattern, hours to add, minutes)
_CLOCK: tuple[tuple[re.Pattern[str], int, str], ...] = (
    (re.compile(rf"\bhalf\s+past\s+{_HOUR}\b", re.I), 0, ":30"),
    (re.compile(rf"\b(?:a\s+)?quarter\s+past\s+{_HOUR}\b", re.I), 0, ":15"),
    (re.compile(rf"\b(?:a\s+)?quarter\s+to\s+{_HOUR}\b", re.I), -1, ":45"),
    (re.compile(rf"\b{_HOUR}\s+o'clock\b", re.I), 0, ""),
)
# "4 in the afternoon" (4 pm), "9 at night" (9 pm), "11 in the morning" (11 am)
_HALF_DAY: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(rf"\b{_HOUR}(:\d\d)?\s+(?:in\s+the\s+(?:afternoon|evening)|at\s+night)\b", re.I),
        "pm",
    ),
    (re.compile(rf"\b{_HOUR}(:\d\d)?\s+in\s+the\s+morning\b", re.I), "am"),
)
_MERIDIEM = re.compile(r"\b([ap])\.m\.", re.I)  # "10 a.m." is "10 am"
_GROUPED = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")  # "5,000" is "5000"


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOUR_WORDS[word.lower()]


def _clock_time(match: re.Match[str], shift: int, minutes: str) -> str:
    return f"{(_hour(match.group(1)) + shift - 1) % 12 + 1}{minutes}"


def _half_day(match: re.Match[str], half: str) -> str:
    return f"{_hour(match.group(1))}{match.group(2) or ''} {half}"


def _clock(text: str) -> str:
    """Clock times and digit groups in one form, so that a paraphrase spelling them agrees;
    "midday" is "noon"."""
    text = _GROUPED.sub(lambda m: m.group(0).replace(",", ""), _MERIDIEM.sub(r"\1m", text))
    for pattern, shift, minutes in _CLOCK:
        text = pattern.sub(partial(_clock_time, shift=shift, minutes=minutes), text)
    for pattern, half in _HALF_DAY:
        text = pattern.sub(partial(_half_day, half=half), text)
    return re.sub(r"\bmidday\b", "noon", text, flags=re.I)


def normalize(text: str, lang: str = "en") -> str:
    """NFKC (full-width letters and digits become ASCII), symbols as words, numbers written
    in words of ``lang`` as digits (:mod:`.numwords`), dates and clock times in one form."""
    text = _SYMBOLS.sub(lambda m: _SYMBOL_WORDS[m.group(0)], unicodedata.normalize("NFKC", text))
    return _clock(_dates(numwords.digits(_currency_words(text), lang)))
