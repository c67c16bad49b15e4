"""The verdict on an answer: GREEN only when the question is answered, helpful refusals otherwise.

The validator proves the quotes; :mod:`app.validation.support` judges whether the cited
evidence answers the question. This module joins them into what a person sees:

* GREEN, "Answered from your documents": the evidence covers the question and every
  claim is cited and verified;
* YELLOW: the quotes are real but the evidence covers the question only in part, and
  the status says what is missing ("the cited passages don't mention 'dividend'");
* a refusal that says why in words and lists the closest passages, so the person can
  check for themselves.

It also holds the check that runs before generation: a key concept that occurs nowhere
in the library ends the question at once. Qt-free and synchronous like every service.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.core import textkit
from app.core.asking import asking_part
from app.core.focus import question_focus
from app.core.lexicon import PAIRS, translations
from app.core.models import Answer, Chunk, Citation, Source, Support
from app.core.text import collapse_ws
from app.core.textkit import detect_language, inflected_forms, other_language, restates
from app.generation.prompt import PromptBundle, sentence_units
from app.services.answers import FAR_TEXT, REFUSAL_TEXT, refusal
from app.validation.answer_checks import (
    TYPE_WORDS,
    AnswerType,
    answer_type,
    asked_years,
    contradiction,
    cut_off,
    prints_year,
    repeats_itself,
    reverses_polarity,
    type_present,
    unsupported_words,
)
from app.validation.closest import closest_passages as passages_near
from app.validation.status_model import StatusModel, features, shipped
from app.validation.support import (
    Concept,
    Evidence,
    SupportCheck,
    WordSimilarity,
    absent_concepts,
    asked_concepts,
    assess,
    coverage,
    quoted,
    said_names,
    telling_absence,
)

logger = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
"""Texts -> L2-normalised vectors (the library's embedder)."""

GREEN_WORDS = "Answered from your documents."
ABSENT_MAX_RELEVANCE = 0.5
"""A concept absent from the library refuses at once only when no retrieved sentence is this
close to the question (cosine; word coverage without an embedder): on the development sets,
answerable questions used words their documents lack ("bare minimum", "pile up", "rentals")
with the evidence at 0.52-0.74."""
ABSENT_MIN_SHARE = 0.5
"""In a language the word vectors do not know, the question-to-passage cosine says little
(the English MiniLM puts German questions 0.36-0.72 from passages whatever they are: 0.72 for a
question on hail insurance against a solar guide, by the word pieces of "Photovoltaikmodulen"),
so there absent concepts refuse at once, whatever the cosine, when they weigh at least this
share of what is asked."""
NOT_ANSWERED = "The documents don't answer this"
"""The lead of a refusal whose reason is about the library or the closest passages."""
UNVERIFIED = "No answer could be verified"
"""The lead of a refusal of the model's answer: its citations did not hold up, which says
what the model wrote, not that the documents cannot answer (on the development and held-out
sets, most answerable questions refused this way had their evidence among the closest
passages shown under the refusal)."""


class CachedEmbed:
    """The library's embedder with single words remembered.

    The support check compares a question's concepts with every word of the retrieved
    passages (paraphrases: "staff" for "employees"); embedding those few hundred words took
    0.25-0.85 s a question, before the first token. The words of one library recur from
    question to question, so they are embedded once and kept (``max_words``, least recently
    used first out; 384 floats each, ~1.7 kB with their keys: 50,000 words take ~85 MB).
    Longer texts pass straight through.

    Why 50,000: the real corpus's 42 PDFs hold 32,910 distinct words, 25,298 of them ones a
    concept is compared with; warmed with the commonest 20,000 (16,963 compared ones), the
    concepts step of 612 questions took p95 46 ms (60 over 30 ms), warmed with all of them
    p95 16.5 ms (12 over 30 ms), the warm-up 18.7 s instead of 14.1 s in the background
    (``python -m tests.bench.bench_concepts_cache``, 2026-11-27, idle): the slow questions
    were those whose passages bring the rare words a smaller cache leaves out.
    """

    def __init__(self, embed: Embed, max_words: int = 50_000) -> None:
        self._embed = embed
        self.max_words = max_words
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def keeps(text: str) -> bool:
        """Whether ``text`` is a single word, whose vector is remembered."""
        return len(text) <= 40 and " " not in text

    def unknown(self, words: Iterable[str]) -> list[str]:
        """Those of ``words`` that would be remembered and are not yet, in order (a text
        that is never remembered is never listed: embedding it would change nothing)."""
        with self._lock:
            return [w for w in dict.fromkeys(words) if self.keeps(w) and w not in self._vectors]

    def __call__(self, texts: list[str]) -> np.ndarray:
        words = {t for t in texts if self.keeps(t)}
        with self._lock:  # one question at a time: the embedder runs under the lock too
            todo = [t for t in dict.fromkeys(texts) if t not in words or t not in self._vectors]
            fresh = dict(zip(todo, self._embed(todo), strict=True)) if todo else {}
            out = []
            for t in texts:
                v = fresh[t] if t in fresh else self._vectors[t]
                if t in words:
                    self._vectors[t] = v
                    self._vectors.move_to_end(t)
                out.append(v)
            while len(self._vectors) > self.max_words:
                self._vectors.popitem(last=False)
        return np.stack(out) if out else np.zeros((0, 0), dtype=np.float32)


def word_similarity(embed: Embed | None, also: Sequence[str] = ()) -> WordSimilarity | None:
    """Word-to-word cosine similarities with the embedder, for paraphrased concepts.

    ``also``: words embedded in the same call though not compared, for a :class:`CachedEmbed`
    to remember: a call costs ~8 ms however few its words, so the question's words the
    answer's check will compare later ride along with the concepts step's call."""
    if embed is None:
        return None

    def similar(terms: Sequence[str], words: Sequence[str]) -> list[list[float]]:
        vecs = embed([*terms, *words, *also])
        return (vecs[: len(terms)] @ vecs[len(terms) : len(terms) + len(words)].T).tolist()

    return similar


def closest_passages(question: str, pairs: Sequence[tuple[Source, Chunk]]) -> list[Citation]:
    """A refusal's closest passages: the sentences sharing most words with the question,
    shown without the headings and titles that run into them."""
    return passages_near(question, pairs, trim=_prompt_sentences)


def _prompt_sentences(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` from the first to the last sentence a prompt would offer in it
    (:func:`sentence_units`: headings and page titles left out); as it is without one.
    A passage as the prompt cut it also has its vector remembered from the prompt."""
    inside = [(s, e) for s, e in sentence_units(text) if start <= s < end and start < e <= end]
    if not inside:
        return start, end
    return min(s for s, _ in inside), max(e for _, e in inside)


@dataclass
class Concepts:
    """The question's key concepts with their library counts, found once per question."""

    items: list[Concept]
    absent: list[Concept] = field(default_factory=list)
    ms: float = 0.0
    lang: str = "en"  # the question's language
    telling: list[Concept] = field(default_factory=list)
    """The absent concepts that say the library cannot answer the question before anything
    is generated (:func:`telling_absence`: in German, nouns, not verbs)."""
    years: list[Concept] = field(default_factory=list)
    """Years the question asks about ("in 2028", "im Jahr 2023") that the library never
    prints (:func:`missing_years`): they refuse whatever else is close."""

    def refusing(
        self, relevance: float, languages: Collection[str] | None, *, elsewhere: bool = False
    ) -> list[Concept]:
        """The absent concepts that refuse the question before generation, none to go on.

        ``elsewhere``: the passages nearest the question are in another language or script
        (:func:`~app.core.textkit.other_language`). A word absent from the library then may
        be there translated or transliterated ("Samsung" as 삼성), so no word refuses;
        the status model weighs the answer instead. A year is written the same in any.

        They refuse when no retrieved sentence is close (``relevance``, the best cosine, below
        ABSENT_MAX_RELEVANCE); in a language the word vectors do not know (``languages``,
        see :func:`~app.core.textkit.word_languages`) also when they weigh ABSENT_MIN_SHARE of what is asked,
        since the cosine there is no sign that a passage is near. A year asked that the
        library never prints refuses whatever the cosine: a passage on the same topic for
        another year is close, and answers another question."""
        if self.years:
            return [*self.years, *([] if elsewhere else self.telling)]
        if elsewhere:
            return []
        if not self.telling or relevance < ABSENT_MAX_RELEVANCE:
            return self.telling
        if languages is None or self.lang in languages:
            return []
        asked = sum(c.counted for c in self.items if not c.told)
        lacking = sum(c.counted for c in self.telling)
        return self.telling if asked and lacking >= ABSENT_MIN_SHARE * asked else []


TermCounts = Callable[[Iterable[str]], tuple[dict[str, int], int]]
"""Words -> (chunks containing each word, chunks in the library): the full-text index."""


def question_concepts(
    question: str,
    counts: TermCounts,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    embed: Embed | None = None,
    languages: Collection[str] | None = None,
) -> Concepts:
    """Key concepts weighted by rarity in the library, and those the library lacks.

    A concept counts as absent only when the full-text index finds no chunk with it,
    no retrieved passage has it in any variant (compounds, hyphenation), and no word of
    the retrieved passages is its embedding neighbour (a paraphrase the index cannot see;
    ``languages``: those whose words ``embed`` knows, see :func:`~app.core.textkit.word_languages`).
    """
    t0 = time.perf_counter()
    plain = asked_concepts(question)  # the asker's talk ("any idea") is no concept
    words = {k for c in plain for k in (*c.keys, *c.parts)}
    words |= {c.text.lower().lstrip("\\") for c in plain}
    years = asked_years(asking_part(question))
    words |= {f for y in years for f in year_words(y)}  # counted in the same lookup
    df, n_chunks = counts(words)
    lang = detect_language(question)
    df = _with_inflected_forms(df, plain, lang, counts)
    df = _with_translations(df, plain, lang, counts)
    concepts = asked_concepts(question, df=df, n_chunks=n_chunks)
    # a word only the situation told ('my knees', 'a neighbour gave us a bag') is no
    # concept the library must have: only the asking sentences' concepts can be absent
    absent = [c for c in absent_concepts(concepts, df) if not c.told]
    if absent and pairs:
        ev = Evidence.of([c.text for _, c in pairs])
        later = [c.text.lstrip("\\") for c in concepts]  # what the answer's check compares
        later += list(question_focus(question, lang).words)
        _cov, _covered, missing = coverage(
            absent, ev, similar=word_similarity(embed, also=later), similar_languages=languages
        )
        absent = [c for c in absent if c.text in missing]
    telling = [c for c in absent if telling_absence(c, question, lang)]
    unprinted = missing_years(years, concepts, df, pairs)
    absent += [y for y in unprinted if y not in absent]  # as absent as any word the library lacks
    ms = (time.perf_counter() - t0) * 1000
    return Concepts(concepts, absent, ms, lang, telling, unprinted)


def year_words(year: str) -> tuple[str, ...]:
    """The words a library may hold ``year`` as: itself, or a financial year ("FY2028",
    "FY28")."""
    return (year, f"fy{year}", f"fy{year[2:]}")


def missing_years(
    years: Sequence[str],
    concepts: Sequence[Concept],
    df: Mapping[str, int],
    pairs: Sequence[tuple[Source, Chunk]],
) -> list[Concept]:
    """Of the ``years`` the asking part of a question asks about (:func:`asked_years`: "in
    2028"), those that no chunk of the library holds as any of its :func:`year_words` (``df``,
    the library's counts), nor any retrieved passage in any printed form (:func:`prints_year`:
    "2027/28", "2026–2030", "the 2020s"). A question for the hall's hourly rate in 2028 over a
    price list for 2026 is close to its passages in every word but one, and that one is what
    it asks."""
    numbers = {c.text: c for c in concepts if c.kind == "number" and not c.told}
    texts = [c.text for _, c in pairs]
    return [
        numbers[y]
        for y in years
        if y in numbers
        and not any(df.get(w, 0) for w in year_words(y))
        and not any(prints_year(y, t) for t in texts)
    ]


def _with_inflected_forms(
    df: dict[str, int], concepts: Sequence[Concept], lang: str, counts: TermCounts
) -> dict[str, int]:
    """``df`` with a word no chunk has counted by its longer forms (:func:`inflected_forms`):
    the keyword index stems as English does, so "Bild" counts no chunk of a German library
    that only has "Bilder", and would be called absent. One more lookup, only for words
    counted 0 in a language that inflects by endings."""
    unseen = {
        c.text.lower(): forms
        for c in concepts
        if c.kind in ("term", "name")
        and all(df.get(k, 0) == 0 for k in {c.text.lower(), *c.keys})
        and (forms := inflected_forms(c.text, lang))
    }
    if not unseen:
        return df
    found, _ = counts([f for forms in unseen.values() for f in forms])
    out = dict(df)
    for word, forms in unseen.items():
        out[word] = max(found.get(f, 0) for f in forms)
    return out


def _with_translations(
    df: dict[str, int], concepts: Sequence[Concept], lang: str, counts: TermCounts
) -> dict[str, int]:
    """``df`` with a word no chunk has counted by its translations (``app.core.lexicon``):
    a concept a library holds in another language is not absent from it ("topology" over
    German notes that say "Topologie"). A translation counts when every content word of it
    occurs; the concept counts as its best translation does. One more lookup, only for
    words counted 0 in a language a word list is shipped from; a name no list has ("Samsung",
    which a Korean leaflet writes 삼성) stays absent, and the check's ``elsewhere`` gate
    (:meth:`Concepts.refusing`) keeps it from refusing when the nearest passages are in
    another script."""
    targets = PAIRS.get(lang, ())
    unseen: dict[str, list[list[str]]] = {}
    for c in absent_concepts(concepts, df) if targets else []:
        if c.kind not in ("term", "name"):
            continue
        phrases = [
            content
            for t in targets
            for phrase in translations(c.text, lang, t)
            if (content := [w for w in textkit.words(phrase) if w not in textkit.stop_words(t)])
        ]
        if phrases:
            unseen[c.text.lower()] = phrases
    if not unseen:
        return df
    found, _ = counts({w for phrases in unseen.values() for p in phrases for w in p})
    out = dict(df)
    for word, phrases in unseen.items():
        out[word] = max(min(found.get(w, 0) for w in p) for p in phrases)
    return out


PRE_CHECKED_TYPES: frozenset[AnswerType] = frozenset({"price"})
"""Kinds of answer rare enough in text that none in any retrieved passage says the library
does not answer: a question for a price ("What fare did the operator charge?") over
passages that state no sum of money anywhere. A number, a year or a name is in nearly every
passage, so only the cited evidence is checked for those, after generation."""


def kind_missing(question: str, pairs: Sequence[tuple[Source, Chunk]]) -> AnswerType | None:
    """The kind of answer ``question`` asks for when it is one of PRE_CHECKED_TYPES and no
    retrieved passage holds one (the question then ends before generation), else None."""
    kind = answer_type(question)
    if kind not in PRE_CHECKED_TYPES or not pairs:
        return None
    if any(type_present(kind, chunk.text) for _, chunk in pairs):
        return None
    return kind


def kind_refusal(
    question: str, kind: AnswerType, concepts: Concepts, pairs: Sequence[tuple[Source, Chunk]]
) -> Answer:
    """Refuse before generation: the question asks for a kind of answer (a price) that no
    passage close to it gives. A concept of it absent from the library is named too."""
    why = f"the question asks for {TYPE_WORDS[kind]}, and none of the closest passages gives one"
    reasons = [f"{why[0].upper()}{why[1:]}."]
    if concepts.absent:
        said = quoted(said_names(question, [c.text for c in concepts.absent]))
        reasons.append(f"No passage in your library mentions {said}.")
    return _refused_at_once(question, f"{NOT_ANSWERED}: {why}.", reasons, concepts, pairs, kind)


def absent_refusal(
    question: str, concepts: Concepts, pairs: Sequence[tuple[Source, Chunk]]
) -> Answer:
    """Refuse before generation: a key concept (or a year asked) occurs nowhere in the
    library."""
    named = [*concepts.years, *concepts.telling] or concepts.absent
    telling = list(dict.fromkeys(c.text for c in named))
    text = f"No passage in your library mentions {quoted(said_names(question, telling))}."
    return _refused_at_once(question, text, [text], concepts, pairs)


def _refused_at_once(
    question: str,
    text: str,
    reasons: list[str],
    concepts: Concepts,
    pairs: Sequence[tuple[Source, Chunk]],
    kind: AnswerType = "other",
) -> Answer:
    """A refusal before generation: ``text`` as its answer, the question's concepts (those
    absent from the library as missing), ``reasons`` and the closest passages."""
    names = [c.text for c in concepts.absent]
    support = Support(
        score=0.0,
        covered=[c.text for c in concepts.items if c not in concepts.absent],
        missing=names,
        absent=names,
        answer_type=kind,
        reasons=reasons,
        closest=closest_passages(question, pairs),
    )
    return refusal(question, text, [s for s, _ in pairs], support=support)


def _similarity(
    question: str, quotes: Sequence[str], known: dict[str, float], embed: Embed | None
) -> float | None:
    """Best cosine of the question to a quote: from the prompt's selection when it was
    computed there (``known``, by whitespace-collapsed text: a quote spanning lines keeps
    the document's line breaks), else from the embedder; None without either.

    The embedder is asked for the collapsed text too: its vector is the same (the tokenizer
    reads a line break as a space), and the prompt's selection embedded its candidate
    sentences in that form, so a refusal's closest passages are mostly remembered already
    (44 ms a refusal otherwise, on the e-bike manual)."""
    collapsed = [collapse_ws(q) for q in quotes]
    sims = [known[k] for k in collapsed if k in known]
    if sims:
        return max(sims)
    if embed is None or not quotes:
        return None
    vecs = embed([question, *collapsed])
    return float(np.max(vecs[1:] @ vecs[0]))


def check(
    question: str,
    answer: Answer,
    pairs: Sequence[tuple[Source, Chunk]] = (),
    *,
    concepts: Concepts | None,
    known_similarity: dict[str, float] | None = None,
    embed: Embed | None = None,
    languages: Collection[str] | None = None,
    quote_context: Mapping[str, Sequence[str]] | None = None,
) -> SupportCheck:
    """The support check of a finished answer's citations against the question; for a
    refusal, of the closest passages in ``pairs`` (so it can say what they lack).

    ``quote_context`` maps a quote that is a table row to its table's caption and header:
    "FLD30 301-310 Amount of the broadband allowance" holds "positions" only under
    "Field Positions Content". Like section titles, context counts for the concepts and
    is never taken for what the answer says."""
    cited = answer.citations
    if is_refusal(answer):
        cited = closest_passages(question, pairs)
    quotes = [c.quote for c in cited]
    known = {collapse_ws(k): v for k, v in (known_similarity or {}).items()}
    result = check_quotes(
        question,
        quotes,
        [c.section for c in cited],
        claims=[(answer.answer, " ".join(quotes))] if answer.kind == "generated" else [],
        similarity=_similarity(question, quotes, known, embed),
        concepts=concepts,
        embed=embed,
        languages=languages,
        quote_context=quote_context,
        passages="closest passages" if is_refusal(answer) else "cited passages",
    )
    if is_refusal(answer):
        result.closest = cited  # shown under the refusal as they were checked
    return result


def check_quotes(
    question: str,
    quotes: Sequence[str],
    sections: Sequence[str],
    *,
    claims: Sequence[tuple[str, str]] = (),
    similarity: float | None,
    concepts: Concepts | None,
    embed: Embed | None = None,
    languages: Collection[str] | None = None,
    quote_context: Mapping[str, Sequence[str]] | None = None,
    passages: str = "cited passages",
) -> SupportCheck:
    """The support check of ``quotes`` (with their ``sections``' paths, one per quote, and
    each table row's ``quote_context``) as the answer to ``question``; ``claims`` as in
    :func:`assess`."""
    titles = sorted({section_title(s) for s in sections} - {""})
    rows = {collapse_ws(k): v for k, v in (quote_context or {}).items()}
    titles += list(dict.fromkeys(x for q in quotes for x in rows.get(collapse_ws(q), ())))
    return assess(
        question,
        [without_numbering(q, s) for q, s in zip(quotes, sections, strict=True)],
        context=titles,
        claims=claims,
        similarity=similarity,
        concepts=None if concepts is None else concepts.items,
        similar=word_similarity(embed),
        similar_languages=languages,
        absent=() if concepts is None else [c.text for c in concepts.absent],
        passages=passages,
    )


def before_generation(
    question: str,
    bundle: PromptBundle,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    concepts: Concepts,
    embed: Embed | None = None,
    languages: Collection[str] | None = None,
) -> SupportCheck | None:
    """The support check of the evidence the ranker picked for the prompt, before any
    generation (None without ranked evidence): a question whose best sentence is only
    loosely similar goes on when this check finds nothing lacking ("How heavy is the
    bike?" against "Weight of the bike: 23.4 kg" at cosine 0.36)."""
    if not bundle.spec.evidence:
        return None
    shown = [x for xs in bundle.source_sentences.values() for x in xs]
    by_n = {s.n: s for s, _ in pairs}
    picked = bundle.spec.evidence
    return check_quotes(
        question,
        [text for _, text in picked],
        [by_n[n].section if n in by_n else "" for n, _ in picked],
        similarity=bundle.relevance,
        concepts=concepts,
        embed=embed,
        languages=languages,
        quote_context={x.text: x.context for x in shown if x.context},
        passages="closest passages",
    )


UNREASONED = {
    REFUSAL_TEXT: "The model found no answer in the closest passages.",
    FAR_TEXT: f"{NOT_ANSWERED}: no passage is close enough to the question to answer it.",
}
"""The refusals made before the support check has looked at the closest passages, and what
they say when the check finds no more telling reason. The model's own refusal claims no more
than it knows: a small model declines questions its passages do answer."""


def refusal_text(result: SupportCheck, otherwise: str) -> str:
    """A refusal that says why in words: the support check's first reason about the closest
    passages ("the closest passages don't mention ‘dividend’"), else ``otherwise``."""
    if not result.reasons:
        return otherwise
    return _led(NOT_ANSWERED, result.reasons[0])


def _led(lead: str, why: str) -> str:
    return f"{lead}: {why[0].lower()}{why[1:]}"


_CITED = re.compile(r"\b([Tt])he cited passages\b")


def of_rejected(reason: str) -> str:
    """A reason about a refused answer's citations, which the refusal no longer shows:
    "The cited passages don't mention ‘yield’" -> "The passages the model cited don't ..."."""
    return _CITED.sub(lambda m: f"{m.group(1)}he passages the model cited", reason)


_NUMBERING = re.compile(r"^\s*(?:\d{1,3}|[A-Z](?=\.\d))(?:\.\d{1,3})*\.?(?:\s+|$)")
"""A section's numbering: "2.7 ", "A.1 ", "3. " (not a year: "2025 report" keeps it)."""


def section_title(path: str) -> str:
    """The innermost section's title without its numbering ("2 A > 2.7 General style" ->
    "General style"): a section number answers no "how many" question."""
    return _NUMBERING.sub("", path.rsplit(">", 1)[-1]).strip()


def without_numbering(quote: str, section: str) -> str:
    """``quote`` with the numbering taken off its lines that are its section's headings
    ("5 Troubleshooting\nError code E42 ..." -> "Troubleshooting\nError code E42 ..."), as
    :func:`section_title` does for the titles: a chunk begins with its heading, and "5"
    there is no amount that answers "How long is the sensor cable?"."""
    heads = {collapse_ws(h) for h in section.split(">")} - {""}
    if not heads:
        return quote
    lines = quote.split("\n")
    return "\n".join(_NUMBERING.sub("", x) if collapse_ws(x) in heads else x for x in lines)


def is_refusal(answer: Answer) -> bool:
    return answer.kind == "refusal" or answer.mode == "refuse"


def adds_nothing(question: str, sentence: str, quotes: Sequence[str]) -> str | None:
    """Why the model's sentence should give way to its evidence (shown extractively), or
    None to keep it: it only restates the question, is cut off (:func:`cut_off`: a bracket
    left open), contradicts its own quotes, says what they do not
    (:func:`unsupported_words`: "a type of cancer that develops in breast tissue" over "This
    is not cancer"), states what they negate, or only loops over their words. Only the
    sentence gives way: its quotes are verified, and the status model judges them as the
    answer."""
    if restates(sentence, question):
        return "only restates the question"
    if cut_off(sentence):
        return "is cut off (a bracket or quotation left open)"
    joined = " ".join(quotes)
    why = contradiction(sentence, joined, question)
    if why:
        return f"contradicts its quote ({why})"
    lang = detect_language(joined)
    novel = unsupported_words(sentence, joined, question, lang)
    if novel:
        return f"says {quoted(novel[:3])}, which its quotes don't"
    if reverses_polarity(sentence, joined):
        return "states what its quote negates"
    if repeats_itself(sentence, joined, lang):
        return "repeats itself where its quote does not"
    return None


def cited_sources(
    citations: Sequence[Citation], pairs: Sequence[tuple[Source, Chunk]]
) -> list[Source]:
    """The retrieved passages ``citations`` cite, in the citations' order."""
    by_chunk = {s.chunk_id: s for s, _ in pairs}
    return [by_chunk[c.chunk_id] for c in citations if c.chunk_id in by_chunk]


def cited_retrieval(
    citations: Sequence[Citation], pairs: Sequence[tuple[Source, Chunk]]
) -> tuple[list[int], list[float]]:
    """The retrieval ranks (1-based) and fused scores of the passages ``citations`` cite,
    each score over the best retrieved passage's: the fused score's scale depends on how
    many lists a question's search had (a translation adds one in a library of two
    languages), its share of the best does not."""
    hits = cited_sources(citations, pairs)
    best = max((float(s.score) for s, _ in pairs), default=0.0)
    return [h.rank for h in hits], [float(h.score) / best if best > 0 else 0.0 for h in hits]


def list_ranks(
    citations: Sequence[Citation], pairs: Sequence[tuple[Source, Chunk]]
) -> tuple[tuple[int, int], tuple[int, int]]:
    """(keyword rank, vector rank) before fusion of the best-ranked passage ``citations``
    cite, and of the top retrieved passage (``SearchHit.keyword_rank``, ``vector_rank``;
    0 where none)."""
    best = min(cited_sources(citations, pairs), key=lambda s: s.rank, default=None)
    top = min((s for s, _ in pairs), key=lambda s: s.rank, default=None)
    return (
        (best.keyword_rank, best.vector_rank) if best else (0, 0),
        (top.keyword_rank, top.vector_rank) if top else (0, 0),
    )


def answer_features(
    answer: Answer,
    result: SupportCheck,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    judgement: float | None = None,
    relevance: float | None = None,
) -> dict[str, float]:
    """The status model's row for a finished (not refused) answer (``status_model.features``)."""
    ranks, scores = cited_retrieval(answer.citations, pairs)
    cited_lists, top_lists = list_ranks(answer.citations, pairs)
    return features(
        result,
        generated=answer.kind == "generated",
        verified=answer.validation.status == "GREEN",
        cited_ranks=ranks,
        cited_scores=scores,
        cited_list_ranks=cited_lists,
        top_list_ranks=top_lists,
        relevance=relevance,
        n_citations=len(answer.citations),
        other_language=other_language(answer.question, [c.quote for c in answer.citations]),
        judgement=judgement,
    )


def judgement_matters(
    answer: Answer,
    result: SupportCheck,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    relevance: float | None = None,
    model: StatusModel | None = None,
) -> bool:
    """Whether asking the chat model for its judgement could change this answer's status
    (:meth:`StatusModel.needs_judgement`); never for a refusal or an answer without
    citations, whose status does not come from the model."""
    if is_refusal(answer) or not answer.citations:
        return False
    x = answer_features(answer, result, pairs, relevance=relevance)
    return (model or shipped()).needs_judgement(x, answer.validation.status == "GREEN")


def apply(
    answer: Answer,
    result: SupportCheck,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    judgement: float | None = None,
    relevance: float | None = None,
    model: StatusModel | None = None,
) -> Answer:
    """The answer with its verdict: GREEN, YELLOW with what is missing, or a refusal.

    The status comes from the calibrated status model (:mod:`app.validation.status_model`,
    ``model``: the shipped one by default) over the support check's signals, the cited
    passages' retrieval ranks and scores, the prompt's ``relevance`` and the chat model's
    ``judgement``. GREEN needs every quote verified as well; the reasons shown are the
    support check's, the most telling first."""
    model = model or shipped()
    support = Support(
        score=result.score,
        covered=result.covered,
        missing=result.missing,
        answer_type=result.answer_type,
        similarity=result.similarity,
        reasons=result.reasons,
        absent=result.absent,
    )
    v = answer.validation
    if is_refusal(answer):
        closest = result.closest
        support.closest = closest_passages(answer.question, pairs) if closest is None else closest
        if answer.answer in UNREASONED:  # say why in words
            answer.answer = refusal_text(result, UNREASONED[answer.answer])
        answer.validation = v.model_copy(update={"support": support})
        return answer
    x = answer_features(answer, result, pairs, judgement=judgement, relevance=relevance)
    p = model.probability(x) if answer.citations else 0.0
    support.features = x
    support.probability = round(p, 4)
    decided = model.status(p, v.status == "GREEN", x)
    reasons = model.weakest(x, result.reasons)
    if not answer.citations or decided == "REFUSE":
        support.reasons = [of_rejected(r) for r in reasons]
        why = support.reasons[0] if support.reasons else "its citations don't answer the question."
        text = _led(UNVERIFIED, why)
        support.closest = closest_passages(answer.question, pairs)
        support.judged = list(answer.citations)
        refused = refusal(answer.question, text, answer.sources, support=support)
        refused.model = answer.model
        refused.validation.dropped = v.dropped
        refused.validation.repaired = v.repaired
        logger.info("verdict: refusal (p %.2f: %s)", p, why)
        return refused
    flags = list(v.flags)
    if decided == "GREEN":
        support.reasons = []  # nothing lacking is claimed beside a GREEN
        status = "GREEN"
    else:
        support.reasons = reasons
        status = "YELLOW" if v.status == "GREEN" else v.status
        flags.extend(r for r in reasons if r not in flags)
        if model.withheld and v.status == "GREEN":
            flags.append(model.withheld)  # why no answer over this library is GREEN
        elif not reasons and v.status == "GREEN":
            flags.append("The cited passages answer the question only in part.")
    answer.validation = v.model_copy(update={"status": status, "flags": flags, "support": support})
    logger.info("verdict: %s (p %.2f)", status, p)
    return answer
