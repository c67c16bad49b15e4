"""Fixtures for the desktop-app tests: real windows over real services in tmp_path.

The window is the real ``MainWindow``; its library is a real LanceDB folder under tmp_path
(tests/conftest.py points FOOTNOTE_LIBRARY there), and the embedder and chat model are the
embedded defaults. PDFs come from tests/pdf_factory.py, plus a long generated report for the
tests that need a file big enough to keep the workers busy.
"""

from __future__ import annotations

import socket
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
from app.ui.theme import stylesheet
from tests.pdf_factory import make_manual_pdf

LARGE_PAGES = 120

_WORDS = [
    "station",
    "sensor",
    "logger",
    "sample",
    "battery",
    "channel",
    "module",
    "cable",
    "filter",
    "housing",
    "bracket",
    "firmware",
    "display",
    "memory",
    "signal",
    "storage",
    "voltage",
    "survey",
    "report",
    "measurement",
    "interval",
    "calibration",
    "network",
    "archive",
    "protocol",
    "threshold",
    "average",
    "maximum",
    "minimum",
    "season",
    "field",
]


def make_large_pdf(path: Path, pages: int = LARGE_PAGES) -> Path:
    """A long report: ``pages`` pages of varied, deterministic prose with section headings."""
    doc = pymupdf.open()
    for pno in range(pages):
        page = doc.new_page(width=595, height=842)
        y = 80.0
        page.insert_text((72, y), f"Section {pno + 1}: Field survey {pno + 1}", fontsize=14)
        y += 28
        for line in range(26):
            k = pno * 26 + line
            words = [_WORDS[(k * 7 + i * 3 + pno) % len(_WORDS)] for i in range(12)]
            text = f"Record {k} notes that the " + " ".join(words) + f" reached {k % 97} units."
            page.insert_text((72, y), text[:95], fontsize=9.5)
            y += 24
    doc.set_metadata({"title": "Long Field Survey Report"})
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


@pytest.fixture(autouse=True)
def _own_qsettings(tmp_path: Path) -> None:
    """Each test's preferences in its own folder. Qt reads XDG_CONFIG_HOME only once per
    process, so tests/conftest.py's per-test value alone would let one test's saved choices
    (a model, OCR off) reach the next."""
    folder = str(tmp_path / "config")
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, folder)


@pytest.fixture(scope="session")
def gui_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gui-pdfs")
    return {
        "manual": make_manual_pdf(folder / "zephyr-manual.pdf"),
        "large": make_large_pdf(folder / "long-survey.pdf"),
    }


@pytest.fixture
def window(qtbot, tmp_path: Path) -> Iterator[MainWindow]:
    """The real main window, started, with its library open (model loading in background)."""
    app = QApplication.instance()
    app.setStyleSheet(stylesheet())  # type: ignore[union-attr]
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    win.start()
    qtbot.waitUntil(lambda: win.session.library is not None, timeout=60_000)
    yield win
    from app.ui.answer_card import preview

    preview().hide()
    win.close()


def drop_files(win: MainWindow, paths: list[Path]) -> None:
    """Drag file URLs onto the window and drop them, as a file manager would.

    Qt delivers a drop only to the widget that accepted the drag-enter, so the real
    sequence is sent: QDragEnterEvent, QDragMoveEvent, QDropEvent.
    """
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPoint(win.width() // 2, win.height() // 2)
    args = (
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(pos, *args)
        QApplication.sendEvent(win, enter)
        assert enter.isAccepted(), "the window accepts dragged PDFs"
        move = QDragMoveEvent(pos, *args)
        QApplication.sendEvent(win, move)
    drop = QDropEvent(QPointF(pos), *args)
    QApplication.sendEvent(win, drop)
    assert drop.isAccepted()


def wait_ingested(qtbot, win: MainWindow, timeout: int = 240_000) -> None:
    qtbot.waitUntil(lambda: win.ingest_job is None, timeout=timeout)
    qtbot.waitUntil(lambda: not win.imports.running, timeout=timeout)


def wait_ready(qtbot, win: MainWindow, n_docs: int, timeout: int = 240_000) -> None:
    """Until ``n_docs`` documents are listed, all embedded, the model and embedder loaded."""
    qtbot.waitUntil(
        lambda: (
            len(win.library.documents) == n_docs
            and all(d.status == "ready" for d in win.library.documents)
        ),
        timeout=timeout,
    )
    qtbot.waitUntil(lambda: win.session.model_loaded, timeout=timeout)
    qtbot.waitUntil(lambda: win.session.search_ready, timeout=timeout)


def center(widget) -> QPoint:
    return widget.rect().center()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Block every IP socket connection and DNS lookup; record any attempt."""
    attempts: list[str] = []
    real_connect = socket.socket.connect

    def guard(kind: str) -> Callable[..., object]:
        def blocked(*args: object, **kwargs: object) -> object:
            attempts.append(f"{kind} {args[1:] if kind == 'connect' else args}")
            raise OSError(f"network blocked in tests ({kind})")

        return blocked

    def connect(self: socket.socket, address: object) -> object:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            return guard("connect")(self, address)
        return real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect)
    monkeypatch.setattr(socket, "create_connection", guard("create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", guard("getaddrinfo"))
    return attempts
