"""PDF viewer: continuous scrolling pages rendered lazily with PyMuPDF, with evidence highlights.

Why our own viewer: a citation must open at the exact quote with exactly the quoted span
highlighted, and tests must be able to read back which document, page and rectangles are
shown. Pages are rendered only when visible, at zoom × devicePixelRatio, and cached.
Coordinates of highlights are PDF points on 1-based pages, as in ``Citation.rects``: the
unrotated page space of text extraction. Pages are shown as a reader sees them (``/Rotate``
applied), so highlights pass through each page's rotation matrix before being drawn.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QImage,
    QKeySequence,
    QPainter,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.terminal import safe_line
from app.ui.theme import icon
from app.ui.widgets import ElidedLabel

if TYPE_CHECKING:
    import pymupdf

logger = logging.getLogger(__name__)


def mupdf() -> tuple[Any, Any]:
    """PyMuPDF and the lock every in-process user holds (``app.ingest._mupdf``), imported on
    first use: importing them (and the ingest package) is ~0.5 s the window's start-up does
    not need. ``Session.warm_up`` imports them in the background once the window is shown, so
    the first citation opened does not pay for it either."""
    from app.ingest._mupdf import MUPDF_LOCK
    from app.ingest._mupdf import pymupdf as module

    return MUPDF_LOCK, module


Rect5 = tuple[int, float, float, float, float]
GAP = 12.0
MARGIN = 16.0
MIN_ZOOM, MAX_ZOOM = 0.25, 5.0


class PageCanvas(QAbstractScrollArea):
    """The scrolling surface. Geometry in logical pixels; page sizes in points."""

    page_changed = Signal(int)  # 1-based
    zoom_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdfCanvas")
        self.doc: pymupdf.Document | None = None
        self.path: Path | None = None
        self.sizes: list[tuple[float, float]] = []  # as shown (rotated)
        self.rotations: list[pymupdf.Matrix | None] = []  # unrotated page space -> shown
        self.tops: list[float] = []
        self.zoom = 1.0
        self.fit_width = True
        self.highlights: list[Rect5] = []
        self.highlight_path: Path | None = None
        self.focus_rect: Rect5 | None = None  # the highlighted passage zooming keeps in view
        self._cache: OrderedDict[tuple[int, int], QImage] = OrderedDict()
        self._last_page = 0
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self.viewport().update())
        self.verticalScrollBar().setSingleStep(40)

    # --- document ------------------------------------------------------------------
    def open(self, path: Path) -> None:
        if self.path == path and self.doc is not None:
            return
        # PyMuPDF is not thread-safe; ingestion may parse on a worker thread at the same time.
        lock, fitz = mupdf()
        with lock:
            doc = fitz.open(path)
            if self.doc is not None:
                self.doc.close()
            self.doc, self.path = doc, path
            self.sizes, self.rotations = [], []
            for i in range(doc.page_count):
                r = doc.page_cropbox(i)
                page = doc.load_page(i)
                turned = page.rotation % 180 == 90
                w, h = (r.height, r.width) if turned else (r.width, r.height)
                self.sizes.append((float(w), float(h)))
                self.rotations.append(page.rotation_matrix if page.rotation else None)
        self._cache.clear()
        self._last_page = 0
        self._relayout()
        self.verticalScrollBar().setValue(0)
        self._scrolled()

    def close_document(self) -> None:
        if self.doc is not None:
            with mupdf()[0]:
                self.doc.close()
        self.doc, self.path, self.sizes, self.tops = None, None, [], []
        self.rotations = []
        self._cache.clear()
        self._relayout()

    @property
    def page_count(self) -> int:
        return len(self.sizes)

    # --- geometry ------------------------------------------------------------------
    def _fit_zoom(self) -> float:
        if not self.sizes:
            return 1.0
        widest = max(w for w, _ in self.sizes)
        avail = max(100.0, self.viewport().width() - 2 * MARGIN)
        return max(MIN_ZOOM, min(MAX_ZOOM, avail / widest))

    def _relayout(self) -> None:
        old = self.zoom
        if self.fit_width:
            self.zoom = self._fit_zoom()
        if abs(old - self.zoom) > 1e-6:
            self.zoom_changed.emit(self.zoom)
        y = MARGIN
        self.tops = []
        for _, h in self.sizes:
            self.tops.append(y)
            y += h * self.zoom + GAP
        total_h = y - GAP + MARGIN if self.sizes else 0
        widest = max((w for w, _ in self.sizes), default=0) * self.zoom + 2 * MARGIN
        vb, hb = self.verticalScrollBar(), self.horizontalScrollBar()
        vb.setRange(0, max(0, int(total_h - self.viewport().height())))
        vb.setPageStep(self.viewport().height())
        hb.setRange(0, max(0, int(widest - self.viewport().width())))
        hb.setPageStep(self.viewport().width())
        self.viewport().update()

    def page_origin(self, index: int) -> QPointF:
        """Top-left of page ``index`` (0-based) in viewport coordinates."""
        w = self.sizes[index][0] * self.zoom
        x = max(MARGIN, (self.viewport().width() - w) / 2) - self.horizontalScrollBar().value()
        return QPointF(x, self.tops[index] - self.verticalScrollBar().value())

    def visible_pages(self) -> list[int]:
        top = self.verticalScrollBar().value()
        bottom = top + self.viewport().height()
        return [
            i
            for i, (_, h) in enumerate(self.sizes)
            if self.tops[i] < bottom and self.tops[i] + h * self.zoom > top
        ]

    def current_page(self) -> int:
        """1-based page under the upper third of the view (0 when no document)."""
        if not self.sizes:
            return 0
        probe = self.verticalScrollBar().value() + self.viewport().height() / 3
        for i in range(len(self.tops) - 1, -1, -1):
            if self.tops[i] <= probe:
                return i + 1
        return 1

    def point_at(self, pos: QPointF) -> tuple[int, float, float] | None:
        """(0-based page, x, y in points) under viewport position ``pos``."""
        if not self.sizes:
            return None
        y_doc = pos.y() + self.verticalScrollBar().value()
        i = 0
        for k in range(len(self.tops)):
            if self.tops[k] <= y_doc:
                i = k
        origin = self.page_origin(i)
        return i, (pos.x() - origin.x()) / self.zoom, (y_doc - self.tops[i]) / self.zoom

    def rect_in_view(self, rect: Rect5) -> bool:
        page, x0, y0, x1, y1 = rect
        i = page - 1
        if not 0 <= i < len(self.sizes):
            return False
        o = self.page_origin(i)
        r = QRectF(
            o.x() + x0 * self.zoom,
            o.y() + y0 * self.zoom,
            (x1 - x0) * self.zoom,
            (y1 - y0) * self.zoom,
        )
        return QRectF(self.viewport().rect()).intersects(r)

    def highlight_rect_on_screen(self) -> QRectF | None:
        """Where the focused highlight is drawn, in viewport coordinates (tests read this)."""
        if self.focus_rect is None or self.highlight_path != self.path:
            return None
        page, x0, y0, x1, y1 = self.focus_rect
        if not 0 <= page - 1 < len(self.sizes):
            return None
        o = self.page_origin(page - 1)
        return QRectF(
            o.x() + x0 * self.zoom,
            o.y() + y0 * self.zoom,
            (x1 - x0) * self.zoom,
            (y1 - y0) * self.zoom,
        )

    def set_zoom(self, zoom: float, *, fit: bool = False, anchor: QPointF | None = None) -> None:
        """Zoom, keeping the highlighted passage in view when it is, else the point at
        ``anchor`` (the cursor for Ctrl+wheel; the view's centre by default) where it was."""
        keep_focus = (
            self.focus_rect is not None
            and self.highlight_path == self.path
            and self.rect_in_view(self.focus_rect)
        )
        anchor = anchor if anchor is not None else QPointF(self.viewport().rect().center())
        point = self.point_at(anchor)
        self.fit_width = fit
        self.zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        self._cache.clear()
        self._relayout()
        if keep_focus and self.focus_rect is not None:
            self.scroll_rect_into_view(self.focus_rect)
        elif point is not None:
            self._put_point_at(point, anchor)
        self._scrolled()

    def _put_point_at(self, point: tuple[int, float, float], pos: QPointF) -> None:
        i, x_pt, y_pt = point
        vb, hb = self.verticalScrollBar(), self.horizontalScrollBar()
        vb.setValue(int(max(0, self.tops[i] + y_pt * self.zoom - pos.y())))
        w = self.sizes[i][0] * self.zoom
        page_left = max(MARGIN, (self.viewport().width() - w) / 2)
        hb.setValue(int(max(0, page_left + x_pt * self.zoom - pos.x())))

    def go_to(self, page: int, y_pt: float | None = None) -> None:
        """Scroll so ``page`` (1-based) is shown; with ``y_pt``, that height sits a third down."""
        if not self.sizes:
            return
        i = max(0, min(len(self.sizes) - 1, page - 1))
        target = self.tops[i] - MARGIN / 2
        if y_pt is not None:
            target = self.tops[i] + y_pt * self.zoom - self.viewport().height() / 3
        self.verticalScrollBar().setValue(int(max(0, target)))
        self._scrolled()

    def shown_rect(self, rect: Rect5) -> Rect5:
        """``rect`` (unrotated page space) where it appears on the page as shown."""
        page = rect[0]
        m = self.rotations[page - 1] if 0 < page <= len(self.rotations) else None
        if m is None:
            return rect
        r = mupdf()[1].Rect(rect[1:]) * m
        return (page, r.x0, r.y0, r.x1, r.y1)

    def scroll_rect_into_view(self, rect: Rect5) -> None:
        page, x0, y0, x1, _y1 = self.shown_rect(rect)
        self.go_to(page, y0)
        i = page - 1
        if 0 <= i < len(self.sizes):
            hb = self.horizontalScrollBar()
            origin = self.page_origin(i).x() + hb.value()
            left, right = origin + x0 * self.zoom, origin + x1 * self.zoom
            if left < hb.value() or right > hb.value() + self.viewport().width():
                hb.setValue(int(left - MARGIN))
        self._scrolled()

    def _scrolled(self, *_: object) -> None:
        page = self.current_page()
        if page != self._last_page:
            self._last_page = page
            self.page_changed.emit(page)
        self.viewport().update()

    # --- rendering -----------------------------------------------------------------
    def _image(self, index: int) -> QImage | None:
        dpr = self.devicePixelRatioF()
        key = (index, int(self.zoom * dpr * 1000))
        img = self._cache.get(key)
        if img is not None:
            self._cache.move_to_end(key)
            return img
        if self.doc is None:
            return None
        try:
            scale = self.zoom * dpr
            lock, fitz = mupdf()
            with lock:
                pix = self.doc.load_page(index).get_pixmap(
                    matrix=fitz.Matrix(scale, scale), alpha=False
                )
            img = QImage(
                pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888
            ).copy()
        except Exception:  # one broken page must not break the viewer
            logger.exception("could not render page %d of %s", index + 1, self.path)
            return None
        img.setDevicePixelRatio(dpr)
        self._cache[key] = img
        while len(self._cache) > 16:
            self._cache.popitem(last=False)
        return img

    def paintEvent(self, _event: object) -> None:  # noqa: N802 - Qt override
        p = QPainter(self.viewport())
        p.fillRect(self.viewport().rect(), self.palette().color(self.backgroundRole()).darker(108))
        show_hl = self.highlight_path is not None and self.highlight_path == self.path
        for i in self.visible_pages():
            w, h = self.sizes[i]
            origin = self.page_origin(i)
            target = QRectF(origin.x(), origin.y(), w * self.zoom, h * self.zoom)
            p.fillRect(target.translated(2, 2), QColor(0, 0, 0, 40))
            p.fillRect(target, Qt.GlobalColor.white)
            img = self._image(i)
            if img is not None:
                p.drawImage(target, img)
            if show_hl:
                self._paint_highlights(p, i + 1, origin)
        p.end()

    def _paint_highlights(self, p: QPainter, page: int, origin: QPointF) -> None:
        p.setPen(QPen(QColor(230, 170, 0, 200), 1.0))
        p.setBrush(QColor(255, 221, 0, 95))
        for rect in self.highlights:
            if rect[0] != page:
                continue
            _, x0, y0, x1, y1 = self.shown_rect(rect)
            r = QRectF(
                origin.x() + (x0 - 1) * self.zoom,
                origin.y() + (y0 - 1) * self.zoom,
                (x1 - x0 + 2) * self.zoom,
                (y1 - y0 + 2) * self.zoom,
            )
            p.drawRoundedRect(r, 2, 2)

    def resizeEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)  # type: ignore[arg-type]
        page = self.current_page()
        old_zoom = self.zoom
        self._relayout()
        if self.fit_width and abs(old_zoom - self.zoom) > 1e-3 and page:
            self._cache.clear()
            if self.focus_rect is not None and self.highlight_path == self.path:
                self.scroll_rect_into_view(self.focus_rect)  # e.g. the viewer just appeared
            else:
                self.go_to(page)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            step = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
            self.set_zoom(self.zoom * step, anchor=event.position())
            self.zoom_changed.emit(self.zoom)
            event.accept()
            return
        super().wheelEvent(event)


class PdfViewer(QWidget):
    """Toolbar (page box, zoom, fit width, open externally) over a :class:`PageCanvas`."""

    problem = Signal(str, str)  # message, details: for the window's message bar

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = PageCanvas(self)
        self.title = ElidedLabel("")
        self.title.setObjectName("panelTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.page_box = QSpinBox()
        self.page_box.setAccessibleName("Page number")
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.valueChanged.connect(lambda v: self.canvas.go_to(v))
        self.page_total = QLabel("of 0")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.btn_out = self._tool("zoom-out", "Zoom out (Ctrl+-)", self.zoom_out)
        self.btn_in = self._tool("zoom-in", "Zoom in (Ctrl++)", self.zoom_in)
        self.btn_fit = self._tool("fit-width", "Fit width (Ctrl+0)", self.fit)
        self.btn_ext = self._tool("external", "Open in system viewer", self.open_external)
        self.btn_in.setShortcut(QKeySequence.StandardKey.ZoomIn)
        self.btn_out.setShortcut(QKeySequence.StandardKey.ZoomOut)
        self.btn_fit.setShortcut(QKeySequence("Ctrl+0"))
        for b in (self.btn_in, self.btn_out, self.btn_fit):
            b.setShortcutEnabled(True)

        bar = QHBoxLayout()
        bar.setContentsMargins(8, 4, 8, 4)
        bar.setSpacing(4)
        bar.addWidget(self.title, 1)
        self.page_label = QLabel("Page")
        self._doc_controls = [
            self.page_label,
            self.page_box,
            self.page_total,
            self.btn_out,
            self.zoom_label,
            self.btn_in,
            self.btn_fit,
            self.btn_ext,
        ]
        for w in self._doc_controls[:3]:
            bar.addWidget(w)
        bar.addSpacing(8)
        for w in self._doc_controls[3:]:
            bar.addWidget(w)
        toolbar = QWidget()
        toolbar.setObjectName("viewerToolbar")
        toolbar.setLayout(bar)

        empty = QLabel("Click a citation or a source to see the evidence here.")
        empty.setObjectName("emptyHint")
        empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(empty)
        self.stack.addWidget(self.canvas)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(toolbar)
        lay.addWidget(self.stack, 1)
        self.canvas.page_changed.connect(self._page_changed)
        self.canvas.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{round(z * 100)}%"))
        self._update_controls()

    def _tool(self, icon_name: str, tip: str, slot: object) -> QToolButton:
        b = QToolButton()
        b.setIcon(icon(icon_name))
        b.setToolTip(tip)
        b.setAccessibleName(tip.split(" (")[0])
        b.setAutoRaise(True)
        b.clicked.connect(slot)
        return b

    # --- public API (also used by tests) ----------------------------------------------
    @property
    def current_doc(self) -> Path | None:
        return self.canvas.path

    @property
    def current_page(self) -> int:
        return self.canvas.current_page()

    @property
    def highlight_rects(self) -> list[Rect5]:
        """Highlighted rectangles (1-based page, PDF points) for the shown document."""
        if self.canvas.highlight_path != self.canvas.path:
            return []
        return list(self.canvas.highlights)

    def open(self, path: Path, page: int = 1) -> None:
        if self.canvas.path != Path(path):
            self.canvas.focus_rect = None
        self.canvas.open(Path(path))
        self.stack.setCurrentWidget(self.canvas)
        self.title.setText(safe_line(Path(path).name))
        self.title.setToolTip(str(path))
        self._update_controls()
        self.canvas.go_to(page)

    def show_evidence(self, path: Path, rects: list[Rect5], page: int) -> None:
        """Open ``path`` at the quote and highlight exactly ``rects`` until the next call."""
        self.open(path, page)
        self.canvas.highlights = [tuple(r) for r in rects]  # type: ignore[misc]
        self.canvas.highlight_path = Path(path)
        first = min((r for r in rects if r[0] == page), key=lambda r: r[2], default=None)
        if first is None and rects:
            first = rects[0]
        self.canvas.focus_rect = first
        if first is not None:
            self.canvas.scroll_rect_into_view(first)
        else:
            self.canvas.go_to(page)
        self._page_changed(self.canvas.current_page())
        self.canvas.viewport().update()

    def zoom_in(self) -> None:
        self.canvas.set_zoom(self.canvas.zoom * 1.2)
        self._update_controls()

    def zoom_out(self) -> None:
        self.canvas.set_zoom(self.canvas.zoom / 1.2)
        self._update_controls()

    def fit(self) -> None:
        self.canvas.set_zoom(self.canvas._fit_zoom(), fit=True)
        self._update_controls()

    def open_external(self) -> None:
        path = self.canvas.path
        if path is None:
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            logger.warning("no system viewer opened %s", path)
            self.problem.emit(
                f"No program opened {path.name}.",
                "This system has no default PDF viewer (or no way to launch one). "
                f"The file is at {path}.",
            )

    def _page_changed(self, page: int) -> None:
        self.page_box.setMaximum(max(1, self.canvas.page_count))
        self.page_box.blockSignals(True)
        self.page_box.setValue(max(1, page))
        self.page_box.blockSignals(False)

    def _update_controls(self) -> None:
        has = self.canvas.page_count > 0
        for w in self._doc_controls:
            w.setVisible(has)
        if not has:
            self.title.setText("Evidence viewer")
        self.page_box.setMaximum(max(1, self.canvas.page_count))
        self.page_total.setText(f"of {self.canvas.page_count}")
        self.zoom_label.setText(f"{round(self.canvas.zoom * 100)}%")
