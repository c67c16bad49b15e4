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
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from app.core.models import Answer, DroppedCitation, Support, Validation
from app.core.progress import FileProgress, Progress, Stage
from app.ui import render
from app.ui.answer_card import AnswerCard
from app.ui.import_panel import ImportPanel
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings, qsettings
from tests import answer_factory
from tests.gui.conftest import drop_files, wait_ingested, wait_ready
from tests.pdf_factory import make_not_pdf, make_scanned_pdf, make_two_column_pdf

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


# --- item 8: wording ------------------------------------------------------------------------
def test_a_one_page_import_speaks_in_the_singular(window: MainWindow, qtbot, tmp_path) -> None:
    pdf = make_two_column_pdf(tmp_path / "stations.pdf")  # one page
    seen: list[tuple[list[str], str]] = []
    window.session.documents_changed.connect(
        lambda docs: seen.append(([d.status for d in docs], window.docs_label.text()))
    )
    drop_files(window, [pdf])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)
    row = window.imports.rows[str(pdf)].state.text()
    assert row.startswith("Added: 1 page, ") and "1 pages" not in row, row
    assert window.library.scope.text() == "Asking your only document"
    assert window.docs_label.text() == "1 document"
    for statuses, label in seen:
        assert "0 ready" not in label, label
        if "indexed" in statuses:  # searchable by keyword already: the words say so
            assert "keyword search works" in label, label


def _refusal(text: str, reasons: list[str]) -> Answer:
    closest = answer_factory.citation(n=3)
    support = Support(score=0.0, missing=["watermark"], reasons=reasons, closest=[closest])
    return answer_factory.answer(
        mode="refuse",
        kind="refusal",
        answer=text,
        citations=[],
        validation=Validation(status="REFUSED", flags=[text], support=support),
    )


@pytest.mark.parametrize(
    "text, reasons",
    [
        ("No passage in your library mentions \u2018watermark\u2019.", None),
        (
            "Not answered: the question asks for a price, and none of the closest passages "
            "gives one.",
            ["The question asks for a price, and none of the closest passages gives one."],
        ),
    ],
)
def test_a_refusal_says_its_reason_once_per_card(qtbot, text: str, reasons) -> None:
    card = AnswerCard("What about the watermark?")
    qtbot.addWidget(card)
    card.complete(_refusal(text, reasons or [text]))
    reason = (reasons or [text])[0].rstrip(".")
    shown = f"{card.body.toPlainText()}\n{card.status.text()}".casefold()
    assert shown.count(reason.casefold()) == 1, shown
    assert "closest passages to check" in card.status.text()
    md = render.answer_markdown(card.answer)
    assert md.casefold().count(reason.casefold()) == 1, md


def test_status_lines_use_no_internal_terms(qtbot) -> None:
    dropped = [
        DroppedCitation(n=1, reason="duplicate"),
        DroppedCitation(n=2, reason="quote_not_found"),
    ]
    answer = answer_factory.answer(
        kind="generated",
        validation=Validation(status="GREEN", dropped=dropped, repaired=True),
    )
    card = AnswerCard(answer.question)
    qtbot.addWidget(card)
    card.complete(answer)
    words = card.status.text()
    for jargon in ("repaired", "repeated another citation", "retrieved", "marker"):
        assert jargon not in words, words
    assert "1 citation removed" in words, "the duplicate is not counted as evidence lost"
    assert "second try" in words and "cited twice" in words


def test_the_stopped_icon_is_not_an_empty_box(qtbot) -> None:
    card = AnswerCard("Stop this")
    qtbot.addWidget(card)
    card.cancelled()
    img = card.status_icon.pixmap().toImage()
    w, h = img.width(), img.height()
    assert img.pixelColor(w // 2, h // 2).alpha() > 200, "a filled stop square in the middle"
    # ...inside a round outline: the corners stay empty, unlike a checkbox's square.
    assert img.pixelColor(1, 1).alpha() == 0 and img.pixelColor(w - 2, h - 2).alpha() == 0
    assert img.pixelColor(w // 2, 1).alpha() > 0


# --- items 6 and 7: the import panel ------------------------------------------------------
def test_the_overall_bar_is_not_full_while_ocr_has_pages_to_read(qtbot, tmp_path) -> None:
    """The reports a 3-page scan gives (parse, then OCR page by page, then indexing)."""
    scan = make_scanned_pdf(tmp_path / "scan.pdf", pages=3)
    panel = ImportPanel()
    qtbot.addWidget(panel)
    panel.start([scan])
    f = {"file": str(scan), "index": 0, "count": 1}
    panel.on_progress(Progress(Stage.FILE, 0, 1, file=str(scan)))
    for i in range(3):
        panel.on_progress(FileProgress(Stage.PARSE, i + 1, 3, **f))
    values = []
    for i in range(4):
        panel.on_progress(FileProgress(Stage.OCR, i, 3, **f))
        values.append(panel.overall.value())
        assert "OCR" in panel.rows[str(scan)].state.text()
    assert values[0] < 100, f"OCR 0/3 pages: the overall bar is at {values[0] / 10:.0f}%"
    assert values == sorted(values) and values[-1] < 1000
    panel.on_progress(FileProgress(Stage.INDEX, 1, 1, **f))
    assert panel.overall.value() == 1000


def test_import_finished_goes_away_by_itself_and_is_said_once(
    window: MainWindow, qtbot, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(ImportPanel, "AUTO_HIDE_MS", 1500, raising=False)
    pdf = make_two_column_pdf(tmp_path / "stations.pdf")
    drop_files(window, [pdf])
    wait_ingested(qtbot, window)
    panel = window.imports
    assert panel.isVisible() and panel.title.text().startswith("Import finished")
    assert not any("Import finished" in t for t in window.messages.texts()), "said once"
    assert not panel.overall.isVisible(), "no full bar left behind"
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=5000)


def test_a_removed_document_is_no_longer_listed_as_imported(
    window: MainWindow, qtbot, tmp_path
) -> None:
    good = make_two_column_pdf(tmp_path / "stations.pdf")
    bad = make_not_pdf(tmp_path / "notes.pdf")
    drop_files(window, [good, bad])
    wait_ingested(qtbot, window)
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)
    panel = window.imports
    assert panel.isVisible(), "a failure stays until dismissed"
    names = lambda: {Path(k).name for k in panel.rows}  # noqa: E731
    assert names() == {"stations.pdf", "notes.pdf"}
    window.library.confirm_remove = lambda _doc: True
    window.library.list.item(0).setSelected(True)
    window.library.remove_selected()
    qtbot.waitUntil(lambda: not window.library.documents, timeout=60_000)
    qtbot.waitUntil(lambda: names() == {"notes.pdf"}, timeout=5000)
    assert panel.isVisible()


# --- item 10: no leaked semaphores at quit ------------------------------------------------
_IMPORT_AND_QUIT = """
import sys
from PySide6.QtCore import QTimer
import app.ui.main_window as mw

start = mw.MainWindow.start


def patched(self):
    start(self)

    def close_when_done(left=900):
        docs = self.library.documents
        done = self.ingest_job is None and docs and all(d.status == "ready" for d in docs)
        if done or left <= 0:
            print(f"documents: {len(docs)}", flush=True)
            self.close()
        else:
            QTimer.singleShot(200, lambda: close_when_done(left - 1))

    QTimer.singleShot(500, close_when_done)


mw.MainWindow.start = patched
sys.argv = ["footnote", *sys.argv[1:]]
from app.launch import entry

entry()
"""


def test_quitting_after_an_import_leaks_no_semaphores(tmp_path: Path) -> None:
    """The way a person meets it: open Footnote with a PDF, let it import, close the window.
    The import child and the app both leave with os._exit (app/core/exiting.py)."""
    pdf = make_two_column_pdf(tmp_path / "stations.pdf")
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        FOOTNOTE_LIBRARY=str(tmp_path / "library"),
        PYTHONWARNINGS="default",
    )
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_AND_QUIT, str(pdf)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "documents: 1" in proc.stdout, proc.stdout + proc.stderr
    assert "leaked semaphore" not in proc.stderr, proc.stderr
    assert "resource_tracker" not in proc.stderr, proc.stderr


# --- item 9: dark mode ------------------------------------------------------------------
@pytest.fixture
def restore_appearance():
    from app.ui.theme import apply_appearance, stylesheet

    yield
    apply_appearance("system")
    QApplication.instance().setStyleSheet(stylesheet())  # type: ignore[union-attr]


def _is_dark() -> bool:
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5


def test_view_menu_switches_dark_and_light_and_remembers(qtbot, restore_appearance) -> None:
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert not _is_dark() and win.appearance_actions["system"].isChecked()
    light_qss = QApplication.instance().styleSheet()
    tool = win.library.add_tool
    light_icon = tool.icon().pixmap(16, 16).toImage()
    win.appearance_actions["dark"].trigger()
    assert _is_dark(), "dark whatever the system says"
    assert QApplication.instance().styleSheet() != light_qss, "the style sheet follows"
    dark_icon = tool.icon().pixmap(16, 16).toImage()
    assert dark_icon != light_icon, "icons already shown are tinted anew"
    assert qsettings().value("view/appearance") == "dark"
    again = MainWindow(load_settings())  # the next start reads it
    qtbot.addWidget(again)
    assert again.appearance_actions["dark"].isChecked()
    win.appearance_actions["light"].trigger()
    assert not _is_dark()
    win.appearance_actions["system"].trigger()
    assert not _is_dark() and qsettings().value("view/appearance") == "system"


def _indicator_contrast(panel) -> float:
    """Greatest lightness difference between the unchecked box's pixels and the list's base."""
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    lst = panel.list
    item = lst.item(0)
    assert item.checkState() == Qt.CheckState.Unchecked
    opt = QStyleOptionViewItem()
    opt.initFrom(lst)
    opt.rect = lst.visualItemRect(item)
    opt.features |= QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    box = lst.style().subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, opt, lst)
    img = lst.viewport().grab().toImage()
    base = lst.palette().color(QPalette.ColorRole.Base).lightnessF()
    return max(
        abs(img.pixelColor(x, y).lightnessF() - base)
        for x in range(box.left(), box.right() + 1)
        for y in range(box.top(), box.bottom() + 1)
    )


def test_an_unchecked_document_is_visible_in_dark_mode(qtbot, restore_appearance) -> None:
    from app.core.models import Document
    from app.ui.library_panel import LibraryPanel
    from app.ui.theme import apply_appearance

    apply_appearance("dark")
    assert _is_dark()
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.resize(320, 300)
    docs = [
        Document(doc_id=f"d{i}", file=f"/docs/r{i}.pdf", title=f"R{i}", pages=3) for i in (1, 2)
    ]
    panel.set_documents(docs)
    panel.set_checked("d1", False)
    panel.show()
    qtbot.waitExposed(panel)
    assert _indicator_contrast(panel) >= 0.3, "the empty box stands out from the list"


# --- item 4: the library list -------------------------------------------------------------
def _docs(n: int) -> list:
    from app.core.models import Document

    names = ["GeoTopo-komprimiert-Vorlesungsskript-2023.pdf"] + [
        f"report-{i}.pdf" for i in range(n)
    ]
    return [
        Document(doc_id=f"d{i}", file=f"/docs/{name}", title=f"Document {i}", pages=117 - i)
        for i, name in enumerate(names[:n])
    ]


def _sourced_answer() -> Answer:
    from app.core.models import Source

    sources = [
        Source(
            n=k,
            rank=k,
            chunk_id=f"d:{k:05d}",
            doc_id="d",
            file="/docs/guide.pdf",
            title="Guide",
            page_start=k,
            page_end=k,
            section="Care",
            score=1.0 / k,
            text=f"Passage {k} about the filter.",
        )
        for k in range(1, 7)
    ]
    return answer_factory.answer(sources=sources)


def test_the_library_has_the_room_until_an_answer_has_sources(qtbot) -> None:
    win = MainWindow(load_settings())
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    win.library.set_documents(_docs(10))
    qtbot.wait(50)
    lst = win.library.list
    row = lst.sizeHintForRow(0)
    assert lst.viewport().height() >= 10 * row, "ten documents in view, not three"
    assert win.sources.height() <= 120, "an empty Sources panel is only its title and hint"
    hint = win.sources.hint
    assert hint.height() >= hint.heightForWidth(hint.width()), "its hint is not cut"
    win.sources.show_answer(_sourced_answer())
    qtbot.wait(50)
    rows = win.sources.list.sizeHintForRow(0)
    assert win.sources.list.viewport().height() >= 5 * rows, "the sources get their share"
    assert lst.viewport().height() >= 5 * row


def test_a_long_file_name_never_eats_the_page_count(qtbot, monkeypatch) -> None:
    from app.ui import library_panel
    from app.ui.library_panel import LibraryPanel

    drawn: list[str] = []
    real = getattr(library_panel, "second_line", None)

    def spy(*args):
        drawn.append(real(*args))  # type: ignore[misc]
        return drawn[-1]

    monkeypatch.setattr(library_panel, "second_line", spy, raising=False)
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.resize(250, 400)
    panel.set_documents(_docs(2))
    panel.show()
    qtbot.waitExposed(panel)
    panel.list.viewport().grab()  # paint the rows
    first = [t for t in drawn if "117" in t]
    assert first, drawn
    for text in first:
        assert text.endswith(" · 117 pages · Ready") and "\u2026" in text, text
        name = text.split(" · ")[0]
        assert name.startswith("GeoT") and name.endswith(".pdf"), text


# --- item 11: Korean titles drawn, not boxes ------------------------------------------------
KOREAN_TITLE = "\uc11c\uc6b8\uc2dc \uc8fc\ubbfc \uc548\ub0b4\uc11c 2026"  # 서울시 주민 안내서 2026


def test_a_korean_title_in_the_library_is_drawn_with_a_font_that_has_its_glyphs(qtbot) -> None:
    from PySide6.QtGui import QFont, QFontMetrics, QTextLayout
    from PySide6.QtWidgets import QListWidget

    from app.core.models import Document
    from app.ui.fonts import ensure_script_fonts, uncovered
    from app.ui.library_panel import LibraryPanel

    assert ensure_script_fonts() == [], "set-up installs fonts-noto-cjk"
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.set_documents([Document(doc_id="k", file="/docs/k.pdf", title=KOREAN_TITLE, pages=2)])
    panel.show()
    qtbot.waitExposed(panel)
    font = QFont(panel.findChild(QListWidget).font())
    font.setWeight(QFont.Weight.DemiBold)  # as the delegate draws a title
    assert uncovered(KOREAN_TITLE, font) == ""
    layout = QTextLayout(KOREAN_TITLE, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    families = {run.rawFont().familyName() for run in layout.glyphRuns()}
    for ch in KOREAN_TITLE.replace(" ", "").rstrip("0123456789"):
        assert any(QFontMetrics(QFont(f)).inFontUcs4(ord(ch)) for f in families), (ch, families)


_NO_CJK = """
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.ui.fonts import ensure_script_fonts, missing_scripts, uncovered
before = missing_scripts()
left = ensure_script_fonts()
print(json.dumps({"before": before, "left": left, "boxes": uncovered(sys.argv[1])}))
"""


def test_where_fontconfig_knows_no_cjk_font_footnote_registers_one(tmp_path: Path) -> None:
    """The issue's machine: fontconfig lists only DejaVu, so Hangul came out as boxes; the
    app finds a CJK font in the system's font folders and registers it with Qt."""
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{tmp_path}/cache</cachedir>"
        "</fontconfig>"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FONTCONFIG_FILE=str(conf))
    proc = subprocess.run(
        [sys.executable, "-c", _NO_CJK, KOREAN_TITLE],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "Korean" in got["before"], got  # boxes without a CJK font
    assert got["left"] == [] and got["boxes"] == "", got
