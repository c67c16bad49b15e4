"""The passages closest to a question, as citations a person can open and check.

A refusal that only says "no" leaves the person guessing; showing the nearest passages
with file, page, section and the exact span to highlight lets them judge for themselves.
Pure functions: the chunks come in with their character maps, the citations go out with
their rectangles.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from app.core import textkit
from app.core.models import Chunk, Citation, Source
from app.core.text import sentence_spans
from app.core.textkit import QUESTION_FILLER, detect_language

logger = logging.getLogger(__name__)

MAX_CLOSEST = 3
MIN_SENTENCE_CHARS = 20


def passage_citation(src: Source, chunk: Chunk, start: int, end: int) -> Citation:
    """A citation of ``chunk.text[start:end]`` with its page and highlight rectangles."""
    page = chunk.page_start
    rects: list[tuple[int, float, float, float, float]] = []
    if chunk.charmap is not None and len(chunk.charmap):
        page = chunk.charmap.page_at(start) or chunk.page_start
        rects = [(r.page, r.x0, r.y0, r.x1, r.y1) for r in chunk.charmap.rects(start, end)]
    return Citation(
        n=src.n,
        doc_id=chunk.doc_id,
        chunk_id=chunk.chunk_id,
        file=src.file,
        page=page,
        section=chunk.section or src.section,
        quote=chunk.text[start:end],
        match="exact",
        score=100.0,
        start=start,
        end=end,
        rects=rects,
    )


def best_sentence(question_stems: set[str], chunk: Chunk, lang: str) -> tuple[int, int, float]:
    """The span of the chunk's sentence sharing most question words, and that share."""
    best = (0, 0, -1.0)
    for s, e in sentence_spans(chunk.text, max_chars=300):
        if e - s < MIN_SENTENCE_CHARS:
            continue
        have = set(textkit.content_stems(chunk.text[s:e], lang, extra=QUESTION_FILLER))
        share = len(have & question_stems) / max(len(question_stems), 1)
        if share > best[2]:
            best = (s, e, share)
    return best


Trim = Callable[[str, int, int], tuple[int, int]]
"""(text, start, end) -> the part of ``text[start:end]`` worth showing, as a span."""


def whole(_text: str, start: int, end: int) -> tuple[int, int]:
    """The span as it is."""
    return start, end


def closest_passages(
    question: str,
    pairs: Sequence[tuple[Source, Chunk]],
    *,
    limit: int = MAX_CLOSEST,
    trim: Trim = whole,
) -> list[Citation]:
    """For the best-ranked chunks (one per page), the sentence nearest to the question;
    ``trim`` cuts off what is not worth showing of it (a heading run into it)."""
    lang = detect_language(question)
    q = set(textkit.content_stems(question, lang, extra=QUESTION_FILLER))
    out: list[Citation] = []
    pages: set[tuple[str, int]] = set()
    for src, chunk in sorted(pairs, key=lambda p: p[0].n):
        if (chunk.doc_id, chunk.page_start) in pages:
            continue
        s, e, _share = best_sentence(q, chunk, lang)
        if e <= s:
            continue
        pages.add((chunk.doc_id, chunk.page_start))
        s, e = trim(chunk.text, s, e)
        out.append(passage_citation(src, chunk, s, e))
        if len(out) >= limit:
            break
    return out
