"""Bad input, cancellation, removal and a bad model file, each through the real window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.models import Document
from tests.gui.conftest import drop_files, wait_ingested, wait_ready
from tests.pdf_factory import (
    make_corrupt_pdf,
    make_encrypted_pdf,
    make_not_pdf,
    make_photo_pdf,
)

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_bad_files_listed_with_specific_errors(qtbot, window, gui_pdfs, tmp_path) -> None:
    bad = {
        "encrypted": make_encrypted_pdf(tmp_path / "locked.pdf"),
        "corrupt": make_corrupt_pdf(tmp_path / "truncated.pdf"),
        "scanned": make_photo_pdf(tmp_path / "scan.pdf"),
        "not_pdf": make_not_pdf(tmp_path / "notes.pdf"),
    }
    drop_files(window, [*bad.values(), gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    by_file = {Path(r.file).name: r for r in window.imports.results}
    assert by_file["zephyr-manual.pdf"].status == "added"
    expected_words = {
        "locked.pdf": "password",
        "truncated.pdf": "damaged",
        "scan.pdf": "OCR",
        "notes.pdf": "PDF",
    }
    for name, word in expected_words.items():
        assert by_file[name].status == "failed", name
        row = window.imports.rows[by_file[name].file]
        assert word.lower() in row.state.text().lower(), (name, row.state.text())
    shown = " ".join(window.messages.texts())
    assert "locked.pdf" in shown and "password" in shown.lower()
    assert "Import finished: 1 added, 4 failed" in window.imports.title.text()
    # The good file is unaffected by the bad ones.
    wait_ready(qtbot, window, 1)
    assert [d.title for d in window.library.documents] == ["Zephyr 3000 Field Manual"]


def test_cancel_ingest_keeps_window_usable(qtbot, window, gui_pdfs) -> None:
    drop_files(window, [gui_pdfs["large"]])
    row_key = str(gui_pdfs["large"].resolve())
    qtbot.waitUntil(lambda: row_key in window.imports.rows, timeout=30_000)
    row = window.imports.rows[row_key]
    qtbot.waitUntil(lambda: row.bar.value() > 0, timeout=60_000)
    assert window.imports.button.text() == "Cancel"
    qtbot.mouseClick(window.imports.button, Qt.MouseButton.LeftButton)
    wait_ingested(qtbot, window, timeout=60_000)
    assert window.imports.title.text() == "Import cancelled"
    assert row.bar.value() < 1000 and "cancelled" in row.state.text()
    with qtbot.waitSignal(window.session.documents_changed, timeout=30_000):
        window.session.refresh_documents()
    assert window.library.documents == []
    # The window still works: a new import after the cancelled one succeeds.
    qtbot.mouseClick(window.imports.button, Qt.MouseButton.LeftButton)
    assert not window.imports.isVisible()
    drop_files(window, [gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    assert window.imports.results[0].status == "added"


def test_cancel_answer_with_escape(qtbot, window, gui_pdfs) -> None:
    drop_files(window, [gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)
    box = window.conversation.input
    box.setPlainText("What does error code E42 mean?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = window.conversation.active
    assert card is not None and window.conversation.ask_button.text() == "Stop"
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=120_000)
    assert card.state == "cancelled", card.status.text()
    assert "Stopped" in card.status.text()
    assert window.conversation.ask_button.text() == "Ask"
    assert window.conversation.answers() == []  # nothing unvalidated is kept as an answer


def test_remove_document_with_delete_key(qtbot, window, gui_pdfs) -> None:
    drop_files(window, [gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)
    asked: list[Document] = []

    def confirm(doc: Document) -> bool:
        asked.append(doc)
        return True

    window.library.confirm_remove = confirm
    lst = window.library.list
    lst.setCurrentRow(0)
    lst.setFocus()
    qtbot.keyClick(lst, Qt.Key.Key_Delete)
    assert [d.title for d in asked] == ["Zephyr 3000 Field Manual"]
    qtbot.waitUntil(lambda: window.library.documents == [], timeout=60_000)
    assert window.library.stack.currentWidget() is window.library.drop_zone


def test_bad_model_file_shows_error_and_keeps_previous(qtbot, window, tmp_path) -> None:
    qtbot.waitUntil(lambda: window.session.model_loaded, timeout=120_000)
    before = window.session.model_name
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"GGUF" + b"\x00" * 64)
    new = window.session.settings.model_copy(update={"model": bogus})
    window.apply_settings(new)
    qtbot.waitUntil(lambda: window.messages.texts() != [], timeout=60_000)
    qtbot.waitUntil(lambda: not window.model_busy.isVisible(), timeout=60_000)
    text = " ".join(window.messages.texts())
    assert "could not be loaded" in text and "previous one is kept" in text
    assert window.session.settings.model is None  # reverted to the embedded default
    assert window.session.model_name == before
    assert before in window.model_label.text()


def test_no_background_job_starts_after_shutdown(qtbot, window) -> None:
    """A warm-up finishing after the window closed must not start the next job (its runner
    may already be deleted: "Internal C++ object (JobRunner) already deleted")."""
    session = window.session
    qtbot.waitUntil(lambda: session.asker is not None, timeout=60_000)
    session.shutdown()
    live = len(session.runner._live)  # jobs end (leave it) only when the event loop runs
    session.search_ready = False
    session.warm_up()
    session.search_ready = True
    session.warm_words()
    session.refresh_documents()  # an import or a removal ending late asks for the list
    session.load_model()
    assert len(session.runner._live) == live, "no job submitted"
    assert "words" not in session.runner._pools
