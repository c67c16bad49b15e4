"""Conversation panel: the list of answer cards and the question box.

Why a timer for tokens: the worker pushes tokens into a buffer; a 50 ms timer moves them to
the screen, so redraws happen at most 20 times a second however fast the model is.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.models import Answer
from app.ui.answer_card import AnswerCard
from app.ui.theme import icon
from app.ui.workers import Job

logger = logging.getLogger(__name__)

FLUSH_MS = 50
READING_WIDTH = 820  # widest column of answers, in pixels


class QuestionBox(QPlainTextEdit):
    """Enter asks, Shift+Enter starts a new line, Esc cancels a running answer."""

    submitted = Signal()
    escape = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("Ask a question about your PDFs…  (Enter to ask)")
        self.setAccessibleName("Question")
        self.setTabChangesFocus(True)
        self.setAcceptDrops(False)
        self.setFixedHeight(64)

    def keyPressEvent(self, e: QKeyEvent) -> None:  # noqa: N802
        if e.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            e.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        if e.key() == Qt.Key.Key_Escape:
            self.escape.emit()
            return
        super().keyPressEvent(e)


class ConversationPanel(QWidget):
    ask_requested = Signal(str)
    cancel_requested = Signal()
    citation_clicked = Signal(object, int)  # Answer, n
    copy_requested = Signal(object)  # Answer
    answer_selected = Signal(object)  # Answer whose sources to show

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[AnswerCard] = []
        self.selected: AnswerCard | None = None
        self.job: Job | None = None
        self.active: AnswerCard | None = None

        title = QLabel("Conversation")
        title.setObjectName("panelTitle")
        self.empty = QLabel(
            "<p style='font-size:15px'><b>Ask anything about your PDFs.</b></p>"
            "<p>Every answer cites its evidence: hover a numbered chip to read the exact "
            "quote, click it to open the page with the quote highlighted.</p>"
        )
        self.empty.setObjectName("emptyHint")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.list_host = QWidget()
        self.list_host.setObjectName("conversationHost")
        self.list_lay = QVBoxLayout(self.list_host)
        self.list_lay.setContentsMargins(12, 8, 12, 12)
        self.list_lay.setSpacing(12)
        self.list_lay.addWidget(self.empty)
        self.list_lay.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.list_host)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.verticalScrollBar().rangeChanged.connect(self._follow)
        self._stick_to_bottom = True

        self.input = QuestionBox()
        self.input.submitted.connect(self._submit)
        self.input.escape.connect(self.cancel_requested)
        self.ask_button = QPushButton(icon("send", "#ffffff"), "Ask")
        self.ask_button.setObjectName("primaryButton")
        self.ask_button.setAccessibleName("Ask")
        self.ask_button.clicked.connect(self._button)
        row = QHBoxLayout()
        row.setContentsMargins(12, 6, 12, 10)
        row.addWidget(self.input, 1)
        row.addWidget(self.ask_button, 0, Qt.AlignmentFlag.AlignBottom)
        self.scope_hint = QLabel("")
        self.scope_hint.setObjectName("mutedLabel")
        self.scope_hint.setContentsMargins(14, 0, 12, 0)

        head = QHBoxLayout()
        head.setContentsMargins(12, 8, 12, 0)
        head.addWidget(title)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(head)
        lay.addWidget(self.scroll, 1)
        lay.addWidget(self.scope_hint)
        lay.addLayout(row)

        self.timer = QTimer(self)
        self.timer.setInterval(FLUSH_MS)
        self.timer.timeout.connect(self.flush_tokens)

    # --- input --------------------------------------------------------------------
    def _submit(self) -> None:
        if self.running:
            return
        text = self.input.toPlainText().strip()
        if text:
            self.ask_requested.emit(text)

    def _button(self) -> None:
        if self.running:
            self.cancel_requested.emit()
        else:
            self._submit()

    @property
    def running(self) -> bool:
        return self.job is not None

    # --- cards ----------------------------------------------------------------------
    def _add_card(self, question: str) -> AnswerCard:
        card = AnswerCard(question)
        card.citation_clicked.connect(self._card_citation)
        card.copy_requested.connect(self.copy_requested)
        card.selected.connect(lambda c=card: self.select(c))
        self.list_lay.insertWidget(self.list_lay.count() - 1, card)
        self.cards.append(card)
        self.empty.setVisible(False)
        return card

    def _card_citation(self, answer: Answer, n: int) -> None:
        card = next((c for c in self.cards if c.answer is answer), None)
        if card is not None:
            self.select(card)
        self.citation_clicked.emit(answer, n)

    def select(self, card: AnswerCard) -> None:
        """Make ``card`` the selected answer: marked, its sources shown, copied by Edit → Copy."""
        if self.selected is card:
            return
        if self.selected is not None and self.selected in self.cards:
            self.selected.set_selected(False)
        self.selected = card
        card.set_selected(True)
        if card.answer is not None:
            self.answer_selected.emit(card.answer)

    def selected_answer(self) -> Answer | None:
        card = self.selected
        return card.answer if card is not None and card in self.cards else None

    def add_finished(self, answer: Answer) -> AnswerCard:
        """A card for an answer from history."""
        card = self._add_card(answer.question)
        card.complete(answer)
        return card

    def begin(self, question: str, job: Job) -> AnswerCard:
        self.job = job
        self.active = self._add_card(question)
        if self.selected is not None:
            self.selected.set_selected(False)
            self.selected = None
        self.input.clear()
        self._stick_to_bottom = True
        self.ask_button.setText("Stop")
        self.ask_button.setIcon(icon("stop", "#ffffff"))
        self.ask_button.setAccessibleName("Stop answering")
        self.ask_button.setToolTip("Stop answering (Esc)")
        self.timer.start()
        return self.active

    def flush_tokens(self) -> None:
        if self.job is not None and self.active is not None:
            self.active.append_raw(self.job.take_tokens())

    def end(self) -> AnswerCard | None:
        self.flush_tokens()
        self.timer.stop()
        card, self.job, self.active = self.active, None, None
        self.ask_button.setText("Ask")
        self.ask_button.setIcon(icon("send", "#ffffff"))
        self.ask_button.setAccessibleName("Ask")
        self.ask_button.setToolTip("")
        return card

    def clear(self) -> None:
        for card in self.cards:
            card.setParent(None)
            card.deleteLater()
        self.cards.clear()
        self.selected = None
        self.empty.setVisible(True)

    def last_answer(self) -> Answer | None:
        for card in reversed(self.cards):
            if card.answer is not None:
                return card.answer
        return None

    def answers(self) -> list[Answer]:
        return [c.answer for c in self.cards if c.answer is not None]

    def resizeEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        """Cap the reading width: very long lines are hard to read on wide windows."""
        super().resizeEvent(e)  # type: ignore[arg-type]
        side = max(12, (self.scroll.viewport().width() - READING_WIDTH) // 2)
        self.list_lay.setContentsMargins(side, 8, side, 12)

    def _follow(self, _min: int, maximum: int) -> None:
        if self._stick_to_bottom:
            self.scroll.verticalScrollBar().setValue(maximum)

    def scroll_to_bottom(self) -> None:
        QTimer.singleShot(
            0,
            lambda: self.scroll.verticalScrollBar().setValue(
                self.scroll.verticalScrollBar().maximum()
            ),
        )
