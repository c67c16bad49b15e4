"""Window geometry and splitter positions kept across restarts, clamped to today's screen.

Why clamp: a window saved on a large monitor reopened at 901×564 past the edge of a smaller
one; Qt restores what it was given.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter

from app.ui.prefs import qsettings

logger = logging.getLogger(__name__)

DEFAULT_SIZE = (1400, 860)


def restore(window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    qs = qsettings()
    geo = qs.value("window/geometry")
    if isinstance(geo, QByteArray) and not geo.isEmpty():
        window.restoreGeometry(geo)
    else:
        window.resize(*DEFAULT_SIZE)
    clamp_to_screen(window)
    for key, split in splitters.items():
        val = qs.value(f"window/{key}")
        if isinstance(val, QByteArray) and not val.isEmpty():
            split.restoreState(val)


def save(window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    qs = qsettings()
    qs.setValue("window/geometry", window.saveGeometry())
    for key, split in splitters.items():
        qs.setValue(f"window/{key}", split.saveState())
    qs.sync()


def clamp_to_screen(window: QMainWindow) -> None:
    """Keep the window inside the screen it opens on (it may be smaller than the last one)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    area = screen.availableGeometry()
    frame = window.frameGeometry()
    extra_w = max(0, frame.width() - window.width())
    extra_h = max(0, frame.height() - window.height())
    w = min(window.width(), area.width() - extra_w)
    h = min(window.height(), area.height() - extra_h)
    if (w, h) != (window.width(), window.height()):
        window.resize(max(w, 200), max(h, 200))
    frame = window.frameGeometry()
    x = min(max(window.x(), area.left()), area.right() + 1 - frame.width())
    y = min(max(window.y(), area.top()), area.bottom() + 1 - frame.height())
    window.move(max(area.left(), x), max(area.top(), y))
