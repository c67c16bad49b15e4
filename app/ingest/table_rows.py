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


def _lines_and_cells(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each word row: its visual line number, and whether it starts a cell. Vectorised:
    this runs over every word of every page at ingestion (~10 ms per 500 pages).

    A new visual line starts on a new page, at a baseline that moves by half a word height, or
    when x goes back; a new cell at a gap of ``GAP`` word heights (``MIN_GAP`` points at least).
    """
    n = len(rows)
    mid = (rows[:, 4] + rows[:, 6]) / 2
    height = np.maximum(rows[:, 6] - rows[:, 4], 1.0)
    new_line = np.ones(n, dtype=bool)
    new_line[1:] = (
        (rows[1:, 2] != rows[:-1, 2])
        | (np.abs(mid[1:] - mid[:-1]) >= 0.5 * np.maximum(height[1:], height[:-1]))
        | (rows[1:, 3] < rows[:-1, 3])
    )
    gap = np.zeros(n)
    gap[1:] = rows[1:, 3] - rows[:-1, 5]
    cell = new_line | (gap > np.maximum(MIN_GAP, GAP * height))
    return np.cumsum(new_line) - 1, cell


def _matches(x: float, columns: list[float]) -> bool:
    return any(abs(x - c) <= ALIGN for c in columns)


def _header_cells(rows: np.ndarray, cell: np.ndarray, text: str) -> list[list[str]]:
    cells: list[list[str]] = []
    for r, starts in zip(rows, cell, strict=True):
        word = text[int(r[0]) : int(r[1])]
        if starts or not cells:
            cells.append([word])
        else:
            cells[-1].append(word)
    return cells


def _reads_like_header(cells: list[list[str]]) -> bool:
    words = [w for ws in cells for w in ws]
    first = cells[0][0] if cells and cells[0] else ""
    return (
        first[:1].isalpha()
        and all(len(ws) <= MAX_HEADER_CELL_WORDS for ws in cells)
        and not any(w.startswith("\\") for w in words)
    )


def find_tables(rows: np.ndarray, text: str) -> list[Table]:
    """Tables of a segment, from its text and character-map rows (start, end, page, x0, y0,
    x1, y1, key), that have a header line."""
    if len(rows) == 0:
        return []
    line_of, cell = _lines_and_cells(rows)
    bounds = np.flatnonzero(np.r_[True, line_of[1:] != line_of[:-1], True])
    cell_idx = np.flatnonzero(cell)
    per_line = np.split(rows[cell_idx, 3], np.searchsorted(cell_idx, bounds[1:-1]))
    starts = [xs.tolist() for xs in per_line]
    tables: list[Table] = []
    i, n_lines = 0, len(starts)
    while i < n_lines:
        if len(starts[i]) < 2:
            i += 1
            continue
        columns = list(starts[i])
        j, celled = i + 1, 1
        while j < n_lines:
            s = starts[j]
            hits = sum(_matches(x, columns) for x in s)
            if hits == len(s) or (len(s) >= 2 and hits >= 2):
                columns += [x for x in s if not _matches(x, columns)]
                celled += len(s) >= 2
                j += 1
            else:
                break
        a, b = bounds[i], bounds[i + 1]
        if celled >= MIN_ROWS and _reads_like_header(_header_cells(rows[a:b], cell[a:b], text)):
            tables.append(Table(int(rows[a, 0]), int(rows[b - 1, 1]), int(rows[bounds[j] - 1, 1])))
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
