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
