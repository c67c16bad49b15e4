"""The citation validator: turn the model's untrusted RawAnswer into a checked answer.

Why: the product's promise is that every chip in an answer is backed by the
document's own words. Nothing from the model is trusted: source numbers are checked
against the chunks retrieved for *this* request (never a global set), every quote is
located in its cited chunk (exact, normalised, fuzzy) and replaced by the chunk's
exact text, markers and citations are made consistent, and each cited sentence must
share words and numbers with its evidence. Everything removed is reported.
Pure functions, no I/O: the service logs :func:`log_record` itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from app.core.models import (
    Chunk,
    Citation,
    DroppedCitation,
    DropReason,
    RawAnswer,
    Source,
    Validation,
    ValidationStatus,
)
from app.core.textkit import detect_language
from app.validation.claims import claim_numbers, content_stems, source_numbers, word_count
from app.validation.locate import ChunkIndex, find_elsewhere, locate
from app.validation.markers import Marker, find_markers, rewrite
from app.validation.normalize import normalize
from app.validation.sentences import answer_sentences

logger = logging.getLogger(__name__)

MIN_CLAIM_WORDS = 4
"""Sentences with fewer words are fragments ("In short:"), not claims that need a source."""
MAX_UNCITED_FLAGS = 5
"""Uncited sentences flagged one by one; beyond this, one summary flag (looping answers)."""


class ValidatedAnswer(BaseModel):
    """What the validator hands to the service: clean text, proven citations, the report."""

    answer: str = Field(description="Answer text with only markers of surviving citations.")
    citations: list[Citation] = Field(default_factory=list)
    validation: Validation
    unmentioned: list[int] = Field(
        default_factory=list,
        description="Source numbers of valid citations that no marker in the text names.",
    )


@dataclass(slots=True)
class _Run:
    """State of one validation: the retrieved sources and what was dropped so far."""

    sources: dict[int, tuple[Source, Chunk]]
    max_n: int
    indexes: dict[int, ChunkIndex] = field(default_factory=dict)
    dropped: list[DroppedCitation] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    numbers_of: dict[int, set[str]] = field(default_factory=dict)

    def index(self, n: int) -> ChunkIndex:
        if n not in self.indexes:
            self.indexes[n] = ChunkIndex(self.sources[n][1].text)
        return self.indexes[n]

    def numbers(self, n: int) -> set[str]:
        """Numbers source ``n`` supports: its text, section, title and page numbers."""
        if n not in self.numbers_of:
            src, chunk = self.sources[n]
            found = source_numbers(self.index(n).norm.text, normalized=True)
            found |= source_numbers(f"{chunk.section}\n{src.section}\n{src.title}")
            found.update(str(p) for p in range(chunk.page_start, chunk.page_end + 1))
            self.numbers_of[n] = found
        return self.numbers_of[n]

    def drop(self, n: int | None, reason: DropReason, detail: str, *, once: bool = False) -> None:
        """Record a drop; with ``once``, only the first drop of (n, reason) is kept."""
        if once and any(d.n == n and d.reason == reason for d in self.dropped):
            return
        item = DroppedCitation(n=n, reason=reason, detail=detail)
        if item not in self.dropped:
            self.dropped.append(item)

    def unknown(self, n: int) -> DropReason | None:
        """Why source number ``n`` cannot be cited, or None when it was retrieved."""
        if n < 1 or n > self.max_n:
            return "out_of_range"
        if n not in self.sources:
            return "not_retrieved"
        return None


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _index_sources(sources: Sequence[tuple[Source, Chunk]]) -> dict[int, tuple[Source, Chunk]]:
    out: dict[int, tuple[Source, Chunk]] = {}
    for src, chunk in sources:
        if src.chunk_id != chunk.chunk_id:
            logger.warning(
                "source %d names %s but carries chunk %s", src.n, src.chunk_id, chunk.chunk_id
            )
        if src.n in out:
            logger.warning("source number %d given twice; keeping the first", src.n)
            continue
        out[src.n] = (src, chunk)
    return out


def _without_markers(quote: str, text: str) -> str:
    """The quote without citation markers a model copied into it ("... margins [1]")."""
    mks = find_markers(quote)
    if not mks or quote.strip() in text:
        return quote
    return rewrite(quote, mks, [[] for _ in mks])


def _citations(raw: RawAnswer, run: _Run) -> list[Citation]:
    """Check each raw citation's number and quote; return the survivors, duplicates removed."""
    kept: list[Citation] = []
    spans: set[tuple[int, int, int]] = set()
    for rc in raw.citations:
        n = rc.source
        why = run.unknown(n)
        if why is not None:
            have = ", ".join(f"[{k}]" for k in sorted(run.sources)) or "none"
            what = "does not exist" if why == "out_of_range" else "was not retrieved"
            run.drop(n, why, f"source [{n}] {what} for this question (valid: {have})")
            continue
        src, chunk = run.sources[n]
        match = locate(_without_markers(rc.quote, chunk.text), run.index(n))
        if match is None:
            others = {k: run.index(k) for k in run.sources if k != n}
            elsewhere = find_elsewhere(rc.quote, others)
            where = f"; it is in source [{elsewhere}]" if elsewhere else ""
            run.drop(
                n,
                "quote_not_found",
                f"quote not found in source [{n}]{where}: \u201c{_short(rc.quote)}\u201d",
            )
            continue
        key = (n, match.start, match.end)
        if key in spans:
            run.drop(n, "duplicate", f"same quote cited twice: \u201c{_short(rc.quote)}\u201d")
            continue
        spans.add(key)
        page = chunk.page_start
        rects: list[tuple[int, float, float, float, float]] = []
        if chunk.charmap is not None and len(chunk.charmap):
            page = chunk.charmap.page_at(match.start) or chunk.page_start
            rects = [
                (r.page, r.x0, r.y0, r.x1, r.y1)
                for r in chunk.charmap.rects(match.start, match.end)
            ]
        kept.append(
            Citation(
                n=n,
                doc_id=chunk.doc_id,
                chunk_id=chunk.chunk_id,
                file=src.file,
                page=page,
                section=chunk.section or src.section,
                quote=chunk.text[match.start : match.end],
                match=match.kind,
                score=match.score,
                start=match.start,
                end=match.end,
                rects=rects,
            )
        )
    kept.sort(key=lambda c: (c.n, c.start))
    return kept


def _check_markers(
    markers: list[Marker], cited: dict[int, list[Citation]], run: _Run
) -> list[list[int]]:
    """Per marker, the numbers that may stay; unknown and orphan numbers are dropped."""
    keep: list[list[int]] = []
    for mk in markers:
        ns: list[int] = []
        for n in mk.ns:
            why = run.unknown(n)
            if why is not None:
                run.drop(
                    n, why, f"marker [{n}] names no source retrieved for this question", once=True
                )
            elif n not in cited:
                run.drop(n, "orphan_marker", f"marker [{n}] has no valid citation; removed")
            else:
                ns.append(n)
        keep.append(ns)
    return keep


def _check_sentences(
    text: str,
    markers: list[Marker],
    keep: list[list[int]],
    cited: dict[int, list[Citation]],
    run: _Run,
    mode: str,
) -> None:
    """Overlap and number checks per sentence; drops markers in place, adds flags."""
    uncited: list[str] = []
    for k, sent in enumerate(answer_sentences(text, markers), start=1):
        body = sent.plain
        claim = mode == "answer" and word_count(body) >= MIN_CLAIM_WORDS
        ns = list(dict.fromkeys(n for i in sent.markers for n in keep[i]))
        if ns:
            ns = _check_overlap(k, body, ns, sent.markers, keep, cited, run)
        if not ns:
            if claim:
                uncited.append(f"Sentence {k} has no citation: \u201c{_short(body)}\u201d")
            continue
        missing = _unsupported_numbers(body, ns, run)
        if missing:
            nums = ", ".join(missing)
            cites = "".join(f"[{n}]" for n in ns)
            run.drop(
                ns[0],
                "number_not_in_source",
                f"sentence {k}: {nums} not in {cites}: \u201c{_short(body)}\u201d",
            )
            run.flags.append(
                f"Sentence {k} is unsupported: {nums} does not occur in {cites}: "
                f"\u201c{_short(body)}\u201d"
            )
    run.flags.extend(uncited[:MAX_UNCITED_FLAGS])
    if len(uncited) > MAX_UNCITED_FLAGS:
        more = len(uncited) - MAX_UNCITED_FLAGS
        run.flags.append(f"\u2026 and {more} more sentences without a citation.")


def _unsupported_numbers(body: str, ns: list[int], run: _Run) -> list[str]:
    """Numbers of the sentence found in none of the sources it cites."""
    wanted = claim_numbers(normalize(body).text)
    if not wanted:
        return []
    evidence: set[str] = set()
    for n in ns:
        evidence |= run.numbers(n)
    return [x for x in wanted if x not in evidence]


def _check_overlap(
    k: int,
    body: str,
    ns: list[int],
    owned: tuple[int, ...],
    keep: list[list[int]],
    cited: dict[int, list[Citation]],
    run: _Run,
) -> list[int]:
    """Drop the markers of sentence ``k`` whose quotes share no content word with it.

    A sentence without any content word ("The [1] is the [1].") cannot be supported by
    anything, so its markers go too. Returns the numbers still cited by the sentence.
    """
    lang = detect_language(" ".join([body, *(c.quote for n in ns for c in cited[n])]))
    words = content_stems(body, lang)
    for n in ns:
        if words:
            quote_words: set[str] = set()
            for c in cited[n]:
                quote_words |= content_stems(c.quote, lang)
            if words & quote_words:
                continue
            why = f"sentence {k} shares no content word with the quote of [{n}]"
        else:
            why = f"sentence {k} says nothing that [{n}] could support"
        run.drop(n, "no_overlap", f"{why}: \u201c{_short(body)}\u201d")
        for i in owned:
            keep[i] = [m for m in keep[i] if m != n]
    return list(dict.fromkeys(n for i in owned for n in keep[i]))


def _status(
    raw: RawAnswer, answer: str, citations: list[Citation], mentioned: set[int], run: _Run
) -> ValidationStatus:
    """GREEN: cited, exact or normalised evidence, no flags. YELLOW: usable with warnings.
    RED: nothing in the text is backed by a valid citation (a refusal without citations
    is RED too: expected, the service decides what to show)."""
    if not citations or not answer.strip():
        return "RED"
    if raw.mode == "refuse":
        run.flags.append("The model declined to answer from these sources.")
        return "YELLOW"
    if not mentioned:
        run.flags.append("No sentence of the answer carries a valid citation.")
        return "RED"
    if all(c.match == "fuzzy" for c in citations if c.n in mentioned):
        run.flags.append("Every quote matched only approximately (fuzzy).")
    return "YELLOW" if run.flags else "GREEN"


def validate(raw: RawAnswer, sources: Sequence[tuple[Source, Chunk]]) -> ValidatedAnswer:
    """Validate one model answer against exactly the sources retrieved for its request."""
    by_n = _index_sources(sources)
    run = _Run(sources=by_n, max_n=max(by_n, default=0))
    citations = _citations(raw, run)
    cited: dict[int, list[Citation]] = {}
    for c in citations:
        cited.setdefault(c.n, []).append(c)
    markers = find_markers(raw.answer)
    keep = _check_markers(markers, cited, run)
    _check_sentences(raw.answer, markers, keep, cited, run, raw.mode)
    answer = rewrite(raw.answer, markers, keep)
    mentioned = {n for ns in keep for n in ns}
    unmentioned = sorted({c.n for c in citations} - mentioned)
    status = _status(raw, answer, citations, mentioned, run)
    logger.debug(
        "validated: %s, %d citations, %d dropped", status, len(citations), len(run.dropped)
    )
    return ValidatedAnswer(
        answer=answer,
        citations=citations,
        validation=Validation(status=status, dropped=run.dropped, flags=run.flags),
        unmentioned=unmentioned,
    )
