"""Where sections start in the reading order of a document, and their paths.

Why positions in reading order instead of (page, y) comparisons: on multi-column pages
the right column's first lines sit above a heading in the left column, yet are read
after it. So every section start is resolved once to the index of its heading line in
the stream of lines, and a line's section is simply the last start at or before it.

Two sources: the PDF outline (bookmarks) with its destination points when present, else
a font-size heuristic for headings.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from dataclasses import dataclass

from app.core.models import Section

from ._mupdf import pymupdf
from .layout import Line, median_height

logger = logging.getLogger(__name__)

_GENERIC_TITLES = {
    "contents",
    "table of contents",
    "list of tables",
    "list of figures",
    "index",
    "title page",
    "cover",
}
_ALNUM = re.compile(r"[^0-9a-z]+")
_NOTE_MARKS = "*\u2217\u2020\u2021\u00a7\u00b6 "  # footnote marks after a title


@dataclass(slots=True)
class SectionStart:
    """A section and the index of its first line in the document's line stream."""

    section: Section
    path: str
    line_index: int


@dataclass(slots=True)
class _Entry:
    level: int
    title: str
    page: int  # 1-based
    x: float
    y: float


def outline_entries(doc: pymupdf.Document) -> list[_Entry]:
    """Outline items with page and destination point (top-left coordinates), in order.

    Walks ``doc.outline`` directly: ``get_toc(simple=False)`` resolves named
    destinations the slow way (seconds for a 500-entry outline).
    """
    out: list[_Entry] = []

    def walk(item: pymupdf.Outline | None, level: int) -> None:
        while item is not None and item.this.m_internal:
            page = -1 if item.is_external else item.page
            x, y = _finite(item.x), _finite(item.y)
            if page < 0 and item.uri and not item.is_external:
                try:
                    page, x, y = doc.resolve_link(item.uri)
                    x, y = _finite(x), _finite(y)
                except Exception:  # noqa: BLE001 - an unresolvable bookmark is skipped, not fatal
                    page = -1
            title = " ".join((item.title or "").split())
            if page >= 0 and title:
                out.append(_Entry(level, title, page + 1, x, y))
            if item.down is not None:
                walk(item.down, level + 1)
            item = item.next

    walk(doc.outline, 1)
    return out


def _finite(v: float | None) -> float:
    return float(v) if v is not None and math.isfinite(v) else 0.0


def _norm(text: str) -> str:
    return _ALNUM.sub("", text.lower())


def _paths(entries: list[_Entry]) -> list[str]:
    paths = []
    stack: list[tuple[int, str]] = []
    for e in entries:
        while stack and stack[-1][0] >= e.level:
            stack.pop()
        stack.append((e.level, e.title))
        paths.append(" > ".join(t for _, t in stack))
    return paths


def resolve_outline(entries: list[_Entry], lines: list[Line]) -> list[SectionStart]:
    """Map outline entries onto line indices (see module docstring)."""
    by_page: dict[int, list[int]] = {}
    for i, ln in enumerate(lines):
        by_page.setdefault(ln.page, []).append(i)
    pages = sorted(by_page)
    starts: list[SectionStart] = []
    for entry, path in zip(entries, _paths(entries), strict=True):
        idx = _place(entry, lines, by_page, pages)
        if idx is None:
            continue
        sec = Section(title=entry.title, level=entry.level, page=entry.page, y=round(entry.y, 2))
        starts.append(SectionStart(sec, path, idx))
    starts.sort(key=lambda s: s.line_index)  # stable: outline order among equal starts
    return starts


def _place(
    entry: _Entry, lines: list[Line], by_page: dict[int, list[int]], pages: list[int]
) -> int | None:
    idxs = by_page.get(entry.page, [])
    cands = [i for i in idxs if lines[i].y1 > entry.y + 0.5 and lines[i].x1 > entry.x]
    if entry.y <= 0:
        cands = list(idxs)
    want = _norm(entry.title)[:24]
    if want:
        for i in cands[:40]:
            got = _norm(" ".join(w[4] for w in lines[i].words[:12]))
            if got and (got.startswith(want) or want.startswith(got) and len(got) >= 4):
                return i
    if cands:
        return cands[0]
    later = [p for p in pages if p > entry.page]
    return by_page[later[0]][0] if later else None


# --- heuristic headings ---------------------------------------------------------------------

_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVX]+\.)\s+\S")


def heuristic_sections(lines: list[Line]) -> tuple[list[SectionStart], str | None]:
    """Headings by font size (and numbered bold lines). Returns (starts, document title).

    The largest size, when used by a single heading on the first page, is the
    document's title rather than a section.
    """
    live = [(i, ln) for i, ln in enumerate(lines) if not ln.dropped]
    if not live:
        return [], None
    for _, ln in live:
        if ln.size <= 0:
            ln.size = median_height(ln.words)
    weights: Counter[float] = Counter()
    for _, ln in live:
        weights[round(ln.size * 2) / 2] += sum(len(w[4]) for w in ln.words)
    body = weights.most_common(1)[0][0]
    cands: list[tuple[int, Line, float]] = []  # (index, line, size class)
    depth: dict[int, int] = {}  # index -> level told by a section number, on OCR'd lines
    for i, ln in live:
        text = ln.text
        nwords = len(ln.words)
        if nwords > 16 or not any(c.isalpha() for c in text) or text.endswith((",", ";", "-")):
            continue
        if _starts_lower(text):  # a line of a sentence ("ting, where each ..."), never a heading
            continue
        size = round(ln.size * 2) / 2
        if ln.ocr:  # sizes from word boxes are rough; no bold: a numbered title-case line
            if size >= body * 1.3 and nwords <= 12 and not text.endswith("."):
                cands.append((i, ln, size))
            elif (m := _OCR_NUMBERED.match(text)) and _title_case(text):
                depth[i] = m.group(1).rstrip(".").count(".") + 1
                cands.append((i, ln, body))
            continue
        if size >= body * 1.15 or (ln.bold and size >= body and _NUMBERED.match(text)):
            cands.append((i, ln, size if size >= body * 1.05 else body))
        elif ln.bold and size >= body * 1.05 and nwords <= 12 and not text.endswith("."):
            cands.append((i, ln, size))  # 12-pt bold over 11-pt text (LaTeX article headings)
    # merge a heading wrapped over consecutive lines of the same block and size
    merged: list[tuple[int, str, int, float]] = []  # (first index, text, last index, size)
    for i, ln, size in cands:
        if merged:
            fi, text, li, psize = merged[-1]
            if li == i - 1 and lines[li].block == ln.block and psize == size:
                merged[-1] = (fi, f"{text} {ln.text}", i, psize)
                continue
        merged.append((i, ln.text, i, size))
    title = None
    if merged:
        top = max(m[3] for m in merged)
        at_top = [m for m in merged if m[3] == top]
        if len(at_top) == 1 and lines[at_top[0][0]].page == 1 and len(merged) > 1:
            title = at_top[0][1].rstrip(_NOTE_MARKS)
            merged = [m for m in merged if m is not at_top[0]]
    sizes = sorted({m[3] for m in merged}, reverse=True)[:4]
    entries: list[_Entry] = []
    idxs: list[int] = []
    for i, text, _, size in merged:
        level = sizes.index(size) + 1 if size in sizes else len(sizes)
        level = depth.get(i, level)
        if i > 0 and _number_before(lines[i - 1], lines[i]):  # "1" + "Introduction"
            i -= 1
            text = f"{lines[i].text} {text}"
        first = lines[i]
        entries.append(_Entry(level, text, first.page, first.x0, first.y0))
        idxs.append(i)
    starts = [
        SectionStart(Section(title=e.title, level=e.level, page=e.page, y=round(e.y, 2)), p, i)
        for e, p, i in zip(entries, _paths(entries), idxs, strict=True)
    ]
    return starts, title


_OCR_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3}\.?)\s+[A-Z][^.]*$")
"""An OCR'd heading: a section number ("4.1"), then a capitalised title without a full stop
(a wrapped body line that starts with a number, "2018 as the source", is not title case)."""


def _starts_lower(text: str) -> bool:
    first = next((c for c in text if c.isalpha()), "")
    return first.islower()


def _title_case(text: str) -> bool:
    """Most words of four or more letters are capitalised ("Wikipedia Data Pre-processing")."""
    long = [w for w in text.split()[1:] if sum(c.isalpha() for c in w) >= 4]
    return len(text.split()) <= 10 and (
        not long or sum(w[0].isupper() for w in long) >= 0.6 * len(long)
    )


_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.?|[IVX]+\.?)$")


def _number_before(prev: Line, line: Line) -> bool:
    """``prev`` is a bare section number printed on the same row, just left of ``line``."""
    return (
        not prev.dropped
        and prev.page == line.page
        and abs(prev.y1 - line.y1) < 2
        and prev.x1 <= line.x0 + 1
        and bool(_SECTION_NUMBER.match(prev.text))
    )


def first_heading(starts: list[SectionStart]) -> str | None:
    for s in starts:
        if _norm(s.section.title) and s.section.title.lower() not in _GENERIC_TITLES:
            return s.section.title
    return None
