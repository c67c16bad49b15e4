"""Small widgets shared by several panels."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    """A one-line label that shortens its text with "…" instead of widening its panel.

    The full text stays in ``text()`` (and the tooltip the caller sets), so nothing is lost.
    """

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().minimumSizeHint()
        return QSize(
            min(hint.width(), self.fontMetrics().horizontalAdvance("M…") + 8), hint.height()
        )

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        return QSize(min(hint.width(), 120), hint.height())

    def paintEvent(self, _event: object) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideMiddle, rect.width()
        )
        p.setPen(self.palette().color(self.foregroundRole()))
        p.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        p.end()


class WrapLabel(QLabel):
    """A word-wrapped label that asks for one line's width, and wraps only when its panel is
    narrower than that.

    A plain word-wrapped QLabel asks for a width of its own choosing (about half its text),
    so a layout that aligns it (and so gives it its size hint's width) wrapped a short badge
    in a wide card, and gave it the height of one line: clipped.
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        if not self.text():
            return super().sizeHint()
        one_line = self.heightForWidth(1 << 16)
        lo, hi = 1, self.fontMetrics().horizontalAdvance(self.text()) + 64
        while self.heightForWidth(hi) > one_line:  # padding and frames beyond 64 px
            hi *= 2
        while lo < hi:  # the narrowest width at which the text takes one line
            mid = (lo + hi) // 2
            if self.heightForWidth(mid) > one_line:
                lo = mid + 1
            else:
                hi = mid
        return QSize(hi, one_line)
