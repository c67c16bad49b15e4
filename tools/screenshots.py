"""Drive the real Footnote app (real services, real PDFs, real model) and save screenshots.

Run under a virtual X server so the window is a real X11 window:

    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python tools/screenshots.py

Shots (docs/screenshots/): 1 empty state, 2 ingesting with progress, 3 an answer with
citation chips and the hover preview of a quote, 4 the viewer with the quote highlighted.
Uses /work/shared/corpus/clsguide.pdf when present, else the test manual from
tests/pdf_factory.py. Everything runs in a temporary library and settings folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = Path("/work/shared/corpus")
OUT = ROOT / "docs" / "screenshots"


def _isolate(tmp: Path) -> None:
    os.environ["FOOTNOTE_LIBRARY"] = str(tmp / "library")
    os.environ["FOOTNOTE_LOG_DIR"] = str(tmp / "logs")
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    os.environ["XDG_DATA_HOME"] = str(tmp / "data")


def _pdfs(tmp: Path) -> tuple[list[Path], str]:
    """PDFs to ingest and a question they answer."""
    cls = CORPUS / "clsguide.pdf"
    if cls.is_file():
        extra = [CORPUS / n for n in ("fntguide.pdf", "encguide.pdf") if (CORPUS / n).is_file()]
        return [cls, *extra], "How do I declare an option in a class file?"
    from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf

    manual = make_manual_pdf(tmp / "zephyr-manual.pdf")
    return [manual], MANUAL_FACTS["calibration"].question


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--question", default=None)
    parser.add_argument("--dark", action="store_true", help="Use a dark palette.")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="footnote-shots-"))
    _isolate(tmp)
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QCoreApplication, QPoint, Qt
    from PySide6.QtGui import QPainter, QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    from app.core.logs import setup_logging
    from app.ui.main import install_excepthook
    from app.ui.main_window import MainWindow
    from app.ui.prefs import APP, ORG, load_settings
    from app.ui.theme import stylesheet

    setup_logging()
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    if args.dark:
        from PySide6.QtGui import QGuiApplication

        QGuiApplication.styleHints().setColorScheme(Qt.ColorScheme.Dark)
    app.setStyleSheet(stylesheet())
    win = MainWindow(load_settings())
    install_excepthook(lambda exc: win.messages.show_message("error", "Unexpected", str(exc)))
    win.resize(1440, 870)
    win.move(0, 0)
    win.show()

    def pump(until: Callable[[], bool], timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while not until():
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {what}")
            QCoreApplication.processEvents()
            time.sleep(0.01)

    def settle(seconds: float = 0.3) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            QCoreApplication.processEvents()
            time.sleep(0.01)

    def shot(name: str, popup: object | None = None) -> None:
        settle(0.2)
        pix: QPixmap = win.grab()
        if popup is not None and popup.isVisible():  # type: ignore[attr-defined]
            p = QPainter(pix)
            pos = win.mapFromGlobal(popup.pos())  # type: ignore[attr-defined]
            p.drawPixmap(pos, popup.grab())  # type: ignore[attr-defined]
            p.end()
        path = args.out / f"{name}.png"
        pix.save(str(path))
        print("saved", path)

    pdfs, question = _pdfs(tmp)
    question = args.question or question
    win.start()
    pump(lambda: win.session.library is not None, 120, "the library to open")
    settle(0.5)
    shot("1-empty-state")

    win.ingest(pdfs)
    pump(
        lambda: (
            len(win.imports.rows) > 1
            and any(300 < r.bar.value() < 1000 for r in win.imports.rows.values())
            or not win.imports.running
        ),
        600,
        "progress",
    )
    shot("2-ingesting")
    pump(lambda: win.ingest_job is None, 900, "ingestion")
    pump(
        lambda: win.library.documents and all(d.status == "ready" for d in win.library.documents),
        600,
        "embeddings",
    )
    pump(lambda: win.session.model_loaded, 300, "the model")
    win.imports.setVisible(False)

    win.conversation.input.setPlainText(question)
    win.conversation.ask_button.click()
    pump(lambda: not win.conversation.running, 900, "the answer")
    card = win.conversation.cards[-1]
    if card.chips:
        chip = card.chips[0]
        from app.ui.answer_card import preview

        card.show_preview(
            int(chip.property("citation_n")), chip.mapToGlobal(QPoint(0, chip.height() + 2))
        )
        shot("3-answer-with-chips", popup=preview())
        preview().hide()
        chip.click()
        settle(0.5)
        shot("4-viewer-highlight")
    else:
        print("the answer has no citations:", card.answer and card.answer.kind)
        shot("3-answer")
    win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
