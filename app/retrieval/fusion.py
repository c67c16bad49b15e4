"""Pure ranking helpers for hybrid search: query sanitising, rank fusion, de-duplication.

Kept free of any store or model so the rules can be unit-tested with plain data and
tuned by the benchmark without touching I/O code.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.core.textkit import QUESTION_FILLER, detect_language, stop_words, words

logger = logging.getLogger(__name__)

MAX_QUERY_TERMS = 32


def query_terms(query: str) -> list[str]:
    """Distinct lower-case word tokens of ``query`` in order, stop words removed.

    Only letters and digits survive, so quotes, colons, brackets, backslashes
    (``\\newcommand``), ``@`` and operators like AND/OR/NOT syntax characters can never
    reach a full-text query parser. If every word is a stop word the words are kept,
    so "what is it" still searches for something.
    """
    ws = words(query)
    stops = query_stop_words(query)
    content = [w for w in ws if w not in stops]
    chosen = content or ws
    return list(dict.fromkeys(chosen))[:MAX_QUERY_TERMS]


def query_stop_words(query: str) -> frozenset[str]:
    """Words that carry no topic in a question: English function words and question
    filler, plus the function words of the question's own language when it is another.

    BM25's IDF already discounts them, but leaving them out keeps the FTS query short
    and stops a question made only of common words from matching every chunk.
    """
    return _query_stops(detect_language(query))


@lru_cache(maxsize=16)
def _query_stops(lang: str) -> frozenset[str]:
    stops = stop_words() | QUESTION_FILLER
    return stops if lang == "en" else stops | stop_words(lang)


def feedback_terms(
    terms: Sequence[str], top: Sequence[str], pool: Sequence[str], limit: int
) -> list[str]:
    """Pseudo-relevance feedback: up to ``limit`` words that tell the first pass's best
    passages (``top``, best first) apart from the other candidates (``pool``), none of them
    a query term or a stop word.

    Why: a question in a person's words ("page numbers like 3 of 12") shares a word or two
    with the passage that answers it; the passages found first often use the document's own
    words for the rest ("LastPage", "label"), and a second keyword pass with them finds their
    neighbours. A word scores its frequency in each top passage (weighted 1/rank) times its
    rarity among the candidates, so a word every candidate has adds nothing.
    """
    if limit <= 0 or not top:
        return []
    have = set(terms)
    stops = query_stop_words(" ".join(top)) | query_stop_words(" ".join(terms))
    n = len(pool) or 1
    df: dict[str, int] = {}
    for text in pool:
        for w in set(words(text)):
            df[w] = df.get(w, 0) + 1
    score: dict[str, float] = {}
    for rank, text in enumerate(top, start=1):
        ws = [w for w in words(text) if w not in stops and w not in have and _telling(w)]
        if not ws:
            continue
        counts: dict[str, int] = {}
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
        for w, c in counts.items():
            idf = math.log((n + 1) / (df.get(w, 0) + 0.5))
            score[w] = score.get(w, 0.0) + (c / len(ws)) * idf / rank
    best = sorted((w for w in score if score[w] > 0), key=lambda w: (-score[w], w))
    return best[:limit]


def _telling(word: str) -> bool:
    """A word worth searching for: three or more characters, not a bare number."""
    return len(word) >= 3 and not word.isdigit()


def sanitize_fts_query(query: str) -> str:
    """A full-text query string that is safe for any FTS parser: plain words and spaces."""
    return " ".join(query_terms(query))


def reciprocal_rank_fusion(
    ranked: Sequence[tuple[Sequence[str], float]], *, k: float = 60.0
) -> dict[str, float]:
    """Weighted RRF: ``sum(weight / (k + rank))`` over the lists an id appears in (rank from 1).

    Why RRF: BM25 scores and cosine similarities live on unrelated scales; ranks do
    not, and RRF is robust to one list being much longer or noisier than the other.
    """
    scores: dict[str, float] = {}
    for ids, weight in ranked:
        if weight == 0:
            continue
        for rank, cid in enumerate(ids, start=1):
            scores[cid] = scores.get(cid, 0.0) + weight / (k + rank)
    return scores


@dataclass(frozen=True)
class Passage:
    """What de-duplication needs to know about a candidate chunk."""

    chunk_id: str
    doc_id: str
    ordinal: int
    text: str


def _shingles(text: str, n: int = 4) -> set[tuple[str, ...]]:
    ws = words(text)
    if len(ws) < n:
        return {tuple(ws)} if ws else set()
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def containment(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    """Share of the smaller shingle set that also occurs in the other (0..1)."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small)


def dedupe(
    passages: Iterable[Passage],
    *,
    overlap: float = 0.6,
    adjacent: bool = False,
    limit: int | None = None,
) -> list[Passage]:
    """Keep passages in order, dropping any that repeat one already kept.

    A passage is a duplicate when most of it (``overlap`` of its word 4-grams) occurs
    in a kept passage: the overlapping windows the chunker makes, or the same text
    repeated in two documents. With ``adjacent=True`` a chunk right next to a kept
    chunk of the same document (ordinal +-1) is dropped as well, which spreads the
    results over more places in the library.
    """
    kept: list[Passage] = []
    kept_shingles: list[set[tuple[str, ...]]] = []
    for p in passages:
        sh = _shingles(p.text)
        if any(
            (adjacent and q.doc_id == p.doc_id and abs(q.ordinal - p.ordinal) <= 1)
            or containment(sh, qsh) >= overlap
            for q, qsh in zip(kept, kept_shingles, strict=True)
        ):
            continue
        kept.append(p)
        kept_shingles.append(sh)
        if limit is not None and len(kept) >= limit:
            break
    return kept


def title_overlap(terms: Sequence[str], title: str) -> float:
    """Share of the query's content terms that appear in a section title (0..1)."""
    if not terms or not title:
        return 0.0
    have = set(words(title))
    return sum(1 for t in terms if t in have) / len(terms)


def term_coverage(terms: Sequence[str], text: str) -> float:
    """Share of the query's content terms that occur in ``text`` (0..1)."""
    if not terms:
        return 0.0
    have = set(words(text))
    return sum(1 for t in terms if t in have) / len(terms)
