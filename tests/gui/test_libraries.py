"""Several libraries in one window: File → Open library… and the recent list switch the
window to another library, whose documents, watched folders and conversation are its own; the
window title names the open library."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ui.main_window import MainWindow, library_name
from app.ui.prefs import load_settings, recent_libraries
from tests import format_factory as ff
from tests.answer_factory import answer
from tests.gui.conftest import wait_ingested

pytestmark = pytest.mark.gui


def _names(win: MainWindow) -> set[str]:
    return {Path(d.file).name for d in win.session.documents}


def _opened(win: MainWindow, where: Path) -> bool:
    return win.session.library is not None and win.session.settings.library == where


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_switching_libraries_brings_their_own_documents_and_conversation(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    first = Path(window.session.settings.library)
    assert window.windowTitle() == f"Footnote — {first.name}"
    window.ingest([ff.make_md(tmp_path / "setup.md")])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: _names(window) == {"setup.md"}, timeout=60_000)
    window.conversation.add_finished(answer(question="How do I calibrate?"))

    second = tmp_path / "work-library"
    window.open_library(second)
    qtbot.waitUntil(lambda: _opened(window, second), timeout=60_000)
    assert window.windowTitle() == "Footnote — work-library"
    assert window.conversation.answers() == []  # a conversation belongs to its library
    qtbot.waitUntil(lambda: _names(window) == set(), timeout=60_000)
    window.ingest([ff.make_txt(tmp_path / "hut.txt")])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: _names(window) == {"hut.txt"}, timeout=60_000)
    assert recent_libraries()[:2] == [str(second), str(first)]
    with pytest.MonkeyPatch.context() as mp:  # the next start opens it (unless told otherwise)
        mp.delenv("FOOTNOTE_LIBRARY")
        assert load_settings().library == second

    window.open_library(first)  # as the recent-libraries menu does
    qtbot.waitUntil(lambda: _opened(window, first), timeout=60_000)
    qtbot.waitUntil(lambda: _names(window) == {"setup.md"}, timeout=60_000)
    assert [a.question for a in window.conversation.answers()] == ["How do I calibrate?"]
    window._fill_recent_libraries()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert texts == [f"work-library — {second}"]


def test_library_names_for_the_title() -> None:
    assert library_name("/home/me/Papers") == "Papers"
    assert library_name("s3://team-bucket/research/") == "research"
