"""A team library on object storage opens read-only on the desktop (real S3 test server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import user_state_dir
from app.core.location import is_remote
from app.store import Store
from app.ui.history import history_path
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
from tests.s3_server import S3Library

pytestmark = [pytest.mark.gui, pytest.mark.s3]


def test_team_library_is_read_only_on_the_desktop(qtbot, s3_library: S3Library) -> None:
    Store(s3_library.uri).close()  # a writer created the library
    settings = load_settings()  # FOOTNOTE_LIBRARY=s3://... (set by the fixture)
    assert is_remote(settings.library) and settings.library == s3_library.uri
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    win.start()
    qtbot.waitUntil(lambda: win.session.library is not None, timeout=120_000)
    assert win.session.read_only and win.session.library.store.read_only
    assert win.library.title.text() == "Team library (read-only)"
    assert "Team library (read-only)" in win.windowTitle()
    assert not win.library.add_tool.isVisible() and not win.act_add.isVisible()
    assert not win.library.delete_action.isEnabled() and not win.acceptDrops()
    # The conversation stays with this user on this desktop, not in the shared store.
    path = history_path(settings.library)
    assert path.is_relative_to(user_state_dir()) and "s3:" not in str(path)


def test_local_library_keeps_import_and_remove(qtbot, tmp_path: Path) -> None:
    win = MainWindow(load_settings(library=tmp_path / "lib"))
    qtbot.addWidget(win)
    win.show()
    assert not win.session.read_only
    assert win.library.title.text() == "Library" and win.library.add_tool.isVisible()
