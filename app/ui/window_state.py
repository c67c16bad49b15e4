"""Window geometry and splitter positions kept across restarts, fitted to today's screen.

Why fit: a window saved on a large monitor reopened at 901×564 past the edge of a smaller
one; Qt restores what it was given. And when the saved size does not fit, Qt shrinks it to
two thirds of the screen minus a title bar (a 1400×860 window saved at 1920×1080 reopened at
853×281 on 1280×800, too narrow for the evidence viewer). So the saved size is read back and
the window opens at that size, cut to what the screen has room for.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QDataStream, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter

from app.ui.prefs import qsettings

logger = logging.getLogger(__name__)

DEFAULT_SIZE = (1400, 860)
# A restored window is never smaller than this (nor than the screen's free area): the size
# the app is designed down to (README: "from 800×600 up nothing is cut off").
USABLE_SIZE = (800, 600)
_GEOMETRY_MAGIC = 0x1D9D0CB  # QWidget::saveGeometry's header
_RESTORED = "footnote_restored_size"  # the size restore() gave, until the window is shown


def saved_size(geo: QByteArray) -> QSize | None:
    """The normal (not maximised) size stored in a ``QWidget.saveGeometry()`` blob."""
    stream = QDataStream(geo)
    if stream.readUInt32() != _GEOMETRY_MAGIC:
        return None
    major = stream.readUInt16()
    stream.readUInt16()  # minor version
    frame, normal = QRect(), QRect()
    stream >> frame
    stream >> normal
    if major < 1 or stream.status() != QDataStream.Status.Ok or not normal.isValid():
        return None
    return normal.size()


def restore(window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    qs = qsettings()
    geo = qs.value("window/geometry")
    size = QSize(*DEFAULT_SIZE)
    if isinstance(geo, QByteArray) and not geo.isEmpty():
        window.restoreGeometry(geo)
        size = saved_size(geo) or size
    area = _area(window)
    if area is not None:
        size = size.expandedTo(QSize(*USABLE_SIZE).boundedTo(area.size()))
    full = Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen
    if not window.windowState() & full:
        window.resize(size)
    clamp_to_screen(window)
    window.setProperty(_RESTORED, window.size())
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


def _area(window: QMainWindow) -> QRect | None:
    screen = window.screen() or QGuiApplication.primaryScreen()
    return None if screen is None else screen.availableGeometry()


def fit_on_first_show(window: QMainWindow) -> None:
    """Fit the restored window to the screen again once shown: only now is the size of the
    frame (title bar, borders) around it known. A size set in code since is left alone."""
    size = window.property(_RESTORED)
    if size is None:
        return
    window.setProperty(_RESTORED, None)
    if size == window.size():
        clamp_to_screen(window)


def clamp_to_screen(window: QMainWindow) -> None:
    """Keep the window inside the screen it opens on (it may be smaller than the last one)."""
    area = _area(window)
    if area is None:
        return
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
