"""File → Add folder… with "keep in sync": the real window follows a real folder (watchdog
events, imports in the child process), remembers it in the library, and a new window catches
up on what changed while it was closed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.services.watch import WatchList
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
from tests import format_factory as ff

pytestmark = pytest.mark.gui


def _names(win: MainWindow) -> set[str]:
    return {Path(d.file).name for d in win.session.documents}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_folder_kept_in_sync_follows_the_disk_and_is_caught_up_on_at_start(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    ff.make_md(folder / "setup.md")
    window.add_folder_path(folder, keep_in_sync=True)
    qtbot.waitUntil(lambda: _names(window) == {"setup.md"}, timeout=240_000)
    assert window.watch_label.isVisible() and "1 folder" in window.watch_label.text()
    assert WatchList(window.session.settings.library).folders() == [folder]

    ff.make_txt(tmp_path / "hut.txt")
    shutil.copy(tmp_path / "hut.txt", folder / "hut.txt")
    qtbot.waitUntil(lambda: _names(window) == {"setup.md", "hut.txt"}, timeout=240_000)
    (folder / "setup.md").unlink()
    qtbot.waitUntil(lambda: _names(window) == {"hut.txt"}, timeout=60_000)

    # Closed; meanwhile a file is added; the next window catches up on it.
    window.close()
    ff.make_fb2(folder / "ferries.fb2")
    again = MainWindow(load_settings())
    qtbot.addWidget(again)
    again.show()
    again.start()
    try:
        qtbot.waitUntil(lambda: _names(again) == {"hut.txt", "ferries.fb2"}, timeout=240_000)
    finally:
        again.close()
        QApplication.processEvents()
