"""Reading order of OCR'd words: rows, columns and paragraphs from word boxes alone.

Why: on a born-digital page MuPDF's blocks follow the order the text was drawn in, which
is the reading order (a two-column paper draws its left column first). OCR has no drawing
order: MuPDF joins the words of one height into one line right across the gutter, so a
two-column scan would read "left line 1, right line 1, left line 2 ...". Here words are
grouped into rows, rows are cut at wide gaps into segments, and when most rows split at
the same gutter into two wide halves the page is read column by column (full-width rows,
such as a title, stay where they are). Narrow cells (tables) never count as columns.

A row is split at the gutter word by word, not by its gap segments: on a real scan OCR
reads specks in a narrow (17 pt) gutter as lone marks (".", "_", "—") that bridge it, and
a row so bridged once read straight across both columns ("the development set of Natural
sages for all questions"). Lone marks are dropped, dirt glued to a word ("_to") is cut
off, and a row runs across only when a word covers the gutter's middle or the words either
side of it are closer than half the gutter's usual width.

The result is MuPDF's word tuple layout with new block and line numbers, so
:class:`~app.ingest.layout.PageExtractor` treats it like any other page.
"""

from __future__ import annotations

from statistics import median

WordTuple = tuple  # (x0, y0, x1, y1, text, block, line, word)


def _rows(words: list[WordTuple]) -> list[list[WordTuple]]:
    """Rows of words, top-down, each left to right: MuPDF's lines (which follow a slightly
    skewed baseline) joined with the lines beside them at the same height."""
    by_line: dict[tuple[int, int], list[WordTuple]] = {}
    for w in words:
        by_line.setdefault((w[5], w[6]), []).append(w)

    def mid(line: list[WordTuple]) -> float:
        return sum(w[1] + w[3] for w in line) / (2 * len(line))

    rows: list[tuple[float, float, list[WordTuple]]] = []  # (y0, y1, words)
    for line in sorted(by_line.values(), key=mid):
        m = mid(line)
        if rows and rows[-1][0] <= m <= rows[-1][1]:
            rows[-1][2].extend(line)
        else:
            rows.append((min(w[1] for w in line), max(w[3] for w in line), list(line)))
    return [sorted(r, key=lambda w: w[0]) for _, _, r in rows]


def _segments(row: list[WordTuple], gap: float) -> list[list[WordTuple]]:
    segs = [[row[0]]]
    for w in row[1:]:
        if w[0] - segs[-1][-1][2] > gap:
            segs.append([w])
        else:
            segs[-1].append(w)
    return segs


_NOISE = set(".,:;_'`\u2018\u2019\"|~\u2014-")
_DIRT = "_|~"


def _noise(w: WordTuple) -> bool:
    """A speck OCR read as a lone mark (".", ":", "_", "—"): in prose such marks cling to a
    word, so one standing alone is dirt on the scan or the grain of a justified line's wide
    gaps (an em dash between spaced words is lost with them)."""
    return all(c in _NOISE for c in w[4])


def _clean(w: WordTuple) -> WordTuple:
    """A word without dirt OCR glued to its ends ("_to"), its box shrunk to match."""
    text = w[4].strip(_DIRT)
    if text == w[4] or not text:
        return w
    per = (w[2] - w[0]) / len(w[4])
    lead = len(w[4]) - len(w[4].lstrip(_DIRT))
    x0 = w[0] + per * lead
    return (x0, w[1], x0 + per * len(text), w[3], text, *w[5:])


def _gutter(rows: list[list[WordTuple]], width: float, gap: float) -> tuple[float, float] | None:
    """(x, least gap) of a gutter where most rows split into two wide halves, or None. The
    x is the middle of the gaps that vote for it; the least gap is half their median width."""
    votes: dict[int, list[tuple[float, float]]] = {}
    for row in rows:
        segs = _segments(row, gap)
        for a, b in zip(segs, segs[1:], strict=False):
            g = (a[-1][2] + b[0][0]) / 2
            if 0.25 * width < g < 0.75 * width:
                votes.setdefault(round(g / 8), []).append((g, b[0][0] - a[-1][2]))
    if not votes:
        return None
    best = max(votes.values(), key=len)
    gutter = (median(g for g, _ in best), max(gap / 2, median(d for _, d in best) / 2))
    split = crossing = 0
    wide = []
    for row in rows:
        halves = _halves(row, gutter)
        if halves is None:
            crossing += 1
        elif halves[0] and halves[1]:
            split += 1
            left, right = halves
            wide.append(min(left[-1][2] - left[0][0], right[-1][2] - right[0][0]))
    if split < 3 or split < 2 * crossing or median(wide) < 0.2 * width:
        return None
    return gutter


def _halves(
    row: list[WordTuple], gutter: tuple[float, float]
) -> tuple[list[WordTuple], list[WordTuple]] | None:
    """A row's words left and right of the gutter, or None when the row runs across it: a
    word covers the gutter's middle, or the words either side of it are closer than the
    gutter's least gap (a title, a full-width line)."""
    x, least = gutter
    left = [w for w in row if (w[0] + w[2]) / 2 < x]
    right = [w for w in row if (w[0] + w[2]) / 2 >= x]
    if any(w[0] < x - 2 and w[2] > x + 2 for w in row):
        return None
    if left and right and right[0][0] - left[-1][2] < least:
        return None
    return left, right


def reading_order(words: list[WordTuple], width: float) -> list[WordTuple]:
    """Words in reading order with block/line numbers renumbered (see module docstring)."""
    words = [_clean(w) for w in words if not _noise(w)]
    if not words:
        return []
    height = median(w[3] - w[1] for w in words)
    rows = _rows(words)
    gutter = _gutter(rows, width, max(6.0, 1.2 * height))
    lines: list[list[WordTuple]] = []  # physical lines in reading order
    pending_left: list[list[WordTuple]] = []
    pending_right: list[list[WordTuple]] = []

    def flush() -> None:
        lines.extend(pending_left)
        lines.extend(pending_right)
        pending_left.clear()
        pending_right.clear()

    for row in rows:
        halves = None if gutter is None else _halves(row, gutter)
        if halves is None:
            flush()
            lines.append(row)
            continue
        left, right = halves
        if left:
            pending_left.append(left)
        if right:
            pending_right.append(right)
    flush()
    return _numbered(lines, height, None if gutter is None else gutter[0])


def _numbered(lines: list[list[WordTuple]], height: float, gutter: float | None) -> list[WordTuple]:
    """Block numbers change at a paragraph gap or a column change; lines count within."""
    out: list[WordTuple] = []
    block = line_no = 0
    prev: list[WordTuple] | None = None
    for ln in lines:
        if prev is not None:
            gap = min(w[1] for w in ln) - max(w[3] for w in prev)
            side = gutter is not None and (ln[0][0] >= gutter - 8) != (prev[0][0] >= gutter - 8)
            if gap > 0.9 * height or gap < -height or side:
                block += 1
                line_no = 0
            else:
                line_no += 1
        for i, w in enumerate(ln):
            out.append((w[0], w[1], w[2], w[3], w[4], block, line_no, i))
        prev = ln
    return out
