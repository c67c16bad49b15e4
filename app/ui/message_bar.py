"""Non-modal message bar at the top of the window: errors and notices that never block work.

Why not QMessageBox: a modal box stops everything (and a test); a bar lets the person keep
reading while a failed file or a bad model is explained in plain words.
"""

from __future__ import annotations

import html
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
    def __init__(
        self,
        level: str,
        text: str,
        details: str,
        parent: QWidget | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.level, self.text, self.details, self.key = level, text, details, key
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
        more = f"<br>{html.escape(details)}" if details else ""
        body = QLabel(f"<b>{html.escape(text)}</b>{more}")
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
        parent = self.parentWidget()
        if parent is not None:
            parent.setVisible(
                any(
                    isinstance(w, Message) and w is not self and w.isVisibleTo(parent)
                    for w in parent.findChildren(Message)
                )
            )


# How long a message stays when nobody dismisses it (errors stay until read and dismissed,
# or until what they were about is resolved: see ``key``).
TIMEOUT_MS = {"info": 8000, "warning": 30000}


class MessageBar(QWidget):
    """A vertical stack of at most ``limit`` messages.

    Info and warning messages go away by themselves; a message with a ``key`` replaces the
    earlier one with the same key and can be withdrawn with :meth:`dismiss` when what it
    said stops being true (e.g. "The library is empty" once documents arrive).
    """

    def __init__(self, parent: QWidget | None = None, limit: int = 2) -> None:
        super().__init__(parent)
        self.limit = limit
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(8, 6, 8, 0)
        self._lay.setSpacing(4)
        self.setVisible(False)

    def show_message(
        self,
        level: str,
        text: str,
        details: str = "",
        timeout_ms: int = 0,
        key: str | None = None,
    ) -> None:
        log = logger.error if level == "error" else logger.info
        log("%s: %s %s", level, text, details)
        if key is not None:
            self.dismiss(key)
        items = self.items()
        while len(items) >= self.limit:
            items.pop(0).dismiss()
        msg = Message(level, text, details, self, key=key)
        msg.destroyed.connect(self._update_visibility)
        self._lay.addWidget(msg)
        self.setVisible(True)
        timeout = timeout_ms or TIMEOUT_MS.get(level, 0)
        if timeout:
            QTimer.singleShot(timeout, msg, msg.dismiss)

    def dismiss(self, key: str) -> None:
        """Withdraw the message shown with ``key`` (if any): it is no longer true."""
        for m in self.items():
            if m.key == key:
                m.dismiss()

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
