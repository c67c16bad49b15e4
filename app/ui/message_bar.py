"""Non-modal message bar at the top of the window: errors and notices that never block work.

Why not QMessageBox: a modal box stops everything (and a test); a bar lets the person keep
reading while a failed file or a bad model is explained in plain words.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.ui.theme import icon, mix, palette, status_color

logger = logging.getLogger(__name__)

_LEVEL_ICON = {
    "error": ("error", "RED"),
    "warning": ("warning", "YELLOW"),
    "info": ("info", "INFO"),
}


class Message(QFrame):
    def __init__(self, level: str, text: str, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level, self.text, self.details = level, text, details
        self.setObjectName("message")
        icon_name, status = _LEVEL_ICON.get(level, _LEVEL_ICON["info"])
        col = status_color(status)
        bg = mix(palette().color(palette().ColorRole.Base), col, 0.12)
        self.setStyleSheet(
            f"#message {{ background: {bg.name()}; border: 1px solid {col.name()};"
            f" border-radius: 6px; }}"
        )
        ic = QLabel()
        ic.setPixmap(icon(icon_name, col).pixmap(18, 18))
        body = QLabel(f"<b>{_esc(text)}</b>" + (f"<br>{_esc(details)}" if details else ""))
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        body.setAccessibleName(f"{level}: {text} {details}".strip())
        close = QToolButton()
        close.setIcon(icon("close"))
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss message")
        close.clicked.connect(self.dismiss)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 6, 6)
        lay.addWidget(ic, 0, Qt.AlignmentFlag.AlignTop)
        lay.addWidget(body, 1)
        lay.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)

    def dismiss(self) -> None:
        self.hide()
        self.deleteLater()


class MessageBar(QWidget):
    """A vertical stack of at most ``limit`` messages; info messages fade after a while."""

    def __init__(self, parent: QWidget | None = None, limit: int = 3) -> None:
        super().__init__(parent)
        self.limit = limit
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(8, 6, 8, 0)
        self._lay.setSpacing(4)
        self.setVisible(False)

    def show_message(self, level: str, text: str, details: str = "", timeout_ms: int = 0) -> None:
        log = logger.error if level == "error" else logger.info
        log("%s: %s %s", level, text, details)
        items = self.items()
        while len(items) >= self.limit:
            items.pop(0).dismiss()
        msg = Message(level, text, details, self)
        msg.destroyed.connect(self._update_visibility)
        self._lay.addWidget(msg)
        self.setVisible(True)
        if timeout_ms or level == "info":
            QTimer.singleShot(timeout_ms or 8000, msg, msg.dismiss)

    def items(self) -> list[Message]:
        return [
            self._lay.itemAt(i).widget()  # type: ignore[misc]
            for i in range(self._lay.count())
            if isinstance(self._lay.itemAt(i).widget(), Message)
            and self._lay.itemAt(i).widget().isVisibleTo(self)
        ]

    def texts(self) -> list[str]:
        """Visible messages as 'text details' (for tests and accessibility)."""
        return [f"{m.text} {m.details}".strip() for m in self.items()]

    def _update_visibility(self) -> None:
        QTimer.singleShot(0, lambda: self.setVisible(bool(self.items())))


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
