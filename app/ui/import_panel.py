"""Progress of an import: one bar per file, one overall, Cancel; afterwards, what failed and why.

Why per file: a folder of PDFs can take minutes; people want to see which file is slow and,
when one is encrypted or scanned, read the specific reason without losing the others.
An import that went well goes away by itself after a while (it takes room from the library);
one with failures stays until dismissed, and a document removed from the library meanwhile
is no longer listed.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.models import IngestResult
from app.core.progress import FileDone, FileProgress, Progress, Stage
from app.ui.render import plural
from app.ui.theme import icon, status_color
from app.ui.widgets import ElidedLabel

logger = logging.getLogger(__name__)

STAGE_WORDS = {
    Stage.CONVERT: "Converting to PDF",
    Stage.PARSE: "Reading pages",
    Stage.OCR: "Reading scanned pages (OCR)",
    Stage.INDEX: "Indexing",
    Stage.EMBED: "Embedding",
}

# Reading pages is most of a file's first phase (0-85% of its bar); indexing finishes it.
STAGE_SPAN = {Stage.PARSE: (0.0, 0.85), Stage.OCR: (0.0, 0.95), Stage.INDEX: (0.85, 1.0)}


class FileRow:
    def __init__(self, grid: QGridLayout, row: int, path: str) -> None:
        self.path = path
        self.name = ElidedLabel(Path(path).name)  # a long name must not widen the panel
        self.name.setToolTip(path)
        self.state = QLabel("Waiting")
        self.state.setObjectName("mutedLabel")
        self.state.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.bar.setAccessibleName(f"Progress of {Path(path).name}")
        grid.addWidget(self.name, row * 3, 0)
        grid.addWidget(self.bar, row * 3 + 1, 0)
        grid.addWidget(self.state, row * 3 + 2, 0)
        self.done = False

    def update(self, p: FileProgress) -> None:
        """Show this file's own counts (pages read, passages embedded); never go back."""
        if self.done:
            return
        words = p.message or STAGE_WORDS.get(p.stage, p.stage.capitalize())
        if p.total > 0:
            lo, hi = STAGE_SPAN.get(p.stage, (0.0, 1.0))
            value = int((lo + (hi - lo) * p.fraction) * 1000)
            if p.stage is Stage.OCR:  # a second, slower pass over the scanned pages: starts anew
                self.bar.setValue(value)
            else:
                self.bar.setValue(max(self.bar.value(), value))
            self.state.setText(f"{words} {p.done}/{p.total}")
        else:
            self.state.setText(words)

    def finish(self, r: IngestResult) -> None:
        self.done = True
        self.bar.setValue(1000)
        if r.status == "failed":
            col = status_color("RED").name()
            self.bar.setVisible(False)
            self.state.setText(
                f"<span style='color:{col}'><b>Failed:</b> "
                f"{html.escape(r.error or 'unknown error')}</span>"
            )
            self.state.setTextFormat(Qt.TextFormat.RichText)
            self.state.setAccessibleName(f"{Path(r.file).name} failed: {r.error}")
        elif r.status == "unchanged":
            self.state.setText("Already in the library")
        else:
            verb = "Updated" if r.status == "updated" else "Added"
            ocr = f" ({r.ocr_pages} read by OCR)" if r.ocr_pages else ""
            pages, passages = plural(r.pages, "page"), plural(r.chunks, "passage")
            self.state.setText(f"{verb}: {pages}{ocr}, {passages}")


class ImportPanel(QFrame):
    """Lives under the document list while an import runs, then for ``AUTO_HIDE_MS`` (until
    dismissed if a file failed)."""

    AUTO_HIDE_MS = 10_000

    cancel_requested = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importPanel")
        self.rows: dict[str, FileRow] = {}
        self.results: list[IngestResult] = []
        self.running = False
        self._indexed = False  # the first phase is over: the overall bar follows embedding
        self.title = QLabel("Adding PDFs…")
        self.title.setObjectName("sectionTitle")
        self.title.setWordWrap(True)
        self.button = QPushButton("Cancel")
        self.button.setAccessibleName("Cancel import")
        self.button.clicked.connect(self._button)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.button)
        self.overall = QProgressBar()
        self.overall.setRange(0, 1000)
        self.overall.setAccessibleName("Overall import progress")
        self.overall.setTextVisible(False)
        self.overall_label = QLabel("Starting…")
        self.overall_label.setObjectName("mutedLabel")
        self.overall_label.setWordWrap(True)
        self._grid_host = QWidget()
        self._grid_host.setObjectName("importRows")
        self.grid = QGridLayout(self._grid_host)
        self.grid.setContentsMargins(0, 0, 4, 0)
        self.grid.setVerticalSpacing(2)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self._grid_host)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setMaximumHeight(200)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 10, 8)
        lay.addLayout(head)
        lay.addWidget(self.overall)
        lay.addWidget(self.overall_label)
        lay.addWidget(self.scroll)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(self._auto_hide)

    def start(self, paths: list[Path]) -> None:
        self.running = True
        self._indexed = False
        self._hide_timer.stop()
        self.button.setEnabled(True)
        self.results = []
        for r in list(self.rows.values()):
            for w in (r.name, r.bar, r.state):
                w.deleteLater()
        self.rows.clear()
        self.scroll.setMinimumHeight(0)
        for p in paths:
            if p.is_file():
                self._row(str(p))
        n = len(paths)
        self.title.setText(f"Adding {n} item{'s' if n != 1 else ''}…")
        self.overall.setValue(0)
        self.overall.setVisible(True)
        self.overall_label.setText("Starting…")
        self.overall_label.setVisible(True)
        self.button.setText("Cancel")
        self.button.setIcon(icon("stop"))
        self.setVisible(True)

    def _row(self, path: str) -> FileRow:
        key = str(Path(path))
        if key not in self.rows:
            self.rows[key] = FileRow(self.grid, len(self.rows), key)
            self.scroll.setMinimumHeight(62)  # one row at least; more when there is room
        return self.rows[key]

    def on_progress(self, p: Progress) -> None:
        if isinstance(p, FileDone):  # a file is through: say at once if it failed or was known
            if p.status in ("failed", "unchanged"):
                self._row(p.file).finish(IngestResult(file=p.file, status=p.status, error=p.error))
        elif isinstance(p, FileProgress):  # one file's own counts
            row = self._row(p.file)
            row.update(p)
            if p.stage in (Stage.PARSE, Stage.OCR, Stage.INDEX) and not self._indexed:
                # As far as this file's own bar: OCR starts it anew, so the whole is never
                # full while scanned pages are still to be read.
                done = p.index + row.bar.value() / row.bar.maximum()
                self.overall.setValue(int(done / max(p.count, 1) * 1000))
        elif p.stage is Stage.FILE:  # file ``done`` of ``total`` starts
            self.overall.setValue(int(p.fraction * 1000))
            self.overall_label.setText(f"File {min(p.done + 1, p.total)} of {p.total}")
            if p.file:
                self._row(p.file)
        elif p.stage is Stage.INDEXED:
            # Scanned pages may still be read by OCR from here on (app.services.ocr_stage):
            # their rows go on showing it, the overall bar follows the embedding.
            self._indexed = True
            self.overall_label.setText("Searchable by keyword; embedding passages…")
        elif p.stage is Stage.EMBED:  # passages of every file
            self.overall.setValue(int(p.fraction * 1000))
            self.overall_label.setText(f"Embedding passages {p.done}/{p.total}")

    def finish(self, results: list[IngestResult]) -> None:
        self.running = False
        self.results = results
        for r in results:
            self._row(r.file).finish(r)
        for row in self.rows.values():
            if not row.done:
                row.state.setText("Not added (cancelled)")
                row.bar.setValue(0)
                row.bar.setVisible(False)  # no half-full bar for a file that was not added
                row.done = True
        failed = sum(r.status == "failed" for r in results)
        ok = sum(r.status in ("added", "updated") for r in results)
        same = sum(r.status == "unchanged" for r in results)
        parts = [f"{ok} added"] + ([f"{same} already there"] if same else [])
        if failed:
            parts.append(f"{failed} failed")
        self.title.setText("Import finished: " + ", ".join(parts))
        self.overall.setValue(1000)
        self.overall_label.setText("Done." if not failed else "See below why some files failed.")
        # What is left to say is the title and the rows: no full bar, no "Done.".
        self.overall.setVisible(False)
        self.overall_label.setVisible(bool(failed))
        if not failed:
            self._hide_timer.start(self.AUTO_HIDE_MS)
        self.button.setText("Dismiss")
        self.button.setEnabled(True)
        self.button.setIcon(icon("close"))
        self.button.setAccessibleName("Dismiss import summary")

    def cancelled(self) -> None:
        self.running = False
        self._hide_timer.stop()
        self.overall_label.setVisible(True)
        self.title.setText("Import cancelled")
        self.overall_label.setText("Files already added stay in the library.")
        for row in self.rows.values():
            if not row.done:
                row.state.setText("Not added (cancelled)")
                row.bar.setValue(0)
                row.bar.setVisible(False)  # no half-full bar for a file that was not added
                row.done = True
        self.button.setText("Dismiss")
        self.button.setEnabled(True)
        self.button.setIcon(icon("close"))

    def failed(self, message: str) -> None:
        self.running = False
        self._hide_timer.stop()
        self.overall_label.setVisible(True)
        self.title.setText("Import stopped")
        self.overall_label.setText(message)
        self.button.setText("Dismiss")
        self.button.setEnabled(True)

    def keep_only(self, doc_ids: set[str]) -> None:
        """Stop listing files whose document is no longer in the library (removed)."""
        if self.running:
            return
        gone = {
            str(Path(r.file))
            for r in self.results
            if r.status != "failed" and r.doc_id and r.doc_id not in doc_ids
        }
        for key in gone & set(self.rows):
            row = self.rows.pop(key)
            for w in (row.name, row.bar, row.state):
                self.grid.removeWidget(w)
                w.deleteLater()
        if gone and not self.rows:
            self._auto_hide()

    def _auto_hide(self) -> None:
        if not self.running and not self.isHidden():
            self.setVisible(False)
            self.dismissed.emit()

    def _button(self) -> None:
        if self.running:
            self.button.setEnabled(False)
            self.overall_label.setText("Cancelling…")
            self.cancel_requested.emit()
        else:
            self.setVisible(False)
            self.button.setEnabled(True)
            self.dismissed.emit()
