"""Split an answer into sentences and say which citation markers belong to each.

Why: claims are checked sentence by sentence, and models place markers both before
and after the full stop ("... sat [1]." and "... sat.[1]"). Markers are blanked out
before splitting so they never hide a sentence boundary; a marker that ends up
between two sentences belongs to the one before it. List items, blank lines and
lines ending with a colon are split separately (list items rarely end with a full
stop); any other line break is wrapped text. A quotation in curly quotes is one claim,
however many sentences or list items it quotes: an extractive answer quotes a lead-in with
the items it introduces, under one marker.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from app.core.text import sentence_spans
from app.validation.markers import Marker

logger = logging.getLogger(__name__)

_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")
_WS = re.compile(r"\s+")
# A line break ends a sentence only before a list item, after a colon or at a blank line;
# elsewhere it is just wrapped text (e.g. a quoted source sentence).
_BLOCK_BREAK = re.compile(r"\n(?=[ \t]*(?:[-*\u2022]|\d+[.)])\s|[ \t]*\n)|(?<=:)\n")
_QUOTATION = re.compile(r"\u201c[^\u201c\u201d]*\u201d")


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence at [start, end) of the answer; ``plain`` is its text without markers."""

    start: int
    end: int
    plain: str
    markers: tuple[int, ...]  # indexes into the marker list


def answer_sentences(text: str, markers: list[Marker]) -> list[Sentence]:
    """Sentences of ``text`` with their markers (by index into ``markers``)."""
    chars = list(text)
    for mk in markers:
        chars[mk.start : mk.end] = " " * (mk.end - mk.start)
        # "claim[1].Next" -> "claim.   Next": the full stop moves before the blanked marker
        # (same length, so offsets hold) and the sentence boundary becomes visible.
        if (
            mk.end + 1 < len(text)
            and text[mk.end] in ".!?"
            and (text[mk.end + 1].isupper() or text[mk.end + 1].isdigit())
        ):
            chars[mk.start], chars[mk.end] = text[mk.end], " "
    masked = "".join(chars)
    spans: list[tuple[int, int]] = []
    offset = 0
    for block in _BLOCK_BREAK.split(masked):
        spans.extend((offset + s, offset + e) for s, e in sentence_spans(block, max_chars=10_000))
        offset += len(block) + 1
    spans = _whole_quotations(text, spans)
    owned: list[list[int]] = [[] for _ in spans]
    for i, mk in enumerate(markers):
        target = None
        for k, (s, e) in enumerate(spans):
            if s <= mk.start < e:
                target = k
                break
            if s > mk.start:  # in the gap before sentence k: belongs to the previous one
                target = k - 1 if k > 0 else k
                break
        if target is None and spans:
            target = len(spans) - 1
        if target is not None:
            owned[target].append(i)
    out: list[Sentence] = []
    for (s, e), mine in zip(spans, owned, strict=True):
        plain = _SPACE_BEFORE_PUNCT.sub(r"\1", _WS.sub(" ", masked[s:e])).strip()
        out.append(Sentence(s, e, plain, tuple(mine)))
    return out


def _whole_quotations(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` with those that share a quotation ("\u201c...\u201d") merged into one."""
    for m in _QUOTATION.finditer(text):
        inside = [(s, e) for s, e in spans if s < m.end() and e > m.start()]
        if len(inside) > 1:
            merged = (min(s for s, _ in inside), max(e for _, e in inside))
            spans = sorted([x for x in spans if x not in inside] + [merged])
    return spans
