"""A document summary in the window: "Summarise this document" in the library's context
menu asks it in the conversation; its answer card (badge, outline, one chip per sentence)
is not clipped at 800x600, and a chip opens the viewer at that sentence's highlight."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.core.config import Settings
from app.core.models import Answer
from app.services.library import Library
from app.services.summary import Summarizer
from app.ui.main_window import SUMMARIZE_QUESTION, MainWindow
from app.ui.prefs import load_settings
from app.ui.theme import stylesheet
from tests.fakes import HashEmbedder
from tests.gui.test_newcomer import clipped
from tests.summary_factory import make_long_pdf

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> Answer:
    tmp = tmp_path_factory.mktemp("gui_summary")
    lib = Library(Settings(library=tmp / "lib"), embedder=HashEmbedder())
    [result] = lib.ingest([make_long_pdf(tmp / "handbook.pdf", pages=40)]).results
    assert result.doc_id is not None
    answer = Summarizer(lib).summarize(result.doc_id, question=SUMMARIZE_QUESTION)
    assert answer.kind == "summary" and answer.validation.status == "GREEN"
    return answer


@pytest.fixture
def bare_window(qtbot) -> MainWindow:
    QApplication.instance().setStyleSheet(stylesheet())  # type: ignore[union-attr]
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    return win


@pytest.mark.parametrize("size", [(800, 600), (1280, 800)])
def test_summary_card_is_not_clipped_and_chips_open_the_highlight(
    bare_window: MainWindow, qtbot, summary: Answer, size: tuple[int, int]
) -> None:
    win = bare_window
    win.resize(1920, 1080)
    win.show()
    qtbot.waitExposed(win)
    card = win.conversation.add_finished(summary)
    win.sources.show_answer(summary)
    win.resize(*size)
    qtbot.wait(200)
    assert card.badge.isVisible() and card.badge.text().startswith("Summary")
    assert "1 Soil and Compost" in card.body.toPlainText()
    assert len(card.chips) == len({c.n for c in summary.citations})
    assert "every sentence is its own, cited and verified" in card.status.text()
    assert clipped(win) == []
    # a chip opens the viewer at its sentence's highlight
    last = summary.citations[-1]
    win.open_citation(summary, last.n)
    qtbot.wait(200)
    viewer = win.viewer
    qtbot.waitUntil(lambda: viewer.current_doc is not None, timeout=5000)
    assert viewer.isVisible() and viewer.current_doc.resolve() == Path(last.file).resolve()
    assert viewer.current_page == last.page
    assert viewer.highlight_rects == [tuple(r) for r in last.rects]
    assert clipped(win) == []


def test_context_menu_action_asks_for_the_summary_of_that_document(
    bare_window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, list[str] | None]] = []
    monkeypatch.setattr(bare_window, "ask", lambda q, ids=None: asked.append((q, ids)))
    bare_window.library.summarize_requested.emit("abc123")
    assert asked == [(SUMMARIZE_QUESTION, ["abc123"])]
