"""Highlights on pages rotated by 90, 180 and 270 degrees land on the quoted words.

Chunk rectangles are in the unrotated page space (like ``page.search_for``); the viewer
shows pages turned by ``/Rotate`` and maps rectangles through ``page.rotation_matrix``.
Both halves are checked here: the stored rectangle is the quote's box, and turned by the
rotation matrix it lies where the sentence was printed on the page as shown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest import parse_pdf
from app.ingest._mupdf import pymupdf
from tests import doc_factory as df

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_quote_rects_on_rotated_pages(tmp_path: Path, rotation: int) -> None:
    path = df.make_rotated_pdf(tmp_path / "rotated.pdf")
    parsed = parse_pdf(path)
    sentence = df.ROTATED_SENTENCES[rotation]
    pno = list(df.ROTATED_SENTENCES).index(rotation) + 1
    chunk = next(c for c in parsed.chunks if sentence in c.text)
    start = chunk.text.index(sentence)
    rects = chunk.charmap.rects(start, start + len(sentence))
    assert len(rects) == 1 and rects[0].page == pno
    got = pymupdf.Rect(rects[0][1:])
    with pymupdf.open(path) as doc:
        page = doc[pno - 1]
        assert page.rotation == rotation
        (want,) = page.search_for(sentence)
        shown = got * page.rotation_matrix
    assert abs(got.x0 - want.x0) < 1 and abs(got.y0 - want.y0) < 1
    assert abs(got.x1 - want.x1) < 1 and abs(got.y1 - want.y1) < 1
    # as shown: a wide, flat box starting where the sentence was printed
    assert shown.width > 5 * shown.height
    assert abs(shown.x0 - df.ROTATED_AT[0]) < 2
    assert df.ROTATED_AT[1] - 2 < shown.y0 < df.ROTATED_AT[1] + 14
