"""The prompt: a compact, numbered view of the retrieved sources plus the grammar that binds to it.

Prefill runs at only ~200 tokens/s on a small CPU, so pasting eight whole chunks
(~1,500 tokens) would cost ~7 s before the first token. Instead we show, for the top
sources, only the sentences that share words with the question (plus a neighbour for
context) within a budget of a few hundred tokens. Source numbers stay those of the
retrieval ranking, so ``[3]`` always means the third retrieved chunk, whether or not
sources 1 and 2 were shown.

The system prompt is constant and always first, so llama.cpp can reuse its cached
prefix across questions; everything that varies (sources, question) follows it.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from app.core.models import Source
from app.core.resources import resources_dir
from app.core.text import collapse_ws, sentence_spans
from app.core.textkit import QUESTION_FILLER, content_stems, detect_language, restates
from app.generation.grammar import CITATIONS_FIRST, GrammarSpec, build_grammar

logger = logging.getLogger(__name__)

SENTENCE_MAX_CHARS = 300
TABLE_RUN = 3  # this many short lines in a row are a table or a list, not headings
RESTATES_PENALTY = 1.0
"""Score taken off a candidate that only restates the question ("using \\input to load
packages is not a good idea" for "Why is it a bad idea to load a package with \\input?"):
it is as similar to the question as a sentence gets, and answers nothing, so it comes after
every sentence that says something of its own (and is cited only when nothing else is)."""
MAX_CANDIDATES = 16  # sentences embedded per question (~0.1-0.2 s on two idle cores)
Similarity = Callable[[str, list[str]], Sequence[float]]
DEFAULT_BUDGET_CHARS = 1100  # ~275 tokens of source text (about 4 characters per token)

_FALLBACK_SYSTEM = (
    "You answer questions using only the numbered sources. Reply with JSON. "
    'If the sources answer the question, set "mode" to "answer", copy one to three '
    "sentences from the sources as citations, then write a short answer that ends "
    'with the source number in brackets, like [1]. Otherwise set "mode" to "refuse".'
)


@lru_cache(maxsize=4)
def _read_prompt(name: str) -> str:
    path = resources_dir() / "prompts" / name
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        logger.warning("prompt file %s missing; using the built-in text", path)
        return ""


def system_prompt() -> str:
    """The constant system prompt (resources/prompts/system.txt)."""
    return _read_prompt("system.txt") or _FALLBACK_SYSTEM


def terms(text: str, lang: str | None = None) -> list[str]:
    """Stems of the content words of ``text`` (stop words, question filler and 1-letter
    words removed), in ``lang`` (default: the text's own language)."""
    return content_stems(text, lang or detect_language(text), extra=QUESTION_FILLER)


def support_share(answer: str, evidence: Sequence[str]) -> float:
    """Share of the answer's content words (stems, markers ignored) found in ``evidence``.

    For the embedded model with ranked evidence a good answer restates its quote; words
    from nowhere are where it goes wrong ("... which is a standard procedure for ...").
    """
    known_text = " ".join(evidence)
    lang = detect_language(known_text)
    words = terms(re.sub(r"\[\d+\]", " ", answer), lang)
    if not words:
        return 0.0
    known = set(terms(known_text, lang))
    return sum(w in known for w in words) / len(words)


@dataclass
class ShownSentence:
    """One sentence of a source as shown to the model; ``text`` is the exact quotable string."""

    source: int
    index: int  # position among the source's sentences (0-based)
    start: int  # character span in the source chunk's text
    end: int
    text: str
    score: float = 0.0
    coverage: float = 0.0  # share of the question's (idf-weighted) terms this sentence has
    similarity: float | None = None  # cosine similarity to the question, when computed
    # For a table row: the table's first lines (caption, header), which say what its cells
    # mean. Scored with the row (words and similarity), never quoted with it.
    context: tuple[str, ...] = ()

    @property
    def scored_text(self) -> str:
        return " ".join((*self.context, self.text))


@dataclass
class ShownSource:
    source: Source
    sentences: list[ShownSentence] = field(default_factory=list)


@dataclass
class PromptBundle:
    """``build_prompt``'s result: the messages, the grammar text, the shown sentences, the spec.

    ``spec`` is what the grammar was built from, for decoders that work phase by phase.
    """

    messages: list[dict[str, str]]
    grammar: str
    source_sentences: dict[int, list[ShownSentence]]
    spec: GrammarSpec

    @property
    def relevance(self) -> float:
        """Best similarity of a shown sentence to the question (coverage if not computed)."""
        sims = [
            x.similarity
            for xs in self.source_sentences.values()
            for x in xs
            if x.similarity is not None
        ]
        return max(sims) if sims else self.coverage

    @property
    def semantic(self) -> bool:
        return any(x.similarity is not None for xs in self.source_sentences.values() for x in xs)

    @property
    def coverage(self) -> float:
        """Best share of the question's terms found in one shown sentence (0..1)."""
        return max((x.coverage for xs in self.source_sentences.values() for x in xs), default=0.0)

    def ranked_sentences(self) -> list[ShownSentence]:
        """Shown sentences that share words with the question, best first."""
        xs = [x for xs in self.source_sentences.values() for x in xs if x.score > 0]
        return sorted(xs, key=lambda x: (-x.score, x.source, x.index))


def _is_heading(line: str) -> bool:
    """A short line without closing punctuation: a title or heading, not a sentence."""
    line = line.strip()
    return len(line) < 90 and not line.endswith((".", "!", "?", ":", ";", ","))


def _split(source: Source) -> list[ShownSentence]:
    """Sentences of a source, line by line. Heading lines are left out (the header names the
    section), so a quote never starts with a glued-on heading; but a run of ``TABLE_RUN`` or
    more short lines with figures is a table, and each of its lines is a candidate, a row scored
    together with the run's first two lines (its caption and header): "Kingsmere River Lodden
    41.0 1974 33.0" answers a question about capacity only under "Capacity (Ml/d)"."""
    return _split_text(source.n, source.text)


def sentence_units(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that a prompt offers as quotable sentences (as :func:`_split`
    does): headings left out, each row of a table alone, a syntax line with the sentence
    about it. A refusal's closest passages are chosen among the same spans, so a person
    is shown a sentence rather than a page title glued to a heading and a sentence."""
    return [(x.start, x.end) for x in _split_text(0, text)]


def sentence_texts(text: str) -> list[str]:
    """The texts the answer step scores for each of :func:`sentence_units` (a table row with
    its caption and header): what is embedded per sentence at ingestion (``sentences``
    table), so the answer step looks the vectors up instead of embedding them."""
    return [x.scored_text for x in _split_text(0, text)]


def _split_text(source_n: int, text: str) -> list[ShownSentence]:
    out: list[ShownSentence] = []
    lines = text.split("\n")
    short = [bool(line.strip()) and _is_heading(line) for line in lines]
    context = _table_context(lines, short)
    offset = 0
    i = 0
    for n, line in enumerate(lines):
        if not short[n]:
            spans = sentence_spans(line, max_chars=SENTENCE_MAX_CHARS)
        elif context[n] is not None:
            spans = [(len(line) - len(line.lstrip()), len(line.rstrip()))]
        else:
            spans = []
        for s, e in spans:
            body = collapse_ws(line[s:e])
            start, end = offset + s, offset + e
            if body.endswith(":") and not line[e:].strip():
                end = _lead_in_end(text, end)
                body = collapse_ws(text[start:end])
            if s == len(line) - len(line.lstrip()) and n and _names_its_syntax(lines[n - 1], body):
                start = offset - 1 - len(lines[n - 1].lstrip())  # where the line before begins
                body = collapse_ws(text[start:end])
            if len(body) >= 2:
                out.append(ShownSentence(source_n, i, start, end, body, context=context[n] or ()))
                i += 1
        offset += len(line) + 1
    return out


_SYNTAX = re.compile(r"^\s*\\[A-Za-z@]+")
"""A line that begins with a command: a manual's syntax line ("\\DeclareOption {⟨option-name⟩}
{⟨code⟩}"), short and unpunctuated like a heading."""
_ANAPHOR = re.compile(r"^(?:This|These|It|Its|They|Such)\b")


def _names_its_syntax(before: str, sentence: str) -> bool:
    """Whether ``sentence`` ("This makes ⟨option-name⟩ a declared option") is about the
    syntax line ``before`` it, which alone names what "This" is: quoted without it, a
    how-to answer never names the command."""
    return (
        bool(_ANAPHOR.match(sentence))
        and _is_heading(before)
        and bool(_SYNTAX.match(before))
        and len(before.strip()) + len(sentence) <= SENTENCE_MAX_CHARS
    )


def _lead_in_end(text: str, end: int) -> int:
    """Where a sentence that ends with a colon ("The predefined math alphabets are:") ends
    with what it introduces: the following lines up to a blank line, within
    ``SENTENCE_MAX_CHARS`` more. Alone, such a sentence only restates the question."""
    new_end = end
    pos = end + 1  # past the newline
    while pos < len(text):
        nl = text.find("\n", pos)
        stop = len(text) if nl < 0 else nl
        line = text[pos:stop]
        if not line.strip() or stop - end > SENTENCE_MAX_CHARS:
            break
        new_end = pos + len(line.rstrip())
        pos = stop + 1
    return new_end


def _row_like(line: str) -> bool:
    """A table row: three or more cells' worth of tokens, a word among them and a figure
    ("Kingsmere River Lodden 41.0 1974"); not a formula ("2 + 1 √") or code (``\\cfrac``)."""
    tokens = line.split()
    return (
        len(tokens) >= 3
        and any(sum(c.isalpha() for c in t) >= 3 for t in tokens)
        and any(c.isdigit() for c in line)
        and not any(t.startswith("\\") for t in tokens)
    )


def _table_context(lines: list[str], short: list[bool]) -> list[tuple[str, ...] | None]:
    """For each row of a table (a run of ``TABLE_RUN``+ short lines, two or more of them rows;
    a title, subtitle and first heading or a displayed formula are no table), the run's first
    two lines (caption, header); None for every other line."""
    out: list[tuple[str, ...] | None] = [None] * len(lines)
    i = 0
    while i < len(lines):
        if not short[i]:
            i += 1
            continue
        j = i
        while j < len(lines) and short[j]:
            j += 1
        rows = [k for k in range(i, j) if _row_like(lines[k])]
        if j - i >= TABLE_RUN and len(rows) >= 2:
            head = tuple(collapse_ws(x) for x in lines[i : i + 2])
            for k in rows:
                out[k] = tuple(h for h in head[: k - i] if h)
        i = j
    return out


def select_sentences(
    question: str,
    sources: Sequence[Source],
    *,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    max_sources: int = 5,
    similarity: Similarity | None = None,
) -> list[ShownSource]:
    """Pick the sentences of the top sources that matter to ``question``, within a budget.

    With ``similarity`` (question, sentences -> cosine similarities, e.g. from the
    embedder) the score is semantic similarity plus half the lexical coverage, over
    the ``MAX_CANDIDATES`` lexically best sentences, and the budget goes to the best
    sentences only; on the eval questions this found the evidence sentence far more
    often than word overlap alone (26 vs 17 of 60) and separates unanswerable questions.

    Score = idf-weighted overlap of question terms with the sentence, plus a small bonus
    for higher-ranked sources. Each of the top sources contributes its best sentence if
    it overlaps at all (the first source always contributes, since vector search can
    match without shared words); the remaining budget goes to the best-scoring
    sentences and the sentence right after each, in that order. Output keeps sources
    in number order and sentences in document order.
    """
    ranked = sorted(sources, key=lambda s: s.n)[:max_sources]
    per_source = {s.n: _split(s) for s in ranked}
    lang = detect_language(question)
    q_terms = set(terms(question, lang))
    all_sents = [x for sents in per_source.values() for x in sents]
    df: dict[str, int] = {}
    sent_terms: dict[tuple[int, int], set[str]] = {}
    for x in all_sents:
        ts = set(terms(x.scored_text, lang))
        sent_terms[(x.source, x.index)] = ts
        for t in ts & q_terms:
            df[t] = df.get(t, 0) + 1
    n_all = max(len(all_sents), 1)
    weight = {t: math.log(1 + (n_all + 1) / (df.get(t, 0) + 1)) for t in q_terms}
    q_weight = sum(weight.values()) or 1.0
    for rank, src in enumerate(ranked):
        for x in per_source[src.n]:
            overlap = sent_terms[(x.source, x.index)] & q_terms
            x.score = sum(weight[t] for t in overlap)
            x.coverage = x.score / q_weight
            if x.score:
                x.score += 0.3 / (rank + 1)
    if similarity is not None and all_sents:
        return _select_semantic(question, ranked, all_sents, similarity, budget_chars)

    chosen: dict[tuple[int, int], ShownSentence] = {}
    used = 0

    def take(x: ShownSentence) -> bool:
        nonlocal used
        key = (x.source, x.index)
        if key in chosen:
            return True
        cost = len(x.text) + 8
        if used + cost > budget_chars and chosen:
            return False
        chosen[key] = x
        used += cost
        return True

    for rank, src in enumerate(ranked):
        sents = per_source[src.n]
        if not sents:
            continue
        best = max(sents, key=lambda x: (x.score, -x.index))
        if best.score > 0 or rank == 0:
            take(best)
    by_score = sorted(
        (x for x in all_sents if x.score > 0), key=lambda x: (-x.score, x.source, x.index)
    )
    for x in by_score:
        take(x)
        nxt = [y for y in per_source[x.source] if y.index == x.index + 1]
        if nxt:
            take(nxt[0])
    out = []
    for src in ranked:
        sents = sorted((x for x in chosen.values() if x.source == src.n), key=lambda x: x.index)
        if sents:
            out.append(ShownSource(src, sents))
    logger.debug("selected %d sentences (%d chars) from %d sources", len(chosen), used, len(out))
    return out


def _select_semantic(
    question: str,
    ranked: list[Source],
    all_sents: list[ShownSentence],
    similarity: Similarity,
    budget_chars: int,
) -> list[ShownSource]:
    pool = sorted(all_sents, key=lambda x: (-x.score, x.source, x.index))[:MAX_CANDIDATES]
    sims = similarity(question, [x.scored_text for x in pool])
    lang = detect_language(question)
    for x, sim in zip(pool, sims, strict=True):
        x.similarity = float(sim)
        x.score = float(sim) + 0.5 * x.coverage
        if restates(x.text, question, lang):  # close to the question, but no answer in it
            x.score -= RESTATES_PENALTY
    chosen: list[ShownSentence] = []
    used = 0
    for x in sorted(pool, key=lambda x: (-x.score, x.source, x.index)):
        cost = len(x.text) + 8
        if chosen and used + cost > budget_chars:
            continue
        chosen.append(x)
        used += cost
    out = []
    for src in ranked:
        sents = sorted((x for x in chosen if x.source == src.n), key=lambda x: x.index)
        if sents:
            out.append(ShownSource(src, sents))
    logger.debug(
        "selected %d sentences (%d chars, semantic) from %d sources", len(chosen), used, len(out)
    )
    return out


def _page_label(src: Source) -> str:
    if src.page_end and src.page_end != src.page_start:
        return f"pp. {src.page_start}-{src.page_end}"
    return f"p. {src.page_start}"


def _file_label(src: Source) -> str:
    name = src.file.replace("\\", "/").rsplit("/", 1)[-1]
    return quote_field(name or src.title)


# "[7]" opens a source block (and is a citation marker); chat-template markup opens a role
# (llama.cpp parses special tokens in the formatted prompt).
_MARKER = re.compile(r"\[(\s*\d+\s*)\]")
_ROLE = re.compile(
    r"<\|[^|<>]{0,64}\|>|</?s>|<(?:start|end)_of_turn>|\[/?INST\]|<</?SYS>>", re.IGNORECASE
)
_DEFUSE = str.maketrans({"<": "\u2039", ">": "\u203a", "[": "(", "]": ")", "|": "\u00a6"})


def quote_field(text: str) -> str:
    """Text from a document (file name, title, section, sentence) as the prompt shows it.

    One line (whitespace collapsed, so no newline can start a block), ``[n]`` shown as
    ``(n)`` (so it cannot pose as a source header or a citation) and chat-template
    markup such as ``<|im_start|>`` defused (so it cannot open a role). Quotes the grammar
    allows stay the exact document text; only what the model reads is quoted.
    """
    text = _MARKER.sub(r"(\1)", collapse_ws(text))
    return _ROLE.sub(lambda m: m.group(0).translate(_DEFUSE), text)


def format_sources(shown: Sequence[ShownSource]) -> str:
    """Render shown sources as ``[n] file, p. X, section`` headers with their sentences; a
    table row follows a ``(table: caption header)`` line, which says what its cells are.

    Everything taken from the document passes through :func:`quote_field`.
    """
    blocks = []
    for s in shown:
        head = f"[{s.source.n}] {_file_label(s.source)}, {_page_label(s.source)}"
        if s.source.section:
            head += f", {quote_field(s.source.section)}"
        lines = [head]
        for x in s.sentences:
            unseen = [quote_field(c) for c in x.context if quote_field(c) not in lines]
            if unseen and f"(table: {' '.join(unseen)})" not in lines:
                lines.append(f"(table: {' '.join(unseen)})")  # read, never quoted
            lines.append(quote_field(x.text))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def user_message(question: str, shown: Sequence[ShownSource]) -> str:
    return f"Sources:\n{format_sources(shown)}\n\nQuestion: {collapse_ws(question)}"


def build_prompt(
    question: str,
    sources: Sequence[Source],
    *,
    free_quotes: bool = False,
    ranked_evidence: bool = False,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    order: tuple[str, ...] = CITATIONS_FIRST,
    max_sources: int = 5,
    similarity: Similarity | None = None,
) -> PromptBundle:
    """Messages, grammar and the shown sentences for ``question`` over ``sources``.

    ``ranked_evidence`` fixes the citations to the best-ranked sentences (at most
    ``MAX_EVIDENCE``; none if no sentence shares a word with the question), for models
    too small to choose evidence well. Raises ``ValueError`` if no source has text.
    """
    shown = select_sentences(
        question,
        sources,
        budget_chars=budget_chars,
        max_sources=max_sources,
        similarity=similarity,
    )
    if not shown:
        raise ValueError("no source text to show the model")
    sentences = {s.source.n: s.sentences for s in shown}
    evidence: tuple[tuple[int, str], ...] = ()
    if ranked_evidence:
        evidence = pick_evidence(sentences)
    spec = GrammarSpec(
        quotes={n: [x.text for x in xs] for n, xs in sentences.items()},
        free_quotes=free_quotes,
        order=order,
        evidence=evidence,
        answer_segments=1 if ranked_evidence else 3,
    )
    messages = [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": user_message(question, shown)},
    ]
    return PromptBundle(messages, build_grammar(spec), sentences, spec)


MAX_EVIDENCE = 2


def pick_evidence(sentences: dict[int, list[ShownSentence]]) -> tuple[tuple[int, str], ...]:
    """The best sentence, plus the runner-up if it scores nearly as well (>= 90%)."""
    ranked = sorted(
        (x for xs in sentences.values() for x in xs if x.score > 0),
        key=lambda x: (-x.score, x.source, x.index),
    )
    if not ranked:
        return ()
    picked = [ranked[0]]
    for x in ranked[1:MAX_EVIDENCE]:
        if x.score >= 0.9 * ranked[0].score:
            picked.append(x)
    picked.sort(key=lambda x: (x.source, x.index))
    return tuple((x.source, x.text) for x in picked)
