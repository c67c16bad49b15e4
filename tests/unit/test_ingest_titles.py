"""Titles people recognise: real metadata, else the first page's largest text (not a margin
stamp or a running header), else the file name; on PDFs shaped like real documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest import parse_pdf
from app.ingest._mupdf import pymupdf
from app.ingest.titles import real_metadata_title
from tests import doc_factory as df

pytestmark = pytest.mark.unit


def test_arxiv_paper_is_named_by_its_title_not_its_margin_stamp(tmp_path: Path) -> None:
    parsed = parse_pdf(df.make_arxiv_pdf(tmp_path / "2009.12345v1.pdf"))
    assert parsed.document.title == df.ARXIV_TITLE
    text = " ".join(c.text for c in parsed.chunks)
    assert "arXiv" not in text  # the stamp is page furniture, not the paper's text
    assert "constrained decoding removes invalid citations" in text
    assert all(df.ARXIV_TITLE not in c.section for c in parsed.chunks)


def test_brochure_is_named_by_its_cover_title_over_two_lines(tmp_path: Path) -> None:
    parsed = parse_pdf(df.make_brochure_pdf(tmp_path / "booklet.pdf"))
    assert parsed.document.title == df.BROCHURE_TITLE  # not "their families and friends"


def test_report_keeps_its_real_metadata_title(tmp_path: Path) -> None:
    parsed = parse_pdf(df.make_report_pdf(tmp_path / "report-final.pdf"))
    assert parsed.document.title == df.REPORT_TITLE


@pytest.mark.parametrize(
    ("meta", "real"),
    [
        ("Annual Report 2024", True),
        ("Microsoft Word - report_final.docx", False),
        ("booklet_v3_print.indd", False),
        ("arXiv:2009.12345v1", False),
        ("Untitled", False),
        ("  ", False),
        ("12", False),
    ],
)
def test_metadata_titles_that_name_nothing_are_ignored(meta: str, real: bool) -> None:
    assert (real_metadata_title(meta) is not None) is real


def _paper(path: Path, title_lines: list[str]) -> Path:
    """Page one of a vignette: a 17-pt title over lines, authors at 12 pt, body at 10 pt."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 120.0
    for line in title_lines:
        page.insert_text((90, y), line, fontsize=17)
        y += 22
    page.insert_text((90, y + 20), "Achim Zeileis", fontsize=12)
    body = "The problem of detecting structural changes in linear regression relationships."
    for k in range(8):
        page.insert_text((90, y + 60 + 13 * k), body, fontsize=10)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    "lines",
    [
        ["strucchange: An R Package for Testing for Structural", "Change in Linear Regression"],
        ["iPhone User Guide", "For iOS 17"],
        ["ggplot2 Reference Manual", "Version 3.5"],
    ],
    ids=["name-colon", "inner-capital", "digit"],
)
def test_a_title_may_begin_with_a_name_in_small_letters(tmp_path: Path, lines: list[str]) -> None:
    """A title line that starts with a small letter is skipped as a continuation, unless its
    first word is a name: "strucchange:" (R's vignettes), "iPhone", "ggplot2"."""
    parsed = parse_pdf(_paper(tmp_path / "vignette.pdf", lines))
    assert parsed.document.title == " ".join(lines)
