"""Checks of an answer's form: the kind of answer a question wants, restatement, contradiction.

Part of the support check (:mod:`app.validation.support`), kept apart so each file reads
at once. Pure functions over strings, conservative on purpose: a false alarm turns a good
sentence into quoted evidence, which costs little; a miss lets nonsense look verified.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from app.core import textkit
from app.core.textkit import CITATION_MARKERS as _MARKERS
from app.core.textkit import STOPS_EXTRA
from app.validation.claims import claim_numbers, source_numbers

AnswerType = Literal[
    "price", "number", "year", "name", "command", "place", "yes/no", "method", "other"
]


COMMAND = re.compile(r"\\[A-Za-z@]+\*?")
TYPE_NOUN = re.compile(
    r"\b(?:which|what)\s+(?:year|date|decade|century|city|country|town|place|region|command|"
    r"macro|option|package|environment|parameter|setting|argument|flag|key|switch|percentage|"
    r"share|proportion|number|amount|size|length|width|height)s?\b",
    re.IGNORECASE,
)
"""'which city', 'what command': the noun names the kind of answer, not what it is about."""
HOW_MUCH = re.compile(
    r"\bwie\s+(?:viele?|lange?|groß|gross|hoch|oft|alt|weit|schwer|teuer|breit)\b", re.IGNORECASE
)
"""German 'wie lange', 'wie groß': the kind of answer (English 'long', 'large' are asking words)."""
KIND_OF = re.compile(r"\b(?:kind|sort|type|manner)s?\s+of\b", re.IGNORECASE)
"""'what kind of', 'a sort of': asking words; alone, 'sort' and 'type' are concepts ('sort rows',
'column types')."""
_OPTION = re.compile(
    r"(?<![\w-])--?[a-z][\w-]*|\{[^{}\s]{1,40}\}|\b\w+(?:_\w+)+\b|\b[a-z]+[A-Z]\w*"
)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTHS = frozenset(
    """january february march april may june july august september october november december
    januar februar märz mai juni juli oktober dezember""".split()  # noqa: SIM905
)
NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred thousand million billion dozen half twice once single double triple
    percent eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zwanzig hundert
    tausend million millionen milliarden prozent""".split()  # noqa: SIM905
)
NEGATIONS = frozenset(
    """not no never none nothing neither nor cannot can't don't doesn't isn't aren't won't
    mustn't shouldn't without removed deprecated obsolete forbidden prohibited disallowed
    impossible unsupported nicht kein keine keinen keinem keiner nie niemals ohne""".split()  # noqa: SIM905
)


# --- answer type -----------------------------------------------------------------------------
_PRICE_NOUNS = r"(?:fare|price|cost|fee|toll|rent|salary|wage|tariff|subscription)s?"
_TYPE_RULES: list[tuple[AnswerType, re.Pattern[str]]] = [
    (
        "price",
        re.compile(
            rf"\b(?:what|which)\s+(?:[\w'-]+\s+){{0,2}}?{_PRICE_NOUNS}\b"
            r"|\bhow\s+much\b[^?.]*?\b(?:cost|costs|charge|charges|charged|pay|pays|paid|spend|"
            r"spends|spent|earn|earns|earned)\b"
            r"|\bhow\s+much\s+(?:is|are|was|were)\s+(?:a|an|the)?\s*(?:[\w'-]+\s+){0,2}?"
            r"(?:ticket|fare|entry|admission|pass|membership)s?\b"
            r"|\bwhat\s+(?:do|does|did|will|would|should)\s+(?:[\w'-]+\s+){1,4}?"
            r"(?:pay|cost|charge|earn|get\s+paid)\b"
            r"|\bwhat\s+(?:[\w'-]+\s+){1,4}?costs\b"  # "I was wondering what a ticket costs"
            r"|\b(?:fixed|standing|service|extra|annual|yearly|monthly|daily)\s+charges?\b"
            r"|\bhow\s+expensive\b|\bwie\s+teuer\b|\bwas\s+kostet\b|\bwas\s+kosten\b"
            r"|\bwie\s+viel\b[^?]*\bkost",
            re.I,
        ),
    ),
    (
        "year",
        re.compile(
            r"\b(what|which|in which)\s+(year|date|decade|century)\b|\bwhen\s+(was|were|did)\b|\bsince when\b|\bwann\b|\bin welchem jahr\b",
            re.I,
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow\s+(many|much|long|large|big|wide|high|tall|old|often|far|small|heavy|deep|thick|fast|hot|warm|cold|steep|expensive)\b"
            r"|\bwhat\s+(percentage|share|proportion|number|amount|size|length|width|height|weight|depth|speed|temperature|price|cost)\b"
            r"|\bwie\s+(viele?|lange?|groß|hoch|oft|alt|schwer|tief|dick|schnell|heiß|warm|kalt|steil|teuer|weit|breit)\b",
            re.I,
        ),
    ),
    (
        "command",
        re.compile(
            r"\b(which|what)\s+(command|macro|option|package|environment|parameter|setting|argument|flag|key|switch)s?\b",
            re.I,
        ),
    ),
    ("name", re.compile(r"^\s*(who|whom|whose)\b|\bwer\b", re.I)),
    (
        "place",
        re.compile(
            r"^\s*where\b|\b(which|what)\s+(city|country|town|place|region|state)\b|^\s*wo\b", re.I
        ),
    ),
    (
        "method",
        re.compile(
            r"\bhow\s+(?:do|can|could|should|would|must|may)\s+(?:i|you|we|one)\s+"
            r"(?!tell\b|know\b|find\s+out\b|recogni[sz]e\b)"
            r"|\bwie\s+(?:kann|könnte|muss|soll|sollte)\s+(?:ich|man)\b"
            r"(?!.*\b(?:erkennen|wissen|feststellen)\b)",
            re.I,
        ),
    ),
    (
        "yes/no",
        re.compile(
            r"^\s*(is|are|can|could|does|do|did|should|may|must|will|would|has|have|was|were|ist|sind|kann|darf|muss|gibt)\b",
            re.I,
        ),
    ),
]


_OPERATIVE = re.compile(
    r"\bby\s+\w+ing\b|\b(?:use|uses|used|using)\b"
    r"|\b(?:you|one|we)\s+(?:can|could|should|must|may|need\s+to|have\s+to)\b"
    r"|\b(?:can|should|must|may)\s+be\s+\w+(?:ed|en)\b"
    r"|(?:^|[.!?:;]\s+|\u2022\s*)(?:Use|Put|Add|Set|Give|Specify|Load|Write|Choose|Select|Keep|"
    r"Avoid|Remove|Insert|Make|Run|Type|Enter|Open|Plant|Prune|Cut|Dig|Store|Check|Call|"
    r"Contact|Register|Apply|Install|Replace|Declare|Define|Prefer|Try|Wrap|Leave|Pick|Thin)\b"
    r"|\b(?:Sie|man)\s+(?:kann|können|sollte|sollten|muss|müssen)\b|\b\w+en\s+Sie\b",
    re.M,
)
"""What says how to do something: a \\command or option (checked apart), "by adding", "use",
"you can", "can be suppressed", an imperative ("Put \\notag ..."), German "Sie können",
"man muss", "melden Sie". A sentence that only names the topic ("Placing equation numbers
can be a rather complex problem in multiline displays") has none of them."""
GREEN_ONLY_TYPES: frozenset[AnswerType] = frozenset({"method"})
"""Kinds of answer whose absence only withholds GREEN: a way of doing something can be told
without any of the words above ("An apple is ready to pick when it comes away in your
hand"), so a missing one costs no score and never refuses."""


def answer_type(question: str) -> AnswerType:
    """The kind of answer ``question`` asks for (the first rule that matches)."""
    for kind, rule in _TYPE_RULES:
        if rule.search(question):
            return kind
    return "other"


_AMOUNT = re.compile(r"(?<!\w)\d")
"""A digit that starts an amount: "23.4 kg", "5,300", "€19", not one inside a code or a
name ("E42", "M6 screws", "T1"), which answers no "how many" or "how long"."""


def has_number(text: str) -> bool:
    """Whether ``text`` holds an amount: a digit starting one, or a number word."""
    if _AMOUNT.search(text):
        return True
    return any(w in NUMBER_WORDS for w in textkit.words(text))


def _names(text: str) -> set[str]:
    """Capitalised words that are not sentence-initial: names, places, products."""
    out = set()
    for m in re.finditer(r"(?<![.!?:]\s)(?<!^)\b([A-Z][\w-]+)", text):
        w = m.group(1)
        if w.lower() not in textkit.stop_words() and len(w) > 1:
            out.add(w)
    return out


_MONEY = re.compile(
    r"[£$€¥₹]\s?\d|\d\s?(?:[£$€¥₹]|(?:EUR|USD|GBP|CHF|euros?|dollars?|pounds?|pence|cents?|ct|"
    r"Franken)\b)|\b(?:EUR|USD|GBP|CHF)\s?\d"
    r"|\bfree\s+of\s+(?:charge|cost)\b|\bfor\s+free\b|\bno\s+charge\b|\bfree\s+(?:entry|admission)\b"
    r"|\b(?:is|are|go|goes|enter|enters|travel|travels|ride|rides|get|gets)\s+(?:in\s+)?free\b"
    r"|\bkostenlos|\bkostenfrei|\bgratis\b|\bumsonst\b",
    re.I,
)
"""A sum of money as documents write it: a currency by a number ("€2,499", "19 EUR", "3.50
pounds"), or something that costs nothing ("under-fives go free", "kostenlos")."""
_PRICE_WORD = re.compile(
    r"\b(?:costs?|costing|priced?|prices|fares?|fees?|tickets?|charges?|charged|tariffs?|pays?|"
    r"paid|salary|salaries|wages?|rents?|subscriptions?|preis\w*|kostet|kosten|gebühr\w*|"
    r"tarif\w*|entgelt\w*|vergütung\w*)\b",
    re.I,
)
"""A word that makes a nearby number a price: "Tickets: Adults 7.50", "a family ticket ...
costs 19" (a brochure that prints no currency)."""
PRICE_REACH = 6
"""How many words from such a word a number may be and still be read as its price."""


_CURRENCY = re.compile(
    r"[£$€¥₹]|\b(?:EUR|USD|GBP|CHF|euros?|dollars?|pounds?|pence|cents?|Franken)\b", re.I
)
"""A currency on its own: a table's header ("Budget (GBP m)") makes its rows' numbers sums."""


def has_price(text: str) -> bool:
    """Whether ``text`` states a price or a sum of money: ``_MONEY``, a currency named
    beside numbers (a table row under its header), or a number by a ``_PRICE_WORD``."""
    if _MONEY.search(text) or (_CURRENCY.search(text) and _AMOUNT.search(text)):
        return True
    tokens = re.findall(r"[\w.,]+", text)
    marks = [i for i, t in enumerate(tokens) if _PRICE_WORD.fullmatch(t.strip(".,"))]
    return any(
        _AMOUNT.match(t)
        for i in marks
        for t in tokens[max(0, i - PRICE_REACH) : i + PRICE_REACH + 1]
    )


def type_present(kind: AnswerType, evidence: str) -> bool:
    """Whether the evidence holds the kind of thing the question asks for."""
    evidence = _MARKERS.sub(" ", evidence)  # "[3]" cites a reference; it is no number
    if kind == "price":
        return has_price(evidence)
    if kind == "number":
        return has_number(evidence)
    if kind == "year":
        return bool(_YEAR.search(evidence)) or any(w in _MONTHS for w in textkit.words(evidence))
    if kind == "command":
        return _names_command(evidence)
    if kind in ("name", "place"):
        return bool(_names(evidence)) or "/" in evidence
    if kind == "method":  # "use \\notag", "\\notag suppresses": a command is a way to do it
        return _names_command(evidence) or bool(_OPERATIVE.search(evidence))
    return True


def _names_command(text: str) -> bool:
    return bool(COMMAND.search(text) or _OPTION.search(text))


# --- restatement and contradiction -----------------------------------------------------------
def _negated(text: str) -> bool:
    ws = textkit.words(text.replace("n't", " not"))
    if any(w in NEGATIONS for w in ws):
        return True
    return "no longer" in text.lower()


def cut_off(sentence: str) -> bool:
    """Whether ``sentence`` stops in the middle of what it opened: a parenthesis or a double
    quotation mark left open ("The return status (see Section 3.7.5 [2]", "… plus
    characters (. [1]"). The answer grammar ends the text at a period or a bracket, so a
    model copying "(see Section 3.7.5 [Exit Status], page 44)" or "(e.g." is cut there, and
    what it wrote is a fragment, whatever its quotes prove. German quotes („…“) are told from
    English ones (“…”) by their opening mark."""
    text = _MARKERS.sub(" ", sentence)
    if _unclosed(text, "(", ")"):
        return True
    if "\u201e" in text:
        return _unclosed(text, "\u201e", "\u201c")
    return _unclosed(text, "\u201c", "\u201d")


def _unclosed(text: str, opening: str, closing: str) -> bool:
    depth = 0
    for ch in text:
        if ch == opening:
            depth += 1
        elif ch == closing and depth:
            depth -= 1
    return depth > 0


def repeats_itself(sentence: str, quotes: str, lang: str = "en") -> bool:
    """Whether ``sentence`` only loops over its ``quotes``: every content word of it is
    theirs, and it says a pair of them twice where they say it once (a small model's "12
    months must be repeated every 12 months" for "Calibration must be repeated every 12
    months"; "274 {{{274 {{{274"). The quotes then say the same, well formed. A sentence
    that reorders or trims them without looping is the model writing well."""
    own = textkit.content_stems(_MARKERS.sub(" ", sentence), lang, extra=STOPS_EXTRA)
    theirs = textkit.content_stems(quotes, lang, extra=STOPS_EXTRA)
    if len(own) < 2 or not set(own) <= set(theirs):
        return False
    said = Counter(zip(theirs, theirs[1:], strict=False))
    pairs = Counter(zip(own, own[1:], strict=False))
    return any(n > 1 and n > said[p] for p, n in pairs.items())


def contradiction(claim: str, quote: str, question: str = "") -> str | None:
    """Why ``claim`` contradicts its own ``quote``, in words, or None.

    Three cases, each conservative: a number of the claim that the quote lacks while the
    quote states another; a name of the claim that the quote lacks while the quote names
    another; and a negation the quote lacks ("never declared" against "declares"; the
    other way round is left alone: paraphrases like "use X instead of Y" drop negations).
    Names and numbers the question itself brought are the claim's subject, not its
    answer, unless the quote names something else in their place.
    """
    asked = question.lower()
    claim = _MARKERS.sub(" ", claim)
    c_nums, q_nums = claim_numbers(claim), source_numbers(quote)
    odd = [n for n in c_nums if n not in q_nums and n not in asked]
    if odd and q_nums:
        return f"the answer says {odd[0]} where its quote says {sorted(q_nums)[0]}"
    quote_lower, claim_lower = quote.lower(), claim.lower()
    q_stems = {textkit.stem(w) for w in textkit.words(quote)}
    c_names = {
        n
        for n in _names(claim) | _initial_name(claim)
        if n.lower() not in quote_lower
        and n.lower() not in asked
        and textkit.stem(n) not in q_stems
    }
    others = {
        n
        for n in _names(quote) | _initial_name(quote)
        if n.lower() not in claim_lower and n.lower() not in asked
    }
    if c_names and others:
        return (
            f"the answer names \u2018{sorted(c_names)[0]}\u2019 where its quote names "
            f"\u2018{sorted(others)[0]}\u2019"
        )
    if _negated(claim) and not _negated(quote):
        return "the answer negates what its quote states"
    return None


def _initial_name(text: str) -> set[str]:
    """The first word when it is capitalised and not a common word (it may be a name)."""
    m = re.match(r"\s*([A-Z][\w-]+)", text)
    if not m:
        return set()
    w = m.group(1)
    if w.lower() in textkit.stop_words() or w.lower() in STOPS_EXTRA:
        return set()
    return {w}


TYPE_WORDS: dict[AnswerType, str] = {
    "price": "a price or sum of money",
    "number": "a number",
    "year": "a date or year",
    "name": "a name",
    "command": "a command or option",
    "place": "a place",
    "yes/no": "a yes or no",
    "method": "a way to do it",
    "other": "an answer",
}


# --- years asked -------------------------------------------------------------------------------
_ASKED_YEAR = re.compile(
    r"\b(?:in|for|during|of|by|since|until|till|im|für|seit|bis)\s+"
    r"(?:(?:the\s+)?(?:year|jahre?|geschäftsjahr|financial\s+year|fiscal\s+year)\s+)?"
    r"((?:1[89]|20)\d\d)(?![\w/\u2013-]|[.,]\d)",
    re.I,
)
"""A year that a question asks about: a year after a preposition of time ("in 2028", "for
2025", "im Jahr 2023", "seit 1987"), not a date ("2023-03-15"), a decade ("1990s"), a span
("2023/24") or a version ("2020.1"): what a passage must hold for the answer to be about it."""


def asked_years(question: str) -> list[str]:
    """The years ``question`` asks about (:data:`_ASKED_YEAR`), in order, once each."""
    return list(dict.fromkeys(m.group(1) for m in _ASKED_YEAR.finditer(question)))


_YEAR_SPAN = re.compile(
    r"(?<!\d)((?:1[89]|20)\d\d)(?:\s*[/\u2013\u2014-]\s*((?:1[89]|20)?\d\d)"
    r"|\s+(?:bis|to|until)\s+((?:1[89]|20)\d\d))(?!\d)",
    re.I,
)
"""Two years as a span: "2023/24", "2024-25", "2023–2025", "2026 bis 2030" (in words, only
with the full second year: "2026 to 31 March" is no span)."""
_DECADE = re.compile(r"(?<!\d)((?:1[89]|20)\d)0(?:s|er|'s)(?!\w)", re.I)
"""A decade: "1990s", "the 1990's", "die 1990er"."""


def prints_year(year: str, text: str) -> bool:
    """Whether ``text`` speaks of ``year`` in any form a document prints one: the digits in
    a word of their own or inside one ("FY2024"), within a span of years ("2023/24" holds
    2024, "2026–2030" holds 2028) or its decade ("the 1990s" holds 1995). A report's
    financial year spans two calendar years, so either may be what a question means by it."""
    if year in text:
        return True
    y = int(year)
    if any(int(m.group(1)) == y // 10 for m in _DECADE.finditer(text)):
        return True
    for m in _YEAR_SPAN.finditer(text):
        start, end = m.group(1), m.group(2) or m.group(3)
        last = int(start[: 4 - len(end)] + end) if len(end) < 4 else int(end)
        if int(start) <= y <= last:
            return True
    return False


_A_YEAR = re.compile(r"(?<![\d.,])(?:1[89]|20)\d\d(?![\d]|[.,]\d)")


def without_years_of(question: str, evidence: str) -> str:
    """``evidence`` with the years ``question`` names taken out: the year a question is about
    says when, and is no answer to how many, how much or which year ("How many households
    got deliveries in 2020?" is not answered by "2020 Emergency food deliveries ...")."""
    years = set(_A_YEAR.findall(question))
    if not years:
        return evidence
    return _A_YEAR.sub(lambda m: " " if m.group() in years else m.group(), evidence)


def unsupported_words(
    sentence: str, quotes: str, question: str = "", lang: str = "en"
) -> list[str]:
    """The content words of a generated ``sentence`` that neither its ``quotes`` nor the
    ``question`` carry (by stem, or as a longer or shorter form of one of their words): what
    the model said of its own. "Lobular carcinoma in situ (LCIS) is a type of cancer that
    develops in breast tissue" over "LCIS ... This is not cancer" says 'type', 'develops',
    'tissue' of its own, and a status may not vouch for them."""
    carried = set(textkit.content_stems(quotes, lang, extra=STOPS_EXTRA))
    carried |= {textkit.stem(w, lang) for w in textkit.words(quotes)}
    carried |= {textkit.stem(w, lang) for w in textkit.words(question)}
    out: list[str] = []
    for w in textkit.words(_MARKERS.sub(" ", sentence)):
        if w.isdigit() or len(w) < 3 or w in STOPS_EXTRA or w in textkit.stop_words(lang):
            continue
        s = textkit.stem(w, lang)
        if s in carried or any(
            len(s) >= 5 and (c.startswith(s) or s.startswith(c)) for c in carried if len(c) >= 5
        ):
            continue
        if w not in out:
            out.append(w)
    return out


def reverses_polarity(sentence: str, quote: str) -> bool:
    """Whether ``quote`` negates where ``sentence`` does not ("This is not cancer" cited for
    "LCIS is a type of cancer"): the reverse case of :func:`contradiction`'s negation, which
    a paraphrase may cause ("use X instead of Y"), so a signal rather than a verdict."""
    return _negated(quote) and not _negated(sentence)
