"""What a new user still tripped over in issue 36: a window reopened tiny on a smaller screen,
wording, the import banner and progress, leaked semaphores at quit, dark mode, the library list.

Real windows over real PDFs (tests/pdf_factory.py) in a real library under tmp_path; no chat
model is needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication

from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings, qsettings

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]


# --- item 2: window size on a smaller screen ---------------------------------------------
def test_a_window_saved_larger_than_the_screen_reopens_filling_it(qtbot) -> None:
    big = MainWindow(load_settings())
    qtbot.addWidget(big)
    area = (big.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    big.setGeometry(area.x() + 40, area.y() + 40, area.width() + 600, area.height() + 300)
    qs = qsettings()
    qs.setValue("window/geometry", big.saveGeometry())
    qs.sync()
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    frame = win.frameGeometry()
    assert area.contains(frame), (frame, area)
    # Not Qt's two thirds of the screen: as much of the saved size as the screen has room for.
    assert frame.width() >= area.width() - 8 and frame.height() >= area.height() - 40, frame


_REOPEN = """
import json, os, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, sys.argv[1])
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
win = MainWindow(load_settings())
win.show()
for _ in range(5):
    app.processEvents()
g = win.frameGeometry()
print(json.dumps({"w": g.width(), "h": g.height(), "viewer": win.viewer.isVisible(),
                  "left": win.left.isVisible()}))
win.close()
"""


def _open_on_screen(tmp_path: Path, width: int, height: int) -> dict:
    cfg = tmp_path / f"screen-{width}x{height}.json"
    screen = {"name": "S", "x": 0, "y": 0, "width": width, "height": height}
    cfg.write_text(json.dumps({"screens": [{**screen, "logicalDpiX": 96, "logicalDpiY": 96}]}))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={cfg}")
    proc = subprocess.run(
        [sys.executable, "-c", _REOPEN, str(tmp_path / "qsettings")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_saved_at_1920x1080_reopens_usable_at_1280x800(tmp_path: Path) -> None:
    """The issue's case: fresh HOME, first start on a 1920×1080 screen, then on 1280×800."""
    first = _open_on_screen(tmp_path, 1920, 1080)
    assert first["viewer"] and first["left"]
    second = _open_on_screen(tmp_path, 1280, 800)
    assert second["w"] <= 1280 and second["h"] <= 800, second
    assert second["w"] >= 1200 and second["h"] >= 700, second
    assert second["viewer"] and second["left"], "all three columns, the evidence viewer too"
