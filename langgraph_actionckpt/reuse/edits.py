"""Shapes of an edit between two word sequences, for the contrast check (:mod:`.contrast`).

Each function looks at two requests' words only (cut and normalized by the contrast
check): which words were replaced, added, dropped or moved, and whether that is the shape
of a paraphrase (a run fronted, a near-synonym) or of another request (two words trading
places around a kept word, one word added with the rest kept up to inflection).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from langgraph_actionckpt.reuse import structure

_END = "\n"  # a sentence end in a word sequence


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _elements(words: list[str], han_chars: int = 0) -> int:
    """How many elements a run of words is: a run of Han or kana characters is one.

    Chinese and Japanese are cut one character a word, so "人民币" / "美元" (one
    currency for another) is one element replaced, not three characters. With
    ``han_chars``, a run counts one word per that many characters instead (a clause
    inserted, "高速道路で" in "東京から大阪まで高速道路で何キロですか", is several words).
    """
    count = 0
    run = 0
    for w in [*words, ""]:
        if len(w) == 1 and structure.is_han(w):
            run += 1
            continue
        if run:
            count += -(-run // han_chars) if han_chars else 1
            run = 0
        count += bool(w)
    return count


def _small_edit(ca: list[str], cb: list[str], *, replaced_only: bool = False) -> str | None:
    """Why the content words differ by a small edit, or None.

    A small edit keeps the other content words in place and makes one change: a
    run of one or two elements replaced ("by bus" / "by taxi"), or a clause of two
    to four added or dropped ("flats" / "flats that allow pets"). Paraphrases
    change two places ("draft ... regarding" / "write ... about"); the other
    checks see a second change of numbers, names, dates, negation, tense or scope
    whatever else changed.
    """
    sa, sb = [_stem(w) for w in ca], [_stem(w) for w in cb]
    ops = difflib.SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes()
    # a word of Chinese or Japanese is about two characters long
    changed = [
        (
            tag,
            _elements(ca[i1:i2], 0 if tag == "replace" else 2),
            _elements(cb[j1:j2], 0 if tag == "replace" else 2),
        )
        for tag, i1, i2, j1, j2 in ops
        if tag != "equal"
    ]
    same = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    if len(changed) != 1 or same < 1:
        return None
    tag, n, m = changed[0]
    if replaced_only:
        # every word counted: one function word for another ("from" / "until")
        return "a word replaced" if tag == "replace" and n == m == 1 else None
    if tag == "replace":
        return "a word replaced" if max(n, m) <= 2 else None
    return "a clause added or dropped" if n + m >= 2 else None


def _substitutions(ca: list[str], cb: list[str]) -> list[tuple[str, str]]:
    """The elements replaced in place, when there are two or more and nothing else changed.

    "oat milk ... cow's milk" / "almond milk ... goat's milk", "sink ... plunger" /
    "shower drain ... snake": each replacement keeps the frame of the request and
    swaps what it is about. A paraphrase that keeps the frame swaps near-synonyms
    ("draft ... regarding" / "write ... about"); :func:`contrast` asks the embedding
    model which it is. Returns the (a, b) pairs of replaced words, or [] for another edit.
    """
    sa, sb = [_stem(w) for w in ca], [_stem(w) for w in cb]
    ops = difflib.SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes()
    if any(tag in ("insert", "delete") for tag, *_ in ops):
        return []
    spans = [(ca[i1:i2], cb[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag == "replace"]
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    if (
        len(spans) < 2
        or any(max(_elements(x), _elements(y)) > 2 for x, y in spans)
        or kept < sum(len(x) for x, _ in spans)
    ):
        return []
    return [(" ".join(x), " ".join(y)) for x, y in spans]


def _sentences(sequence: list[str]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    current: list[str] = []
    for word in [*sequence, _END]:
        if word != _END:
            current.append(word)
        elif current:
            out.append(tuple(current))
            current = []
    return out


def _replaced_sentence(wa: list[str], wb: list[str]) -> tuple[str, str] | None:
    """The one sentence each side says otherwise, beside a sentence both keep, or None.

    "Which produces more methane, landfills or cattle? Answer in a paragraph." /
    "... Give me just the numbers in a table.": the question is kept and the other
    sentence, an output format here, replaced as a whole. ``wa`` and ``wb`` are word
    sequences with ``_END`` at each sentence end. The kept sentence must have two words
    or more beside the replaced one (a role prefix, "human:", is one word), so a request
    of one sentence never has this shape. A paraphrase rewrites the question or moves
    the format clause into it; :func:`contrast` asks the model whether the two
    sentences are rewordings of each other.
    """
    sa, sb = _sentences(wa), _sentences(wb)
    n = min(len(sa), len(sb))
    head = next((i for i in range(n) if sa[i] != sb[i]), n)
    tail = next((j for j in range(n - head) if sa[-1 - j] != sb[-1 - j]), n - head)
    if len(sa) - head - tail != 1 or len(sb) - head - tail != 1:
        return None
    before = sa[head - 1] if head else ()
    after = sa[len(sa) - tail] if tail else ()
    if max(len(before), len(after)) < 2:
        return None
    return " ".join(sa[head]), " ".join(sb[head])


def _appended(sa: list[str], sb: list[str]) -> bool:
    """Whether one side is the other with content words appended to one of its sentences.

    ``sa`` and ``sb`` are content words with ``_END`` at each sentence end. A request
    that keeps every content word of another and appends some at the end of a
    sentence asks for more: a unit ("... in hours?"), a constraint ("... that is
    gluten-free"), a qualifier. Paraphrases add words in front ("which city is...",
    "what are the steps to...") or a sentence of their own; neither counts.
    """
    ops = difflib.SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) > 1 and sa.count(_END) == sb.count(_END) > 1:
        # one sentence of several with words appended is enough ("... bowling on weekends?
        # Give me the full price list." for "... bowling? Keep it to one line.")
        pairs = zip(_sentences(sa), _sentences(sb), strict=False)
        return any(_appended([*x, _END], [*y, _END]) for x, y in pairs)
    if len(changed) != 1 or changed[0][0] not in ("insert", "delete"):
        return False
    tag, i1, i2, j1, j2 = changed[0]
    longer, start, end = (sb, j1, j2) if tag == "insert" else (sa, i1, i2)
    after_word = start > 0 and longer[start - 1] != _END
    return (
        after_word and _END not in longer[start:end] and (end == len(longer) or longer[end] == _END)
    )


def _restricted(wa: list[str], wb: list[str], function_words: AbstractSet[str]) -> bool:
    """Whether the one sentence that differs is narrowed by a restriction on one side.

    A restriction is a phrase opened by a restrictor (:data:`.structure.RESTRICTORS`)
    whose content words the other side has in no form. It asks about another case when
    it is inserted after a word with nothing else changed ("Is the vacuum station by the
    exit working again?"), or ends the sentence beside an element replaced ("Is rye bread
    healthier than white bread for diabetics?" / "Is sourdough healthier than white
    bread?"). ``wa`` and ``wb`` are word sequences with ``_END`` at each sentence end. A
    paraphrase's phrase names something the other side has ("... on my account", "at the
    Kellers' place").
    """
    sa, sb = _sentences(wa), _sentences(wb)
    differ = [(x, y) for x, y in zip(sa, sb, strict=False) if x != y]
    if len(sa) != len(sb) or len(differ) != 1:
        return False
    x, y = differ[0]
    matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]

    def new(word: str, other: tuple[str, ...]) -> bool:
        return word not in function_words and not any(_inflected(word, v) for v in other)

    def restriction(run: tuple[str, ...], other: tuple[str, ...]) -> bool:
        content = [w for w in run[1:] if w not in function_words]
        return (
            run[0] in structure.RESTRICTORS
            and bool(content)
            and all(new(w, other) for w in content)
        )

    tag, i1, i2, j1, j2 = ops[-1]
    if len(ops) == 1 and tag in ("insert", "delete"):
        longer, other, start, end = (y, x, j1, j2) if tag == "insert" else (x, y, i1, i2)
        return start > 0 and restriction(longer[start:end], other)
    small = all(max(o[2] - o[1], o[4] - o[3]) <= 2 for o in ops[:-1])
    if i2 != len(x) or j2 != len(y) or len(ops) > 2 or not small:
        return False
    for longer, other, start, end, replaced in ((y, x, j1, j2, x[i1:i2]), (x, y, i1, i2, y[j1:j2])):
        cut = next(
            (r for r in range(max(start, 1), end) if longer[r] in structure.RESTRICTORS), None
        )
        if cut is None or cut - start > 2 or len(replaced) > 1:
            continue
        if not restriction(longer[cut:end], other):
            continue
        # the element replaced: the words before the restriction, and the op before it
        mine = [*longer[start:cut], *(w for o in ops[:-1] for w in _side(o, longer is y, x, y))]
        theirs = [*replaced, *(w for o in ops[:-1] for w in _side(o, longer is not y, x, y))]
        if any(new(w, other) for w in mine) or any(new(w, longer) for w in theirs):
            return True
    return False


def _side(
    op: tuple[str, int, int, int, int], second: bool, x: tuple[str, ...], y: tuple[str, ...]
) -> tuple[str, ...]:
    """The words an edit op spans on one side (the second when ``second``)."""
    return y[op[3] : op[4]] if second else x[op[1] : op[2]]


def _owner_moved(oa: Mapping[str, frozenset[str]], ob: Mapping[str, frozenset[str]]) -> bool:
    """Whether a thing both sides own is the speaker's on one side and someone else's on the other.

    "Lend my 9-foot fly rod to Kenji" / "Borrow Kenji's 9-foot fly rod": the same words
    and names, but the rod changes hands the other way. ``oa`` and ``ob`` map each word
    that follows a possessive to its owners (:func:`.structure.possessors`).
    """
    first = structure.FIRST_PERSON_OWNERS
    return any(
        not oa[w] & ob[w] and bool(oa[w] & first) != bool(ob[w] & first) for w in oa.keys() & ob
    )


def _owners_traded(ga: list[tuple[str, str]], gb: list[tuple[str, str]]) -> bool:
    """Whether two owners trade the words before their phrases: the request runs the other way.

    "Move 5 GB from my line to my daughter Zoe's" / "Move 5 GB from my daughter Zoe's line
    to mine", "Put 25 dollars on my wife's card from mine" / "... on my card from my
    wife's": each side names both owners, one after "from" and one after "to" (or "on"),
    and they change places. ``ga`` and ``gb`` are (word before, owner) pairs
    (:func:`.structure.governed_owners`). A paraphrase that moves an owner keeps it after
    the same word ("Send Kofi 15 dollars from my card" / "Put 15 dollars from my card onto
    Kofi's": "my" after "from" on both sides).
    """
    sa, sb = set(ga), set(gb)
    return any(
        (g1, o2) in sb and (g2, o1) in sb and (g1, o1) not in sb and (g2, o2) not in sb
        for g1, o1 in sa
        for g2, o2 in sa
        if g1 != g2 and o1 != o2
    )


def _turned_round(wa: list[str], wb: list[str], function_words: AbstractSet[str]) -> bool:
    """Whether both sides compare two things with "than", each side in the other order.

    "Is a plated dinner more expensive than a buffet?" / "Does a buffet cost less than a
    plated dinner?": what one side names after "than" the other names before it, and the
    other way round. With the comparative turned to its opposite it is the same question.
    """
    side_a, side_b = _compared(wa, function_words), _compared(wb, function_words)
    if side_a is None or side_b is None:
        return False
    (before_a, after_a), (before_b, after_b) = side_a, side_b
    return any(_inflected(after_a, w) for w in before_b) and any(
        _inflected(after_b, w) for w in before_a
    )


def _compared(words: list[str], function_words: AbstractSet[str]) -> tuple[list[str], str] | None:
    """The content words before the one "than" of a sentence, and the first after it."""
    if words.count("than") != 1:
        return None
    i = words.index("than")
    start = max((j + 1 for j in range(i) if words[j] == _END), default=0)
    end = next((j for j in range(i, len(words)) if words[j] == _END), len(words))
    before = [w for w in words[start:i] if w not in function_words]
    after = [w for w in words[i + 1 : end] if w not in function_words]
    return (before, after[0]) if before and after else None


def _edit_size(wa: list[str], wb: list[str]) -> int:
    """How many words differ: a run replaced, added or dropped counts its longer side."""
    ops = difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def _inflected(x: str, y: str) -> bool:
    """Whether two words may be forms of one word: they share half the shorter, 3 letters or more.

    A short word (an article or an auxiliary, "το" / "τα", "je" / "jsou") needs one.
    """
    common = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), 0)
    common = common or (min(len(x), len(y)) if x.startswith(y) or y.startswith(x) else 0)
    shorter = min(len(x), len(y))
    return (common >= 3 or (common > 0 and shorter <= 3)) and 2 * common >= shorter


def _left_over(wa: list[str], wb: list[str]) -> tuple[list[str], list[str]]:
    """The words of each side that no word of the other side is a form of, in place.

    "Är biblioteket i centrum öppet nu?" / "Är alla bibliotek i centrum öppna nu?": every
    word has an inflected form in place on the other side but "alla", an "all" added with
    the agreement it brings (plural nouns, verbs and articles) in any inflected language.
    """
    only_a: list[str] = []
    only_b: list[str] = []
    ops = difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        xs, ys = list(wa[i1:i2]), list(wb[j1:j2])
        for x in list(xs):
            y = next((y for y in ys if _inflected(x, y)), None)
            if y is not None:
                xs.remove(x)
                ys.remove(y)
        only_a += xs
        only_b += ys
    return only_a, only_b


def _fronted(sa: list[str], sb: list[str]) -> bool:
    """Whether one side moves a run of words from the end of a sentence to its start.

    ``sa`` and ``sb`` are the same content words with ``_END`` at each sentence end.
    "Print 4 copies of the bracket on September 2." / "On September 2, print four
    copies of the bracket.", "Are guppies hardier than bettas? Answer with bullet
    points." / "Answer with bullet points: are guppies hardier than bettas?": one block
    moved to the front, the rest in order. Two words trading places ("a lion faster
    than a horse" / "a horse faster than a lion") or a run moved inside a sentence
    ("from hive A to hive B" / "from hive B to hive A") is not this shape.
    """
    head = next((i for i, (x, y) in enumerate(zip(sa, sb, strict=False)) if x != y), 0)
    tail = next((i for i, (x, y) in enumerate(zip(sa[::-1], sb[::-1], strict=False)) if x != y), 0)
    xa, xb = sa[head : len(sa) - tail], sb[head : len(sb) - tail]
    starts = head == 0 or sa[head - 1] == _END
    ends = tail > 0 and sa[len(sa) - tail] == _END
    # each part two words or more: "pounds to kilograms" / "kilograms to pounds" is a swap
    if not (starts and ends):
        return False
    # a run moved, or whole sentences trading places (each with its end)
    return any(
        y == x[t:] + x[:t]
        for x, y in ((xa, xb), ([*xa, _END], [*xb, _END]))
        for t in range(2, len(x) - 1)
    )


def _prefix_swapped(da: set[str], db: set[str]) -> bool:
    """Words only one side has that differ only in front: a prefix marks the opposite.

    "indoors" / "outdoors", "import" / "export", "inbound" / "outbound",
    "включи" / "выключи", "einschalten" / "ausschalten": the same stem, another
    direction, in any language that builds opposites with prefixes.
    """
    for x in da:
        for y in db:
            if x[-1:] != y[-1:] or x.endswith(y) or y.endswith(x):
                continue
            common = next(
                (i for i, (p, q) in enumerate(zip(x[::-1], y[::-1], strict=False)) if p != q),
                min(len(x), len(y)),
            )
            if common >= 4 and 2 * common >= max(len(x), len(y)):
                return True
    return False


def _roles_swapped(pa: list[str], pb: list[str]) -> bool:
    """Whether two words trade places around a word kept between them.

    ``pa`` and ``pb`` are the content words cut to their first letters, so that
    inflected forms of one word match: "z mojego konta na konto Kasi" / "z konta Kasi
    na moje konto" (from my account to hers, from hers to mine) swap "moje" and "kasi"
    around "na". A paraphrase that moves one element ("contract clause" / "clause of
    the contract") has no kept word between the two.
    """
    if Counter(pa) != Counter(pb) or pa == pb:
        return False
    moved = [k for k, (x, y) in enumerate(zip(pa, pb, strict=True)) if x != y]
    if len(moved) == 2 and moved[1] - moved[0] >= 2:
        # two words trade places, every other word stays in place ("a számlámról Anna
        # számlájára" / "Anna számlájáról a számlámra": from mine to hers, from hers to mine)
        return True
    once = [w for w, n in Counter(pa).items() if n == 1]
    ia = {w: pa.index(w) for w in once}
    ib = {w: pb.index(w) for w in once}
    return any(
        ia[x] < ia[p] < ia[y] and ib[y] < ib[p] < ib[x]
        for x in once
        for y in once
        for p in once
        if len({x, y, p}) == 3
    )
