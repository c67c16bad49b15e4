"""Find a model's quote inside a chunk: exact, then normalised, then fuzzy.

Why three tiers: small models copy evidence almost but not quite verbatim (spacing,
curly quotes, ligatures, a dropped comma, a changed word). Exact and normalised
matches are proof; a fuzzy match is strong evidence that we show with the document's
own words so the person never reads a paraphrase presented as a quote.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from app.core.models import MatchKind
from app.validation.normalize import NormText, Tokens, normalize, tokens

logger = logging.getLogger(__name__)

FUZZY_THRESHOLD = 88.0
"""Minimum rapidfuzz ratio (0..100) between the quote's and the window's tokens."""
FUZZY_MIN_TOKENS = 3
"""Shorter quotes must match exactly or after normalisation: too easy to hit by chance."""


@dataclass(frozen=True, slots=True)
class Match:
    """Where a quote was found: span [start, end) in the chunk's own text."""

    start: int
    end: int
    kind: MatchKind
    score: float


@dataclass(slots=True)
class ChunkIndex:
    """Lazily built normalised forms of one chunk's text, shared by every quote citing it."""

    text: str
    _norm: NormText | None = field(default=None, repr=False)
    _tokens: Tokens | None = field(default=None, repr=False)
    _flat: str | None = field(default=None, repr=False)

    @property
    def flat(self) -> str:
        """Lower-cased text with whitespace collapsed: a cheap first-pass key."""
        if self._flat is None:
            self._flat = " ".join(self.text.split()).lower()
        return self._flat

    @property
    def norm(self) -> NormText:
        if self._norm is None:
            self._norm = normalize(self.text)
        return self._norm

    @property
    def tokens(self) -> Tokens:
        if self._tokens is None:
            self._tokens = tokens(self.norm)
        return self._tokens


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def locate(quote: str, chunk: ChunkIndex) -> Match | None:
    """Locate ``quote`` in the chunk; None when it is not there (or empty)."""
    q = quote.strip()
    if not q:
        return None
    i = chunk.text.find(q)
    if i >= 0:
        return Match(i, i + len(q), "exact", 100.0)
    qn = normalize(q)
    if not qn.text:
        return None
    norm = chunk.norm
    i = norm.text.find(qn.text)
    if i >= 0:
        s, e = norm.to_original(i, i + len(qn.text))
        s, e = _strip_span(chunk.text, s, e)
        return Match(s, e, "normalized", 100.0)
    qt = tokens(qn)
    if len(qt) == 0:
        return None
    ct = chunk.tokens
    found = _token_exact(qt, ct)
    if found is not None:
        return Match(*found, "normalized", 100.0)
    if len(qt) < FUZZY_MIN_TOKENS:
        return None
    return _fuzzy(qt, ct)


def _token_index(ct: Tokens, char_pos: int) -> int:
    """Index of the token whose span in ``ct.joined`` starts at ``char_pos`` (or -1)."""
    lo, hi = 0, len(ct.bounds)
    while lo < hi:
        mid = (lo + hi) // 2
        if ct.bounds[mid][0] < char_pos:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(ct.bounds) and ct.bounds[lo][0] == char_pos else -1


def _token_exact(qt: Tokens, ct: Tokens) -> tuple[int, int] | None:
    """Same words in the same order, punctuation ignored ("well-known" == "well known")."""
    start = 0
    while True:
        i = ct.joined.find(qt.joined, start)
        if i < 0:
            return None
        end = i + len(qt.joined)
        first = _token_index(ct, i)
        if first >= 0 and (end == len(ct.joined) or ct.joined[end] == " "):
            last = first + len(qt) - 1
            return ct.original[first][0], ct.original[last][1]
        start = i + 1


def _fuzzy(qt: Tokens, ct: Tokens) -> Match | None:
    """Best token window of the chunk by rapidfuzz ratio, if it clears the threshold."""
    if len(ct) == 0 or len(qt.joined) > 1.25 * len(ct.joined) + 10:
        return None
    align = fuzz.partial_ratio_alignment(qt.joined, ct.joined, score_cutoff=FUZZY_THRESHOLD - 10)
    if align is None:
        return None
    if len(qt.joined) <= len(ct.joined):
        ds, de = align.dest_start, align.dest_end
    else:  # rapidfuzz aligned the chunk inside the quote; the chunk is the window
        ds, de = 0, len(ct.joined)
    first = next((k for k, (_, e) in enumerate(ct.bounds) if e > ds), len(ct) - 1)
    last = max((k for k, (s, _) in enumerate(ct.bounds) if s < de), default=first)
    last = max(last, first)
    best: tuple[float, int, int] = (-1.0, first, last)
    n = len(ct)
    for a in (-2, -1, 0, 1, 2):
        for b in (-2, -1, 0, 1, 2):
            f, t = first + a, last + b
            if f < 0 or t >= n or t < f:
                continue
            window = ct.joined[ct.bounds[f][0] : ct.bounds[t][1]]
            score = fuzz.ratio(qt.joined, window)
            if score > best[0]:
                best = (score, f, t)
    score, f, t = best
    if score < FUZZY_THRESHOLD:
        logger.debug("fuzzy best %.1f below threshold for %r", score, qt.joined[:60])
        return None
    return Match(ct.original[f][0], ct.original[t][1], "fuzzy", round(score, 1))


def find_elsewhere(quote: str, others: dict[int, ChunkIndex]) -> int | None:
    """Which other source holds the quote up to case and spacing (for the drop report)."""
    q = " ".join(quote.split()).lower()
    if not q:
        return None
    for n, idx in others.items():
        if q in idx.flat:
            return n
    return None
