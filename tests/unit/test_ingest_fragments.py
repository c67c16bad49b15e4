"""What an extractive answer may quote: never a heading glued to the sentence under it, a
sentence cut at "Dec.", a footnote mark read as a digit of a number, or a rupee sign read
as a backtick (issue 36 item 3); and sections of a paper without an outline (item 5).

Real PDFs from tests/pdf_factory.py, parsed by the app's ingest path; the quotable sentences
are the ones a prompt offers (``sentence_units``).
"""

from __future__ import annotations

import pytest

from app.core.text import split_sentences
from app.generation.prompt import sentence_units
from app.ingest import parse_pdf
from app.ingest.layout import _bold
from tests.pdf_factory import PAPER_HEADINGS, PAPER_SENTENCES, PAPER_TITLE, make_paper_pdf

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory):
    return parse_pdf(make_paper_pdf(tmp_path_factory.mktemp("paper") / "paper.pdf"))


def _quotable(parsed) -> list[str]:
    return [c.text[a:b] for c in parsed.chunks for a, b in sentence_units(c.text)]


def test_no_quotable_sentence_starts_with_a_heading(paper) -> None:
    quotable = _quotable(paper)
    assert PAPER_SENTENCES["dump"] in quotable, quotable
    for sentence in quotable:
        assert not any(sentence.startswith(h) for h in PAPER_HEADINGS), sentence
    text = "\n".join(c.text for c in paper.chunks)
    assert f"{PAPER_HEADINGS[2]}\nFollowing" in text


def test_a_month_abbreviation_before_a_day_ends_no_sentence() -> None:
    assert split_sentences("We use the dump from Dec. 20, 2018 as the source. It is big.") == [
        "We use the dump from Dec. 20, 2018 as the source.",
        "It is big.",
    ]


def test_footnote_marks_are_not_part_of_a_number_or_word(paper) -> None:
    quotable = _quotable(paper)
    assert PAPER_SENTENCES["age"] in quotable, quotable
    assert PAPER_SENTENCES["women"] in quotable, quotable
    text = " ".join(c.text for c in paper.chunks)
    assert "85.2" not in text and "women.2" not in text


def test_a_rupee_sign_drawn_as_a_backtick_is_read_as_rupees(paper) -> None:
    assert PAPER_SENTENCES["rupee"] in _quotable(paper)


def test_a_paper_without_outline_gets_sections_from_its_bold_headings(paper) -> None:
    assert paper.document.title == PAPER_TITLE
    got = [(s.title, s.level) for s in paper.sections]
    assert got == [(PAPER_HEADINGS[0], 1), (PAPER_HEADINGS[1], 1), (PAPER_HEADINGS[2], 2)], got
    by_text = {c.text.split("\n")[-1][:20]: c for c in paper.chunks}
    assert len(by_text) == len(paper.chunks) >= 2


@pytest.mark.parametrize(
    ("font", "bold"),
    [
        ("NimbusRomNo9L-Medi", True),
        ("ABCDEF+CMBX10", True),
        ("Inter-SemiBold", True),
        ("NimbusRomNo9L-Regu", False),
        ("CMR10", False),
        ("Mediaeval-Regular", False),
    ],
)
def test_bold_is_told_by_the_font_name_too(font: str, bold: bool) -> None:
    assert _bold({"flags": 0, "font": font}) is bold
