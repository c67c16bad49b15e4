"""Library panel: the documents (title, file, pages, status), which ones to ask, and an empty state.

Why checkboxes: people often want to ask one manual, not the whole shelf; the check state is
turned into ``doc_ids`` for ``AskService.ask`` (all checked means "no filter").
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.models import Document
from app.core.terminal import safe_line
from app.ui.render import file_name, plain_tooltip, plural
from app.ui.theme import icon, muted_color, status_color

logger = logging.getLogger(__name__)

DOC_ROLE = Qt.ItemDataRole.UserRole + 1
SUB_ROLE = Qt.ItemDataRole.UserRole + 2
NAME_ROLE = Qt.ItemDataRole.UserRole + 4  # the file name inside SUB_ROLE: the part to shorten


def second_line(fm: QFontMetrics, sub: str, name: str, width: int) -> str:
    """'file.pdf · 117 pages · Ready' in ``width`` pixels: only the file name is shortened
    (in its middle), so a count is never cut ("GeoTopo-komprimi…17 pages" read as 17)."""
    if fm.horizontalAdvance(sub) <= width:
        return sub
    at = sub.find(name) if name else -1
    if at >= 0:
        before, after = sub[:at], sub[at + len(name) :]
        room = width - fm.horizontalAdvance(before + after)
        if room >= fm.horizontalAdvance("abc…pdf"):
            return before + fm.elidedText(name, Qt.TextElideMode.ElideMiddle, room) + after
    return fm.elidedText(sub, Qt.TextElideMode.ElideRight, width)


Index = QModelIndex | QPersistentModelIndex


class DocumentDelegate(QStyledItemDelegate):
    """Two lines per document: the title, then 'file.pdf · 12 pages · Ready' in a muted colour."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        title, opt.text = opt.text, ""
        style = opt.widget.style() if opt.widget else None
        if style is None:
            return
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        if opt.features & QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator:
            # Fusion outlines the box in a darker shade of the window: on a dark palette an
            # unchecked box all but vanished. A muted text-coloured outline shows in both.
            box = style.subElementRect(
                QStyle.SubElement.SE_ItemViewItemCheckIndicator, opt, opt.widget
            )
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(QColor(muted_color()), 1.2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QRectF(box).adjusted(1.5, 1.5, -1.5, -1.5), 2.0, 2.0)
            painter.restore()
        rect: QRect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, opt.widget)
        rect = rect.adjusted(4, 4, -4, -4)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.save()
        f = QFont(opt.font)
        f.setWeight(QFont.Weight.DemiBold)
        painter.setFont(f)
        role = opt.palette.ColorRole.HighlightedText if selected else opt.palette.ColorRole.Text
        painter.setPen(opt.palette.color(role))
        fm = painter.fontMetrics()
        line1 = QRect(rect.left(), rect.top(), rect.width(), fm.height())
        painter.drawText(
            line1,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            fm.elidedText(title, Qt.TextElideMode.ElideRight, rect.width()),
        )
        sub = str(index.data(SUB_ROLE) or "")
        painter.setFont(opt.font)
        fm2 = painter.fontMetrics()
        if not selected:
            painter.setPen(muted_color())
        line2 = QRect(rect.left(), line1.bottom() + 3, rect.width(), fm2.height())
        painter.drawText(
            line2,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            second_line(fm2, sub, str(index.data(NAME_ROLE) or ""), rect.width()),
        )
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:  # noqa: N802
        fm = option.fontMetrics
        return QSize(200, fm.height() * 2 + 14)


class CurrentPageStack(QStackedWidget):
    """A stack as small as its current page (QStackedWidget asks for its largest page)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        page = self.currentWidget()
        return page.minimumSizeHint() if page is not None else super().minimumSizeHint()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()


class DropZone(QWidget):
    """The empty state: what to do first, with the Add button right there."""

    def __init__(self, on_add: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dropZone")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        pic = QLabel()
        pic.setPixmap(icon("drop", muted_color()).pixmap(56, 56))
        pic.setAlignment(Qt.AlignmentFlag.AlignCenter)
        head = QLabel("Drop PDFs here")
        head.setObjectName("dropTitle")
        head.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel("Drag PDF files or folders anywhere onto this window, or")
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setObjectName("mutedLabel")
        self.add_button = QPushButton(icon("add"), "Add PDFs…")
        self.add_button.setObjectName("primaryButton")
        self.add_button.clicked.connect(on_add)
        note = QLabel("Everything stays on this computer.")
        note.setObjectName("mutedLabel")
        note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 16, 16, 16)
        lay.addStretch(1)
        lay.addWidget(pic)
        lay.addSpacing(4)
        lay.addWidget(head)
        lay.addWidget(hint)
        lay.addSpacing(6)
        lay.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignHCenter)
        lay.addSpacing(10)
        lay.addWidget(note)
        lay.addStretch(2)
        self._optional = [pic, note, hint]  # dropped in this order when the panel is short
        self._essential = [head, self.add_button]
        self.head, self.hint = head, hint

    def set_importing(self, on: bool) -> None:
        """While the first PDFs are being added, say so instead of "Drop PDFs here"."""
        self.head.setText("Adding your PDFs…" if on else "Drop PDFs here")
        self.hint.setText(
            "They are listed here as soon as they can be searched."
            if on
            else "Drag PDF files or folders anywhere onto this window, or"
        )
        self.add_button.setVisible(not on)
        self._fit_optional()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        m = self.layout().contentsMargins()
        h = sum(w.sizeHint().height() for w in self._essential) + 12 + m.top() + m.bottom()
        return QSize(super().minimumSizeHint().width(), h)

    def resizeEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(e)  # type: ignore[arg-type]
        self._fit_optional()

    def _fit_optional(self) -> None:
        """Show as many of the optional lines as fit (picture first to go), never clip."""
        m = self.layout().contentsMargins()
        room = self.height() - m.top() - m.bottom()
        room -= sum(w.sizeHint().height() + 8 for w in self._essential)
        keep = list(self._optional)
        while keep and sum(w.sizeHint().height() + 8 for w in keep) > room:
            keep.pop(0)
        for w in self._optional:
            w.setVisible(w in keep)


class LibraryPanel(QWidget):
    add_requested = Signal()
    remove_requested = Signal(str)  # doc_id
    open_requested = Signal(str)  # doc_id
    summarize_requested = Signal(str)  # doc_id
    selection_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.documents: list[Document] = []
        self._unchecked: set[str] = set()
        self.confirm_remove: Callable[[Document], bool] = self._confirm

        self.read_only = False
        title = QLabel("Library")
        title.setObjectName("panelTitle")
        self.title = title
        add = QToolButton()
        self.add_tool = add
        add.setIcon(icon("add"))
        add.setToolTip("Add PDFs… (Ctrl+O)")
        add.setAccessibleName("Add PDFs")
        add.setAutoRaise(True)
        add.clicked.connect(self.add_requested)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(title, 1)
        head.addWidget(add)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter documents")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter documents")
        self.filter.textChanged.connect(self._apply_filter)
        self.filter.setAcceptDrops(False)

        self.list = QListWidget()
        self.list.setObjectName("docList")
        self.list.setItemDelegate(DocumentDelegate(self.list))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemChanged.connect(self._item_changed)
        self.list.itemDoubleClicked.connect(lambda it: self.open_requested.emit(it.data(DOC_ROLE)))
        self.list.setAccessibleName("Documents")
        self.list.setAcceptDrops(False)
        delete = QAction("Remove document", self.list)
        delete.setShortcut(QKeySequence.StandardKey.Delete)
        delete.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        delete.triggered.connect(self.remove_selected)
        self.list.addAction(delete)
        self.delete_action = delete

        self.scope = QLabel("")
        self.scope.setObjectName("mutedLabel")
        self.scope.setWordWrap(True)
        self.btn_all = QPushButton("Check all")
        self.btn_all.setObjectName("linkButton")
        self.btn_all.setToolTip("Ask all documents")
        self.btn_all.clicked.connect(lambda: self.set_all_checked(True))
        self.btn_none = QPushButton("Uncheck all")
        self.btn_none.setObjectName("linkButton")
        self.btn_none.setToolTip("Uncheck every document")
        self.btn_none.clicked.connect(lambda: self.set_all_checked(False))
        scope_row = QHBoxLayout()
        scope_row.setContentsMargins(0, 0, 0, 0)
        scope_row.addWidget(self.scope, 1)
        scope_row.addWidget(self.btn_all)
        scope_row.addWidget(self.btn_none)

        listing = QWidget()
        ll = QVBoxLayout(listing)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(6)
        ll.addWidget(self.filter)
        ll.addWidget(self.list, 1)
        ll.addLayout(scope_row)

        self.drop_zone = DropZone(self.add_requested.emit)
        self.loading = QWidget()
        busy = QProgressBar()
        busy.setRange(0, 0)
        busy.setFixedSize(120, 6)
        busy.setTextVisible(False)
        busy.setAccessibleName("Opening the library")
        opening = QLabel("Opening your library…")
        opening.setObjectName("mutedLabel")
        opening.setAlignment(Qt.AlignmentFlag.AlignCenter)
        ld = QVBoxLayout(self.loading)
        ld.addStretch(1)
        ld.addWidget(opening)
        ld.addWidget(busy, 0, Qt.AlignmentFlag.AlignHCenter)
        ld.addStretch(2)
        self.stack = CurrentPageStack()
        self.stack.currentChanged.connect(lambda _i: self.stack.updateGeometry())
        self.stack.addWidget(self.drop_zone)
        self.stack.addWidget(listing)
        self.stack.addWidget(self.loading)
        # Until the library has been read, say so: "Drop PDFs here" would claim it is empty.
        self.stack.setCurrentWidget(self.loading)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 6, 6)
        lay.setSpacing(6)
        lay.addLayout(head)
        lay.addWidget(self.stack, 1)
        self.import_slot = QVBoxLayout()
        self.import_slot.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.import_slot)
        self._update_scope()

    def set_read_only(self, read_only: bool) -> None:
        """A team library opened read-only: say so, and offer no import or removal."""
        self.read_only = read_only
        self.title.setText("Team library (read-only)" if read_only else "Library")
        self.title.setToolTip(
            "Shared library on object storage; its writer imports and removes documents."
            if read_only
            else ""
        )
        self.add_tool.setVisible(not read_only)
        self.drop_zone.add_button.setVisible(not read_only)
        self.delete_action.setEnabled(not read_only)

    # --- data --------------------------------------------------------------------
    def set_loading(self) -> None:
        self.stack.setCurrentWidget(self.loading)

    def set_documents(self, docs: list[Document]) -> None:
        self.documents = list(docs)
        self.list.blockSignals(True)
        self.list.clear()
        for d in docs:
            name = file_name(d.file)
            title = safe_line(d.title)
            status = {"ready": "Ready", "partial": "Partly read (OCR unfinished)"}.get(
                d.status, "Indexed (embedding…)"
            )
            pages = plural(d.pages, "page")
            it = QListWidgetItem(title or name)
            it.setData(DOC_ROLE, d.doc_id)
            it.setData(SUB_ROLE, f"{name} · {pages} · {status}")
            it.setData(NAME_ROLE, name)
            it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(
                Qt.CheckState.Unchecked if d.doc_id in self._unchecked else Qt.CheckState.Checked
            )
            it.setToolTip(
                plain_tooltip(
                    f"{title}\n{d.file}\n{pages}, {plural(d.chunks, 'passage')} · {status}"
                )
            )
            it.setData(Qt.ItemDataRole.AccessibleTextRole, f"{title}, {name}, {pages}, {status}")
            if d.status != "ready":
                it.setForeground(status_color("YELLOW"))
            self.list.addItem(it)
        self.list.blockSignals(False)
        self._unchecked &= {d.doc_id for d in docs}
        self.stack.setCurrentIndex(1 if docs else 0)
        self._apply_filter(self.filter.text())
        self._update_scope()

    def checked_doc_ids(self) -> list[str] | None:
        """Documents to ask: ``None`` when all are checked (no filter)."""
        ids = [d.doc_id for d in self.documents if d.doc_id not in self._unchecked]
        if len(ids) == len(self.documents):
            return None
        return ids

    def set_checked(self, doc_id: str, checked: bool) -> None:
        for i in range(self.list.count()):
            it = self.list.item(i)
            if it.data(DOC_ROLE) == doc_id:
                it.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def set_all_checked(self, checked: bool) -> None:
        for d in self.documents:
            self.set_checked(d.doc_id, checked)

    def selected_doc_ids(self) -> list[str]:
        return [it.data(DOC_ROLE) for it in self.list.selectedItems()]

    # --- behaviour ------------------------------------------------------------------
    def _item_changed(self, item: QListWidgetItem) -> None:
        doc_id = item.data(DOC_ROLE)
        if item.checkState() == Qt.CheckState.Checked:
            self._unchecked.discard(doc_id)
        else:
            self._unchecked.add(doc_id)
        self._update_scope()
        self.selection_changed.emit()

    def _update_scope(self) -> None:
        n = len(self.documents)
        ids = self.checked_doc_ids()
        if n == 0:
            text = ""
        elif ids is None:
            text = "Asking your only document" if n == 1 else f"Asking all {n} documents"
        elif not ids:
            text = "No document checked: check at least one"
        else:
            text = f"Asking {len(ids)} of {n} documents"
        self.scope.setText(text)
        self.btn_all.setVisible(n > 0 and ids is not None)
        self.btn_none.setVisible(n > 1 and ids is None)

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.list.count()):
            it = self.list.item(i)
            hay = f"{it.text()} {it.data(SUB_ROLE)}".lower()
            it.setHidden(bool(needle) and needle not in hay)

    def _menu(self, pos: object) -> None:
        item = self.list.itemAt(pos)  # type: ignore[arg-type]
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.open_requested.emit(item.data(DOC_ROLE)))
        menu.addAction("Ask only this document", lambda: self._only(item.data(DOC_ROLE)))
        menu.addAction(
            "Summarise this document", lambda: self.summarize_requested.emit(item.data(DOC_ROLE))
        )
        if not self.read_only:
            menu.addSeparator()
            menu.addAction(icon("trash"), "Remove from library…", self.remove_selected)
        menu.exec(self.list.viewport().mapToGlobal(pos))  # type: ignore[arg-type]

    def _only(self, doc_id: str) -> None:
        for d in self.documents:
            self.set_checked(d.doc_id, d.doc_id == doc_id)

    def remove_selected(self) -> None:
        if self.read_only:
            return
        for doc_id in self.selected_doc_ids():
            doc = next((d for d in self.documents if d.doc_id == doc_id), None)
            if doc is not None and self.confirm_remove(doc):
                self.remove_requested.emit(doc_id)

    def _confirm(self, doc: Document) -> bool:
        answer = QMessageBox.question(
            self,
            "Remove document",
            f"Remove “{safe_line(doc.title)}” from the library?\n\nThe PDF file itself is not deleted.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes
