"""One question and its answer: streamed text, then citation chips, status line and actions.

Why chips twice: inline ``[n]`` markers become chip-styled anchors in the text (hover shows
the quote, click opens the evidence), and a row of real buttons repeats them so that keyboard
and screen-reader users get "Citation 1: usrguide.pdf, page 3" as accessible names.
"""

from __future__ import annotations

import html
import logging

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.models import Answer, Citation
from app.core.progress import DRAFT_NOTE
from app.ui import render
from app.ui.theme import chip_colors, icon, muted_color, status_color
from app.ui.widgets import WrapLabel

logger = logging.getLogger(__name__)


class FlowLayout(QLayout):
    """Lays children left to right and wraps, like words (Qt's classic flow layout example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, i: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[i] if 0 <= i < len(self._items) else None

    def takeAt(self, i: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(i) if 0 <= i < len(self._items) else None

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        s = QSize()
        for it in self._items:
            s = s.expandedTo(it.minimumSize())
        return s

    def _place(self, rect: QRect, *, move: bool) -> int:
        x, y, line_h = rect.x(), rect.y(), 0
        for it in self._items:
            hint = it.sizeHint()
            if x + hint.width() > rect.right() and line_h > 0:
                x, y = rect.x(), y + line_h + self._spacing
                line_h = 0
            if move:
                it.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line_h = max(line_h, hint.height())
        return y + line_h - rect.y()


class AutoHeightBrowser(QTextBrowser):
    """A QTextBrowser as tall as its text, so the conversation scrolls as one page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setOpenLinks(False)
        self.setAcceptDrops(False)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(0)
        self.document().contentsChanged.connect(self._fit)

    def _fit(self) -> None:
        self.document().setTextWidth(self.viewport().width())
        self.setFixedHeight(int(self.document().size().height()) + 4)

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._fit()


class CitationPreview(QFrame):
    """Hover card: the exact quote, then file, page and section."""

    def __init__(self) -> None:
        super().__init__(None, Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("citationPreview")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setFixedWidth(380)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        lay.addWidget(self.label)
        self.citations: list[Citation] = []

    def show_for(self, cits: list[Citation], pos: QPoint) -> None:
        self.citations = cits
        self.label.setText(render.quote_preview_html(cits, section_color=muted_color()))
        self.adjustSize()
        screen = QGuiApplication.screenAt(pos) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        x = min(pos.x() + 12, area.right() - self.width() - 4)
        y = pos.y() + 18
        if y + self.height() > area.bottom():
            y = pos.y() - self.height() - 8
        self.move(max(area.left(), x), max(area.top(), y))
        self.show()
        self.raise_()


_PREVIEW: CitationPreview | None = None
_ACTIVE_CHIP: QPushButton | None = None


def preview() -> CitationPreview:
    global _PREVIEW
    if _PREVIEW is None:
        _PREVIEW = CitationPreview()
    return _PREVIEW


class AnswerCard(QFrame):
    """States: streaming -> complete | failed | cancelled."""

    citation_clicked = Signal(object, int)  # Answer, n
    copy_requested = Signal(object)  # Answer
    selected = Signal()  # clicked anywhere: this answer is the one Edit → Copy and Sources use

    def __init__(self, question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerCard")
        self.question = question
        self.answer: Answer | None = None
        self.raw = ""
        self.state = "streaming"
        self.chips: list[QPushButton] = []

        q = QLabel(question)
        q.setObjectName("questionLabel")
        q.setWordWrap(True)
        q.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.understood = WrapLabel("")  # a follow-up: the question as searched and checked
        self.understood.setObjectName("mutedLabel")
        self.understood.setTextFormat(Qt.TextFormat.PlainText)
        self.understood.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.understood.setVisible(False)
        self.badge = WrapLabel("")  # a narrow card (800x600, viewer open) wraps, never clips
        self.badge.setObjectName("badge")
        self.badge.setVisible(False)
        self.body = AutoHeightBrowser()
        self.body.setAccessibleName("Answer")
        self.body.anchorClicked.connect(self._anchor_clicked)
        self.body.highlighted.connect(self._anchor_hovered)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setFixedHeight(4)
        self.busy.setTextVisible(False)
        self.phase = QLabel("Searching your documents…")
        self.phase.setObjectName("mutedLabel")
        self.chip_host = QWidget()
        self.chip_flow = FlowLayout(self.chip_host)
        self.chip_host.setVisible(False)
        self.status_icon = QLabel()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setObjectName("statusLine")
        self.timing = QLabel("")
        self.timing.setObjectName("mutedLabel")
        self.copy_btn = QToolButton()
        self.copy_btn.setIcon(icon("copy"))
        self.copy_btn.setToolTip("Copy answer as Markdown (Ctrl+Shift+C)")
        self.copy_btn.setAccessibleName("Copy answer as Markdown")
        self.copy_btn.setAutoRaise(True)
        self.copy_btn.clicked.connect(lambda: self.answer and self.copy_requested.emit(self.answer))
        self.copy_btn.setVisible(False)
        status_row = QHBoxLayout()
        status_row.setSpacing(6)
        status_row.addWidget(self.status_icon, 0, Qt.AlignmentFlag.AlignTop)
        status_col = QVBoxLayout()
        status_col.setSpacing(2)
        status_col.addWidget(self.status)
        status_col.addWidget(self.timing)
        status_row.addLayout(status_col, 1)
        status_row.addWidget(self.copy_btn, 0, Qt.AlignmentFlag.AlignTop)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 12, 14, 10)
        lay.setSpacing(6)
        lay.addWidget(q)
        lay.addWidget(self.understood)
        lay.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.body)
        lay.addWidget(self.phase)
        lay.addWidget(self.busy)
        lay.addWidget(self.chip_host)
        lay.addLayout(status_row)
        self.body.setPlainText("")
        self.question_label = q
        for w in (self, q, self.body.viewport(), self.status, self.badge, self.timing):
            w.installEventFilter(self)

    def set_selected(self, on: bool) -> None:
        if bool(self.property("selected")) != on:
            self.setProperty("selected", on)
            self.style().unpolish(self)
            self.style().polish(self)

    # --- streaming ----------------------------------------------------------------
    def append_raw(self, text: str) -> None:
        if not text:
            return
        self.raw += text  # the service streams the answer text only, never the JSON
        shown = render.readable_draft(self.raw)
        if shown != self.body.toPlainText():
            self.body.setStyleSheet(f"color: {muted_color()};")  # a draft until it is checked
            self.body.setPlainText(shown)
        self.phase.setText(DRAFT_NOTE if shown else "Writing the answer…")

    def set_phase(self, text: str) -> None:
        if self.state == "streaming":
            self.phase.setText(text)

    # --- outcomes -----------------------------------------------------------------
    def complete(self, answer: Answer) -> None:
        self.state = "complete"
        self.answer = answer
        self.busy.setVisible(False)
        self.phase.setVisible(False)
        bg, fg = chip_colors()
        self.body.setStyleSheet("")
        self.body.setHtml(render.answer_html(answer, chip_bg=bg, chip_fg=fg))
        if answer.understood_as:
            self.understood.setText(render.understood_text(answer))
            self.understood.setAccessibleName(render.understood_text(answer))
            self.understood.setVisible(True)
        refusal = answer.kind == "refusal" or answer.mode == "refuse"
        if refusal:
            self._badge("Not answered", "REFUSAL")
            self.setProperty("kind", "refusal")
        elif answer.kind == "extractive":
            self._badge("Extractive answer: sentences quoted from your documents", "INFO")
        elif answer.kind == "summary":
            self._badge("Summary: each section in the document's own sentences", "INFO")
        self._build_chips(answer)
        level, words = render.status_text(answer)
        col = status_color(level)
        icon_name = {"GREEN": "shield", "YELLOW": "warning", "RED": "error"}.get(level, "refuse")
        self.status_icon.setPixmap(icon(icon_name, col).pixmap(16, 16))
        self.status.setText(words)
        self._status_colour(col.name())
        self.status.setAccessibleName(f"Validation: {words}")
        self._status_meaning(render.status_tooltip(answer))
        self.timing.setText(render.timings_text(answer.timings_ms))
        tip = render.timings_tooltip(answer.timings_ms)
        if answer.model:
            tip = f"Model: {answer.model}\n{tip}"
        self.timing.setToolTip(tip)
        self.copy_btn.setVisible(True)
        self.style().unpolish(self)
        self.style().polish(self)

    def fail(self, message: str) -> None:
        self.state = "failed"
        self.busy.setVisible(False)
        self.phase.setVisible(False)
        col = status_color("RED")
        self.status_icon.setPixmap(icon("error", col).pixmap(16, 16))
        self._status_meaning("")  # an error, not a status: its message says it all
        self.status.setText(message)
        self._status_colour(col.name())
        if not self.body.toPlainText():
            self.body.setVisible(False)

    def cancelled(self) -> None:
        self.state = "cancelled"
        self.busy.setVisible(False)
        self.phase.setVisible(False)
        self.status_icon.setPixmap(icon("stop", muted_color()).pixmap(16, 16))
        self._status_meaning("")
        self.status.setText("Stopped. The partial text above was not validated.")
        if not self.body.toPlainText():
            self.body.setVisible(False)
            self.status.setText("Stopped before an answer was written.")

    def _status_colour(self, colour: str) -> None:
        # By name: a bare "color:" would also colour the status line's tooltip (a QLabel)
        self.status.setStyleSheet(f"#statusLine {{ color: {colour}; }}")

    def _status_meaning(self, meaning: str) -> None:
        """What the status rests on, as the hover text of the status line and its icon (rich
        text, so that it wraps); none for an error or a stop."""
        tip = f"<p>{html.escape(meaning, quote=False)}</p>" if meaning else ""
        for w in (self.status, self.status_icon):
            w.setToolTip(tip)

    def _badge(self, text: str, level: str) -> None:
        col = status_color(level).name()
        self.badge.setText(text)
        self.badge.setStyleSheet(f"color: {col}; border: 1px solid {col};")
        self.badge.setVisible(True)

    def _build_chips(self, answer: Answer) -> None:
        by_n = render.citations_by_n(answer)
        if not by_n:
            return
        shown = render.display_numbers(answer)
        closest = render.is_refusal(answer)  # a refusal's chips are its closest passages
        label = QLabel("Closest passages:" if closest else "Evidence:")
        label.setObjectName("mutedLabel")
        self.chip_flow.addWidget(label)
        for n in sorted(by_n, key=lambda k: shown.get(k, k)):
            c = by_n[n][0]
            chip = QPushButton(f"{shown.get(n, n)}  {render.file_name(c.file)} · p. {c.page}")
            chip.setObjectName("chip")
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setAccessibleName(
                f"Closest passage {shown.get(n, n)}: {render.file_name(c.file)}, page {c.page}"
                if closest
                else render.citation_label(c, shown.get(n))
            )
            chip.setProperty("citation_n", n)
            chip.clicked.connect(lambda _=False, n=n: self._open(n))
            chip.installEventFilter(self)
            self.chip_flow.addWidget(chip)
            self.chips.append(chip)
        self.chip_host.setVisible(True)

    # --- citations ----------------------------------------------------------------
    def _open(self, n: int) -> None:
        preview().hide()
        self._mark_active(n)
        if self.answer is not None:
            self.citation_clicked.emit(self.answer, n)

    def _mark_active(self, n: int) -> None:
        """The chip whose evidence is highlighted in the viewer stays marked until the next."""
        global _ACTIVE_CHIP
        chip = next((c for c in self.chips if c.property("citation_n") == n), None)
        for c in (_ACTIVE_CHIP, chip):
            if c is not None:
                try:
                    c.setProperty("active", c is chip)
                    c.style().unpolish(c)
                    c.style().polish(c)
                except RuntimeError:  # the previous chip's card was deleted
                    pass
        _ACTIVE_CHIP = chip

    def show_preview(self, n: int, pos: QPoint | None = None) -> None:
        if self.answer is None:
            return
        cits = render.citations_by_n(self.answer).get(n)
        if cits:
            preview().show_for(cits, pos if pos is not None else QCursor.pos())

    def _anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == "cite":
            self._open(int(url.path() or url.toString().split(":", 1)[1]))

    def _anchor_hovered(self, url: QUrl) -> None:
        if url.scheme() == "cite":
            self.show_preview(int(url.toString().split(":", 1)[1]))
        else:
            preview().hide()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.MouseButtonPress:
            self.selected.emit()
        if isinstance(obj, QPushButton) and obj.property("citation_n") is not None:
            if event.type() == QEvent.Type.Enter:
                below = obj.mapToGlobal(QPoint(0, obj.height()))
                self.show_preview(int(obj.property("citation_n")), below)
            elif event.type() in (QEvent.Type.Leave, QEvent.Type.Hide):
                preview().hide()
        return super().eventFilter(obj, event)

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802
        preview().hide()
        super().leaveEvent(event)  # type: ignore[arg-type]
