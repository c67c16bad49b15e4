"""Reading order of OCR'd words: rows, columns and paragraphs from word boxes alone.

Why: on a born-digital page MuPDF's blocks follow the order the text was drawn in, which
is the reading order (a two-column paper draws its left column first). OCR has no drawing
order: MuPDF joins the words of one height into one line right across the gutter, so a
two-column scan would read "left line 1, right line 1, left line 2 ...". Here words are
grouped into rows, rows are cut at wide gaps into segments, and when most rows split at
the same gutter into two wide halves the page is read column by column (full-width rows,
such as a title, stay where they are). Narrow cells (tables) never count as columns.

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


def _gutter(rows: list[list[list[WordTuple]]], width: float) -> float | None:
    """An x where most rows split into two wide halves, or None."""
    votes: dict[int, int] = {}
    for segs in rows:
        for a, b in zip(segs, segs[1:], strict=False):
            g = (a[-1][2] + b[0][0]) / 2
            if 0.25 * width < g < 0.75 * width:
                votes[round(g / 8)] = votes.get(round(g / 8), 0) + 1
    if not votes:
        return None
    best = max(votes, key=lambda k: votes[k]) * 8.0
    split = crossing = 0
    wide = []
    for segs in rows:
        left = [s for s in segs if s[-1][2] <= best + 8]
        right = [s for s in segs if s[0][0] >= best - 8]
        if len(left) + len(right) == len(segs) and left and right:
            split += 1
            wide.append(min(left[-1][-1][2] - left[0][0][0], right[-1][-1][2] - right[0][0][0]))
        elif len(left) + len(right) < len(segs):
            crossing += 1
    if split < 3 or split < 2 * crossing or median(wide) < 0.2 * width:
        return None
    return best


def reading_order(words: list[WordTuple], width: float) -> list[WordTuple]:
    """Words in reading order with block/line numbers renumbered (see module docstring)."""
    if not words:
        return []
    height = median(w[3] - w[1] for w in words)
    rows = [_segments(r, max(6.0, 1.2 * height)) for r in _rows(words)]
    gutter = _gutter(rows, width)
    lines: list[list[WordTuple]] = []  # physical lines in reading order
    pending_left: list[list[WordTuple]] = []
    pending_right: list[list[WordTuple]] = []

    def flush() -> None:
        lines.extend(pending_left)
        lines.extend(pending_right)
        pending_left.clear()
        pending_right.clear()

    for segs in rows:
        if gutter is None:
            lines.append([w for s in segs for w in s])
            continue
        left = [w for s in segs if s[-1][2] <= gutter + 8 for w in s]
        right = [w for s in segs if s[0][0] >= gutter - 8 for w in s]
        if len(left) + len(right) < sum(len(s) for s in segs):  # spans the gutter
            flush()
            lines.append([w for s in segs for w in s])
            continue
        if left:
            pending_left.append(left)
        if right:
            pending_right.append(right)
    flush()
    return _numbered(lines, height, gutter)


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
