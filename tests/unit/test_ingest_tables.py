"""Column-wise tables are read row by row; prose columns and row-wise tables are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest.pdf import parse_pdf
from app.ingest.tables import table_rows
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit

HEADER = pf.RECORD_HEADER
ROWS = pf.RECORD_ROWS[:4]


def _words(cells: list[tuple[float, float, str, int, int]]) -> list[tuple]:
    """Word tuples (x0, y0, x1, y1, text, block, line, word) from (x, y, text, block, line)."""
    out = []
    for x, y, text, block, line in cells:
        for i, word in enumerate(text.split()):
            out.append((x + 30 * i, y, x + 30 * i + 25, y + 10, word, block, line, i))
    return out


def _column_wise() -> list[tuple]:
    """One block per column, as MuPDF makes of cells drawn column by column."""
    cells = []
    for c, x in enumerate((72, 160, 220, 290)):
        for r, row in enumerate([HEADER, *ROWS]):
            cells.append((x, 140 + 14 * r, row[c], c + 1, r))
    return _words([(72, 100, "Fields of the record", 0, 0), *cells])


def test_column_wise_table_becomes_rows_in_reading_order() -> None:
    words = table_rows(_column_wise())
    lines: dict[tuple[int, int], list[str]] = {}
    for w in words:
        lines.setdefault((w[5], w[6]), []).append(w[4])
    texts = [" ".join(ws) for ws in lines.values()]
    assert texts[0] == "Fields of the record"
    assert texts[1] == "Field Start Length Content"
    assert texts[2] == "RECTYPE 1 2 Record type, always 07"
    assert texts[-1] == "GROSSPAY 18 11 Gross pay in pence"
    assert sorted(w[4] for w in words) == sorted(w[4] for w in _column_wise())  # nothing lost


def test_prose_columns_and_row_wise_tables_are_untouched() -> None:
    prose = " ".join(["word"] * 9)
    two_columns = _words(
        [(60, 100 + 14 * r, prose, 0, r) for r in range(5)]
        + [(320, 100 + 14 * r, prose, 1, r) for r in range(5)]
    )
    assert table_rows(two_columns) is two_columns
    row_wise = _words(
        [(72 + 90 * c, 140 + 14 * r, row[c], r, c) for r, row in enumerate(ROWS) for c in range(4)]
    )
    assert table_rows(row_wise) is row_wise


def test_parsed_pdf_keeps_each_table_row_whole(tmp_path: Path) -> None:
    """A real PDF whose table is drawn column by column: every row is one line of a chunk."""
    path = pf.make_column_wise_table_pdf(tmp_path / "layout.pdf", ROWS)
    text = "\n".join(c.text for c in parse_pdf(path).chunks)
    assert "Field Start Length Content\nRECTYPE 1 2 Record type, always 07\n" in text
    assert "PERIOD 12 6 Tax month as YYYYMM" in text
