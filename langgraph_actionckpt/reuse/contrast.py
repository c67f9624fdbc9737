"""The contrast check: refuse reuse when two similar requests differ where it matters.

Sentence embeddings place a request and its negation, or the same request about
another city or amount, very close together ("turn on dark mode" and "turn off
dark mode" score above 0.9 with all-MiniLM-L6-v2). No threshold separates them
from paraphrases. :func:`contrast` is a cheap, deterministic second opinion run
on every candidate above the threshold: it finds the differences a paraphrase
does not make and names the first one found, so the candidate is refused.

It compares, over the whole request text, in any script (words are cut by
Unicode category; Chinese and Japanese characters count one word each; see
:mod:`.structure` for what it knows of each language):

* numbers: digits of any script (ASCII, full-width, Arabic-Indic...),
  Chinese numerals and cardinal number words, compounds read as one number
  ("two hundred", "forty-five", "5 million"); in another order only when each
  moved with a word beside it and none took another's place;
* dates and times (weekdays, months, today/tomorrow, am/pm...);
* negation (``not``, ``n't``, ``nicht``, ``не``, ``لا``, ``不``, ``ない``...): odd
  against even;
* tense: a past-tense cue on one side only ("Is my flight delayed?" against
  "Was my flight delayed?"), a future against a perfect ("Will ... be
  watered?" / "Have ... been watered?"), or a future against a present with the
  same words and no date ("Is the power back on?" / "Will the power be back on?");
* scope: a universal ("all channels" / "this channel") or paucal ("a camera bag" /
  "several camera bags") quantifier on one side only, or the same words with one
  in the singular and the other in the plural;
* units and currencies, when both sides name some ("in kilograms" / "in pounds",
  "km" and "kilometers" being one);
* opposite words (on/off, enable/disable, add/remove, buy/sell, before/after...),
  and words that differ only in a prefix, the way many languages build opposites
  ("indoors" / "outdoors", "import" / "export", "включи" / "выключи");
* names: capitalised words inside a sentence (Latin, Greek, Cyrillic...; not in a
  text that capitalises its nouns), all-caps codes, quoted strings, identifiers
  with digits, dots or underscores, in order;
* word order: the same words in another order (swapped roles: "is a lion faster
  than a horse" against "is a horse faster than a lion"), or inflected forms of the
  same words trading places around a word both keep ("z mojego konta na konto Kasi"
  / "z konta Kasi na moje konto": from my account to hers, from hers to mine), or
  two words trading places with every other word in place; a run moved from a
  sentence's end to its start ("On May 2, print ...") or two sentences trading
  places is a paraphrase's shape and passes;
* small edits: the same content words but for one place where a word was
  replaced, or a clause added or dropped ("by bus" / "by taxi", "flats" / "flats
  that allow pets"; a run of Chinese or Japanese characters, "人民币" / "美元", is
  one word replaced, and about one word per two characters inserted); or every
  word the same but one function word ("from" / "until"); or two or more elements
  replaced in place with nothing else changed ("oat ... cow's milk" / "almond ...
  goat's milk"), unless the embedding model takes one of them for a near-synonym
  of its replacement ("draft ... regarding" / "write ... about"). A paraphrase rewrites
  more than that; a request that asks for something else usually changes one
  element and keeps the rest;
* a sentence replaced: one sentence said otherwise beside a sentence both keep
  ("Which produces more methane, landfills or cattle? Answer in a paragraph." /
  "... Give me just the numbers in a table.": an output format), unless the
  embedding model takes the two sentences for rewordings of each other;
* words appended: every content word of one request, in order, and more at the
  end of a sentence ("... a bachelor's degree?" / "... a bachelor's degree in
  hours?"): a unit, a constraint or a qualifier added.
* a word or two no rule above explains, in any language: one content word added
  or dropped with every other word kept ("Bestel geen 4 pizza's", "Boka inte 2
  tider": how most languages write a negation, an "all" or a condition), or one or
  two words on one side only with the other words kept up to inflection ("Är alla
  bibliotek ... öppna" for "Är biblioteket ... öppet", an "all" with its agreement); up to
  three words changed that move the request the way a negation, a tense, an "all" or an
  opposite move does an English prototype, by the embedding model (:mod:`.judge`).

It errs on the side of refusing: a paraphrase that reorders two names or adds one
adverb is not reused, which costs one model call, never a wrong answer.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from langgraph_actionckpt.reuse import forms, judge, language, lexicon, numwords, structure
from langgraph_actionckpt.reuse.edits import (
    _END,
    _appended,
    _edit_size,
    _fronted,
    _inflected,
    _left_over,
    _owner_moved,
    _owners_traded,
    _prefix_swapped,
    _replaced_sentence,
    _restricted,
    _roles_swapped,
    _small_edit,
    _stem,
    _substitutions,
    _turned_round,
)

__all__ = ["SENTENCE", "SYNONYM", "Embed", "contrast", "contrast_verifier"]

Embed = Callable[[list[str]], list[list[float]]]
"""Texts to unit vectors: an ``Embeddings.embed_documents``."""
SYNONYM = 0.62
"""Cosine similarity from which the model takes a replaced word for a near-synonym."""
SENTENCE = 0.8
"""Cosine similarity from which the model takes a replaced sentence for a rewording of it."""
_PREFIX = 4  # letters two inflected forms of one word share ("konta" / "konto")

# quoted strings; words starting with a letter or digit of any script, their combining
# marks kept (a Devanagari or Thai vowel sign is inside a word); sentence ends
_TOKEN = re.compile(
    rf"(?<!\w)'[^'\n]{{1,80}}'(?!\w)|\"[^\"\n]{{1,80}}\"|[^\W_][\w{structure.MARKS}.\-:/@']*"
    r"|[.!?;\n。！？；]"  # noqa: RUF001
)
_SENT_END = {".", "!", "?", ";", "\n", "。", "！", "？", "；"}  # noqa: RUF001
_TITLE = re.compile(r"[A-Z][a-z]{1,2}")  # "Mr." "Mrs." "Dr." "St.": no sentence ends there
_ONE = "one"  # the word "one" among numbers: maybe a pronoun or an article

# English words for counts and orders that are not cardinals (those are in .structure)
_NUMBER_WORDS = {
    "half": "0.5", "twice": "x2", "first": "#1", "second": "#2",
    "single": "1", "double": "x2", "triple": "x3", "pair": "2", "couple": "2",
}  # fmt: skip
_NEGATIONS = structure.NEGATIONS | {"avoid", "refuse", "stop"}
_SIMPLE_PAST = frozenset({"did", "was", "were"})  # the English past auxiliaries
_BE_PRESENT = frozenset({"is", "are", "am"})
_TO = frozenset({"to", "into", "onto"})
_NEAR = 3  # words either side of a number that a paraphrase keeps beside it
_DETERMINERS = frozenset({"the", "a", "an", "this", "that"})
_ONGOING = frozenset({"still", "now", "currently"})  # "is ... still installing": going on
_NOUN_MARKS = _DETERMINERS | structure.POSSESSIVES  # a word after them is a noun
_FUTURE_MARKS = frozenset({"going", "about"})  # "is going to be fitted", "is about to be named"
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
# each cue word's grammatical classes (a word may be a cue of two languages)
_CUE_CLASSES: dict[str, frozenset[str]] = {
    word: frozenset(c for c, words in structure.CUES.items() if word in words)
    for words in structure.CUES.values()
    for word in words
}
_NONE: frozenset[str] = frozenset()


def _tokens(text: str) -> list[str]:
    """Words, numbers, quoted strings and sentence ends of a normalized text.

    A role prefix ends a sentence.
    """
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        if tok[0] in "'\"":
            out.append(tok)
            continue
        core = tok.rstrip(".:-/@'")
        tail = tok[len(core) :]
        if core:
            out.extend(structure.split_han(core))
        abbreviation = tail.startswith(".") and _TITLE.fullmatch(core) is not None
        if tail.startswith((".", ":")) and not abbreviation:
            out.append("\n" if tail.startswith(":") else ".")
    return structure.merge_numbers(out)


@dataclass(slots=True)
class _Features:
    words: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    placed: list[int] = field(default_factory=list)  # each number's place in the sequence
    ones: set[int] = field(default_factory=set)  # the places of the word "one"
    times: set[str] = field(default_factory=set)
    sequence: list[str] = field(default_factory=list)  # the words, _END at each sentence end
    names: list[tuple[str, bool]] = field(default_factory=list)  # (name, sentence-initial)
    quoted: list[str] = field(default_factory=list)
    negations: int = 0
    cues: set[str] = field(default_factory=set)  # grammatical classes: past, universal...
    units: set[str] = field(default_factory=set)
    owners: dict[str, frozenset[str]] = field(default_factory=dict)  # word -> its possessors
    ends: list[tuple[str, str]] = field(default_factory=list)  # (word before, owner)


def _features(text: str, lang: str = "en") -> _Features:
    f = _Features()
    start = True
    capitalised: list[tuple[str, bool]] = []
    inner = 0  # words inside a sentence: a text capitalising most of them names nothing so
    previous = ""
    text = forms.normalize(text, lang)
    tokens = _tokens(text)
    f.owners = structure.possessors(tokens)
    f.ends = structure.governed_owners(tokens)
    for k, tok in enumerate(tokens):
        if tok in _SENT_END:
            start = True
            f.sequence.append(_END)
            continue
        low = structure.GENITIVE.sub("", tok.lower())
        value = structure.han_numbers(tok) or structure.number_word(low)
        digits = structure.numbers_in(tok) if tok[0] not in "'\"" else []
        # a number is the same word however it is written ("3", "三", "three", "٣")
        f.words.append(value or (digits[0] if len(digits) == 1 and tok.isdigit() else low))
        f.sequence.append(f.words[-1])
        inner += not start
        if tok[0] in "'\"":
            f.quoted.append(low.strip("'\""))
        elif digits:
            f.numbers.extend(digits)
            f.placed.extend([len(f.sequence) - 1] * len(digits))
            if any(c.isalpha() for c in tok):
                f.names.append((low, False))
        elif value is not None:
            f.numbers.append(value)
            f.placed.append(len(f.sequence) - 1)
            if low == "one":
                f.ones.add(len(f.sequence) - 1)
        elif low in _NUMBER_WORDS:
            f.numbers.append(_NUMBER_WORDS[low])
            f.placed.append(len(f.sequence) - 1)
        elif (
            low in lexicon.TIME_WORDS or _stem(low) in lexicon.PLURAL_TIMES
        ):  # "on Saturdays", "six months"
            low = low if low in lexicon.TIME_WORDS else _stem(low)
            f.times.add(lexicon.SAME_TIME.get(low, low))
            if low in lexicon.EVERY:  # "monthly" is "each month", "per month"
                f.cues.add("universal")
        elif ("_" in tok or "." in tok[1:-1]) and len(tok) > 2:
            f.names.append((low, False))
        elif tok[0].isupper() and low != "i" and tok not in _ACRONYMS:
            capitalised.append((low, start and not tok.isupper()))
        # "no later than", "no more than": a bound, not a negation
        bound = low == "no" and tokens[k + 2 : k + 3] == ["than"]
        if (low in _NEGATIONS and not bound) or low.endswith("n't"):
            f.negations += 1
        unit = structure.units_in(low)
        if unit is not None:
            f.units.add(unit)
        if previous not in structure.QUESTION_WORDS:
            # "a-t-il", and an elided pronoun before its verb: Italian "l'ha", French "l'a"
            for form in {low, low.split("-")[0], low.rsplit("'", 1)[-1]}:
                f.cues |= _CUE_CLASSES.get(form, _NONE)
        previous = low
        start = False
    _unspaced_cues(text, f)
    if _going_to(f.words):
        f.cues.add("future")
    if sum(not initial for _, initial in capitalised) * 3 <= inner:
        f.names.extend(capitalised)
    return f


def _unspaced_cues(text: str, f: _Features) -> None:
    """The cues of Chinese and Japanese, found as substrings of the runs of those scripts."""
    runs = "|".join(structure.han_runs(text))
    if not runs:
        return
    f.units |= structure.unspaced_units(runs)
    for cls, cues in structure.UNSPACED_CUES.items():
        count = sum(runs.count(cue) for cue in cues)
        if cls == "negation":
            f.negations += count
        elif count:
            f.cues.add(cls)


def _contexts(f: _Features) -> list[tuple[str, str, str]]:
    """Each number with the words beside it (``_END`` at a sentence end); "one" as ``_ONE``."""
    seq = [_END, *(_stem(w) for w in f.sequence), _END]
    return [
        (_ONE if i in f.ones else n, seq[i], seq[i + 2])
        for n, i in zip(f.numbers, f.placed, strict=True)
    ]


def _numbers_moved(fa: _Features, fb: _Features) -> bool:
    """Whether the same numbers appear in another order, each moved with its words.

    "Add 2 honey supers to hive 7 on May 14" / "On May 14, put two honey supers on
    hive 7": every number keeps a word beside it ("hive 7", "May 14", "2 ... honey").
    Numbers trading places keep their places' words and change the number: "from table
    4 to table 9" / "from table 9 to table 4" has "table _ to" around 4 on one side and
    around 9 on the other, which is refused.
    """
    ca, cb = _contexts(fa), _contexts(fb)
    if Counter(fa.numbers) != Counter(fb.numbers):
        # "one" as a word may be a pronoun or an article ("a 0.6 mm one", "in one paragraph")
        ca, cb = [c for c in ca if c[0] != _ONE], [c for c in cb if c[0] != _ONE]
        if Counter(n for n, *_ in ca) != Counter(n for n, *_ in cb):
            return False
    around_a = {(left, right): n for n, left, right in ca}
    if any(around_a.get((left, right), n) != n for n, left, right in cb):
        return False
    beside = all(
        any(n == m and _END != x == y for m, *kb in cb for x, y in zip(ka, kb, strict=True))
        for n, *ka in ca
    )
    # or a content word of the number's own sentence kept within three places of it
    na, nb = _near(fa, len(ca) < len(fa.numbers)), _near(fb, len(cb) < len(fb.numbers))
    return beside or all(any(n == m and wa & wb for m, wb in nb) for n, wa in na)


def _near(f: _Features, without_ones: bool) -> list[tuple[str, set[str]]]:
    """Each number with the content words of its sentence at most three places from it."""
    seq = [_stem(w) for w in f.sequence]
    out = []
    for n, i in zip(f.numbers, f.placed, strict=True):
        if without_ones and i in f.ones:
            continue
        start = max((j + 1 for j in range(i) if seq[j] == _END), default=0)
        end = next((j for j in range(i, len(seq)) if seq[j] == _END), len(seq))
        window = seq[max(start, i - _NEAR) : i] + seq[i + 1 : min(end, i + _NEAR + 1)]
        out.append((n, {w for w in window if w not in _STOP and not w[:1].isdigit()}))
    return out


def _content(f: _Features) -> list[str]:
    return [w for w in f.sequence if w not in _STOP]


def _future_against_perfect(a: set[str], b: set[str]) -> bool:
    """One side asks about the future, the other about what has happened."""
    return any(
        "future" in x and "future" not in y and "perfect" in y - x for x, y in ((a, b), (b, a))
    )


def _perfect_against_past(fa: _Features, fb: _Features) -> bool:
    """A perfect against a simple past: "Has the lab finished ...?" / "Did the lab finish ...?".

    Both ask whether it is done. A past with a time ("yesterday", "ago"), a past perfect
    ("had") or a present ("Is ... open?" / "Was ... open?") is still another tense.
    """
    for x, y in ((fa, fb), (fb, fa)):
        past = {w for w in y.words if w in structure.CUES["past"]}
        if "perfect" in x.cues - y.cues and "past" not in x.cues and past and past <= _SIMPLE_PAST:
            return True
    return False


def _ends(words: list[str]) -> tuple[str, str] | None:
    """What an English request moves from and to: the words after "from" and after "to"."""
    try:
        i = words.index("from")
        j = next(k for k in range(i + 1, len(words)) if words[k] in _TO)
    except (ValueError, StopIteration):
        return None
    source = next((w for w in words[i + 1 : j] if w not in _DETERMINERS), None)
    target = next((w for w in words[j + 1 :] if w not in _DETERMINERS), None)
    if source is None or target is None:
        return None
    owners = structure.STANDALONE_OWNERS
    return owners.get(source, source), owners.get(target, target)


def _from_to_swapped(wa: list[str], wb: list[str]) -> bool:
    """ "from my credit to Dan's" / "from Dan's credit to mine": the two ends trade places."""
    ea, eb = _ends(wa), _ends(wb)
    return ea is not None and eb is not None and ea[0] != ea[1] and ea == eb[::-1]


def _same_but_future(ca: list[str], cb: list[str]) -> bool:
    """The same content words up to inflection, leaving out how a future is written."""
    return [_stem(w) for w in ca if w not in _FUTURE_MARKS] == [
        _stem(w) for w in cb if w not in _FUTURE_MARKS
    ]


def _same_forms(pa: list[str], pb: list[str]) -> list[str]:
    """``pb`` with each word only it has written as the form ``pa`` has, where one matches.

    "моей карты на карту Ольги" / "карты Ольги на мою карту": "мою" is "моей" in
    another case, so the two sides trade the same words.
    """
    only_a = [x for x in pa if x not in pb]
    out = []
    for y in pb:
        match = None if y in pa else next((x for x in only_a if _inflected(x, y)), None)
        if match is not None:
            only_a.remove(match)
        out.append(match or y)
    return out


def _going_to(words: list[str]) -> bool:
    """A future written with "go" and a verb: "Is the lab going to finish ...?", "going to
    be", "about to be named", Spanish "va a arreglar", French "va-t-il changer", Portuguese
    "vai consertar"."""
    return any(
        (w in _FUTURE_MARKS and nxt == "to" and (after not in _STOP or after == "be"))
        or structure.romance_go_future(w, nxt)
        for w, nxt, after in zip(words, words[1:], [*words[2:], ""], strict=False)
    )


def _progressive(words: list[str], other: set[str]) -> bool:
    """A present progressive: a form of "be" and a word in "-ing" ("Is ... resetting ...?").

    The "-ing" word is one the other side lacks ("the court hearing" on both sides is a
    noun) and follows no article or possessive ("my hiking boots").
    """
    romance = any(
        structure.romance_progressive(w, nxt) and nxt not in other
        for w, nxt in itertools.pairwise(words)
    )
    return romance or (
        any(w in _BE_PRESENT for w in words)
        and any(
            w == "being"
            or (
                len(w) > 5
                and w.endswith("ing")
                and before not in _NOUN_MARKS
                and (w not in other or before in _ONGOING)
            )
            for before, w in zip(["", *words], words, strict=False)
        )
    )


def _perfect_against_progressive(
    fa: _Features, fb: _Features, lines: tuple[list[str], list[str]]
) -> bool:
    """ "Has the game master reset ...?" asks what is done; "Is ... resetting ...?" what goes on.

    Each side's progressive is read from its lines the other lacks: a system prompt both
    share ("You are ...") makes no "-ing" noun a progressive.
    """
    wa, wb = ([w.lower() for line in side for w in _tokens(line)] for side in lines)
    pa, pb = _progressive(wa, set(wb)), _progressive(wb, set(wa))
    return ("perfect" in fa.cues - fb.cues and pb and not pa) or (
        "perfect" in fb.cues - fa.cues and pa and not pb
    )


def _near_synonym(
    pairs: list[tuple[str, str]], embed: Embed | None, threshold: float = SYNONYM
) -> bool:
    """Whether any replaced element is a near-synonym of its replacement, by the model."""
    if embed is None:
        return False
    vectors = embed([t for pair in pairs for t in pair])
    return any(_cosine(vectors[2 * i], vectors[2 * i + 1]) >= threshold for i in range(len(pairs)))


def _cosine(a: list[float], b: list[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def contrast(a: str, b: str, embed: Embed | None = None) -> str | None:
    """Why requests ``a`` and ``b`` must not share an answer, or None if no reason is found.

    Args:
        a: The rendered text of one request.
        b: The rendered text of the other.
        embed: The policy's ``embed_documents`` (unit vectors): two or more elements
            replaced in place are let through when one of them is a near-synonym of
            its replacement by this model. ``None``: they are refused.

    Returns:
        A short reason (``"numbers differ"``, ``"negation differs"``...) or None.
    """
    lines = _differing_lines(a, b)
    # numbers in words are read in the language of the lines that differ
    lang = numwords.language_for([*lines[0], *lines[1]])
    fa, fb = _features(a, lang), _features(b, lang)
    wa, wb = set(fa.words), set(fb.words)
    da, db = wa - wb, wb - wa
    opposite = _prefix_swapped(da, db) or any(
        (da & pos and db & neg) or (da & neg and db & pos) for pos, neg in lexicon.OPPOSITES
    )
    # "Is A more expensive than B?" / "Does B cost less than A?": both turned, one question
    turned = opposite and _turned_round(fa.sequence, fb.sequence, _STOP)
    moved = _numbers_moved(fa, fb) or (turned and Counter(fa.numbers) == Counter(fb.numbers))
    if fa.numbers != fb.numbers and not moved:
        return "numbers differ"
    if fa.times != fb.times:
        return "dates or times differ"
    if fa.negations != fb.negations:
        return "negation differs"
    differs = fa.cues ^ fb.cues
    if (
        ("past" in differs and not _perfect_against_past(fa, fb))
        or _future_against_perfect(fa.cues, fb.cues)
        or _perfect_against_progressive(fa, fb, lines)
    ):
        return "tense differs"
    if differs & {"universal", "some"}:
        return "quantifier differs"
    if fa.units and fb.units and fa.units != fb.units:
        return "units differ"
    if opposite and not turned:
        return "opposite words"
    if _from_to_swapped(fa.words, fb.words):
        return "same words, other order"
    if _owner_moved(fa.owners, fb.owners) or _owners_traded(fa.ends, fb.ends):
        return "another owner"
    # a capitalised first word is a name only if the other text names it inside a sentence
    known = {n for n, initial in fa.names + fb.names if not initial}
    na = [n for n, initial in fa.names if not initial or n in known]
    nb = [n for n, initial in fb.names if not initial or n in known]
    if set(na) != set(nb) or set(fa.quoted) != set(fb.quoted):
        return "names differ"
    if na != nb and not turned and not (_choice(fa.words) and _choice(fb.words)):
        return "names in another order"
    ca = [w for w in fa.words if w not in _STOP]
    cb = [w for w in fb.words if w not in _STOP]
    if "future" in differs and not fa.times and _same_but_future(ca, cb):
        # the same words, one side in the future and no date to pin both to one time:
        # "Is the power back on?" asks about now, "Will the power be back on?" about later
        return "tense differs"
    reordered = ca != cb and Counter(ca) == Counter(cb)
    if reordered and not turned and not _fronted(_content(fa), _content(fb)):
        return "same words, other order"
    pa = [w[:_PREFIX] for w in ca]
    if not turned and _roles_swapped(pa, _same_forms(pa, [w[:_PREFIX] for w in cb])):
        return "same words, other order"
    edit = _small_edit(ca, cb) or _small_edit(fa.words, fb.words, replaced_only=True)
    if edit is not None:
        return edit
    replaced = _substitutions(ca, cb)
    if replaced and not _near_synonym(replaced, embed):
        return "elements replaced"
    sentence = _replaced_sentence(fa.sequence, fb.sequence)
    if sentence is not None and not _near_synonym([sentence], embed, SENTENCE):
        return "a sentence replaced"
    if ca != cb and [_stem(w) for w in ca] == [_stem(w) for w in cb]:
        return "singular against plural"
    sa = [_stem(w) for w in fa.sequence if w not in _STOP]
    sb = [_stem(w) for w in fb.sequence if w not in _STOP]
    if _appended(sa, sb):
        return "words appended"
    if _restricted(fa.sequence, fb.sequence, _STOP):
        return "a restriction added"
    reason = _few_words(lines, fa.words, fb.words, embed)
    if reason is None and fa.words != fb.words:
        # the rules above know the closed classes of ten languages; in another, a tense or
        # an "all" is a word they cannot tell from a paraphrase's
        # only the lines that differ: a shared English system prompt must not make a
        # Finnish question look English
        code = language.unread([*lines[0], *lines[1]])
        reason = None if code is None else f"language not read ({code})"
    return reason


def _few_words(
    lines: tuple[list[str], list[str]], wa: list[str], wb: list[str], embed: Embed | None
) -> str | None:
    """Why a difference of a word or two that no cue class explains matters, or None.

    One content word added or dropped, every other word kept, is refused in any language: it
    is how most languages write a negation, an "all" or a condition ("Bestel geen 4
    pizza's", "Boka inte 2 tider"); a paraphrase changes more. A difference of up to
    three words is shown to the model (:func:`.judge.meaning_shift`), with the lines
    that differ: one that moves the request the way a negation, a tense or an "all"
    does is refused.
    """
    size = _edit_size(wa, wb)
    content = sum(w not in _STOP for w in wa) - sum(w not in _STOP for w in wb)
    if size == 1 and content in (-1, 1):
        return "a word added or dropped"
    dropped, added = _left_over(wa, wb)
    one_side = dropped + added if not (dropped and added) else []
    if 0 < len(one_side) <= 2 and any(w not in _STOP for w in one_side):
        return "a word added or dropped" if len(one_side) == 1 else "words added or dropped"
    if embed is None or not 0 < size <= 3:
        return None
    da, db = " ".join(lines[0]), " ".join(lines[1])
    shift = judge.meaning_shift(da, db, embed) if da and db else None
    return None if shift is None else f"{shift} differs (model)"


def _choice(words: list[str]) -> bool:
    """Whether a request offers a choice ("A or B", "between A and B"): its order is free."""
    return "or" in words or "between" in words


def _differing_lines(a: str, b: str) -> tuple[list[str], list[str]]:
    """The lines (messages) of each rendered request that the other does not have."""
    la, lb = a.split("\n"), b.split("\n")
    return [line for line in la if line not in lb], [line for line in lb if line not in la]


def contrast_verifier(new: str, cached: str, record: object = None) -> bool:
    """A verifier that accepts a candidate only when :func:`contrast` finds no reason."""
    return contrast(new, cached) is None
