"""Sources panel: every passage retrieved for the current answer, the cited ones marked.

Why show uncited sources too: it tells the reader what the model saw, which makes a refusal
or a thin answer understandable. Clicking a source opens it in the viewer.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from app.core.models import Answer, Source
from app.core.terminal import safe_line
from app.ui import render
from app.ui.library_panel import NAME_ROLE, SUB_ROLE, DocumentDelegate
from app.ui.render import file_name, plain_tooltip
from app.ui.theme import icon, status_color

logger = logging.getLogger(__name__)

SOURCE_ROLE = Qt.ItemDataRole.UserRole + 3
QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's "no maximum"


class SourcesPanel(QWidget):
    """Until an answer has sources, only its title and hint: the library takes the room."""

    source_clicked = Signal(object, object)  # Answer, Source
    filled = Signal(bool)  # sources shown (True) or none (False)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer: Answer | None = None
        title = QLabel("Sources")
        title.setObjectName("panelTitle")
        self.title = title
        self.hint = QLabel("Passages retrieved for the selected answer appear here.")
        self.hint.setObjectName("mutedLabel")
        self.hint.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("sourceList")
        self.list.setItemDelegate(DocumentDelegate(self.list))
        self.list.setAccessibleName("Sources of the answer")
        self.list.itemActivated.connect(self._clicked)
        self.list.itemClicked.connect(self._clicked)
        self.list.setAcceptDrops(False)
        self.list.setVisible(False)
        # Three rows stay readable however much room the import panel above takes.
        self.list.setMinimumHeight(3 * (2 * self.fontMetrics().height() + 14) + 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 6, 6)
        lay.setSpacing(6)
        lay.addWidget(title)
        lay.addWidget(self.hint)
        lay.addWidget(self.list, 1)
        self.filler = QWidget()
        lay.addWidget(self.filler, 1)
        self.show_answer(None)

    def show_answer(self, answer: Answer | None) -> None:
        self.answer = answer
        self.list.clear()
        sources = answer.sources if answer else []
        cited = {c.n for c in answer.citations} if answer else set()
        shown = render.display_numbers(answer) if answer else {}
        for s in sorted(sources, key=lambda s: (s.n not in cited, shown.get(s.n, s.n))):
            name = file_name(s.file)
            pages = f"p. {s.page_start}" + (f"–{s.page_end}" if s.page_end > s.page_start else "")
            mark = "Cited" if s.n in cited else "Not cited"
            head = safe_line(s.section.split(" > ")[-1] if s.section else (s.title or name))
            it = QListWidgetItem(f"[{shown.get(s.n, s.n)}]  {head}")
            it.setData(SUB_ROLE, f"{mark} · {name} · {pages}")
            it.setData(NAME_ROLE, name)
            it.setData(SOURCE_ROLE, s.n)
            snippet = s.text if len(s.text) < 500 else s.text[:500] + "…"
            it.setToolTip(plain_tooltip(f"{s.title}\n{name}, {pages}\n\n{snippet}"))
            it.setData(
                Qt.ItemDataRole.AccessibleTextRole,
                f"Source {shown.get(s.n, s.n)}, {mark.lower()}: {name}, {pages}",
            )
            if s.n in cited:
                it.setIcon(icon("check", status_color("GREEN")))
                f = QFont(self.list.font())
                f.setBold(True)
                it.setFont(f)
            else:
                it.setIcon(icon("document", "#888888"))
            self.list.addItem(it)
        self.list.setVisible(bool(sources))
        self.filler.setVisible(False)
        if answer is None:
            self.hint.setText("Passages retrieved for the selected answer appear here.")
        elif not sources:
            self.hint.setText("No passages were retrieved for this answer.")
        else:
            n = len(cited & {s.n for s in sources})
            self.hint.setText(f"{len(sources)} passages retrieved, {n} cited.")
        self._fit_empty()
        self.filled.emit(bool(sources))

    def _fit_empty(self) -> None:
        """Nothing to list: no taller than the title and the (wrapped) hint; a splitter
        respects the maximum and gives the rest to the library."""
        if self.list.isVisibleTo(self):
            self.setMaximumHeight(QWIDGETSIZE_MAX)
            return
        lay = self.layout()
        m = lay.contentsMargins()
        width = max(1, self.width() - m.left() - m.right())
        hint = self.hint.heightForWidth(width)
        height = m.top() + m.bottom() + self.title.sizeHint().height() + lay.spacing()
        self.setMaximumHeight(height + max(hint, self.hint.sizeHint().height()) + 2)

    def resizeEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(e)  # type: ignore[arg-type]
        self._fit_empty()

    def source(self, n: int) -> Source | None:
        if self.answer is None:
            return None
        return next((s for s in self.answer.sources if s.n == n), None)

    def _clicked(self, item: QListWidgetItem) -> None:
        src = self.source(int(item.data(SOURCE_ROLE)))
        if src is not None and self.answer is not None:
            self.source_clicked.emit(self.answer, src)
