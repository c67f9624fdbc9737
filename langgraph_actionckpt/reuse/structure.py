"""Language-agnostic pieces of the contrast check: scripts, numbers, closed word classes.

The contrast check (:mod:`.contrast`) compares the structure of two requests. What
it needs to know about a language is kept here, and kept to what does not grow
with the requests people send: how to cut text into words in any script (Han and
kana characters count one word each), the value of a number however it is written
(any Unicode decimal digit: ASCII, full-width, Arabic-Indic, Devanagari...;
Chinese numerals; cardinal number words), and the closed grammatical classes that
flip an answer: negation, past tense, universal quantifiers, in English, German,
French, Spanish, Italian, Portuguese, Russian and Chinese. Currency and unit
symbols are read as the words they stand for, so "$5" and "5 dollars" agree; any other
currency sign (Unicode category Sc) is a word of its own, so "5₩" and "5₺" differ.
"""

from __future__ import annotations

# ruff: noqa: RUF001  (the point of this module is characters of other scripts)
import re
import unicodedata

__all__ = [
    "NEGATIONS",
    "PAST",
    "UNIVERSAL",
    "han_numbers",
    "is_han",
    "normalize",
    "number_word",
    "numbers_in",
    "split_han",
]

# Symbols read as words, so that a paraphrase writing the word agrees with one using
# the symbol, and a change of symbol is a change of word (the edit checks see it).
_SYMBOL_WORDS = {
    "$": " dollar ", "€": " euro ", "£": " pound ", "¥": " yen ", "₽": " ruble ",
    "₹": " rupee ", "%": " percent ", "°": " degree ", "＄": " dollar ", "％": " percent ",
}  # fmt: skip
_SYMBOLS = re.compile("|".join(re.escape(s) for s in _SYMBOL_WORDS))


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CARDINALS = {
    # English
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 10**6, "billion": 10**9, "dozen": 12,
    # German
    "null": 0, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6,
    "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "zwölf": 12, "zwanzig": 20,
    "hundert": 100, "tausend": 1000,
    # French
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
    "dix": 10, "douze": 12, "vingt": 20, "cent": 100, "mille": 1000,
    # Spanish, Italian, Portuguese
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "doce": 12, "veinte": 20, "cien": 100, "mil": 1000,
    "due": 2, "tre": 3, "quattro": 4, "dieci": 10, "duas": 2, "três": 3,
    # Russian (the forms a count takes after a preposition included)
    "ноль": 0, "один": 1, "одна": 1, "одно": 1, "одного": 1, "два": 2, "две": 2, "двух": 2,
    "три": 3, "трёх": 3, "трех": 3, "четыре": 4, "четырёх": 4, "четырех": 4, "пять": 5,
    "пяти": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10,
    "двадцать": 20, "сто": 100, "тысяча": 1000,
}  # fmt: skip

NEGATIONS = _words(
    """
    not no never without none nobody nothing neither nor cannot nowhere except excluding
    nicht kein keine keinen keinem keiner keines nie niemals ohne nichts
    pas jamais sans aucun aucune rien
    nunca sin ningún ninguna ninguno nada jamás
    non senza mai não nem sem
    не нет ни никогда без ничего нельзя
    """
)
"""Negation cues (Chinese ones are characters: see :data:`HAN_NEGATIONS`)."""

HAN_NEGATIONS = frozenset("不没沒别別无無未勿")

PAST = _words(
    """
    was were did had wasn't weren't didn't hadn't yesterday ago
    war waren warst hatte hatten wurde wurden gestern
    était étaient avait avaient fut hier
    estaba estaban era eran fue fueron había hubo ayer
    era erano stava ieri
    был была было были вчера
    昨天 过 過
    """
)
"""Past-tense cues: auxiliaries and the words that put a request in the past."""

UNIVERSAL = _words(
    """
    all every each entire whole any both everyone everything
    alle allen jeder jede jedes ganze gesamte beide
    tous toutes chaque entier entière
    todos todas cada entero entera ambos
    tutti tutte ogni
    все всех каждый каждая каждое весь вся всё оба
    所有 每 全部 都
    """
)
"""Universal quantifiers: "all channels" is another request than "this channel"."""

_HAN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
    "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_HAN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "萬": 10**4, "亿": 10**8}
_HAN_NUMBER = re.compile("[" + "".join(_HAN_DIGITS) + "".join(_HAN_UNITS) + "]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def _currency_words(text: str) -> str:
    """Any other currency sign (Unicode category Sc) as a word of its own: its name."""
    return "".join(
        f" {unicodedata.name(c, 'currency').lower().replace(' ', '-')} "
        if unicodedata.category(c) == "Sc"
        else c
        for c in text
    )


def normalize(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII) and symbols as words."""
    text = _SYMBOLS.sub(lambda m: _SYMBOL_WORDS[m.group(0)], unicodedata.normalize("NFKC", text))
    return _currency_words(text)


def is_han(char: str) -> bool:
    """A Chinese character, or Japanese kana: scripts written without spaces."""
    name = unicodedata.name(char, "")
    return name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA"))


def split_han(token: str) -> list[str]:
    """A token cut so that every Han or kana character is a word of its own.

    Runs of Chinese numerals stay together (one number).
    """
    if not any(is_han(c) for c in token):
        return [token]
    out: list[str] = []
    rest = ""
    i = 0
    while i < len(token):
        m = _HAN_NUMBER.match(token, i)
        if m is not None:
            if rest:
                out.append(rest)
                rest = ""
            out.append(m.group(0))
            i = m.end()
            continue
        c = token[i]
        if is_han(c):
            if rest:
                out.append(rest)
                rest = ""
            out.append(c)
        else:
            rest += c
        i += 1
    if rest:
        out.append(rest)
    return out


def han_numbers(token: str) -> str | None:
    """The value of a token made of Chinese numerals ("三" 3, "二十五" 25), else None."""
    if not token or _HAN_NUMBER.fullmatch(token) is None:
        return None
    total = section = digit = 0
    for c in token:
        if c in _HAN_DIGITS:
            digit = _HAN_DIGITS[c]
        else:
            unit = _HAN_UNITS[c]
            if unit >= 10**4:
                total = (total + section + digit) * unit
                section = 0
            else:
                section += (digit or 1) * unit
            digit = 0
    return str(total + section + digit)


def numbers_in(token: str) -> list[str]:
    """The numbers written with digits in a token, in any script, as ASCII."""
    out = []
    for run in _DIGITS.findall(token):
        ascii_run = "".join(str(unicodedata.decimal(c)) if c.isdigit() else c for c in run)
        out.append(
            ascii_run.replace(",", "")
            if re.fullmatch(r"\d{1,3}(,\d{3})+", ascii_run)
            else ascii_run
        )
    return out


def number_word(word: str) -> str | None:
    """The value of a cardinal number word (lower case), else None."""
    value = _CARDINALS.get(word)
    return None if value is None else str(value)
