"""What a new user met in issue 12: small windows, files on the command line, stale banners,
the viewer after a chip click and a zoom, Sources clicks, copying the selected answer.

Answers here are built from the contract models over a real PDF and a real library (the
quote rectangles come from PyMuPDF), so these tests need no chat model and stay quick;
the full ask flow with the real model is in test_flow.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QTextEdit,
    QWidget,
)

from app.core.config import Settings
from app.core.models import Answer, Citation, Source, Validation
from app.ui.answer_card import AutoHeightBrowser
from app.ui.main import parse_args, qt_options
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings, qsettings
from app.ui.theme import stylesheet
from app.ui.widgets import ElidedLabel
from tests.gui.conftest import drop_files, wait_ingested
from tests.pdf_factory import make_manual_pdf

pytestmark = pytest.mark.gui

LONG_QUESTION = (
    "How often does the Zephyr 3000 need its sensor calibration, and what does the field "
    "manual say about the interval between two calibrations in wet seasons?"
)


# --- helpers ---------------------------------------------------------------------------
def _quote_rects(pdf: Path, page: int, words: str) -> list[tuple[int, float, float, float, float]]:
    with pymupdf.open(pdf) as doc:
        hits = doc[page - 1].search_for(words)
    assert hits, f"{words!r} not on page {page}"
    return [(page, r.x0, r.y0, r.x1, r.y1) for r in hits[:1]]


def _some_words(pdf: Path, page: int) -> str:
    with pymupdf.open(pdf) as doc:
        text = doc[page - 1].get_text()
    line = next(ln for ln in text.splitlines() if len(ln.split()) >= 4)
    return " ".join(line.split()[:4])


def make_answer(pdf: Path, question: str = LONG_QUESTION, page: int = 3) -> Answer:
    words = _some_words(pdf, page)
    cit = Citation(
        n=1,
        doc_id="d1",
        chunk_id="d1:00001",
        file=str(pdf),
        page=page,
        section="Maintenance",
        quote=words,
        match="exact",
        score=100.0,
        rects=_quote_rects(pdf, page, words),
    )
    sources = [
        Source(
            rank=i,
            chunk_id=f"d1:0000{i}",
            doc_id="d1",
            file=str(pdf),
            title="Zephyr 3000 Field Manual",
            page_start=page if i == 1 else 1,
            page_end=page if i == 1 else 1,
            section="Maintenance > A rather long section heading about calibration intervals",
            score=1.0,
            text=words + " and more text of the passage.",
            n=i,
        )
        for i in (1, 2)
    ]
    text = (
        "Calibrate the sensor every ninety days, and more often in wet seasons, as the manual "
        "explains in its maintenance chapter with a long sentence that must wrap nicely [1]."
    )
    return Answer(
        question=question,
        mode="answer",
        answer=text,
        citations=[cit],
        sources=sources,
        validation=Validation(status="GREEN"),
        timings_ms={"total": 4300.0, "first_token": 900.0},
    )


def _ancestors(w: QWidget, top: QWidget) -> list[QWidget]:
    out, p = [], w.parentWidget()
    while p is not None and p is not top:
        out.append(p)
        p = p.parentWidget()
    return [*out, top]


def _is_scroll_viewport(w: QWidget) -> bool:
    parent = w.parentWidget()
    return isinstance(parent, QAbstractScrollArea) and parent.viewport() is w


def clipped(win: QWidget) -> list[str]:
    """Visible labels, buttons and answer texts that are cut (too small, or outside a parent).

    Vertical overflow inside a scroll area is scrolling, not clipping; everything else counts.
    """
    problems: list[str] = []
    for w in win.findChildren(QWidget):
        if not w.isVisible() or w.width() <= 0 or isinstance(w, ElidedLabel):
            continue
        label = w.text() if isinstance(w, (QLabel, QAbstractButton)) else ""
        name = f"{type(w).__name__}({label[:40]!r})"
        if isinstance(w, QLabel) and w.text():
            if w.wordWrap():
                need = w.heightForWidth(w.width())
                if need > w.height() + 1:
                    problems.append(f"{name}: needs {need}px height, has {w.height()}")
            elif w.minimumSizeHint().width() > w.width() + 1:
                problems.append(f"{name}: needs {w.minimumSizeHint().width()}px, has {w.width()}")
        elif isinstance(w, QAbstractButton) and w.text():
            if w.minimumSizeHint().width() > w.width() + 1:
                problems.append(f"{name}: needs {w.minimumSizeHint().width()}px, has {w.width()}")
        elif isinstance(w, AutoHeightBrowser):
            doc = w.document()
            if doc.size().height() > w.viewport().height() + 2:
                problems.append(f"answer text: {doc.size().height()} > {w.viewport().height()}")
            if doc.idealWidth() > w.viewport().width() + 2:
                problems.append(f"answer text too wide: {doc.idealWidth()}")
        else:
            continue
        r = QRect(w.mapTo(win, QPoint(0, 0)), w.size())
        scrolled = False  # inside a scroll area, vertical overflow is reached by scrolling
        for a in _ancestors(w, win):
            ar = QRect(a.mapTo(win, QPoint(0, 0)), a.size()) if a is not win else win.rect()
            if r.left() < ar.left() - 1 or r.right() > ar.right() + 1:
                problems.append(f"{name}: outside {type(a).__name__} horizontally")
                break
            scrolled = scrolled or _is_scroll_viewport(a)
            if not scrolled and (r.top() < ar.top() - 1 or r.bottom() > ar.bottom() + 1):
                problems.append(f"{name}: outside {type(a).__name__} vertically")
                break
    return problems


@pytest.fixture
def bare_window(qtbot) -> MainWindow:
    """The real window without services (nothing here needs a model)."""
    QApplication.instance().setStyleSheet(stylesheet())  # type: ignore[union-attr]
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    return win


def _populate(win: MainWindow, pdf: Path, qtbot) -> None:
    win.library.set_documents([])
    for q in (LONG_QUESTION, "Short one?"):
        win.conversation.add_finished(make_answer(pdf, q))
    win.sources.show_answer(win.conversation.cards[-1].answer)
    win.messages.show_message(
        "error",
        "Could not add 3 files: scanned.pdf, locked.pdf, broken.pdf.",
        "The import panel lists the reason for each file, with a long explanation that wraps.",
    )
    win.imports.start([pdf, pdf.with_name("other.pdf"), pdf.with_name("third.pdf")])
    win.open_citation(win.conversation.cards[0].answer, 1)
    qtbot.wait(100)


@pytest.mark.parametrize("size", [(800, 600), (1280, 800)])
def test_nothing_is_clipped(bare_window: MainWindow, qtbot, tmp_path: Path, size) -> None:
    win = bare_window
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    win.resize(1920, 1080)  # all three columns, then shrink as a person would
    win.show()
    qtbot.waitExposed(win)
    _populate(win, pdf, qtbot)
    win.resize(*size)
    qtbot.wait(200)
    assert (win.width(), win.height()) == size, "the window fits the size it was given"
    assert win.viewer.isVisible(), "the evidence opened after the chip click is shown"
    assert win.conversation.width() >= 340
    assert win.conversation.input.width() >= 240, "the question box is usable"
    assert clipped(win) == []
    if size[0] >= 1280:
        assert win.left.isVisible(), "three columns fit from 1280 px"
    else:
        assert not win.left.isVisible() and not win.act_left.isChecked()
        win.act_left.trigger()  # View → Library: it takes the room back from the viewer
        qtbot.wait(100)
        assert win.left.isVisible() and not win.viewer.isVisible()
        assert (win.width(), win.height()) == size
        assert clipped(win) == []
    # Sources keep at least three rows readable while the import panel is open.
    if win.left.isVisible():
        rows = win.sources.list.sizeHintForRow(0) * 3
        assert win.sources.list.viewport().height() >= rows


def test_reading_width_is_capped_on_wide_windows(bare_window: MainWindow, qtbot, tmp_path) -> None:
    win = bare_window
    pdf = make_manual_pdf(tmp_path / "m.pdf")
    win.resize(2400, 1000)
    win.show()
    qtbot.waitExposed(win)
    win.set_panel("viewer", False)
    win.conversation.add_finished(make_answer(pdf))
    qtbot.wait(100)
    assert win.conversation.cards[0].width() <= 840


def test_restored_geometry_is_clamped_to_the_screen(qtbot) -> None:
    big = MainWindow(load_settings())
    qtbot.addWidget(big)
    big.setGeometry(100, 100, 3000, 2000)
    qs = qsettings()
    qs.setValue("window/geometry", big.saveGeometry())
    qs.sync()
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    area = (win.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert win.width() <= area.width() and win.height() <= area.height()
    assert area.contains(win.frameGeometry().topLeft())


# --- banners --------------------------------------------------------------------------
def test_banners_go_away_when_no_longer_true(window: MainWindow, qtbot, tmp_path: Path) -> None:
    window.ask("What is the calibration interval?")
    if window.session.asker is not None:
        assert any("library is empty" in t for t in window.messages.texts())
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    bad = [tmp_path / f"bad{i}.pdf" for i in range(3)]
    for b in bad:
        b.write_bytes(b"this is not a PDF")
    drop_files(window, [pdf, *bad])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)
    texts = window.messages.texts()
    assert not any("library is empty" in t for t in texts), texts
    failures = [t for t in texts if "Could not add" in t]
    assert len(failures) == 1 and "3 files" in failures[0], texts
    assert len(window.messages.items()) <= 2


def test_library_shows_loading_not_drop_here_while_opening(qtbot) -> None:
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    assert win.library.stack.currentWidget() is win.library.loading
    win.start()
    qtbot.waitUntil(
        lambda: win.library.stack.currentWidget() is win.library.drop_zone, timeout=60_000
    )
    win.close()


# --- command line and second launch ------------------------------------------------------
def test_command_line_files_are_parsed_apart_from_qt_options() -> None:
    args = parse_args(["-platform", "offscreen", "a.pdf", "--library", "L", "b.pdf"])
    assert args.files == [Path("a.pdf"), Path("b.pdf")] and args.library == Path("L")
    assert qt_options(["-platform", "offscreen", "a.pdf"]) == (
        ["a.pdf"],
        ["-platform", "offscreen"],
    )


def test_open_files_imports_once_the_library_is_open(window: MainWindow, qtbot, tmp_path) -> None:
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    window.open_files([pdf, tmp_path / "missing.pdf"])
    assert any("missing.pdf was not found" in t for t in window.messages.texts())
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)


def _library_files(lib: Path) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-m", "app", "docs", "--library", str(lib), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return {Path(d.get("file", "")).name for d in json.loads(out.stdout)["documents"]}


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_pdf_on_the_command_line_and_a_second_launch(tmp_path: Path) -> None:
    """`footnote a.pdf` imports a.pdf; `footnote b.pdf` while it runs hands b.pdf over."""
    lib = tmp_path / "lib"
    a = make_manual_pdf(tmp_path / "a-manual.pdf")
    b = make_manual_pdf(tmp_path / "b-manual.pdf", title="Another manual")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    app_log = Path(env["FOOTNOTE_LOG_DIR"]) / "footnote.log"  # the window's own log
    out_log = tmp_path / "first.out"

    def imports_finished() -> int:
        text = app_log.read_text(errors="replace") if app_log.is_file() else ""
        return text.count("Import finished: 1 added")

    def wait_for(n: int, what: str) -> None:
        deadline = time.monotonic() + 500  # a loaded machine; idle, well under a minute
        while imports_finished() < n:
            tail = out_log.read_text(errors="replace")[-2000:]
            assert first.poll() is None, tail
            assert time.monotonic() < deadline, f"{what} was not imported:\n{tail}"
            time.sleep(1)

    with out_log.open("w") as out:
        first = subprocess.Popen(
            [sys.executable, "-m", "app", str(a), "--library", str(lib)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(1, "the command-line PDF")
            second = subprocess.run(
                [sys.executable, "-m", "app", str(b), "--library", str(lib)],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert second.returncode == 0, second.stderr
            assert "already open" in second.stdout
            wait_for(2, "the second launch's PDF")
        finally:
            first.terminate()
            first.wait(timeout=60)
    assert _library_files(lib) == {"a-manual.pdf", "b-manual.pdf"}


# --- viewer ------------------------------------------------------------------------------
def test_chip_click_sets_the_page_box_and_zoom_keeps_the_highlight(
    bare_window, qtbot, tmp_path
) -> None:
    win = bare_window
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    card = win.conversation.add_finished(make_answer(pdf, page=3))
    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    qtbot.wait(100)
    v = win.viewer
    assert v.current_doc == pdf and v.current_page == 3
    assert v.page_box.value() == 3, "the page box shows the page on screen"
    viewport = v.canvas.viewport().rect()
    assert viewport.intersects(v.canvas.highlight_rect_on_screen().toRect())
    for _ in range(4):
        v.zoom_in()
        hl = v.canvas.highlight_rect_on_screen()
        assert hl is not None and viewport.intersects(hl.toRect()), "zoom in keeps the quote"
        assert v.page_box.value() == v.current_page == 3
    for _ in range(6):
        v.zoom_out()
        assert viewport.intersects(v.canvas.highlight_rect_on_screen().toRect())
    v.fit()
    assert viewport.intersects(v.canvas.highlight_rect_on_screen().toRect())


def test_open_external_without_a_launcher_says_so(
    bare_window, qtbot, tmp_path, monkeypatch
) -> None:
    win = bare_window
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    win.viewer.open(pdf, 1)
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda _url: False))
    win.viewer.btn_ext.click()
    assert any("No program opened zephyr-manual.pdf" in t for t in win.messages.texts())


def test_sources_click_highlights_the_passage(window: MainWindow, qtbot, tmp_path) -> None:
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    drop_files(window, [pdf])
    wait_ingested(qtbot, window)
    lib = window.session.library
    assert lib is not None
    doc = lib.documents()[0]
    chunk = next(c for c in lib.store.chunks_of(doc.doc_id) if c.page_start > 1)
    src = Source(
        rank=1,
        chunk_id=chunk.chunk_id,
        doc_id=doc.doc_id,
        file=str(pdf),
        title=doc.title,
        page_start=chunk.page_start,
        page_end=chunk.page_end,
        section=chunk.section,
        score=1.0,
        text=chunk.text,
        n=1,
    )
    answer = Answer(
        question="q?",
        mode="refuse",
        kind="refusal",
        answer="",
        sources=[src],
        validation=Validation(status="RED"),
    )
    window.sources.show_answer(answer)
    item = window.sources.list.item(0)
    rect = window.sources.list.visualItemRect(item)
    qtbot.mouseClick(window.sources.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.viewer.current_doc == pdf, timeout=5000)
    assert window.viewer.current_page == chunk.page_start
    hl = window.viewer.highlight_rects
    assert hl and {r[0] for r in hl} <= {chunk.page_start, chunk.page_end}


# --- answers -----------------------------------------------------------------------------
def test_copy_answer_copies_the_selected_one(bare_window, qtbot, tmp_path) -> None:
    win = bare_window
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    pdf = make_manual_pdf(tmp_path / "zephyr-manual.pdf")
    first = win.conversation.add_finished(make_answer(pdf, "First question?"))
    win.conversation.add_finished(make_answer(pdf, "Second question?"))
    win.act_copy.trigger()
    assert "Second question?" in QGuiApplication.clipboard().text()
    qtbot.mouseClick(first.question_label, Qt.MouseButton.LeftButton)
    assert first.property("selected") is True
    win.act_copy.trigger()
    assert "**Q:** First question?" in QGuiApplication.clipboard().text()
    assert win.sources.answer is first.answer, "Sources follow the selected answer"


def test_junk_is_not_streamed(qtbot) -> None:
    from app.ui.answer_card import AnswerCard

    card = AnswerCard("q?")
    qtbot.addWidget(card)
    card.append_raw("1")
    assert card.body.toPlainText() == ""
    card.append_raw("28, 128, 128, 128,")
    assert card.body.toPlainText() == "" and "Writing" in card.phase.text()
    card2 = AnswerCard("q?")
    qtbot.addWidget(card2)
    card2.append_raw("The sensor is calibrated")
    assert card2.body.toPlainText() == "The sensor is calibrated"
    assert isinstance(card2.body, QTextEdit)


def test_settings_lists_local_models_and_rejects_non_gguf(qtbot, tmp_path: Path) -> None:
    from app.generation.local_models import find_local_models
    from app.ui.settings_dialog import SettingsDialog
    from tests.gguf_factory import llama_meta, write_gguf

    write_gguf(tmp_path / "lms/pub/repo/big.Q4_K_M.gguf", llama_meta("Big Model 8B", 15))
    found = find_local_models([("LM Studio", tmp_path / "lms")], [])
    dlg = SettingsDialog(Settings(), local_models=found)
    qtbot.addWidget(dlg)
    labels = [dlg.model.itemText(i) for i in range(dlg.model.count())]
    assert any("Big Model 8B" in t and "Q4_K_M" in t and "LM Studio" in t for t in labels)
    dlg.model.setCurrentIndex(next(i for i, t in enumerate(labels) if "Big Model" in t))
    assert dlg.result_settings().model == tmp_path / "lms/pub/repo/big.Q4_K_M.gguf"
    bad = tmp_path / "notes.gguf"
    bad.write_text("hello")
    count = dlg.model.count()
    assert not dlg.set_model_path(str(bad))
    assert dlg.model.count() == count and dlg.model_error.isVisibleTo(dlg)
    assert "not a GGUF" in dlg.model_error.text()


def test_qt_calls_do_not_eat_references_to_none(qtbot) -> None:
    """PySide6 6.12.0 on Python 3.11 dropped a reference to None on every void call, so a
    long session died with "deallocating None"; the pinned PySide6 must not."""
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for i in range(2000):
        label.setText(str(i % 7))
        QApplication.processEvents()
    assert sys.getrefcount(None) > before - 100


def test_import_rows_count_each_files_own_pages_and_passages(window, qtbot, gui_pdfs) -> None:
    """Issue 12: rows showed batch totals ("Embedding 67/331" with 331 for all files)."""
    import re

    seen: dict[str, set[str]] = {}
    original = window.imports.on_progress

    def spy(p) -> None:
        original(p)
        for key, row in window.imports.rows.items():
            seen.setdefault(Path(key).name, set()).add(row.state.text())

    window.imports.on_progress = spy  # type: ignore[method-assign]
    drop_files(window, [gui_pdfs["manual"], gui_pdfs["large"]])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(
        lambda: (
            all(d.status == "ready" for d in window.library.documents)
            and len(window.library.documents) == 2
        ),
        timeout=600_000,
    )
    docs = {Path(d.file).name: d for d in window.library.documents}
    for name, texts in seen.items():
        doc = docs[name]
        for text in texts:
            m = re.match(r"(Reading pages|Embedding)\D*(\d+)/(\d+)", text)
            if not m:
                continue
            stage, done, total = m.group(1), int(m.group(2)), int(m.group(3))
            own = doc.pages if stage == "Reading pages" else doc.chunks
            assert total == own and done <= total, (name, text, own)
    top = window.imports.overall
    assert top.value() == top.maximum(), "the overall bar ends full"


@pytest.mark.parametrize("width", [520, 340, 250])
def test_an_answer_cards_badge_is_never_cut_short(qtbot, width: int) -> None:
    """In a wide card the extractive badge asked for half its text's width, wrapped onto two
    lines and got the height of one: its second line was cut off (seen in the README's
    screenshot). It takes one line where there is room, and wraps only where there is not."""
    from app.ui.answer_card import AnswerCard
    from tests.answer_factory import answer

    card = AnswerCard("How often should I clean the filter?")
    qtbot.addWidget(card)
    card.complete(answer(question=card.question))  # extractive, so the badge shows
    card.resize(width, card.heightForWidth(width) if card.hasHeightForWidth() else 400)
    card.show()
    qtbot.waitExposed(card)
    badge = card.badge
    assert badge.height() >= badge.heightForWidth(badge.width()), "the badge's text is cut off"
    one_line = badge.heightForWidth(1 << 16)
    if width >= 520:
        assert badge.height() == one_line, "room for one line, yet wrapped"
    assert badge.geometry().right() <= card.contentsRect().right()


def test_a_narrow_answer_card_wraps_its_badge_instead_of_clipping(qtbot) -> None:
    """At 800x600 with the viewer open the conversation is about 390 px wide; the extractive
    badge ("Extractive answer: sentences quoted from your documents") pushed the card wider
    than that, clipping its right edge and the copy button."""
    from app.ui.answer_card import AnswerCard
    from tests.answer_factory import answer

    card = AnswerCard("How often should I clean the filter?")
    qtbot.addWidget(card)
    card.complete(answer(question=card.question))  # extractive, so the badge shows
    assert card.badge.isVisibleTo(card) and "Extractive" in card.badge.text()
    assert card.minimumSizeHint().width() <= 340
    card.resize(340, card.heightForWidth(340) if card.hasHeightForWidth() else 400)
    card.show()
    qtbot.waitExposed(card)
    assert card.badge.geometry().right() <= card.contentsRect().right()
