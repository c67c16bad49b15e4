"""Table rows kept whole: cells that MuPDF grouped by column are regrouped into rows.

Why: when a table's cells are drawn column by column, or sit close enough above each other,
MuPDF makes one block per column, so the text reads "all names, then all sizes, then all
types" and a chunk holds a jumble of cells no question can match. A page whose blocks stand
side by side with short lines on shared baselines is such a table; its words are renumbered so
that each visual row becomes one block of one line, left to right, top to bottom (the header
row first). Ordinary two-column text has long lines and is left alone, as are tables MuPDF
already reads row by row (one block per row).

PyMuPDF's ``find_tables`` would also find ruled tables, but costs 0.1-0.5 s per page, far over
the ingestion budget of ~10 ms per page; this works from the word boxes MuPDF already gave.
"""

from __future__ import annotations

import logging
from statistics import median

logger = logging.getLogger(__name__)

WordTuple = tuple  # (x0, y0, x1, y1, text, block, line, word)

MAX_CELL_WORDS = 5  # median words per line of a table column (prose lines have ~8-15)
MIN_ROWS = 3  # lines per column, and baselines shared by side-by-side columns
SHARED = 0.6  # share of the shorter column's lines on a baseline of the other
WIDE = 0.3  # of the page's text width: at most one column of a table is this wide (prose)
ROW_BLOCK_BASE = 100_000  # new block numbers, clear of MuPDF's


def _mid(w: WordTuple) -> float:
    return (w[1] + w[3]) / 2


def _block_lines(words: list[WordTuple]) -> dict[int, dict[int, list[WordTuple]]]:
    blocks: dict[int, dict[int, list[WordTuple]]] = {}
    for w in words:
        blocks.setdefault(w[5], {}).setdefault(w[6], []).append(w)
    return blocks


def _columnar(lines: dict[int, list[WordTuple]]) -> bool:
    """A block that looks like a table column: several short lines, each on its own row (a
    block with two lines side by side is already read row by row)."""
    if len(lines) < MIN_ROWS or median(len(ws) for ws in lines.values()) > MAX_CELL_WORDS:
        return False
    mids = sorted(median(_mid(w) for w in ws) for ws in lines.values())
    height = median(w[3] - w[1] for ws in lines.values() for w in ws)
    return all(b - a > 0.5 * height for a, b in zip(mids, mids[1:], strict=False))


def _box(lines: dict[int, list[WordTuple]]) -> tuple[float, float, float, float]:
    ws = [w for line in lines.values() for w in line]
    return (
        min(w[0] for w in ws),
        min(w[1] for w in ws),
        max(w[2] for w in ws),
        max(w[3] for w in ws),
    )


def _shared_baselines(a: dict[int, list[WordTuple]], b: dict[int, list[WordTuple]]) -> int:
    mids_b = [median(_mid(w) for w in ws) for ws in b.values()]
    count = 0
    for ws in a.values():
        m = median(_mid(w) for w in ws)
        h = median(w[3] - w[1] for w in ws)
        if any(abs(m - mb) < 0.35 * h for mb in mids_b):
            count += 1
    return count


def _tables(blocks: dict[int, dict[int, list[WordTuple]]]) -> list[list[int]]:
    """Groups of block numbers that form one column-wise table (two or more columns).

    Side-by-side prose columns, a two-column index and code printed beside its output are
    not tables: their columns are wide, so a group may hold only one wide column.
    """
    cols = [b for b, lines in blocks.items() if _columnar(lines)]
    boxes = {b: _box(blocks[b]) for b in cols}
    every = [_box(lines) for lines in blocks.values()]
    text_width = max(b[2] for b in every) - min(b[0] for b in every)
    parent = {b: b for b in cols}

    def find(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for i, a in enumerate(cols):
        ax0, ay0, ax1, ay1 = boxes[a]
        for b in cols[i + 1 :]:
            bx0, by0, bx1, by1 = boxes[b]
            side_by_side = ax1 <= bx0 + 1 or bx1 <= ax0 + 1
            overlap = min(ay1, by1) - max(ay0, by0)
            if not side_by_side or overlap <= 0.5 * min(ay1 - ay0, by1 - by0):
                continue
            shorter = min(len(blocks[a]), len(blocks[b]))
            shared = _shared_baselines(blocks[a], blocks[b])
            if shared >= max(MIN_ROWS, SHARED * shorter):
                parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for b in cols:
        groups.setdefault(find(b), []).append(b)

    def wide(b: int) -> bool:
        return boxes[b][2] - boxes[b][0] >= WIDE * text_width

    return [sorted(g) for g in groups.values() if len(g) >= 2 and sum(map(wide, g)) <= 1]


def _rows(words: list[WordTuple]) -> list[list[WordTuple]]:
    """Words grouped into visual rows (by vertical centre), top-down, each left to right."""
    rows: list[tuple[float, float, list[WordTuple]]] = []
    for w in sorted(words, key=_mid):
        m = _mid(w)
        if rows and rows[-1][0] <= m <= rows[-1][1]:
            rows[-1][2].append(w)
        else:
            rows.append((w[1], w[3], [w]))
    return [sorted(r, key=lambda w: w[0]) for _, _, r in rows]


def table_rows(words: list[WordTuple]) -> list[WordTuple]:
    """Words of a born-digital page, with column-wise tables renumbered row by row.

    Returns ``words`` itself when the page has no such table (the common case costs one pass
    over the words).
    """
    if len(words) < 4:
        return words
    blocks = _block_lines(words)
    if len(blocks) < 2:
        return words
    tables = _tables(blocks)
    if not tables:
        return words
    out: list[WordTuple] = []
    done: set[int] = set()
    table_of = {b: i for i, group in enumerate(tables) for b in group}
    next_block = ROW_BLOCK_BASE
    for w in words:
        b = w[5]
        if b not in table_of:
            out.append(w)
            continue
        t = table_of[b]
        if t in done:
            continue
        done.add(t)
        members = set(tables[t])
        for row in _rows([x for x in words if x[5] in members]):
            for i, x in enumerate(row):
                out.append((x[0], x[1], x[2], x[3], x[4], next_block, 0, i))
            next_block += 1
    logger.debug("regrouped %d column-wise table(s) into rows", len(tables))
    return out
