"""The PDF viewer on its own: page navigation, zoom, and highlight rectangles in page points."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from app.ui.pdf_viewer import PdfViewer

pytestmark = pytest.mark.gui


def _pdf(path: Path, pages: int = 6) -> Path:
    doc = pymupdf.open()
    for i in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 700), f"Marker sentence on page {i + 1}.", fontsize=12)
    doc.save(path)
    doc.close()
    return path


def test_show_evidence_scrolls_to_the_quote_and_keeps_its_rects(qtbot, tmp_path) -> None:
    pdf = _pdf(tmp_path / "six.pdf")
    v = PdfViewer()
    qtbot.addWidget(v)
    v.resize(700, 600)
    v.show()
    qtbot.waitExposed(v)
    with pymupdf.open(pdf) as d:
        hit = d[3].search_for("Marker sentence on page 4.")[0]
    rects = [(4, hit.x0, hit.y0, hit.x1, hit.y1)]
    v.show_evidence(pdf, rects, 4)
    assert v.current_doc == pdf and v.current_page == 4
    assert v.highlight_rects == rects
    # The quote is inside the visible area.
    c = v.canvas
    top = c.page_origin(3).y() + hit.y0 * c.zoom
    assert 0 <= top <= c.viewport().height()
    # Page box and zoom work and do not lose the highlight.
    v.page_box.setValue(2)
    assert v.current_page == 2
    z = c.zoom
    v.zoom_in()
    assert c.zoom > z and not c.fit_width
    v.fit()
    assert c.fit_width
    assert v.highlight_rects == rects
    # Another document shows no highlight from the first one.
    other = _pdf(tmp_path / "other.pdf", pages=2)
    v.open(other)
    assert v.current_doc == other and v.highlight_rects == []
    img = c.grab().toImage()
    assert not img.isNull()


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_highlight_on_a_rotated_page_covers_the_printed_words(qtbot, tmp_path, rotation) -> None:
    from tests import doc_factory as df

    pdf = df.make_rotated_pdf(tmp_path / "rotated.pdf")
    pno = list(df.ROTATED_SENTENCES).index(rotation) + 1
    with pymupdf.open(pdf) as d:
        hit = d[pno - 1].search_for(df.ROTATED_SENTENCES[rotation])[0]  # unrotated space
    v = PdfViewer()
    qtbot.addWidget(v)
    v.resize(700, 600)
    v.show()
    qtbot.waitExposed(v)
    v.show_evidence(pdf, [(pno, hit.x0, hit.y0, hit.x1, hit.y1)], pno)
    c = v.canvas
    w, h = c.sizes[pno - 1]
    assert (w > h) == (rotation in (90, 270))  # the page is laid out as shown
    _, x0, y0, x1, y1 = c.shown_rect((pno, hit.x0, hit.y0, hit.x1, hit.y1))
    assert x1 - x0 > 5 * (y1 - y0)  # a line of upright text, not a tall sideways box
    img = c._image(pno - 1)
    assert img is not None
    scale = img.width() / w
    dark = 0
    for xi in range(int(x0 * scale), int(x1 * scale), 2):
        for yi in range(int(y0 * scale), int(y1 * scale), 2):
            if img.pixelColor(xi, yi).lightness() < 100:
                dark += 1
    assert dark > 30  # the highlighted box holds the printed words on the rendered page
