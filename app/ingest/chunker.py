"""Clean text with a character map, and sentence-aware chunks that never lose text.

Why build text and geometry together: every word is appended to the text exactly once,
and its character span and box are recorded at that moment, so a chunk's
:class:`~app.core.charmap.CharMap` is a slice of one table, shifted to the chunk's own
offsets. Chunks are consecutive runs of whole sentences (a block without a full stop, such
as a heading or list item, counts as one); consecutive chunks share their last one or two
sentences, prefer to end at a paragraph end, and together cover every character of a
section.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from app.core.charmap import CharMap
from app.core.models import Chunk
from app.core.text import sentence_spans

from .layout import RTL, Line
from .sections import SectionStart
from .table_rows import Table, find_tables, header_for

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChunkParams:
    """Chunk sizes in words. Sentences are split only when longer than
    ``max_sentence_chars`` (at a space, as ``sentence_spans`` does)."""

    target_words: int = 180
    max_words: int = 300
    min_words: int = 50  # a smaller tail joins the previous chunk when it fits
    overlap_sentences: int = 2
    overlap_words: int = 60
    heading_words: int = 12  # a section this small (a bare heading) joins the next one
    max_sentence_chars: int = 600
    # A chunk that starts inside a list longer than a chunk begins with a copy of the
    # sentence that introduces the list ("The following options are accepted:"), as one
    # inside a long table begins with its header row (see find_lists).
    list_intros: bool = False


@dataclass(slots=True)
class Segment:
    """The text of one section (or a run of them) with its character map rows."""

    path: str
    text: str
    rows: np.ndarray  # (n, 8) float64: start, end, page, x0, y0, x1, y1, line key


_EDGE_PUNCT = "\"'()[]{}<>.,;:!?\u201c\u201d\u2018\u2019"


def _core(word: str) -> str:
    return word.strip(_EDGE_PUNCT).lower()


def hyphenated_words(lines: list[Line]) -> frozenset[str]:
    """Compounds printed with a hyphen inside a line ("well-known"): when one of them is
    split at its hyphen over a line end, the hyphen is kept instead of joining the halves."""
    out: set[str] = set()
    for ln in lines:
        for w in ln.words:
            t = w[4]
            if "-" in t and t.find("-", 1, len(t) - 1) > 0:
                out.add(_core(t))
    return frozenset(out)


def _joins(prev: Line, nxt: Line, compounds: frozenset[str]) -> tuple[bool, bool]:
    """(join the two lines into one word, drop the trailing hyphen of ``prev``)."""
    first = nxt.words[0][4]
    if prev.soft_end:
        return first[:1].isalpha(), False
    last = prev.words[-1][4]
    if (
        len(last) >= 3
        and last[-1] == "-"
        and last[-2].isalpha()
        and first[:1].islower()
        and nxt.page >= prev.page
    ):
        return True, _core(last + first) not in compounds
    return False, False


def build_segment(path: str, lines: list[Line], compounds: frozenset[str] = frozenset()) -> Segment:
    """Join lines into clean text: words by spaces, lines of a block by a space (or nothing,
    for a hyphenated word), blocks by a newline. One map row per word (fragment).

    Work is per line, not per word: offsets come from one cumulative sum at the end.
    """
    texts: list[str] = []  # per line: separator + words joined by spaces
    word_lens: list[int] = []
    sep_lens: list[int] = []
    x0: list[float] = []
    y0: list[float] = []
    x1: list[float] = []
    y1: list[float] = []
    pages: list[int] = []
    keys: list[int] = []
    prev: Line | None = None
    for ln in lines:
        words = ln.words
        cols = list(zip(*words, strict=False))  # word tuples have 5 or 8 items
        wtexts = cols[4]
        sep = ""
        if prev is not None:
            join, drop_hyphen = _joins(prev, ln, compounds)
            if join:
                if drop_hyphen:
                    texts[-1] = texts[-1][:-1]
                    word_lens[-1] -= 1
            else:
                same = ln.block == prev.block or wtexts[0][:1].islower()
                sep = " " if same and prev.heading == ln.heading else "\n"
        n = len(words)
        texts.append(sep + " ".join(wtexts))
        sep_lens.append(len(sep))
        sep_lens.extend([1] * (n - 1))
        word_lens.extend(map(len, wtexts))
        # A word's box runs from x0 to x1 in reading order (charmap cuts a part of a word
        # from its start), so right-to-left words store x0 > x1.
        if any(not t.isascii() and RTL.search(t) for t in wtexts):
            flip = [not t.isascii() and RTL.search(t) is not None for t in wtexts]
            x0.extend(b if f else a for a, b, f in zip(cols[0], cols[2], flip, strict=True))
            x1.extend(a if f else b for a, b, f in zip(cols[0], cols[2], flip, strict=True))
        else:
            x0.extend(cols[0])
            x1.extend(cols[2])
        y0.extend(cols[1])
        y1.extend(cols[3])
        pages.extend([ln.page] * n)
        keys.extend([ln.key] * n)
        prev = ln
    wl = np.array(word_lens, dtype=np.float64)
    ends = np.cumsum(wl + np.array(sep_lens, dtype=np.float64))
    arr = np.column_stack([ends - wl, ends, pages, x0, y0, x1, y1, keys]).astype(np.float64)
    return Segment(path, "".join(texts), arr.reshape(-1, 8))


def segments(lines: list[Line], starts: list[SectionStart], params: ChunkParams) -> list[Segment]:
    """Split the line stream at section starts.

    A bare heading (a section of at most ``heading_words`` words) joins the following
    section instead of becoming a useless tiny chunk; the result is labelled with the
    following section when that is its subsection (its path names the parent too), else
    with the heading's own section, the one in force at the first character.
    """
    bounds: list[tuple[int, str]] = [(0, "")]
    for s in starts:
        if s.line_index == bounds[-1][0]:
            bounds[-1] = (s.line_index, s.path)  # several starts on one line: deepest wins
        else:
            bounds.append((s.line_index, s.path))
    groups: list[tuple[str, list[Line]]] = []
    for k, (begin, path) in enumerate(bounds):
        end = bounds[k + 1][0] if k + 1 < len(bounds) else len(lines)
        if end > begin:
            groups.append((path, lines[begin:end]))
    merged: list[tuple[str, list[Line]]] = []
    carry: tuple[str, list[Line]] | None = None
    for path, group in groups:
        if carry is not None:
            cpath, clines = carry
            # label with the deeper section when the bare heading is its parent
            path = path if path.startswith(cpath + " > ") or not cpath else cpath
            group = clines + group
            carry = None
        if sum(len(ln.words) for ln in group) <= params.heading_words:
            carry = (path, group)
            continue
        merged.append((path, group))
    if carry is not None:
        if merged:
            merged[-1] = (merged[-1][0], merged[-1][1] + carry[1])
        else:
            merged.append(carry)
    for s in starts:
        _mark_heading(lines, s)
    compounds = hyphenated_words(lines)
    return [build_segment(path, group, compounds) for path, group in merged]


def _norm(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _mark_heading(lines: list[Line], start: SectionStart) -> None:
    """Mark the lines that print a section's heading, so its text stands on a line of its own
    and is never read as the start of the sentence after it ("4.1 Wikipedia Data
    Pre-processing Following ..."): the start line and the lines on its row ("4.1" beside
    "Wikipedia ..."), when they spell the heading's title (an outline entry placed on the
    first body line below its point does not)."""
    i = start.line_index
    if i >= len(lines):
        return
    title = _norm(start.section.title)
    row = [lines[i]]
    while i + len(row) < len(lines):
        nxt = lines[i + len(row)]
        if nxt.page != row[-1].page or abs(nxt.y1 - row[-1].y1) > 2 or nxt.x0 < row[-1].x1 - 1:
            break
        row.append(nxt)
    said = _norm(" ".join(ln.text for ln in row))
    near = len(said) <= len(title) + 6  # a number or a footnote mark more, no body text
    if title and said and (title.startswith(said) or near and title in said):
        for ln in row:
            ln.heading = True


def _windows(
    counts: list[int], params: ChunkParams, para_end: list[bool] | None = None
) -> list[tuple[int, int]]:
    """Greedy runs [i, j) of sentences with ~target words and a sentence overlap.

    When a run could end at a paragraph end without dropping below 60% of the target,
    it ends there rather than mid-paragraph.
    """
    n = len(counts)
    ends = para_end or [False] * n
    out: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j, words = i, 0
        while j < n and (j == i or words < params.target_words):
            if j > i and words + counts[j] > params.max_words:
                break
            words += counts[j]
            j += 1
        rest = sum(counts[j:])
        if j < n and rest < params.min_words and words + rest <= params.max_words:
            j = n
        if j < n and not ends[j - 1]:
            k, kw = j - 1, words - counts[j - 1]
            while k > i and kw >= 0.6 * params.target_words:
                if ends[k - 1]:
                    j = k
                    break
                k -= 1
                kw -= counts[k]
        out.append((i, j))
        if j >= n:
            break
        k, ov = j, 0
        while (
            k - 1 > i
            and j - k < params.overlap_sentences
            and ov + counts[k - 1] <= params.overlap_words
        ):
            k -= 1
            ov += counts[k]
        i = k
    return out


def _units(text: str, max_chars: int) -> tuple[list[tuple[int, int]], list[bool]]:
    """Sentence spans, also cut at block boundaries (newlines: headings, paragraphs, list
    items), and whether each one ends a block."""
    spans: list[tuple[int, int]] = []
    for s, e in sentence_spans(text, max_chars=max_chars):
        nl = text.find("\n", s, e)
        while nl >= 0:
            if nl > s:
                spans.append((s, nl))
            s = nl + 1
            nl = text.find("\n", s, e)
        if e > s:
            spans.append((s, e))
    n = len(text)
    ends = [e >= n or text[e] == "\n" for _, e in spans]
    return spans, ends


def _slice_map(rows: np.ndarray, cs: int, ce: int) -> np.ndarray:
    """Rows of the characters [cs, ce), clipped and shifted to chunk offsets."""
    lo = int(np.searchsorted(rows[:, 1], cs, side="right"))
    hi = int(np.searchsorted(rows[:, 0], ce, side="left"))
    sel = rows[lo:hi].copy()
    for r in (sel[:1], sel[-1:]):  # only the ends can be cut mid-word
        for row in r:
            s, e = row[0], row[1]
            if s >= cs and e <= ce:
                continue
            n = max(e - s, 1.0)
            ns, ne = max(s, cs), min(e, ce)
            x0, x1 = row[3], row[5]
            row[3], row[5] = x0 + (x1 - x0) * (ns - s) / n, x0 + (x1 - x0) * (ne - s) / n
            row[0], row[1] = ns, ne
    sel[:, 0] -= cs
    sel[:, 1] -= cs
    return sel


def _with_header(seg: Segment, tables: list[Table], cs: int, ce: int) -> tuple[str, np.ndarray]:
    """The chunk's text and map; a chunk that starts inside a table, past its header line,
    begins with a copy of that line (mapped to where the header is printed), so its rows
    say what their cells are (see app.ingest.table_rows)."""
    rows = _slice_map(seg.rows, cs, ce)
    table = header_for(tables, cs)
    if table is None or len(rows) == 0:
        return seg.text[cs:ce], rows
    head = _slice_map(seg.rows, table.header_start, table.header_end)
    prefix = seg.text[table.header_start : table.header_end] + "\n"
    body = rows.copy()
    body[:, 0] += len(prefix)
    body[:, 1] += len(prefix)
    return prefix + seg.text[cs:ce], np.concatenate([head, body])


LIST_ITEM_WORDS = 60  # a longer block is a paragraph, not a list item
MIN_LIST_ITEMS = 2


def find_lists(
    text: str, spans: list[tuple[int, int]], ends: list[bool], counts: list[int]
) -> list[Table]:
    """Lists of a segment, each as a :class:`Table` whose "header" is the sentence that
    introduces it: a block ending in a colon followed by at least ``MIN_LIST_ITEMS`` blocks
    (an item is a line or block of its own, of one or more sentences) of at most
    ``LIST_ITEM_WORDS`` words. The list ends at the first longer block or at the next
    introduction."""
    blocks: list[tuple[int, int, int]] = []  # (first unit, last unit, words)
    first, words = 0, 0
    for k, end in enumerate(ends):
        words += counts[k]
        if end:
            blocks.append((first, k, words))
            first, words = k + 1, 0
    out: list[Table] = []
    b, n = 0, len(blocks)
    while b < n:
        i, last, _ = blocks[b]
        s, e = spans[i][0], spans[last][1]
        if not text[s:e].rstrip().endswith(":"):
            b += 1
            continue
        c = b + 1
        while c < n and blocks[c][2] <= LIST_ITEM_WORDS:
            u, v, _ = blocks[c]
            if text[spans[u][0] : spans[v][1]].rstrip().endswith(":"):
                break  # the next list's own introduction
            c += 1
        if c - b - 1 >= MIN_LIST_ITEMS:
            out.append(Table(s, e, spans[blocks[c - 1][1]][1]))
            b = c
        else:
            b += 1
    return out


def chunk_segments(doc_id: str, segs: list[Segment], params: ChunkParams) -> list[Chunk]:
    chunks: list[Chunk] = []
    for seg in segs:
        text = seg.text
        spans, para_end = _units(text, params.max_sentence_chars)
        if not spans:
            continue
        tables = find_tables(seg.rows, seg.text)
        starts = seg.rows[:, 0]
        bounds = np.array(spans, dtype=np.float64)
        lo = np.searchsorted(starts, bounds[:, 0], side="left")
        hi = np.searchsorted(starts, bounds[:, 1], side="left")
        counts = [max(int(c), 1) for c in (hi - lo)]
        if params.list_intros:
            tables = sorted(
                tables + find_lists(text, spans, para_end, counts), key=lambda t: t.header_start
            )
        for i, j in _windows(counts, params, para_end):
            cs, ce = spans[i][0], spans[j - 1][1]
            chunk_text, rows = _with_header(seg, tables, cs, ce)
            if len(rows) == 0:
                continue
            ordinal = len(chunks)
            chunks.append(
                Chunk(
                    chunk_id=Chunk.make_id(doc_id, ordinal),
                    doc_id=doc_id,
                    ordinal=ordinal,
                    page_start=int(rows[:, 2].min()),
                    page_end=int(rows[:, 2].max()),
                    section=seg.path,
                    text=chunk_text,
                    charmap=CharMap(rows),
                )
            )
    return chunks
