"""An EPUB dropped on the window is imported, and its passage opens in the same viewer on the
PDF it was converted to, highlighted there (the rectangles were measured on that PDF)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.models import Answer, Source, Validation
from app.ui.main_window import MainWindow
from tests import format_factory as ff
from tests.gui.conftest import drop_files, wait_ingested

pytestmark = pytest.mark.gui


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_dropped_epub_opens_in_the_viewer_with_its_passage_highlighted(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    epub = ff.make_epub(tmp_path / "keeper.epub")
    drop_files(window, [epub])
    wait_ingested(qtbot, window)
    lib = window.session.library
    assert lib is not None
    (doc,) = lib.documents()
    assert doc.file == str(epub.resolve()) and doc.title == ff.EPUB_TITLE
    chunk = next(c for c in lib.store.chunks_of(doc.doc_id) if ff.EPUB_FACT in c.text)
    src = Source(
        rank=1, chunk_id=chunk.chunk_id, doc_id=doc.doc_id, file=doc.file, title=doc.title,
        page_start=chunk.page_start, page_end=chunk.page_end, section=chunk.section,
        score=1.0, text=chunk.text, n=1,
    )  # fmt: skip
    answer = Answer(
        question="q?", mode="refuse", kind="refusal", answer="", sources=[src],
        validation=Validation(status="RED"),
    )  # fmt: skip
    window.sources.show_answer(answer)
    rect = window.sources.list.visualItemRect(window.sources.list.item(0))
    qtbot.mouseClick(window.sources.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    shown = lib.view_file(doc)
    qtbot.waitUntil(lambda: window.viewer.current_doc == shown, timeout=5000)
    assert shown.suffix == ".pdf" and shown != epub
    assert window.viewer.current_page == chunk.page_start
    assert window.viewer.highlight_rects
