"""Does the cited evidence answer the question? Signals, one score, and reasons in words.

The validator proves that every quote is in its passage; that checks the quotes, not the
answer. These pure, fast functions check the answer: a status may only say "Answered
from your documents" when the cited evidence covers what the question asks about.
Each signal is cheap and explainable, and none alone decides:

* **key concepts**: the question's content-bearing terms (\\commands, numbers, names,
  rare words, weighted by how rare they are in the library) must occur in the evidence,
  matched by stem, by variant (hyphenation, case, ``\\cmd`` vs ``cmd``, compounds) or
  by an embedding neighbour, so that paraphrases still count;
* **answer type**: a "how many" question needs a number in the evidence, "what year"
  a year, "which command" a command, "who" a name, "where" a place;
* **restatement**: an answer whose content words all come from the question says nothing;
* **contradiction**: a claim that puts another number or name in its quote's slot, or a
  negation the quote lacks, is not supported by that quote;
* **similarity**: question-to-evidence embedding similarity, calibrated to 0..1.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from app.core import textkit
from app.core.asking import asking_part, topic
from app.core.focus import Focus, question_focus
from app.core.models import Citation
from app.core.text import collapse_ws
from app.core.textkit import CITATION_MARKERS as _MARKERS
from app.core.textkit import STOPS_EXTRA, detect_language, restates
from app.validation.answer_checks import (
    COMMAND,
    GREEN_ONLY_TYPES,
    HOW_MUCH,
    KIND_OF,
    TYPE_NOUN,
    TYPE_WORDS,
    AnswerType,
    answer_type,
    contradiction,
    has_number,
    reverses_polarity,
    type_present,
    unsupported_words,
    without_years_of,
)
from app.validation.claims import claim_numbers, source_numbers

logger = logging.getLogger(__name__)

ConceptKind = Literal["command", "number", "name", "compound", "symbol", "term"]
WordSimilarity = Callable[[Sequence[str], Sequence[str]], Sequence[Sequence[float]]]
"""(question terms, evidence words) -> cosine similarity matrix, e.g. from the embedder."""

_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SYMBOL = re.compile(
    r"(?<![^\s(\[{'\"\u2018\u201c`,])[!@<>{}|~^_](?=[\s,.;:?!)\]{}'\"\u2019\u201d`]|$)"
)
"""A symbol the question names on its own ("the ! and @ column specifiers", "characters like
< and {"): the evidence must show it on its own too, not inside a word or a \\command."""
NEIGHBOUR_MIN = 0.62
"""Word-to-word cosine above which an evidence word counts as a paraphrase of a concept
(MiniLM: "employees"~"staff" 0.68, "price"~"cost" 0.74, "font"~"server" 0.27)."""
NEIGHBOUR_CREDIT = 0.8
SIM_LOW, SIM_HIGH = 0.25, 0.60
"""Question-to-evidence cosine mapped linearly to 0..1 between these (MiniLM on the eval
sets: unanswered questions mostly below 0.35, answered ones mostly above 0.5)."""

W_COVERAGE, W_SIMILARITY, W_TYPE = 0.6, 0.25, 0.15
KEY_SHARE = 0.6
KEY_RARER = 1.15  # the rarest concept stands out when it weighs this much more than the next
RESTATED_FACTOR = 0.7
"""A restated question is never GREEN (``status_model.vouchable``); it costs score, but the
quote may still be the documents' answer cut short ("The predefined math alphabets are:"), so not a refusal alone."""

TOLD_WEIGHT = 0.5
"""A plain word the question only tells the situation with ("Der Installateur will uns einen
Speicher verkaufen.") counts for this share of its rarity in the coverage: the situation may
hold the topic ("We're thinking of the coastal walk. How long is it?"), but its other words
("thinking") are talk. A name, number or command told there is what the ask refers to ("I'm
thinking about a Stanwick Russet. What are the apples like to eat?"): it counts in full."""


@dataclass(frozen=True)
class Concept:
    """A key concept of the question: what the evidence must be about."""

    text: str  # as the person wrote it, for messages
    kind: ConceptKind  # names, \\commands, compounds and symbols are what a person names
    keys: frozenset[str]  # match keys: stems, joined compound, command name
    weight: float = 1.0
    parts: frozenset[str] = frozenset()  # a hyphenated compound's words: all must occur
    told: bool = False  # said in telling the situation, not in asking (see mark_told)

    @property
    def counted(self) -> float:
        """What the concept counts for in the coverage: its weight (rarity), TOLD_WEIGHT of
        it for a plain word only told."""
        return self.weight * (TOLD_WEIGHT if self.told and self.kind == "term" else 1.0)


@dataclass
class Evidence:
    """The evidence as the support check sees it: words, stems and their joined pairs."""

    text: str
    lang: str
    lower: str = ""
    words: list[str] = field(default_factory=list)
    stems: set[str] = field(default_factory=set)
    joined: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, texts: Sequence[str], lang: str | None = None) -> Evidence:
        text = "\n".join(t for t in texts if t)
        lang = lang or detect_language(text)
        ws = textkit.words(text)
        stems = {textkit.stem(w, lang) for w in ws}
        joined = {a + b for a, b in zip(ws, ws[1:], strict=False)}
        return cls(text, lang, text.lower(), ws, stems, joined | set(ws))


@dataclass
class SupportCheck:
    """The support check's verdict: a score in 0..1 and what it rests on, in words."""

    score: float
    covered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    answer_type: AnswerType = "other"
    type_found: bool = True
    similarity: float | None = None
    restated: bool = False
    contradictions: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    coverage: float = 1.0
    key_missing: bool = False  # the rarest (most telling) concept is not in the evidence
    unanswered: list[str] = field(default_factory=list)  # asks of the question left out
    uncounted: list[str] = field(default_factory=list)  # what a "how many" ask counts, uncounted
    none_answered: bool = False  # two asks, and the evidence answers neither
    absent: list[str] = field(default_factory=list)  # missing, and nowhere in the library
    closest: list[Citation] | None = None  # a refusal's closest passages, as checked
    focus: list[str] = field(default_factory=list)  # what the question asks for (app.core.focus)
    focus_coverage: float | None = None  # share of the focus the evidence holds; None: no focus
    focus_missing: list[str] = field(default_factory=list)
    plain_coverage: float = 1.0  # share of the concepts covered, each counting once
    unsupported: list[str] = field(default_factory=list)  # the answer's words its quotes lack
    unsupported_share: float = 0.0  # of the answer's content words
    reversed_polarity: bool = False  # a quote negates what the answer states


# --- key concepts ----------------------------------------------------------------------------
def idf(df: int | None, n_chunks: int) -> float:
    """Inverse document frequency weight; 1.0 when the library's counts are unknown."""
    if df is None or n_chunks <= 0:
        return 1.0
    return 1.0 + math.log((n_chunks + 1) / (df + 1))


def _variants(word: str, lang: str) -> frozenset[str]:
    w = word.lower()
    return frozenset({w, textkit.stem(w, lang)})


def key_concepts(
    question: str,
    *,
    lang: str | None = None,
    df: Mapping[str, int] | None = None,
    n_chunks: int = 0,
) -> list[Concept]:
    """The question's key concepts, rarest first: \\commands, numbers, names, content terms.

    ``df`` maps lower-cased words to the number of library chunks that contain them (from
    the full-text index); rarer concepts weigh more. Hyphenated words count once, with
    their joined form as a variant ("zebra-striped" ~ "zebrastriped" ~ "zebra striped").
    """
    lang = lang or detect_language(question)
    stops = textkit.stop_words(lang) | textkit.stop_words() | STOPS_EXTRA
    out: dict[str, Concept] = {}

    def weight(w: str, bonus: float = 1.0) -> float:
        return round(idf(None if df is None else df.get(w, 0), n_chunks) * bonus, 3)

    for m in COMMAND.finditer(question):
        name = m.group().lstrip("\\").rstrip("*").lower()
        parts = [p.lower() for p in _CAMEL.findall(m.group().lstrip("\\"))]
        keys = {name, *(textkit.stem(p, lang) for p in parts if len(parts) > 1 and len(p) > 2)}
        out[name] = Concept(m.group(), "command", frozenset(keys), weight(name, 1.5))
    body = without_commands = COMMAND.sub(" ", question)
    for asking in (TYPE_NOUN, HOW_MUCH, KIND_OF):
        body = asking.sub(" ", body)
    for num in claim_numbers(body):
        out.setdefault(num, Concept(num, "number", frozenset({num}), weight(num, 1.5)))
    first = True
    for m in re.finditer(r"[^\W_]+(?:-[^\W_]+)*", body):
        raw = m.group()
        parts = textkit.words(raw)
        if not parts:
            continue
        is_first, first = first, False
        content = [p for p in parts if textkit.is_content(p, stops) and not p.isdigit()]
        if not content:
            continue
        if len(parts) > 1:  # a hyphenated compound: one concept, matched whole
            joined = "".join(parts)
            w = max(weight(p) for p in content)
            out.setdefault(
                joined, Concept(raw, "compound", frozenset({joined}), w, frozenset(parts))
            )
            continue
        word = content[0]
        is_name = raw[:1].isupper() and (not is_first or raw[1:2].isupper()) and lang == "en"
        kind: ConceptKind = "name" if is_name else "term"
        out.setdefault(word, Concept(raw, kind, _variants(word, lang), weight(word)))
    # symbols weigh as much as the rarest word: the index cannot count them, and a question
    # that names one is about it
    top = max((c.weight for c in out.values()), default=1.0)
    for sym in dict.fromkeys(m.group() for m in _SYMBOL.finditer(without_commands)):
        out.setdefault(sym, Concept(sym, "symbol", frozenset({sym}), top))
    return sorted(out.values(), key=lambda c: -c.weight)


def asked_about(concepts: Sequence[Concept], question: str) -> list[Concept]:
    """Those of ``concepts`` (of ``question``) that its asking sentences name."""
    part = asking_part(question)
    if part == question:
        return list(concepts)
    lower = part.lower()
    return [c for c in concepts if re.search(rf"(?<!\w){re.escape(c.text.lower())}(?!\w)", lower)]


def mark_told(concepts: Sequence[Concept], question: str) -> list[Concept]:
    """``concepts`` with those that only the situation sentences of ``question`` name marked
    :attr:`Concept.told`, most counted first. A told concept counts less in the coverage
    (:attr:`Concept.counted`) and is never absent from the library nor key: what a person
    asks about is in the asking sentences."""
    asked = {id(c) for c in asked_about(concepts, question)}
    out = [c if id(c) in asked else replace(c, told=True) for c in concepts]
    return sorted(out, key=lambda c: -c.counted)


def asked_concepts(
    question: str,
    *,
    lang: str | None = None,
    df: Mapping[str, int] | None = None,
    n_chunks: int = 0,
) -> list[Concept]:
    """The key concepts of what ``question`` asks (:func:`key_concepts` with the same
    arguments): the asker's talk left out (:func:`topic`), and those only the situation
    told marked (:func:`mark_told`)."""
    told = topic(question)
    return mark_told(key_concepts(told, lang=lang, df=df, n_chunks=n_chunks), told)


def absent_concepts(concepts: Sequence[Concept], df: Mapping[str, int]) -> list[Concept]:
    """Concepts that no chunk of the library contains (by the full-text index's counts).

    Numbers are never "absent" (a question may ask to compute or compare them), nor are
    symbols (the index does not count them), and a
    concept counts as present when any of its variants is (a compound: when each of its
    parts is, since the index counts words).
    """
    out = []
    for c in concepts:
        if c.kind in ("number", "symbol"):
            continue
        if c.parts and all(df.get(p, 0) > 0 for p in c.parts):
            continue  # the index splits compounds: "zebra" and "striped" both occur
        if all(df.get(k, 0) == 0 for k in {c.text.lower().lstrip("\\"), *c.keys}):
            out.append(c)
    return out


_SENTENCE_OPENING = re.compile(
    r"(?:^|[.!?:;\u2026])[\s\"'\u201e\u201c\u201a\u2018(\u2013\u2014-]*$"
)
"""What stands before the first word of a sentence: nothing, or an end mark, with spaces,
opening quotes, brackets or dashes."""


def telling_absence(c: Concept, question: str, lang: str) -> bool:
    """Whether ``c``, absent from the library, tells that the library cannot answer
    ``question`` before anything is generated.

    A plain word among the language's most common (:func:`textkit.everyday_words`: "top",
    "left", "hit", "pay", "Platz") does not: the library says the same in other words ("How
    many stairs is it up to the top?" of a brochure that counts "132 steps to the lantern
    gallery"), so the check after generation weighs it. In German, whose nouns are
    capitalised, only a noun, a name, a compound or a \\command does. A lower-case word there
    is a verb, adjective or adverb: a form the stemmer missed ("weglasse" for "lassen Sie ...
    weg", "drinsteht") or everyday speech ("flotter"), which the check after generation still
    weighs; so is a capitalised word that only opens its sentence ("Komm ich dann noch an
    meine Daten?"). Elsewhere every other absent concept does."""
    if c.kind != "term":
        return True
    if c.text.lower() in textkit.everyday_words(lang):
        return False
    if lang != "de":
        return True
    if not c.text[:1].isupper():
        return False
    return any(  # a noun somewhere inside a sentence, not only at its start
        _SENTENCE_OPENING.search(question[: m.start()]) is None
        for m in re.finditer(rf"(?<!\w){re.escape(c.text)}(?!\w)", question)
    )


def _matches(c: Concept, ev: Evidence) -> bool:
    if c.kind == "symbol":
        return any(m.group() == c.text for m in _SYMBOL.finditer(ev.text))
    for k in c.keys:
        if k in ev.stems or k in ev.joined:
            return True
    if c.parts:  # "two-column": "twocolumn" or "two column", not "column" alone
        joined = textkit.stem(min(c.keys, key=len), ev.lang)  # "crossreferenc"
        return len(joined) >= 5 and any(x.startswith(joined) for x in ev.joined)
    if c.kind == "number":
        return bool(c.keys & source_numbers(ev.text, normalized=True))
    # compounds ("Mitarbeiterzahl" has "mitarbeit"), long words only, either way round
    stem = min(c.keys, key=len)
    if len(stem) >= 5:
        return any(len(w) > len(stem) and stem in w for w in ev.words)
    return False


def _cousin(c: Concept, word: str) -> bool:
    """Whether ``word`` shares a part with the compound ``c`` without being it: another
    compound, no paraphrase ("column" and "multicolumn" for "two-column")."""
    return any(len(p) > 2 and p in word for p in c.parts)


KIN_PREFIX = 5


def kin(c: Concept, word: str, lang: str) -> bool:
    """Whether ``word`` is a form of ``c`` the stemmer missed: its stem begins with one of
    the concept's keys or parts ("Netz" in "Netzstrom"), or shares their first KIN_PREFIX
    letters ("auszurichten" for "Ausrichtung"). What counts as a paraphrase in a language
    the word vectors do not know."""
    s = textkit.stem(word, lang)
    head = s[:KIN_PREFIX] if len(s) >= KIN_PREFIX else None  # a shorter stem has no prefix
    for k in (*c.keys, *c.parts):
        if len(k) >= 4 and s.startswith(k):
            return True
        if head is not None and k.startswith(head):  # the first KIN_PREFIX letters agree
            return True
    return False


NEIGHBOUR_MAX_LEN = 30
"""Longer "words" are no paraphrase of anything: they are glyph runs a PDF's text layer
spells out ("eceeceessatssstesstestesssessee" in the FHS standard's figures), and each cost
an embedding on every question that retrieved them (0.3-0.7 s)."""


def neighbour_candidates(
    words: Iterable[str], lang: str, known: Collection[str] | None = None
) -> list[str]:
    """The words of the evidence that may stand for a concept as its embedding neighbour:
    not stop words, asking words or numbers, longer than two letters and no longer than
    NEIGHBOUR_MAX_LEN, written in the script of a language the embedder knows (``known``,
    None: all; see :func:`~app.core.textkit.written_in`), sorted.

    Why the script: over a Korean leaflet whose text came out of the PDF without spaces
    ("개의긴팔에빨대를댄장난감고무문어의이름에서따왔다"), an English question's check
    embedded 426 such "words" with the English MiniLM, which reads them as unknown pieces:
    0.9-1.4 s for no neighbour it could find."""
    stops = textkit.stop_words(lang)
    return sorted(
        w
        for w in set(words)
        if 2 < len(w) <= NEIGHBOUR_MAX_LEN
        and not w.isdigit()
        and w not in STOPS_EXTRA
        and w not in stops
        and textkit.written_in(w, known)
    )


def coverage(
    concepts: Sequence[Concept],
    ev: Evidence,
    *,
    similar: WordSimilarity | None = None,
    similar_languages: Collection[str] | None = None,
) -> tuple[float, list[str], list[str]]:
    """Weighted share of the concepts the evidence mentions, and which are covered / missing.

    Concepts missing by form are tried once more against the evidence words by embedding
    similarity (``similar``), for paraphrases ("employees" ~ "staff"), at partial credit.
    ``similar_languages`` are the languages whose words ``similar`` knows (None: all). In
    any other language its similarities come from shared word pieces, not meaning (the
    English MiniLM: "Versicherung" ~ "verlieren" 0.70, "Zuschuss" ~ "Überschuss" 0.69),
    so there only a :func:`kin` word may count as the concept's neighbour.
    """
    knows = similar_languages is None or ev.lang in similar_languages
    if not concepts:
        return 1.0, [], []
    covered, missing = [], []
    got = 0.0
    unmatched = []
    for c in concepts:
        if _matches(c, ev):
            covered.append(c.text)
            got += c.counted
        else:
            unmatched.append(c)
    if unmatched and similar is not None:
        cands = neighbour_candidates(set(ev.words), ev.lang, similar_languages)
        if not knows:  # only a kin word can count: embed no other word
            cands = [w for w in cands if any(kin(c, w, ev.lang) for c in unmatched)]
        if cands:
            sims = similar([c.text.lstrip("\\") for c in unmatched], cands)
            still = []
            for c, row in zip(unmatched, sims, strict=True):
                best = max(
                    (
                        x
                        for w, x in zip(cands, row, strict=True)
                        if not _cousin(c, w) and (knows or kin(c, w, ev.lang))
                    ),
                    default=0.0,
                )
                if c.kind in ("term", "name", "compound") and best >= NEIGHBOUR_MIN:
                    covered.append(c.text)
                    got += NEIGHBOUR_CREDIT * c.counted
                else:
                    still.append(c)
            unmatched = still
    missing = [c.text for c in unmatched]
    total = sum(c.counted for c in concepts)
    return got / total, covered, missing


def one_lookup(
    similar: WordSimilarity | None,
    concepts: Sequence[Concept],
    ev: Evidence,
    known: Collection[str] | None = None,
) -> WordSimilarity | None:
    """``similar`` answering every comparison one check makes (its key concepts', then its
    focus's, with the evidence's words) from a single call: each call of the embedder costs
    ~8 ms however few its words, and a check that compared both sets paid it twice. The
    concepts the evidence matches by form are left out, as :func:`coverage` leaves them;
    ``known`` as its ``similar_languages``.
    A later comparison of other terms or words is passed to ``similar`` itself."""
    if similar is None:
        return None
    terms = list(dict.fromkeys(c.text.lstrip("\\") for c in concepts if not _matches(c, ev)))
    cands = neighbour_candidates(set(ev.words), ev.lang, known)
    if not terms or not cands:
        return similar
    table = similar(terms, cands)
    rows = dict(zip(terms, table, strict=True))
    cols = {w: j for j, w in enumerate(cands)}

    def lookup(ts: Sequence[str], ws: Sequence[str]) -> Sequence[Sequence[float]]:
        if all(t in rows for t in ts) and all(w in cols for w in ws):
            return [[rows[t][cols[w]] for w in ws] for t in ts]
        return similar(ts, ws)

    return lookup


def key_missing(concepts: Sequence[Concept], missing: Sequence[str]) -> bool:
    """Whether a name, \\command, number, compound or symbol nearly as rare as the question's
    rarest concept (KEY_SHARE of its weight) is missing: what a person names must be in the
    evidence ("two-column", "@"). Plain words may be paraphrased; coverage and similarity
    weigh those. A concept only told is never key, but a rarer word told beside the ask
    keeps its rarest concept from standing out ("There's this 'urgency' thing in the
    changelog. Does it matter for a normal upload?")."""
    asked = [c for c in concepts if not c.told]
    if not asked or not missing:
        return False
    gone = set(missing)
    rarest = max(asked, key=lambda c: c.weight)
    second = max((c.weight for c in concepts if c is not rarest), default=rarest.weight)
    if rarest.text in gone and rarest.weight > KEY_RARER * second:
        return True  # the one word that sets the question apart ("dividend")
    top = rarest.weight
    return any(c.text in gone and c.kind != "term" and c.weight >= KEY_SHARE * top for c in asked)


_SECOND_ASK = re.compile(
    r",?\s+and\s+(?=(?:what|which|how|why|where|when|who|whose|is|are|does|do|did|can|was|were)\b)",
    re.IGNORECASE,
)
"""Where a question asks a second thing: "Which alphabets are predefined, and what do they
affect?", "Which learning rate and how many trees did it use?"."""


def asks(question: str) -> list[str]:
    """The question's asks: one, or two for "Which learning rate and how many trees ...?"."""
    return [p.strip(" ?,") for p in _SECOND_ASK.split(question)]


def unanswered_asks(
    question: str, concepts: Sequence[Concept], missing: Sequence[str]
) -> list[str]:
    """The parts of a two-part question none of whose concepts the evidence mentions: the
    evidence answers the other part at most, and a GREEN would claim both."""
    parts = asks(question)
    if len(parts) < 2:
        return []
    gone = set(missing)
    out = []
    for part in parts:
        mine = [c for c in concepts if c.text in part]
        if mine and all(c.text in gone for c in mine):
            out.append(part)
    return out


_HOW_MANY = re.compile(r"\b(?:how\s+many|wie\s+viele)\s+(?P<what>[^?,.;:]+)", re.IGNORECASE)
COUNT_REACH = 6
"""How many words from the thing counted a number may be and still be read as its count
("132 steps", "trees: 300", "the network had 612 docking stations")."""


def counted_words(ask: str, lang: str = "en") -> list[str]:
    """What a "how many" ask counts: the words after "how many" up to the first stop word,
    at most three ("charge cycles", "Debian Developers", "Jahre"); none for other asks."""
    m = _HOW_MANY.search(ask)
    if not m:
        return []
    stops = textkit.stop_words(lang) | STOPS_EXTRA
    out: list[str] = []
    for w in re.findall(r"[\w'-]+", m.group("what")):
        if w.lower() in stops or len(out) == 3:
            break
        out.append(w)
    return out


_PHRASE_END = re.compile(r"[,;()\u2013\u2014]|\s(?:and|or|und|oder)\s", re.IGNORECASE)
"""Where a phrase ends: a number across a comma or an "and" counts something else ("two
ovens and a six-ring hob, fridges")."""


def _counted_in(text: str, want: set[str], lang: str) -> tuple[set[str], bool]:
    """(which of ``want``'s stems ``text`` names, whether a number stands within COUNT_REACH
    words of one of them in the same phrase)."""
    found: set[str] = set()
    for phrase in _PHRASE_END.split(collapse_ws(_MARKERS.sub(" ", text))):
        tokens = textkit.words(phrase)
        at = [i for i, t in enumerate(tokens) if textkit.stem(t, lang) in want]
        found.update(textkit.stem(tokens[i], lang) for i in at)
        for i in at:
            if has_number(" ".join(tokens[max(0, i - COUNT_REACH) : i + COUNT_REACH + 1])):
                return found, True
    return found, False


def uncounted(ask: str, evidence: str, lang: str = "en", context: str = "") -> str | None:
    """What a "how many" ask counts, when the evidence names it but gives no number for it:
    it talks about the trees without saying how many ("a gradient boosting decision tree").

    A number counts the thing within COUNT_REACH words of it in the same phrase ("300 trees",
    "seats 120 theatre-style"), not across a comma or an "and" ("two ovens and a six-ring
    hob, fridges"). Named only in ``context`` (a table's header, "Room Size Seats"), the
    thing is counted by any number of the evidence (its row). None when the ask counts
    nothing, when a number counts it, or when the evidence never names it (a paraphrase,
    "steps" for "stairs", which the coverage weighs); else the words of the ask it names."""
    words = counted_words(ask, lang)
    if not words:
        return None
    want = {textkit.stem(w.lower(), lang) for w in words}
    named, counted = _counted_in(evidence, want, lang)
    if counted:
        return None
    in_header, _ = _counted_in(context, want, lang)
    if not named and (not in_header or has_number(evidence)):
        return None
    found = named | in_header
    return " ".join(w for w in words if textkit.stem(w.lower(), lang) in found)


def unnamed_count(ask: str, missing: Collection[str], lang: str = "en") -> str | None:
    """What a "how many" ask counts, when the evidence names none of it, not even by a
    paraphrase the coverage accepts (``missing``: the concepts it lacks): the evidence then
    gives no number of it ("How many children came to the first club in 1987?" over "1987
    Founded ...; one after-school club in a church hall"). None otherwise: a count of
    "stairs" given as "132 steps" is covered, and :func:`uncounted` weighs it."""
    words = counted_words(ask, lang)
    lacking = {textkit.stem(m.lower(), lang) for m in missing}
    if not words or any(textkit.stem(w.lower(), lang) not in lacking for w in words):
        return None  # a word of it named ("food" of "food parcels"): uncounted() weighs it
    return " ".join(words)


def said_names(question: str, names: Sequence[str]) -> list[str]:
    """The concepts a sentence for a person names: in German only the nouns when there are
    any (capitalised: "Versicherung", "Hagelschäden", not the verb "kommt"), as a person
    would say what is missing; the support object still lists every concept."""
    if detect_language(question) != "de":
        return list(names)
    nouns = [n for n in names if n[:1].isupper()]
    return nouns or list(names)


def quoted(terms: Sequence[str]) -> str:
    """'a', 'b' or 'c' with typographic quotes."""
    parts = [f"\u2018{t}\u2019" for t in terms]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def focus_concepts(focus: Focus, lang: str) -> list[Concept]:
    """The focus's words as concepts of equal weight; a "how heavy" focus also matches the
    attribute's nouns ("weight")."""
    alt = frozenset(textkit.stem(a, lang) for a in focus.alternatives)
    return [
        Concept(w, "term", _variants(w.lower(), lang) | (alt if i == 0 else frozenset()))
        for i, w in enumerate(focus.words)
    ]


def without_type_nouns(concepts: list[Concept], question: str, lang: str) -> list[Concept]:
    """``concepts`` (a focus's) without the nouns that name the kind of answer asked for
    ("In which year ...": "year"; "What percentage ...": "percentage", :data:`TYPE_NOUN`):
    evidence that holds that kind of answer ("In 1965 ...") holds what they ask for, though
    it never says the noun. Only for evidence where the answer type was found."""
    named = {
        textkit.stem(w, lang)
        for m in TYPE_NOUN.finditer(question)
        for w in textkit.words(m.group())[1:]
    }
    if not named:
        return concepts
    return [c for c in concepts if textkit.stem(c.text.lower(), lang) not in named]


def claim_support(
    claims: Sequence[tuple[str, str]], question: str, lang: str
) -> tuple[list[str], float, bool]:
    """(the words the generated sentences say that their quotes and the question lack, their
    share of the sentences' content words, whether a quote negates what its sentence states)."""
    novel: list[str] = []
    total = 0
    flipped = False
    for sentence, quote in claims:
        own = textkit.content_words(_MARKERS.sub(" ", sentence), lang, extra=STOPS_EXTRA)
        total += len(own)
        novel += [w for w in unsupported_words(sentence, quote, question, lang) if w not in novel]
        flipped = flipped or reverses_polarity(sentence, quote)
    return novel, (min(1.0, len(novel) / total) if total else 0.0), flipped


# --- the combination -------------------------------------------------------------------------
def calibrated_similarity(sim: float | None) -> float | None:
    """Question-to-evidence cosine mapped to 0..1 (see ``SIM_LOW``/``SIM_HIGH``)."""
    if sim is None:
        return None
    return min(1.0, max(0.0, (sim - SIM_LOW) / (SIM_HIGH - SIM_LOW)))


def assess(
    question: str,
    evidence: Sequence[str],
    *,
    claims: Sequence[tuple[str, str]] = (),
    similarity: float | None = None,
    concepts: Sequence[Concept] | None = None,
    similar: WordSimilarity | None = None,
    similar_languages: Collection[str] | None = None,
    context: Sequence[str] = (),
    absent: Collection[str] = (),
    passages: str = "cited passages",
) -> SupportCheck:
    """One support score for ``evidence`` (the cited quotes) as an answer.

    ``claims`` pairs each answer sentence with the quote it cites (empty for extractive
    answers, whose sentences are the quotes); ``similarity`` is the best cosine of the
    question to the evidence; ``similar`` and ``similar_languages`` as in :func:`coverage`;
    ``concepts`` may come from :func:`key_concepts` with the
    library's counts; ``context`` (the cited sections' titles) counts for the concepts
    but not as something the answer says; ``absent`` names the concepts that occur nowhere
    in the library (:func:`absent_concepts`): a reason then says so, which tells a person
    more than that the cited passages lack them; ``passages`` is what the reasons call the
    evidence ("closest passages" for a refusal's).
    """
    lang = detect_language(" ".join([question, *evidence]))
    ev = Evidence.of([*evidence, *context], lang)
    concepts = list(concepts) if concepts is not None else asked_concepts(question, lang=lang)
    focus = question_focus(question, lang)
    f_concepts = focus_concepts(focus, lang)
    if similar_languages is None or ev.lang in similar_languages:
        similar = one_lookup(similar, [*concepts, *f_concepts], ev, similar_languages)
    cov, covered, missing = coverage(
        concepts, ev, similar=similar, similar_languages=similar_languages
    )
    only_told = {c.text for c in concepts if c.told}
    missing.sort(key=lambda m: m in only_told)  # what was asked first: a reason names those
    kind = answer_type(question)
    found = type_present(kind, without_years_of(question, ev.text))
    sim = calibrated_similarity(similarity)
    contras = [why for s, q in claims if (why := contradiction(s, q, question))]
    reasons: list[str] = [f"Contradiction: {why}." for why in contras[:2]]
    unanswered = unanswered_asks(question, concepts, missing)
    parts = asks(question)
    quotes, titles = "\n".join(evidence), "\n".join(context)
    counts = {p: n for p in parts if (n := uncounted(p, quotes, lang, titles))}
    counts |= {p: n for p in parts if p not in counts and (n := unnamed_count(p, missing, lang))}
    none_answered = len(parts) > 1 and all(p in unanswered or p in counts for p in parts)
    no_type = f"The question asks for {TYPE_WORDS[kind]}, and the {passages} have none."
    # the more telling reasons first: the first is the one a status line shows
    nowhere = [m for m in missing if m in absent]
    said = said_names(question, nowhere) if nowhere else []
    rest = [m for m in missing if m not in nowhere]
    lacking = ", ".join(f"\u2018{m}\u2019" for m in rest[:3])
    if said:  # the library, not just the cited passages, lacks it: say so first
        also = f"; the {passages} don't mention {lacking}" if rest else ""
        reasons.append(f"No passage in your library mentions {quoted(said)}{also}.")
    if unanswered:
        reasons.append(f"The {passages} don't answer \u2018{unanswered[0]}?\u2019")
    reasons.extend(f"The {passages} don't say how many \u2018{n}\u2019." for n in counts.values())
    if not found and kind in GREEN_ONLY_TYPES:  # a how-to question answered with no way
        reasons.append(no_type)
    if rest and not said:
        reasons.append(f"The {passages} don't mention {lacking}.")
    if not found and kind not in GREEN_ONLY_TYPES:
        reasons.append(no_type)
    # the answer restates the question when its sentences do, or when every quote does: a
    # sentence's words of its own ("the `%` character") are then not in the evidence either
    restated = bool(evidence) and all(restates(q, question, lang) for q in evidence)
    if claims and all(restates(s, question, lang) for s, _ in claims):
        restated = True
    if restated:
        reasons.append("The answer only restates the question.")
    score = W_COVERAGE * cov + W_TYPE * (1.0 if found or kind in GREEN_ONLY_TYPES else 0.0)
    score += W_SIMILARITY * (sim if sim is not None else cov)
    if restated:
        score *= RESTATED_FACTOR
    if contras:
        score = min(score, 0.2)
    if sim is not None and sim < 0.2:
        reasons.append(f"The {passages} are about something other than the question.")
    if found and kind not in ("other", "yes/no"):
        f_concepts = without_type_nouns(f_concepts, question, lang)
    f_cov, _f_covered, f_missing = (
        coverage(f_concepts, ev, similar=similar, similar_languages=similar_languages)
        if f_concepts
        else (None, [], [])
    )
    named = {m.lower() for m in missing}
    unnamed = [w for w in f_missing if w.lower() not in named]  # not said above already
    if unnamed:
        reasons.append(f"The {passages} don't say anything about {quoted(unnamed)}.")
    novel, novel_share, flipped = claim_support(claims, question, lang)
    if flipped:
        reasons.append("A cited passage negates what the answer states.")
    if novel:
        reasons.append(f"The answer says {quoted(novel[:3])}, which its quotes don't.")
    asked_only = [c for c in concepts if not c.told] or concepts
    plain = sum(c.text in covered for c in asked_only) / len(asked_only) if asked_only else 1.0
    return SupportCheck(
        score=round(score, 3),
        covered=covered,
        missing=missing,
        answer_type=kind,
        type_found=found,
        similarity=None if similarity is None else round(float(similarity), 3),
        restated=restated,
        contradictions=contras,
        reasons=reasons,
        coverage=round(cov, 3),
        key_missing=key_missing(concepts, missing),
        unanswered=unanswered,
        uncounted=list(counts.values()),
        none_answered=none_answered,
        absent=nowhere,
        focus=list(focus.words),
        focus_coverage=None if f_cov is None else round(f_cov, 3),
        focus_missing=f_missing,
        plain_coverage=round(plain, 3),
        unsupported=novel,
        unsupported_share=round(novel_share, 3),
        reversed_polarity=flipped,
    )
