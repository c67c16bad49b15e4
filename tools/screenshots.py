"""Drive the real Footnote app (real services, real PDFs, real model) and save screenshots.

Run under a virtual X server so the window is a real X11 window (``make screenshots`` runs
light, dark and a device-pixel-ratio-2 pass):

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python tools/screenshots.py [--dark]
    xvfb-run -a -s "-screen 0 2560x1600x24" env QT_SCALE_FACTOR=2 \
        .venv/bin/python tools/screenshots.py --sizes 1280x800 --tag hidpi

Shots (docs/screenshots/): 1 empty state, 2 ingesting with progress, 3 an answer with
citation chips and the hover preview of a quote, 4 the viewer with the quote highlighted,
7 a question the documents do not answer: the refusal's reason and its closest passages,
8 a follow-up question with the card's "Understood as" line, 9 a document's summary (Library →
Summarise this document); the same states at every ``--sizes`` window size go to docs/screenshots/sizes/
(``<theme>-<W>x<H>-<state>.png``), to check that nothing is clipped from 800×600 up.
Uses /work/shared/corpus/clsguide.pdf when present, else the test manual from
tests/pdf_factory.py, or the ``--pdf`` files given (a German guide, to look at long words).
Everything runs in a temporary library and settings folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QPushButton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = Path("/work/shared/corpus")
OUT = ROOT / "docs" / "screenshots"


def _isolate(tmp: Path) -> None:
    os.environ["FOOTNOTE_LIBRARY"] = str(tmp / "library")
    os.environ["FOOTNOTE_LOG_DIR"] = str(tmp / "logs")
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    os.environ["XDG_DATA_HOME"] = str(tmp / "data")


def _pdfs(tmp: Path) -> tuple[list[Path], str, str, str]:
    """PDFs to ingest, a question they answer, one they do not, and a follow-up to the first."""
    cls = CORPUS / "clsguide.pdf"
    if cls.is_file():
        extra = [CORPUS / n for n in ("fntguide.pdf", "encguide.pdf") if (CORPUS / n).is_file()]
        return (
            [cls, *extra],
            "How do I declare an option in a class file?",
            "How do I put a watermark on every page?",
            "And how are they processed?",
        )
    from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf

    manual = make_manual_pdf(tmp / "zephyr-manual.pdf")
    return (
        [manual],
        MANUAL_FACTS["calibration"].question,
        "How long is the sensor cable?",
        "How often should I do it?",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--pdf",
        type=Path,
        action="append",
        default=None,
        help="A PDF to import instead of the default manuals (repeatable; give --question "
        "and --unanswered about it).",
    )
    parser.add_argument("--question", default=None)
    parser.add_argument(
        "--unanswered", default=None, help="A question the documents do not answer (shot 7)."
    )
    parser.add_argument("--follow-up", default=None, help="A follow-up to --question (shot 8).")
    parser.add_argument("--dark", action="store_true", help="Use a dark palette.")
    parser.add_argument(
        "--sizes", default="800x600,1280x800,1920x1080", help="Window sizes for sizes/ shots."
    )
    parser.add_argument("--tag", default="", help="Name of this pass (default: light or dark).")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",") if s]
    tag = args.tag or ("dark" if args.dark else "light")
    readme = not args.dark and not args.tag  # the README's four shots come from the light pass
    tmp = Path(tempfile.mkdtemp(prefix="footnote-shots-"))
    _isolate(tmp)
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QCoreApplication, QPoint
    from PySide6.QtGui import QPainter, QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    from app.core.logs import setup_logging
    from app.ui.main import install_excepthook
    from app.ui.main_window import MainWindow
    from app.ui.prefs import APP, ORG, load_settings
    from app.ui.theme import apply_appearance, stylesheet

    setup_logging()
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    if args.dark:
        apply_appearance("dark")  # View → Appearance → Dark, as a user would choose it
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

    def shot(name: str, popup: object | None = None, path: Path | None = None) -> None:
        settle(0.2)
        pix: QPixmap = win.grab()
        if popup is not None and popup.isVisible():  # type: ignore[attr-defined]
            p = QPainter(pix)
            pos = win.mapFromGlobal(popup.pos())  # type: ignore[attr-defined]
            p.drawPixmap(pos, popup.grab())  # type: ignore[attr-defined]
            p.end()
        path = path or args.out / f"{name}.png"
        pix.save(str(path))
        print("saved", path, f"({pix.width()}x{pix.height()} px, dpr {pix.devicePixelRatio()})")

    sized_dir = args.out / "sizes"
    sized_dir.mkdir(exist_ok=True)

    def shots_at_sizes(state: str, before: Callable[[], object] | None = None) -> None:
        """The same state at every size; ``before`` re-creates transient things (a popup)."""
        home = win.size()
        for w, h in sizes:
            win.resize(w, h)
            settle(0.4)
            popup = before() if before else None
            shot(state, popup, sized_dir / f"{tag}-{w}x{h}-{state}.png")
        win.resize(home)
        settle(0.3)

    pdfs, question, unanswered, follow_up = _pdfs(tmp)
    pdfs = args.pdf or pdfs
    question = args.question or question
    unanswered = args.unanswered or unanswered
    follow_up = args.follow_up or follow_up
    win.start()
    pump(lambda: win.session.library is not None, 120, "the library to open")
    pump(lambda: win.library.stack.currentWidget() is not win.library.loading, 60, "the list")
    settle(0.5)
    if readme:
        shot("1-empty-state")
    shots_at_sizes("1-empty")

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
    if readme:
        shot("2-ingesting")
    shots_at_sizes("2-ingesting")
    pump(lambda: win.ingest_job is None, 900, "ingestion")
    pump(
        lambda: win.library.documents and all(d.status == "ready" for d in win.library.documents),
        600,
        "embeddings",
    )
    pump(lambda: win.session.model_loaded, 300, "the model")
    win.imports.setVisible(False)

    from app.ui.answer_card import AnswerCard, preview

    def ask(text: str) -> AnswerCard:
        win.conversation.input.setPlainText(text)
        win.conversation.ask_button.click()
        pump(lambda: not win.conversation.running, 900, "the answer")
        return win.conversation.cards[-1]

    def hovering(card: AnswerCard, chip: QPushButton) -> Callable[[], object]:
        def hover() -> object:
            win.conversation.scroll.ensureWidgetVisible(chip)
            settle(0.2)
            card.show_preview(
                int(chip.property("citation_n")), chip.mapToGlobal(QPoint(0, chip.height() + 2))
            )
            return preview()

        return hover

    card = ask(question)
    if card.chips:
        chip = card.chips[0]
        hover = hovering(card, chip)

        if readme:
            shot("3-answer-with-chips", popup=hover())
        shots_at_sizes("3-answer", hover)
        preview().hide()
        chip.click()
        settle(0.5)
        if readme:
            shot("4-viewer-highlight")
        shots_at_sizes("4-viewer")
        win.viewer.zoom_in()
        win.viewer.zoom_in()
        shots_at_sizes("5-viewer-zoomed")
        win.viewer.zoom_out()
        win.viewer.zoom_out()
    else:
        print("the answer has no citations:", card.answer and card.answer.kind)
        shots_at_sizes("3-answer")
    follow = ask(follow_up)
    meant = follow.answer.understood_as if follow.answer is not None else None
    print("follow-up understood as:", meant)
    win.conversation.scroll.ensureWidgetVisible(follow)
    if readme:
        shot("8-follow-up-understood-as")
    shots_at_sizes("8-follow-up")
    refused = ask(unanswered)
    if refused.answer is None or refused.answer.kind != "refusal" or not refused.chips:
        print("not a refusal with closest passages:", refused.answer and refused.answer.answer)
    else:  # the refusal's reason, and a closest passage's preview
        hover = hovering(refused, refused.chips[0])
        if readme:
            shot("7-refusal-closest-passages", popup=hover())
        shots_at_sizes("6-refusal", hover)
        preview().hide()
    docs = win.library.documents
    if docs:
        win.summarize(docs[0].doc_id)
        pump(lambda: not win.conversation.running, 900, "the summary")
        summary = win.conversation.cards[-1]
        print("summary:", summary.answer and summary.answer.kind, len(summary.chips), "chips")
        win.conversation.scroll.verticalScrollBar().setValue(
            win.conversation.scroll.verticalScrollBar().maximum()
        )
        if readme:
            shot("9-summary")
        shots_at_sizes("9-summary")
    win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
