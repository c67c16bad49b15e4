"""A scanned PDF dropped on the window: OCR progress is shown, the file becomes searchable,
an answer cites its page, and clicking the chip highlights the OCR'd words on the page image.

Real services throughout (LanceDB in tmp_path, the embedded embedder and chat model, the
real OCR engine); the scan is rendered from known text (tests/scan_factory.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.progress import Progress
from tests.gui.conftest import drop_files, wait_ingested, wait_ready
from tests.scan_factory import make_scan_pdf

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_scanned_pdf_dropped_becomes_searchable_and_its_chip_highlights(
    qtbot, window, tmp_path: Path
) -> None:
    path, truth = make_scan_pdf(tmp_path / "scanned-minutes.pdf", pages=2, dpi=200, per_page=5)
    seen: list[Progress] = []
    drop_files(window, [path])
    assert window.ingest_job is not None
    window.ingest_job.signals.progress.connect(seen.append)
    wait_ingested(qtbot, window)
    row = window.imports.rows[str(path.resolve())]
    assert "Added" in row.state.text() and "2 read by OCR" in row.state.text()
    assert any(p.stage == "ocr" for p in seen), "OCR shows as its own stage"
    wait_ready(qtbot, window, 1)

    box = window.conversation.input
    box.setPlainText("In which year was the lighthouse keeper's logbook written?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = window.conversation.active
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=180_000)
    answer = card.answer
    assert answer is not None and card.chips, card.status.text()
    n = int(card.chips[0].property("citation_n"))
    cit = next(c for c in answer.citations if c.n == n)

    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    viewer = window.viewer
    qtbot.waitUntil(lambda: viewer.current_doc is not None, timeout=5000)
    assert viewer.current_doc.resolve() == path.resolve()
    assert viewer.current_page == cit.page
    assert viewer.highlight_rects == [tuple(r) for r in cit.rects]
    # The highlight lies on printed words of the page image: dark pixels inside it.
    c = viewer.canvas
    page, x0, y0, x1, y1 = c.shown_rect(tuple(cit.rects[0]))
    img = c._image(page - 1)
    assert img is not None
    scale = img.width() / c.sizes[page - 1][0]
    dark = sum(
        img.pixelColor(x, y).lightness() < 110
        for x in range(int(x0 * scale), int(x1 * scale), 2)
        for y in range(int(y0 * scale), int(y1 * scale), 2)
    )
    assert dark > 20
    # ...and on the words the quote names, as printed (ground truth of the rendered scan)
    printed = {w[4].strip(".,'") for w in truth[page - 1].words if w[1] < y1 and w[3] > y0}
    quoted = {w.strip(".,'") for w in cit.quote.split()}
    assert quoted & printed, (cit.quote, printed)
