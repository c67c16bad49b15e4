"""Where a segment's tables are, so a chunk that starts inside one can carry its header row.

Why: a table longer than a chunk is cut between rows (rows stay whole), and the chunks after
the first then hold rows without the header that says what their cells mean ("FLD23 231-240
Amount ..." without "Field Positions Description"): a question naming a column finds the
wrong chunk, and a quoted row cannot show its header. A table here is a run of visual lines
whose cells start at the same x positions (a gap of about a word height or more between
words starts a cell), at least ``MIN_ROWS`` of them with two or more cells; its first line
is the header, if it reads like one: every cell a few words, the first starting with a letter,
none with a backslash. Prose has one cell per line, and the odd wide gap of justified prose does
not line up over three lines; numbered code listings, tables of contents and indexes do line
up, but their first line is no header ("103 % \\@lastchclass", "1 Introduction 1",
"\\qed, 4"), and a copy of it would only mislead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_ROWS = 3  # lines with two or more aligned cells
ALIGN = 3.0  # points: cell starts this close are the same column
GAP = 0.9  # a gap of this many word heights (at least MIN_GAP points) starts a cell
MIN_GAP = 6.0
MAX_HEADER_CELL_WORDS = 5


@dataclass(frozen=True)
class Table:
    """Character offsets in the segment text: the header line and the whole table."""

    header_start: int
    header_end: int
    end: int


def _visual_lines(rows: np.ndarray) -> list[np.ndarray]:
    """Word rows grouped into visual lines (same page, overlapping heights), in text order."""
    lines: list[np.ndarray] = []
    begin = 0
    for i in range(1, len(rows) + 1):
        if i < len(rows):
            a, b = rows[i - 1], rows[i]
            mid_a, mid_b = (a[4] + a[6]) / 2, (b[4] + b[6]) / 2
            height = max(a[6] - a[4], b[6] - b[4], 1.0)
            if b[2] == a[2] and abs(mid_b - mid_a) < 0.5 * height and b[3] >= a[3]:
                continue
        lines.append(rows[begin:i])
        begin = i
    return lines


def _cells(line: np.ndarray, text: str) -> list[tuple[float, list[str]]]:
    """(x where the cell starts, its words) for each cell of a visual line, left to right."""
    order = np.argsort(line[:, 3], kind="stable")
    x0, x1 = line[order, 3], line[order, 5]
    height = float(np.median(line[:, 6] - line[:, 4]))
    gap = max(MIN_GAP, GAP * height)
    cells: list[tuple[float, list[str]]] = []
    for k, i in enumerate(order):
        word = text[int(line[i, 0]) : int(line[i, 1])]
        if k == 0 or x0[k] - x1[k - 1] > gap:
            cells.append((float(x0[k]), [word]))
        else:
            cells[-1][1].append(word)
    return cells


def _reads_like_header(cells: list[tuple[float, list[str]]]) -> bool:
    words = [w for _, ws in cells for w in ws]
    first = cells[0][1][0] if cells and cells[0][1] else ""
    return (
        first[:1].isalpha()
        and all(len(ws) <= MAX_HEADER_CELL_WORDS for _, ws in cells)
        and not any(w.startswith("\\") for w in words)
    )


def _matches(x: float, columns: list[float]) -> bool:
    return any(abs(x - c) <= ALIGN for c in columns)


def find_tables(rows: np.ndarray, text: str) -> list[Table]:
    """Tables of a segment, from its text and character-map rows (start, end, page, x0, y0,
    x1, y1, key), that have a header line."""
    if len(rows) == 0:
        return []
    lines = _visual_lines(rows)
    cells = [_cells(line, text) for line in lines]
    starts = [[x for x, _ in c] for c in cells]
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        if len(starts[i]) < 2:
            i += 1
            continue
        columns = list(starts[i])
        j, celled = i + 1, 1
        while j < len(lines):
            s = starts[j]
            hits = sum(_matches(x, columns) for x in s)
            if hits == len(s) or (len(s) >= 2 and hits >= 2):
                columns += [x for x in s if not _matches(x, columns)]
                celled += len(s) >= 2
                j += 1
            else:
                break
        if celled >= MIN_ROWS and _reads_like_header(cells[i]):
            head = lines[i]
            tables.append(Table(int(head[0, 0]), int(head[-1, 1]), int(lines[j - 1][-1, 1])))
            i = j
        else:
            i += 1
    return tables


def header_for(tables: list[Table], start: int) -> Table | None:
    """The table whose body (past its header line) contains offset ``start``."""
    for t in tables:
        if t.header_end < start < t.end:
            return t
    return None
