"""End to end through the window: drop PDFs, watch them ingest, ask, hover and click a chip.

Real services throughout: LanceDB in tmp_path, the embedded embedder and chat model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from app.core.progress import Progress
from app.ui import render
from app.ui.answer_card import preview
from app.ui.history import history_path, load_history
from app.validation.support import neighbour_candidates
from tests.gui.conftest import center, drop_files, wait_ingested, wait_ready
from tests.pdf_factory import MANUAL_FACTS, MANUAL_TITLE

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def _overlap(a: tuple[float, float, float, float], b: pymupdf.Rect) -> float:
    """Intersection area over the smaller rectangle's area."""
    x0, y0 = max(a[0], b.x0), max(a[1], b.y0)
    x1, y1 = min(a[2], b.x1), min(a[3], b.y1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), b.width * b.height)
    return (x1 - x0) * (y1 - y0) / smaller if smaller > 0 else 0.0


def test_empty_state_says_what_to_do(qtbot, window) -> None:
    lib = window.library
    # "Opening your library…" until the list is read, then the empty state (issue 12).
    qtbot.waitUntil(lambda: lib.stack.currentWidget() is lib.drop_zone, timeout=60_000)
    assert lib.drop_zone.add_button.isVisible()
    assert "Drop PDFs here" in [w.text() for w in lib.drop_zone.findChildren(type(lib.scope))]
    assert window.act_add.shortcut().toString() == "Ctrl+O"


def test_drop_ingest_ask_hover_click(qtbot, window, gui_pdfs) -> None:
    manual: Path = gui_pdfs["manual"]
    seen: list[Progress] = []
    drop_files(window, [manual])
    assert window.ingest_job is not None, "the drop must start an import"
    window.ingest_job.signals.progress.connect(seen.append)
    assert window.imports.isVisible()
    wait_ingested(qtbot, window)

    assert any(p.stage == "parse" and p.total == 5 for p in seen), "per-page progress"
    row = window.imports.rows[str(manual.resolve())]
    assert row.bar.value() == 1000 and "Added" in row.state.text()
    wait_ready(qtbot, window, 1)
    doc = window.library.documents[0]
    assert doc.title == MANUAL_TITLE and doc.pages == 5
    # once warmed up, the library's words are embedded in the background (warm_words)
    asker, lib = window.session.asker, window.session.library
    assert asker is not None and lib is not None
    words = neighbour_candidates(lib.common_words(200), "en")  # not "the", "and"
    assert "zephyr" in words
    embed = asker._embed()
    assert embed is not None
    qtbot.waitUntil(lambda: not embed.unknown(words), timeout=60_000)
    assert "zephyr-manual.pdf · 5 pages · Ready" in window.library.list.item(0).data(
        Qt.ItemDataRole.UserRole + 2
    )

    # Ask with Enter; the text must stream before the answer completes.
    fact = MANUAL_FACTS["calibration"]
    streamed: list[str] = []
    box = window.conversation.input
    box.setPlainText(fact.question)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = window.conversation.active
    assert card is not None and window.conversation.running
    original = card.append_raw

    def spy(text: str) -> None:
        if text and card.state == "streaming":
            streamed.append(text)
        original(text)

    card.append_raw = spy  # type: ignore[method-assign]
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=180_000)
    assert card.state == "complete", card.status.text()
    answer = card.answer
    assert answer is not None
    assert streamed, "tokens were shown while the answer was being written"
    assert answer.kind in ("generated", "extractive"), answer.answer
    assert card.chips, "a grounded answer shows citation chips"
    assert "cite:" in card.body.toHtml()
    n = int(card.chips[0].property("citation_n"))
    cit = next(c for c in answer.citations if c.n == n)
    # Chips are numbered 1, 2… in reading order whatever the source numbers were.
    assert card.chips[0].accessibleName() == f"Citation 1: zephyr-manual.pdf, page {cit.page}"
    assert card.status.text(), "a status line in plain words"
    meaning = render.status_tooltip(answer)  # what the status rests on, on hover
    assert meaning and meaning in card.status.toolTip()
    assert window.sources.list.count() == len(answer.sources)

    # Hover shows the exact quote with file and page.
    qtbot.mouseMove(card.chips[0], center(card.chips[0]))
    qtbot.waitUntil(lambda: preview().isVisible(), timeout=5000)
    text = preview().label.text()
    assert cit.quote[:40].replace("&", "&amp;") in text and "page" in text
    assert cit.quote.strip() and cit.rects

    # Click opens the PDF at the page with exactly the quote highlighted.
    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    viewer = window.viewer
    qtbot.waitUntil(lambda: viewer.current_doc is not None, timeout=5000)
    assert viewer.current_doc.resolve() == manual.resolve()
    first_page = cit.rects[0][0]
    assert viewer.current_page == first_page == cit.page
    cited_rects = [tuple(r) for c in answer.citations if c.n == n for r in c.rects]
    assert viewer.highlight_rects == cited_rects
    with pymupdf.open(manual) as pdf:
        words = re.sub(r"\s+", " ", cit.quote).split(" ")
        needle = " ".join(words[:4])
        hits = pdf[first_page - 1].search_for(needle)
    assert hits, f"the quote start {needle!r} is printed on page {first_page}"
    r0 = cited_rects[0]
    assert any(_overlap(r0[1:], h) > 0.5 for h in hits), (r0, hits)
    assert (
        viewer.canvas.verticalScrollBar().value()
        <= viewer.canvas.tops[first_page - 1] + r0[2] * viewer.canvas.zoom
    )

    # Copy as Markdown: citations become footnotes with file, page and quote.
    window.copy_last_answer()
    md = QGuiApplication.clipboard().text()
    assert f"[^{n}]: zephyr-manual.pdf, page {cit.page}:" in md and cit.quote in md

    # History persists as Answer dumps.
    saved = json.loads(history_path(window.session.settings.library).read_text())
    assert saved["answers"][-1]["question"] == fact.question
    assert load_history(window.session.settings.library)[-1].citations == answer.citations
