"""Follow-up questions in the window: the card says how a follow-up was understood, the
conversation survives a restart, and New conversation (Ctrl+N) starts afresh."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.ui.history import load_history
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
from tests.conversation_factory import make_fact_sheet_pdf
from tests.gui.conftest import drop_files, wait_ingested, wait_ready

pytestmark = [pytest.mark.gui, pytest.mark.slow]

MEN = "Roughly how many men in Australia find out they have breast cancer each year?"


def ask(qtbot, win: MainWindow, question: str) -> None:
    box = win.conversation.input
    box.setPlainText(question)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not win.conversation.running, timeout=180_000)


def test_follow_up_shows_understood_as_and_new_conversation(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    drop_files(window, [make_fact_sheet_pdf(tmp_path / "facts.pdf")])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)

    ask(qtbot, window, MEN)
    first = window.conversation.cards[-1]
    assert first.answer is not None and first.answer.understood_as is None
    assert not first.understood.isVisible()

    ask(qtbot, window, "How old are most of them?")
    card = window.conversation.cards[-1]
    assert card.answer is not None
    understood = card.answer.understood_as
    assert understood is not None and "men in Australia" in understood
    assert card.understood.isVisible()
    assert card.understood.text() == f"Understood as: {understood}"
    assert card.question_label.text() == "How old are most of them?"
    saved = load_history(window.session.settings.library)
    assert [a.understood_as for a in saved] == [None, understood]

    # at 800x600 the line wraps inside the card, never clipped
    window.resize(800, 600)
    qtbot.wait(200)
    QApplication.processEvents()
    label = card.understood
    assert label.width() <= card.width()
    assert label.height() >= label.heightForWidth(label.width())

    # a restart: the same conversation, and its follow-ups go on from it
    settings = window.session.settings
    again = MainWindow(load_settings())
    qtbot.addWidget(again)
    again.show()
    again.start()
    qtbot.waitUntil(lambda: again.session.library is not None, timeout=60_000)
    assert [c.answer.understood_as for c in again.conversation.cards if c.answer] == [
        None,
        understood,
    ]
    assert again.conversation.cards[-1].understood.isVisible()
    again.close()

    # Ctrl+N: a new conversation; the same follow-up now stands alone
    assert window.act_new.shortcut().toString() == "Ctrl+N"
    window.act_new.trigger()
    assert window.conversation.cards == []
    assert load_history(settings.library) == []
    ask(qtbot, window, "How old are most of them?")
    assert window.conversation.cards[-1].answer.understood_as is None


def test_edit_export_writes_the_conversation_as_markdown_and_html(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from tests.unit.test_export import FIRST, SECOND

    window.conversation.add_finished(FIRST)
    window.conversation.add_finished(SECOND)
    for name, kind in (("talk", "Markdown (*.md)"), ("talk.html", "HTML (*.html)")):
        target = str(tmp_path / name)
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, t=target, k=kind: (t, k))
        window.act_export.trigger()
    md = (tmp_path / "talk.md").read_text(encoding="utf-8")
    assert "[^3]: facts.pdf, page 2" in md and "Understood as:" in md
    page = (tmp_path / "talk.html").read_text(encoding="utf-8")
    assert "<li id='fn3'>" in page
    assert window.act_export.shortcut().toString() == "Ctrl+Shift+E"
