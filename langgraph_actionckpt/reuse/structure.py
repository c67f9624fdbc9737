"""Language-agnostic pieces of the contrast check: scripts, numbers, closed word classes.

The contrast check (:mod:`.contrast`) compares the structure of two requests. What
it needs to know about a language is kept here, and kept to what does not grow
with the requests people send: how to cut text into words in any script (Han and
kana characters count one word each), the value of a number however it is written
(any Unicode decimal digit: ASCII, full-width, Arabic-Indic, Devanagari...;
Chinese numerals; cardinal number words under three and Russian ones, :mod:`.numwords`
reading the others), and the closed grammatical classes that
flip an answer: negation, past and future tense, universal and paucal quantifiers, in
English, German, French, Spanish, Italian, Portuguese, Russian, Arabic, Chinese and
Japanese (the last two found as substrings: they are written without spaces). Unit
symbols are read as the units they stand for; symbols, dates and clock times are given one
written form first (:mod:`.forms`).
"""

from __future__ import annotations

# ruff: noqa: RUF001  (the point of this module is characters of other scripts)
import re
import unicodedata

__all__ = [
    "CARDINALS",
    "CUES",
    "MARKS",
    "NEGATIONS",
    "QUESTION_WORDS",
    "UNSPACED_CUES",
    "han_numbers",
    "han_runs",
    "is_han",
    "merge_numbers",
    "number_word",
    "numbers_in",
    "split_han",
    "units_in",
    "unspaced_units",
]

MARKS = "".join(
    re.escape(chr(c))
    for c in range(0x300, 0x10000)
    if unicodedata.category(chr(c)) in {"Mn", "Mc", "Me"}
)
"""The combining marks (Mn, Mc, Me) of the Basic Multilingual Plane, for a character class.

A vowel sign of Devanagari, Bengali, Tamil or Thai is a mark, not a letter: a word
pattern without them cuts those words at every vowel.
"""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CARDINALS = {
    # Under text2num's threshold: :mod:`.numwords` reads the other numbers in words of
    # English, German, French, Spanish, Italian, Portuguese, Dutch and Danish.
    "zero": 0, "one": 1, "two": 2, "null": 0, "eins": 1, "zwei": 2, "deux": 2, "dos": 2,
    "due": 2, "dois": 2, "duas": 2,
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
    لا لم لن ليس ليست بدون غير
    """
)
"""Negation cues (in scripts written without spaces: see :data:`UNSPACED_CUES`)."""

HAN_NEGATIONS = frozenset("不没沒别別无無未勿")

# Grammatical classes that change the answer, each a closed class of every supported
# language: a request with a cue of a class against one without it asks something else.
CUES: dict[str, frozenset[str]] = {
    "past": _words(
        """
        was were did had wasn't weren't didn't hadn't yesterday ago
        war waren warst hatte hatten wurde wurden gestern
        était étaient avait avaient fut hier
        estaba estaban era eran fue fueron había hubo ayer
        erano stava stavano ieri
        estava estavam foi foram ontem
        был была было были вчера
        كان كانت كانوا أمس
        """
    ),
    "future": _words(
        """
        will shall won't wird werden werde wirst будет будут буду будем سوف
        """
    ),
    "perfect": _words(
        """
        has have hasn't haven't hat haben habe hast
        ha hemos habéis han
        avons avez ont a-t-il a-t-elle a-t-on ont-ils ont-elles
        ho hai abbiamo avete hanno
        """
    ),
    "universal": _words(
        """
        all every each per entire whole any both everyone everything
        alle allen jeder jede jedes ganze gesamte beide
        toute tous toutes chaque entier entière
        todos todas toda cada entero entera ambos
        tutti tutte tutto tutta ogni
        todo tudo
        все всех каждый каждая каждое весь вся всё оба
        كل جميع كافة
        """
    ),
    "some": _words(
        """
        several some many few multiple various
        mehrere einige viele wenige
        plusieurs quelques
        varios varias algunos algunas muchos muchas pocos
        alcuni alcune molti molte pochi
        vários várias alguns algumas muitos muitas poucos
        несколько много немного некоторые
        بعض عدة
        """
    ),
}
"""Cue words of each class: past, future and perfect tense, universal and paucal quantifiers.

A future against a perfect ("Will ... be watered?" / "Have ... been watered?") asks
about another time; a future against a present often does not ("Does my cover
start ..." / "Will my cover begin ..."), so only the first is refused.
"""
# Words that open a phrase restricting what a request is about: prepositions of purpose,
# place, time and manner, and "when" / "if" clauses, in each read language (a closed class).
RESTRICTORS = _words(
    """
    for in on at with by from when during without near under inside outside while if
    für im am bei mit ohne wenn während
    pour dans avec sans quand pendant
    para en con sin cuando durante
    per nel nella con senza quando durante
    em no na com sem quando durante
    для в во при без когда
    """
)
"""Words that open a restricting phrase ("... for diabetics", "... when grilled")."""
# the present of "go" that makes a future with an infinitive, in Spanish, French, Portuguese
_GO_ES = _words("voy vas va vamos vais van")
_GO_FR = _words("vais vas va allons allez vont")
_GO_PT = _words("vou vai vamos vão")
_INFINITIVE_FR = ("er", "ir", "re")
_INFINITIVE_PT = ("ar", "er", "ir")
# English possessive determiners and the pronouns that stand for one with its noun left out
POSSESSIVES = _words("my our your his her their its")
STANDALONE_OWNERS = {"mine": "my", "ours": "our", "yours": "your", "hers": "her", "theirs": "their"}
"""Possessive pronouns that stand for a possessive with its noun ("from mine": "from my ...")."""
FIRST_PERSON_OWNERS = _words("my our your")
"""The speaker's and the listener's possessives: what the request's own side owns."""
GENITIVE = re.compile(r"(?:'s|s')$")
"""The English genitive ending of a word: "Dan's", "the Smiths'"."""
_ARTICLES = _words("a an the")  # "give her the keys": "her" is no owner there


# the present of "stare" / "estar" that makes a progressive with a gerund
_STARE = _words("sto stai sta stiamo state stanno")
_ESTAR = _words("estoy estás está estamos están estou estão")
_GERUNDS = ("ando", "endo", "iendo", "yendo", "indo")


def romance_progressive(word: str, following: str) -> bool:
    """Whether ``word following`` is a progressive: Italian "sta ritirando", Spanish "está
    arreglando", Portuguese "está consertando"."""
    return (word in _STARE or word in _ESTAR) and following.endswith(_GERUNDS)


def romance_go_future(word: str, following: str) -> bool:
    """Whether ``word following`` is a future made with "go": Spanish "va a arreglar",
    French "va changer" / "va-t-il changer", Portuguese "vai consertar"."""
    return (
        (word in _GO_ES and following == "a")
        or (
            (word in _GO_FR or word.startswith(("va-t-", "vont-")))
            and following.endswith(_INFINITIVE_FR)
        )
        or (word in _GO_PT and following.endswith(_INFINITIVE_PT))
    )


def possessors(tokens: list[str]) -> dict[str, frozenset[str]]:
    """Each word that follows a possessive, with whose it is ("my", "kenji"), in English.

    ``tokens`` are a request's words and sentence ends in order. An owner whose
    thing is left out ("from mine", "onto my wife's") is an owner of every word: a request
    naming two owners may name them in any order.
    """
    left_out = {STANDALONE_OWNERS[t.lower()] for t in tokens if t.lower() in STANDALONE_OWNERS}
    owned: dict[str, set[str]] = {}
    for i, tok in enumerate(tokens):
        low = tok.lower()
        genitive = len(low) > 3 and GENITIVE.search(low) is not None
        if not genitive and low not in POSSESSIVES:
            continue
        owner = GENITIVE.sub("", low)
        following = GENITIVE.sub("", tokens[i + 1].lower()) if i + 1 < len(tokens) else ""
        if not any(c.isalnum() for c in following):
            left_out.add(owner)  # "... onto my wife's."
        elif following not in POSSESSIVES and following not in _ARTICLES:
            owned.setdefault(following, set()).add(owner)
    return {word: frozenset(owners | left_out) for word, owners in owned.items()}


def governed_owners(tokens: list[str]) -> list[tuple[str, str]]:
    """Each owner a request names, with the word before its phrase, in English.

    ``tokens`` are a request's words in order. An owner is a possessive ("my line"), a
    genitive ("Dan's tab") or a pronoun standing for one ("mine"); in a phrase of a
    possessive and a genitive ("my daughter Zoe's line") the genitive is the owner. The
    word before the phrase says which end of the request it is: "from my line to my
    daughter Zoe's" gives ``[("from", "my"), ("to", "zoe")]``.
    """
    low = [t.lower() for t in tokens]
    genitive = [len(w) > 3 and GENITIVE.search(w) is not None for w in low]
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(low):
        word, before = low[i], low[i - 1] if i else ""
        if word in STANDALONE_OWNERS:
            out.append((before, STANDALONE_OWNERS[word]))
        elif word in POSSESSIVES and i + 1 < len(low) and low[i + 1] not in _ARTICLES:
            # a genitive one or two words on is the owner ("my wife's", "my sister Emma's")
            end = next((k for k in range(i + 1, min(i + 3, len(low))) if genitive[k]), i)
            out.append((before, GENITIVE.sub("", low[end])))
            i = end
        elif genitive[i]:
            out.append((before, GENITIVE.sub("", word)))
        i += 1
    return out


# question words that make the next cue a question, not a quantifier ("how many")
QUESTION_WORDS = _words("how")

# The same classes in Chinese and Japanese, found as substrings (no spaces to cut at);
# "negation" is counted (odd against even), the others are present or not.
UNSPACED_CUES: dict[str, tuple[str, ...]] = {
    "negation": (*HAN_NEGATIONS, "ない", "ません"),
    "past": ("ました", "でした", "かった", "だった", "昨日", "昨天", "过", "過"),
    "future": ("将要", "將要"),
    "universal": ("すべて", "全て", "全部", "みんな", "所有", "每", "都", "各"),
    "some": ("いくつか", "几个", "幾個", "一些", "多个", "多個"),
}
"""Cues of each class in scripts written without spaces."""

# Units of measure and currencies, a closed class: (unit, its names in the supported
# languages). A name matches a word it starts (plurals and case endings: "kilometers",
# "километров") with at most three more letters; a short symbol only as a whole word.
_UNIT_NAMES = (
    ("meter", "meter metre mètre метр متر"),
    ("kilometer", "kilometer kilometre kilomètre kilómetro quilômetro chilometro километр"),
    ("centimeter", "centimeter centimetre zentimeter centimètre centímetro сантиметр"),
    ("millimeter", "millimeter millimetre millimètre milímetro миллиметр"),
    ("mile", "mile meile milla миля"),
    ("foot", "foot feet fuß pied фут"),
    ("inch", "inch inches zoll pouce pulgada polegada pollice дюйм"),
    ("yard", "yard yarda ярд"),
    ("gram", "gram gramm gramme gramo grama grammo грамм غرام"),
    ("kilogram", "kilogram kilogramm kilogramme kilogramo quilograma chilogrammo килограмм"),
    ("pound", "pound pfund libra libbra фунт"),
    ("ounce", "ounce unze onza onça унци"),
    ("ton", "tonne tonelada тонн"),
    ("liter", "liter litre litro литр لتر"),
    ("milliliter", "milliliter millilitre mililitro миллилитр"),
    ("gallon", "gallon gallone galón galão галлон"),
    ("cup", "cup tasse taza xícara tazza стакан"),
    ("teaspoon", "teaspoon teelöffel cuillère cucharadita колпачок"),
    ("degree", "degree degré grado grau градус درجة"),
    ("celsius", "celsius цельси مئوية"),
    ("fahrenheit", "fahrenheit фаренгейт فهرنهايت"),
    ("kelvin", "kelvin кельвин"),
    ("percent", "percent prozent pourcent porcentaje porcento процент"),
    ("watt", "watt ватт"),
    ("kilowatt", "kilowatt киловатт"),
    ("megawatt", "megawatt мегаватт"),
    ("joule", "joule джоул"),
    ("calorie", "calorie kalorie caloría калори"),
    ("byte", "byte octet байт"),
    ("megabyte", "megabyte mégaoctet мегабайт"),
    ("gigabyte", "gigabyte gigaoctet гигабайт"),
    ("dollar", "dollar dólar dollaro доллар دولار"),
    ("euro", "евро يورو"),
    ("yen", "yen иен"),
    ("ruble", "ruble rouble rublo рубл"),
    ("rupee", "rupee roupie rupia рупи"),
    ("peso", "peso песо"),
    ("franc", "франк"),
    ("yuan", "yuan юан"),
    ("riyal", "riyal риял ريال"),
)
_UNIT_SYMBOLS = {
    "m": "meter", "km": "kilometer", "cm": "centimeter", "mm": "millimeter",
    "ft": "foot", "yd": "yard", "g": "gram", "kg": "kilogram", "kilo": "kilogram",
    "kilos": "kilogram", "кило": "kilogram", "ton": "ton", "tons": "ton", "euro": "euro",
    "euros": "euro", "franc": "franc", "francs": "franc", "franken": "franc",
    "lb": "pound", "lbs": "pound", "oz": "ounce", "l": "liter", "ml": "milliliter",
    "tsp": "teaspoon", "tbsp": "tablespoon", "tablespoon": "tablespoon", "kw": "kilowatt",
    "kwh": "kilowatt", "mwh": "megawatt", "mph": "mile-per-hour",
    "kph": "kilometer-per-hour", "psi": "psi", "bar": "bar", "kb": "kilobyte",
    "mb": "megabyte", "gb": "gigabyte", "tb": "terabyte", "usd": "dollar", "eur": "euro",
    "gbp": "pound", "chf": "franc", "jpy": "yen", "inr": "rupee",
}  # fmt: skip
_UNIT_PREFIXES = {name: unit for unit, names in _UNIT_NAMES for name in names.split()}
# Chinese and Japanese unit names, found as substrings
_UNSPACED_UNITS = {
    "公里": "kilometer", "千米": "kilometer", "厘米": "centimeter", "毫米": "millimeter",
    "公斤": "kilogram", "千克": "kilogram", "克": "gram", "磅": "pound", "毫升": "milliliter",
    "升": "liter", "摄氏": "celsius", "華氏": "fahrenheit", "华氏": "fahrenheit",
    "元": "yuan", "美元": "dollar", "欧元": "euro", "歐元": "euro", "日元": "yen", "人民币": "yuan",
    "英里": "mile", "キロメートル": "kilometer", "キログラム": "kilogram", "メートル": "meter",
    "センチ": "centimeter",
    "グラム": "gram", "リットル": "liter", "ポンド": "pound", "ドル": "dollar",
    "ユーロ": "euro", "円": "yen", "マイル": "mile",
}  # fmt: skip


def units_in(word: str) -> str | None:
    """The unit a word (lower case) names, else None: "kilometers" and "km" are one unit.

    A compound names its first part ("kilowatt-hours": kilowatt, as "kWh").
    """
    word = word.split("-")[0]
    unit = _UNIT_SYMBOLS.get(word)
    if unit is not None:
        return unit
    for cut in range(len(word), max(2, len(word) - 4), -1):
        unit = _UNIT_PREFIXES.get(word[:cut])
        if unit is not None:
            return unit
    return None


def unspaced_units(text: str) -> set[str]:
    """The units named in a run of Chinese or Japanese characters."""
    found = set()
    for name, unit in sorted(_UNSPACED_UNITS.items(), key=lambda kv: -len(kv[0])):
        if name in text:
            found.add(unit)
            text = text.replace(name, " ")
    return found


_HAN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
    "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_HAN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "萬": 10**4, "亿": 10**8}
_HAN_NUMBER = re.compile("[" + "".join(_HAN_DIGITS) + "".join(_HAN_UNITS) + "]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def is_han(char: str) -> bool:
    """A Chinese character, or Japanese kana: scripts written without spaces."""
    name = unicodedata.name(char, "")
    return name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA"))


# the blocks of Chinese characters and Japanese kana (what is_han names), for a fast scan
_HAN_RUN = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+"
)


def han_runs(text: str) -> list[str]:
    """The runs of Chinese characters and Japanese kana in a text."""
    return _HAN_RUN.findall(text)


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
    value = CARDINALS.get(word)
    return None if value is None else str(value)


_MULTIPLIERS = {100, 1000, 10**6, 10**9}


def _cardinal(token: str) -> int | None:
    value = number_word(token.lower())
    return None if value is None else int(value)


def _split_count(token: str) -> list[str]:
    """A count joined to its noun, cut in two: "two-bedroom" and "2-bedroom" are 2 and a word.

    Written in words, the count would otherwise stay inside the word ("forty-dollar",
    "64-euro"), and a paraphrase writing it apart would look like another number.
    """
    parts = token.split("-")
    if len(parts) < 2:
        return [token]
    count = 1 if parts[0].isdecimal() else 0
    if not count:
        while count < len(parts) and _cardinal(parts[count]) is not None:
            count += 1
    if 0 < count < len(parts) and any(c.isalpha() for c in parts[count]):
        return ["-".join(parts[:count]), "-".join(parts[count:])]
    return [token]


def merge_numbers(tokens: list[str]) -> list[str]:
    """Tokens with each compound number written in words as one number in digits.

    "two hundred", "forty-five", "one hundred and fifty", "5 million": a multiplier
    after a count, or units after tens, make one number, in any language whose
    cardinals this module knows; "200" and "two hundred" are then the same.
    """
    tokens = [part for token in tokens for part in _split_count(token)]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        parts = tokens[i].split("-")
        values = [_cardinal(p) for p in parts]
        if len(parts) > 1 and all(v is not None for v in values):
            out.append(str(_compound([v for v in values if v is not None])))
            i += 1
            continue
        digits = tokens[i].isdecimal()  # "5 million": digits take a multiplier only
        first = int(numbers_in(tokens[i])[0]) if digits else _cardinal(tokens[i])
        if first is None:
            out.append(tokens[i])
            i += 1
            continue
        group, j = [first], i + 1
        while j < len(tokens):
            skip = tokens[j].lower() == "and" and group[-1] in _MULTIPLIERS
            nxt = _cardinal(tokens[j + 1] if skip and j + 1 < len(tokens) else tokens[j])
            if nxt is None or not _joins(group[-1], nxt) or (digits and nxt not in _MULTIPLIERS):
                break
            group.append(nxt)
            j += 2 if skip else 1
        out.append(str(_compound(group)) if len(group) > 1 else tokens[i])
        i = j
    return out


def _joins(previous: int, value: int) -> bool:
    """Whether number word ``value`` continues a compound ending in ``previous``."""
    tens = 20 <= previous < 100 and previous % 10 == 0
    return (
        (value in _MULTIPLIERS and value > previous)
        or (tens and 0 < value < 10)
        or (previous in _MULTIPLIERS and value < previous)
    )


def _compound(values: list[int]) -> int:
    total = current = 0
    for v in values:
        if v in _MULTIPLIERS:
            current = max(current, 1) * v
            if v >= 1000:
                total, current = total + current, 0
        else:
            current += v
    return total + current
