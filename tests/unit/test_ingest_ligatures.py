"""Ligatures of old TeX bitmap (Type3) fonts: the pieces MuPDF splits a word into are joined.

Unit tests of :func:`app.ingest.layout.join_ligature_pieces` on MuPDF-shaped word tuples and
``dict`` blocks; the whole path through a real Type3 PDF is in ``test_ingest_pdf``."""

from __future__ import annotations

import pytest

from app.ingest._mupdf import pymupdf
from app.ingest.layout import (
    OT1_LIGATURES,
    T1_LIGATURES,
    has_type3_font,
    join_ligature_pieces,
    ligature_table,
)
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit


def _line(text: str, words: list[str], *, block: int = 0, line: int = 0) -> tuple[list, dict]:
    """Word tuples laid 10 pt apart on one line, and the ``dict`` block that spells it."""
    out = [(10.0 * k, 0.0, 10.0 * k + 8, 10.0, w, block, line, k) for k, w in enumerate(words)]
    return out, {"type": 0, "lines": [{"spans": [{"text": text}]}]}


def test_pieces_are_joined_at_the_code_between_them() -> None:
    words, block = _line("a modi\x1ced \x1crst o\x1b", ["a", "modi", "ed", "rst", "o"])
    out = join_ligature_pieces(words, [block])
    assert [w[4] for w in out] == ["a", "modified", "first", "off"]
    assert [w[7] for w in out] == [0, 1, 2, 3]  # numbered anew within the line
    modified = out[1]
    assert modified[0] == words[1][0] and modified[2] == words[2][2]  # both pieces' box
    first = out[2]
    assert first[0] < words[3][0] and first[2] == words[3][2]  # widened for the "fi"


def test_a_line_whose_cut_differs_from_its_words_is_left_as_it_is() -> None:
    """Nothing is joined on a guess: the block must cut into exactly the words given."""
    words, block = _line("a modi\x1ced", ["a", "modi", "ed", "extra"])
    assert join_ligature_pieces(words, [block]) == words


def test_lines_without_codes_and_other_blocks_pass_through() -> None:
    plain, block = _line("plain words here", ["plain", "words", "here"])
    image = {"type": 1}
    assert join_ligature_pieces(plain, [block, image]) == plain


def test_only_the_lines_with_codes_change() -> None:
    first, b0 = _line("speci\x1ced", ["speci", "ed"], block=0)
    second, b1 = _line("untouched text", ["untouched", "text"], block=1)
    out = join_ligature_pieces(first + second, [b0, b1])
    assert [w[4] for w in out] == ["specified", "untouched", "text"]


def test_the_encoding_is_the_one_whose_ligatures_the_words_hold() -> None:
    """0x1C is "fi" in T1 and "ø" in OT1: the page's in-word codes decide."""
    assert ligature_table(["modi\x1ced", "\x1dow"]) is T1_LIGATURES
    assert ligature_table(["de\x0cned", "e\x0bect", "K\x1cbenhavn"]) is OT1_LIGATURES
    assert OT1_LIGATURES["\x1c"] == "\u00f8" and T1_LIGATURES["\x1c"] == "fi"


def test_a_code_standing_alone_is_no_ligature() -> None:
    """A math italic α (0x0B) between spaces touches no word and is left out, as before."""
    words, block = _line("let \x0b be", ["let", "be"])
    assert join_ligature_pieces(words, [block]) == words


def test_type3_fonts_are_told_from_others(tmp_path) -> None:  # type: ignore[no-untyped-def]
    dvips = pymupdf.open(pf.make_type3_ligature_pdf(tmp_path / "dvips.pdf"))
    assert has_type3_font(dvips[0])
    manual = pymupdf.open(pf.make_no_outline_pdf(tmp_path / "plain.pdf"))
    assert not has_type3_font(manual[0])
