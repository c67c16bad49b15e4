"""Main window: library | conversation | sources + PDF viewer, menus, drag and drop, status bar.

Why here: this is the only place that connects the panels to each other and to the
``Session``; panels never talk to services, and services never know about widgets.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.config import Settings, user_library_dir
from app.core.formats import file_dialog_filter, is_supported_name
from app.core.location import is_remote, parse_location, redact
from app.core.models import Answer, Citation, Document, IngestOutcome, Source
from app.core.progress import Progress, Stage
from app.core.terminal import safe_line
from app.ui import render, window_state
from app.ui.columns import MIN_WIDTH, Columns
from app.ui.conversation import ConversationPanel
from app.ui.dialogs import ShortcutsDialog, show_about
from app.ui.history import load_history, save_history
from app.ui.import_panel import ImportPanel
from app.ui.library_panel import LibraryPanel
from app.ui.message_bar import MessageBar
from app.ui.pdf_viewer import PdfViewer
from app.ui.prefs import (
    appearance,
    forget_model,
    recent_libraries,
    remember_library,
    remember_model,
    save_appearance,
    save_settings,
)
from app.ui.session import Session, describe_error
from app.ui.sources_panel import SourcesPanel
from app.ui.theme import APPEARANCES, apply_appearance, icon
from app.ui.workers import Job

logger = logging.getLogger(__name__)


ASK_PHASES = {
    Stage.RETRIEVE: "Searching your documents…",
    Stage.LOAD_MODEL: "Loading the model…",
    Stage.GENERATE: "Writing the answer…",
    Stage.SUMMARIZE: "Reading the document's sections…",
}
SUMMARIZE_QUESTION = "Summarise this document"


def library_name(location: Path | str) -> str:
    """A library in a few words for the window title and the recent list: the default one is
    "My library", a folder its name, a team library the last part of its URI."""
    location = parse_location(location)
    if is_remote(location):
        return redact(location).rstrip("/").rsplit("/", 1)[-1]
    if Path(location) == user_library_dir():
        return "My library"
    return Path(location).name or str(location)


def local_pdf_paths(urls: list) -> list[Path]:  # list[QUrl]
    """Local files and folders (the library expands folders to the documents it reads: PDF,
    EPUB, text, Office...; a file of another type is kept so its row says why it failed)."""
    out = []
    for url in urls:
        if not url.isLocalFile():
            continue
        p = Path(url.toLocalFile())
        if p.is_dir() or is_supported_name(p.name) or p.is_file():
            out.append(p)
    return out


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Footnote")
        self.setWindowIcon(icon("logo", "#0969da"))
        self.setAcceptDrops(True)
        self.session = Session(settings, self)
        self.ingest_job: Job | None = None
        self._pending_paths: list[Path] = []
        self._resumed_embedding = False
        self._sources_were_empty = True  # the library has the left column's height

        self.library = LibraryPanel()
        self.imports = ImportPanel()
        self.imports.setVisible(False)
        self.library.import_slot.addWidget(self.imports)
        self.sources = SourcesPanel()
        self.conversation = ConversationPanel()
        self.viewer = PdfViewer()
        self.messages = MessageBar()

        self.left = QSplitter(Qt.Orientation.Vertical)
        self.left.addWidget(self.library)
        self.left.addWidget(self.sources)
        self.left.setStretchFactor(0, 1)
        self.left.setStretchFactor(1, 1)
        self.left.setSizes([420, 380])
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.left)
        self.main_split.addWidget(self.conversation)
        self.main_split.addWidget(self.viewer)
        self.main_split.setStretchFactor(1, 1)
        self.main_split.setStretchFactor(2, 1)
        self.main_split.setSizes([300, 560, 580])
        for s in (self.left, self.main_split):
            s.setChildrenCollapsible(False)
            s.setHandleWidth(1)
        # The window may shrink below the three columns' widths: Columns then hides a side
        # column instead of the window refusing to shrink (or clipping).
        self.main_split.setMinimumWidth(MIN_WIDTH["conversation"])
        self.conversation.setMinimumWidth(MIN_WIDTH["conversation"])
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.messages)
        lay.addWidget(self.main_split, 1)
        self.setCentralWidget(central)
        self.drop_overlay = QLabel("Drop to add these documents to your library", self)
        self.drop_overlay.setObjectName("dropOverlay")
        self.drop_overlay.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_overlay.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.drop_overlay.hide()

        self.model_label = QLabel("Opening the library…")
        self.model_busy = QProgressBar()
        self.model_busy.setRange(0, 0)
        self.model_busy.setFixedSize(90, 8)
        self.model_busy.setTextVisible(False)
        self.model_busy.setAccessibleName("Busy")
        self.docs_label = QLabel("")
        self.statusBar().addWidget(self.model_busy)
        self.statusBar().addWidget(self.model_label)
        self.watch_label = QLabel("")
        self.watch_label.setVisible(False)
        self.statusBar().addPermanentWidget(self.watch_label)
        self.statusBar().addPermanentWidget(self.docs_label)

        self._build_menus()
        self.columns = Columns(
            self,
            {"left": self.left, "viewer": self.viewer},
            {"left": self.act_left, "viewer": self.act_viewer},
            viewer_empty=lambda: self.viewer.current_doc is None,
        )
        self._connect()
        window_state.restore(self, self._splitters())
        self._load_history()
        self._show_read_only()

    # --- construction ------------------------------------------------------------------
    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self.act_add = self._action(
            m, "&Add documents…", self.add_pdfs, QKeySequence.StandardKey.Open, "add"
        )
        self.act_new = self._action(
            m, "&New conversation", self.new_conversation, QKeySequence.StandardKey.New
        )
        self.act_add_folder = self._action(
            m, "Add &folder…", self.add_folder, QKeySequence("Ctrl+Shift+O"), "folder"
        )
        m.addSeparator()
        self._action(m, "Open &library…", self.open_library_dialog, None, "library")
        self.recent_menu = m.addMenu("Open &recent library")
        self.recent_menu.aboutToShow.connect(self._fill_recent_libraries)
        m.addSeparator()
        self._action(m, "&Settings…", self.open_settings, QKeySequence("Ctrl+,"), "settings")
        m.addSeparator()
        self._action(m, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        v = self.menuBar().addMenu("&View")
        self.act_left = self._action(
            v, "&Library and sources", lambda on: self.set_panel("left", on), QKeySequence("Ctrl+1")
        )
        self.act_viewer = self._action(
            v, "&Evidence viewer", lambda on: self.set_panel("viewer", on), QKeySequence("Ctrl+2")
        )
        for act in (self.act_left, self.act_viewer):
            act.setCheckable(True)
            act.setChecked(True)
        v.addSeparator()
        looks = v.addMenu("&Appearance")
        self.appearance_group = QActionGroup(self)
        self.appearance_actions: dict[str, QAction] = {}
        for mode, text in APPEARANCES.items():
            act = self._action(looks, text, lambda _on=False, m=mode: self.set_appearance(m))
            act.setCheckable(True)
            act.setChecked(mode == appearance())
            self.appearance_group.addAction(act)
            self.appearance_actions[mode] = act
        e = self.menuBar().addMenu("&Edit")
        self.act_copy = self._action(
            e,
            "&Copy answer as Markdown",
            self.copy_last_answer,
            QKeySequence("Ctrl+Shift+C"),
            "copy",
        )
        self.act_export = self._action(
            e, "&Export conversation…", self.export_conversation, QKeySequence("Ctrl+Shift+E")
        )
        self._action(e, "Go to &question", self.conversation.input.setFocus, QKeySequence("Ctrl+L"))
        self._action(
            e, "&Filter library", self.library.filter.setFocus, QKeySequence.StandardKey.Find
        )
        h = self.menuBar().addMenu("&Help")
        self._action(h, "&Keyboard shortcuts", self.show_shortcuts, QKeySequence("F1"), "help")
        self._action(h, "&About Footnote", lambda: show_about(self))

    def _action(
        self,
        menu: object,
        text: str,
        slot: object,
        key: object = None,
        icon_name: str | None = None,
    ) -> QAction:
        act = QAction(text, self)
        if key is not None:
            act.setShortcut(key)  # type: ignore[arg-type]
        if icon_name:
            act.setIcon(icon(icon_name))
        act.triggered.connect(slot)
        menu.addAction(act)  # type: ignore[attr-defined]
        return act

    def set_appearance(self, mode: str) -> None:
        """View → Appearance: follow the system, light or dark; kept for the next start."""
        save_appearance(mode)
        self.appearance_actions[mode].setChecked(True)
        apply_appearance(mode)
        # Colours computed when a card was drawn (status, chips): draw the cards anew.
        if not self.conversation.running:
            answers = self.conversation.answers()
            self.conversation.clear()
            for answer in answers:
                self.conversation.add_finished(answer)
        self.update()

    # --- responsive columns ------------------------------------------------------------
    def set_panel(self, name: str, on: bool) -> None:
        """Show or hide a side column ("left" or "viewer"); see app/ui/columns.py."""
        self.columns.want(name, on)

    def resizeEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(e)  # type: ignore[arg-type]
        self.columns.fit()

    def showEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        super().showEvent(e)  # type: ignore[arg-type]
        window_state.fit_on_first_show(self)  # the frame's size is known only now
        self.columns.fit()

    def _connect(self) -> None:
        s = self.session
        s.ready.connect(self._session_ready)
        s.documents_changed.connect(self._documents_changed)
        s.model_state.connect(self._model_state)
        s.model_failed.connect(self._model_failed)
        s.error.connect(self._session_error)
        s.watching.connect(self._watching)
        s.watch_progress.connect(self._watch_progress)
        s.watch_report.connect(self._watch_report)
        self.library.add_requested.connect(self.add_pdfs)
        self.library.remove_requested.connect(self.session.remove)
        self.library.open_requested.connect(self._open_document)
        self.library.summarize_requested.connect(self.summarize)
        self.library.selection_changed.connect(self._scope_changed)
        self.imports.cancel_requested.connect(self.cancel_ingest)
        self.conversation.ask_requested.connect(self.ask)
        self.conversation.cancel_requested.connect(self.cancel_answer)
        self.conversation.citation_clicked.connect(self.open_citation)
        self.conversation.copy_requested.connect(self.copy_answer)
        self.conversation.answer_selected.connect(self.sources.show_answer)
        self.sources.source_clicked.connect(self._open_source)
        self.sources.filled.connect(self._sources_filled)
        self.viewer.problem.connect(
            lambda text, details: self.messages.show_message("warning", text, details, key="viewer")
        )

    def _sources_filled(self, has: bool) -> None:
        """An empty Sources panel is only its title (the library takes the room); the first
        sources shown get their share back."""
        if has and self._sources_were_empty:
            total = sum(self.left.sizes())
            if total > 0:
                self.left.setSizes([total - total * 9 // 20, total * 9 // 20])
        self._sources_were_empty = not has

    def _model_failed(self, exc: BaseException) -> None:
        """A model that did not load: the previous one answers, if there was one."""
        kept = "; the previous one is kept." if self.session.model_name else "."
        self.messages.show_message(
            "error", f"The model could not be loaded{kept}", describe_error(exc)
        )

    def _session_error(self, msg: str, details: str) -> None:
        self.messages.show_message("error", msg, details)
        if (
            self.session.library is None
            and self.library.stack.currentWidget() is self.library.loading
        ):
            self.library.set_documents([])  # the library did not open: no endless "Opening…"

    def start(self) -> None:
        """Open the library and load the model in the background (after the window shows)."""
        self.session.start()

    # --- library -------------------------------------------------------------------
    def _show_read_only(self) -> None:
        """A team library on a desktop is read-only: no import, removal or dropping of files."""
        ro = self.session.read_only
        self.library.set_read_only(ro)
        self.act_add.setVisible(not ro)
        self.setAcceptDrops(not ro)
        self.act_add_folder.setVisible(not ro)
        where = self.session.settings.library
        title = f"Footnote — {library_name(where)}"
        if ro:
            title += " — Team library (read-only)" if is_remote(where) else " (read-only)"
        self.setWindowTitle(title)

    def _session_ready(self) -> None:
        self._show_read_only()
        remember_library(self.session.settings.library)
        self._resumed_embedding = False
        self.model_label.setText("Library open")
        self.messages.dismiss("opening")
        self._start_queued()

    def _documents_changed(self, docs: list[Document]) -> None:
        self.library.set_documents(docs)
        self.imports.keep_only({d.doc_id for d in docs})
        self.docs_label.setText(render.library_summary(docs))
        self._scope_changed()
        if docs:
            self.messages.dismiss("empty-library")
        if not self._resumed_embedding and self.ingest_job is None and not self.session.read_only:
            self._resumed_embedding = True  # once per start: finish an interrupted import
            self.session.embed_pending()

    def _scope_changed(self) -> None:
        ids = self.library.checked_doc_ids()
        if ids is None or ids:
            self.messages.dismiss("scope")
        n = len(self.library.documents)
        self.conversation.scope_hint.setText(
            "" if ids is None else f"Asking {len(ids)} of {n} documents (see the checkboxes)"
        )

    def add_pdfs(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add documents", str(Path.home()), file_dialog_filter()
        )
        if files:
            self.ingest([Path(f) for f in files])

    def add_folder(self) -> None:
        """File → Add folder…: pick a folder, then add it once or keep it in sync."""
        folder = QFileDialog.getExistingDirectory(self, "Add folder", str(Path.home()))
        if not folder:
            return
        box = QMessageBox(self)
        box.setWindowTitle("Add folder")
        box.setText(f"Keep “{Path(folder).name}” in sync?")
        box.setInformativeText(
            "Footnote watches the folder: new files are added, changed files read again, "
            "deleted files removed, and what changed while Footnote was closed is caught up "
            "on at the next start."
        )
        sync = box.addButton("Keep in sync", QMessageBox.ButtonRole.AcceptRole)
        once = box.addButton("Add once", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(sync)
        box.exec()
        if box.clickedButton() in (sync, once):
            self.add_folder_path(Path(folder), keep_in_sync=box.clickedButton() is sync)

    def add_folder_path(self, folder: Path, *, keep_in_sync: bool) -> None:
        if not keep_in_sync:
            self.ingest([folder])
            return
        if self.session.read_only or self.session.library is None:
            self.messages.show_message(
                "info", "Folders can be kept in sync once the library is open and writable."
            )
            return
        self.session.add_watched(folder)
        self.messages.show_message(
            "info",
            f"Keeping {safe_line(folder.name)} in sync; its documents are being added.",
            key="watch",
        )

    def _watching(self, folders: list[Path]) -> None:
        n = len(folders)
        self.watch_label.setVisible(bool(folders))
        self.watch_label.setText(f"Watching {n} folder{'s' if n != 1 else ''}")
        self.watch_label.setToolTip("\n".join(str(f) for f in folders))

    def _watch_progress(self, p: Progress) -> None:
        if p.stage is Stage.FILE and p.file and p.done < p.total:
            self.statusBar().showMessage(
                f"Syncing watched folders: {safe_line(Path(p.file).name)} "
                f"({p.done + 1} of {p.total})",
                5000,
            )

    def _watch_report(self, report: object) -> None:
        results = getattr(report, "outcome", None)
        results = results.results if results is not None else []
        counts = {s: sum(r.status == s for r in results) for s in ("added", "updated", "failed")}
        removed = len(getattr(report, "removed", []))
        parts = [f"{n} {s}" for s, n in counts.items() if n]
        if removed:
            parts.append(f"{removed} removed")
        if parts:
            failed = [r for r in results if r.status == "failed"]
            details = "; ".join(f"{Path(r.file).name}: {r.error}" for r in failed[:3])
            self.messages.show_message(
                "warning" if failed else "info",
                "Watched folders: " + ", ".join(parts) + ".",
                safe_line(details),
                key="watch",
            )

    def open_files(self, paths: list[Path]) -> None:
        """Files from the command line or from a second launch: bring the window up, import."""
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        paths = [Path(p) for p in paths]
        missing = [p for p in paths if not p.exists()]
        for p in missing:
            self.messages.show_message(
                "error", f"{p.name} was not found.", f"Footnote was asked to open {p}.", key="open"
            )
        found = [p for p in paths if p.exists()]
        if not found:
            return
        if self.session.library is None:
            self._pending_paths.extend(found)  # imported as soon as the library is open
            return
        self.ingest(found)

    def ingest(self, paths: list[Path]) -> None:
        if not paths or self.session.read_only:
            return
        if self.session.library is None:
            self._pending_paths.extend(paths)
            self.messages.show_message(
                "info",
                "The library is still opening; the files will be added in a moment.",
                key="opening",
            )
            return
        if self.ingest_job is not None:
            self._pending_paths.extend(paths)
            n = len(self._pending_paths)
            self.messages.show_message(
                "info",
                f"{n} more file{'s' if n != 1 else ''} will be added when this import finishes.",
                key="queued",
            )
            return
        self.set_panel("left", True)
        self.imports.start(paths)
        self.library.drop_zone.set_importing(True)
        self.ingest_job = self.session.ingest(
            paths,
            on_progress=self._ingest_progress,
            on_finished=self._ingest_finished,
            on_cancelled=self._ingest_cancelled,
            on_failed=self._ingest_failed,
        )

    def _ingest_progress(self, p: Progress) -> None:
        self.imports.on_progress(p)
        if p.stage is Stage.INDEXED:
            self.session.refresh_documents()

    def _ingest_finished(self, outcome: IngestOutcome) -> None:
        self.ingest_job = None
        self.library.drop_zone.set_importing(False)
        results = outcome.results
        self.imports.finish(results)
        if outcome.cancelled:
            self.imports.cancelled()
        if outcome.embed_error:
            self.messages.show_message(
                "warning",
                "Documents were added but could not be embedded; keyword search still works.",
                outcome.embed_error,
            )
        failed = [r for r in results if r.status == "failed"]
        logger.info("%s", self.imports.title.text())  # "Import finished: 1 added" in the log
        if not failed and any(r.status != "failed" for r in results):
            if not self.imports.isVisible():  # the import panel says it where it is seen
                self.messages.show_message("info", self.imports.title.text(), key="import")
            else:
                self.messages.dismiss("import")
        elif len(failed) == 1:
            r = failed[0]
            self.messages.show_message(
                "error",
                f"Could not add {safe_line(Path(r.file).name)}.",
                safe_line(r.error or "Unknown error."),
                key="import",
            )
        elif failed:
            reasons = "; ".join(
                f"{Path(r.file).name}: {r.error or 'unknown error'}" for r in failed[:3]
            )
            more = f"; and {len(failed) - 3} more (see the import panel)" if len(failed) > 3 else ""
            self.messages.show_message(
                "error", f"Could not add {len(failed)} files.", reasons + more, key="import"
            )
        if not outcome.cancelled:
            self._start_queued()

    def _ingest_cancelled(self) -> None:
        self.ingest_job = None
        self.library.drop_zone.set_importing(False)
        self.imports.cancelled()
        if self._pending_paths:
            self._pending_paths = []
            self.messages.dismiss("queued")

    def _ingest_failed(self, exc: BaseException) -> None:
        self.ingest_job = None
        self.library.drop_zone.set_importing(False)
        self.imports.failed(describe_error(exc))
        self.messages.show_message(
            "error", "The import stopped.", describe_error(exc), key="import"
        )
        self._start_queued()

    def _start_queued(self) -> None:
        if self._pending_paths and self.ingest_job is None and self.session.library is not None:
            paths, self._pending_paths = self._pending_paths, []
            self.messages.dismiss("queued")
            self.ingest(paths)

    def cancel_ingest(self) -> None:
        if self.ingest_job is not None:
            self.ingest_job.cancel.cancel()

    # --- drag and drop -------------------------------------------------------------------
    def dragEnterEvent(self, e: QDragEnterEvent) -> None:  # noqa: N802
        if e.mimeData().hasUrls() and local_pdf_paths(e.mimeData().urls()):
            e.acceptProposedAction()
            self.drop_overlay.setGeometry(self.centralWidget().geometry())
            self.drop_overlay.show()
            self.drop_overlay.raise_()
        else:
            e.ignore()

    def dragLeaveEvent(self, e: object) -> None:  # noqa: N802
        self.drop_overlay.hide()

    def dragMoveEvent(self, e: object) -> None:  # noqa: N802
        e.acceptProposedAction()  # type: ignore[attr-defined]

    def dropEvent(self, e: QDropEvent) -> None:  # noqa: N802
        self.drop_overlay.hide()
        paths = local_pdf_paths(e.mimeData().urls()) if e.mimeData().hasUrls() else []
        if not paths:
            e.ignore()
            return
        e.acceptProposedAction()
        self.ingest(paths)

    # --- asking ---------------------------------------------------------------------
    def summarize(self, doc_id: str) -> None:
        """Library → Summarise this document: asked in the conversation like any question
        (the ask service answers it with the document's outline, every sentence cited)."""
        self.ask(SUMMARIZE_QUESTION, [doc_id])

    def ask(self, question: str, doc_ids: list[str] | None = None) -> None:
        if self.session.asker is None:
            self.messages.show_message(
                "info", "Footnote is still starting; ask again in a moment.", key="starting"
            )
            return
        ids = self.library.checked_doc_ids() if doc_ids is None else doc_ids
        if ids is not None and not ids:
            self.messages.show_message(
                "warning",
                "No document is checked.",
                "Check at least one document in the library to ask it.",
                key="scope",
            )
            return
        if not self.library.documents:
            self.messages.show_message(
                "warning",
                "The library is empty.",
                "Add PDFs first (drop them on the window or press Ctrl+O).",
                key="empty-library",
            )
            return
        job = self.session.ask(
            question,
            ids,
            on_finished=self._answered,
            on_failed=self._answer_failed,
            on_cancelled=self._answer_cancelled,
            on_progress=self._ask_progress,
            history=self.conversation.answers(),
        )
        if job is not None:
            card = self.conversation.begin(question, job)
            if not self.session.model_loaded:
                card.set_phase("Waiting for the model to finish loading…")

    def _ask_progress(self, p: Progress) -> None:
        if self.conversation.active is not None:
            words = p.message or ASK_PHASES.get(p.stage)
            if words:
                self.conversation.active.set_phase(words)

    def _answered(self, answer: Answer) -> None:
        card = self.conversation.end()
        if card is not None:
            card.complete(answer)
        self.sources.show_answer(answer)
        self._save_conversation()

    def _answer_failed(self, exc: BaseException) -> None:
        card = self.conversation.end()
        text = describe_error(exc)
        if card is not None:
            card.fail(text)
        self.messages.show_message(
            "error", "The question could not be answered.", text, key="answer"
        )

    def _answer_cancelled(self) -> None:
        card = self.conversation.end()
        if card is not None:
            card.cancelled()

    def cancel_answer(self) -> None:
        job = self.conversation.job
        if job is not None:
            job.cancel.cancel()
            if self.conversation.active is not None:
                self.conversation.active.set_phase("Stopping…")

    # --- evidence --------------------------------------------------------------------
    def _doc_path(self, doc_id: str, fallback: str) -> Path:
        """The PDF the viewer shows: the document's own file, or the PDF an EPUB, DOCX...
        was converted to (the one its citations' rectangles were measured on)."""
        lib = self.session.library
        doc = self.session.document(doc_id)
        if doc is None and lib is not None:  # imported a moment ago: not listed yet
            doc = lib.get_document(doc_id)
        if doc is None:
            return Path(fallback)
        return lib.view_file(doc) if lib is not None else Path(doc.file)

    def open_citation(self, answer: Answer, n: int) -> None:
        cits: list[Citation] = render.citations_by_n(answer).get(n, [])
        if not cits:
            return
        first = cits[0]
        path = self._doc_path(first.doc_id, first.file)
        rects = [tuple(r) for c in cits if c.doc_id == first.doc_id for r in c.rects]
        if not path.is_file():
            self.messages.show_message(
                "error",
                f"{path.name} is no longer where it was.",
                f"Expected at {path}. Add it again if it moved.",
            )
            return
        try:
            self.set_panel("viewer", True)
            self.viewer.show_evidence(path, rects, first.page)  # type: ignore[arg-type]
        except Exception as exc:  # a broken file must not crash the window
            logger.exception("could not open %s", path)
            self.messages.show_message("error", f"Could not open {path.name}.", str(exc))

    def _open_source(self, answer: Answer, src: Source) -> None:
        cited = [c for c in answer.citations if c.n == src.n]
        if cited:
            self.open_citation(answer, src.n)
            return
        path = self._doc_path(src.doc_id, src.file)
        if not path.is_file():
            self.messages.show_message(
                "error",
                f"{path.name} is no longer where it was.",
                f"Expected at {path}. Add it again if it moved.",
                key="viewer",
            )
            return
        self.set_panel("viewer", True)
        self.viewer.show_evidence(path, self._passage_rects(src), src.page_start)

    def _passage_rects(self, src: Source) -> list[tuple[int, float, float, float, float]]:
        """Rectangles of the whole retrieved passage (an uncited source has no quote)."""
        lib = self.session.library
        if lib is None:
            return []
        try:
            chunks = lib.chunks([src.chunk_id])
        except Exception:
            logger.exception("could not read passage %s", src.chunk_id)
            return []
        if not chunks or chunks[0].charmap is None:
            return []
        chunk = chunks[0]
        return [(r.page, r.x0, r.y0, r.x1, r.y1) for r in chunk.charmap.rects(0, len(chunk.text))]

    def _open_document(self, doc_id: str) -> None:
        doc = self.session.document(doc_id)
        path = self._doc_path(doc_id, doc.file) if doc is not None else None
        if path is not None and path.is_file():
            self.set_panel("viewer", True)
            self.viewer.open(path, 1)

    # --- misc actions -----------------------------------------------------------------
    def copy_answer(self, answer: Answer) -> None:
        QGuiApplication.clipboard().setText(render.answer_markdown(answer))
        self.statusBar().showMessage("Answer copied as Markdown", 3000)

    def copy_last_answer(self) -> None:
        """Edit → Copy: the selected answer (the one last clicked), else the newest."""
        answer = self.conversation.selected_answer() or self.conversation.last_answer()
        if answer is not None:
            self.copy_answer(answer)

    def export_conversation(self) -> None:
        """Edit → Export conversation…: the whole conversation as Markdown or HTML, every
        citation a footnote (file, page, section, quote)."""
        from app.services.export import export_conversation

        answers = self.conversation.answers()
        if not answers:
            self.messages.show_message(
                "info", "There is no conversation to export yet.", key="export"
            )
            return
        name, chosen = QFileDialog.getSaveFileName(
            self,
            "Export conversation",
            str(Path.home() / "conversation.md"),
            "Markdown (*.md);;HTML (*.html)",
        )
        if not name:
            return
        path = Path(name)
        if path.suffix.lower() not in (".md", ".markdown", ".html", ".htm"):
            path = path.with_suffix(".html" if "HTML" in chosen else ".md")
        try:
            export_conversation(answers, path)
        except OSError as exc:
            self.messages.show_message(
                "error", f"Could not write {path.name}.", str(exc), key="export"
            )
            return
        self.statusBar().showMessage(f"Conversation exported to {path}", 5000)

    def new_conversation(self) -> None:
        """File → New conversation (Ctrl+N): the answers so far are cleared (and so no longer
        leaned on by follow-ups); the empty conversation is what a restart shows."""
        if self.conversation.running:
            self.messages.show_message(
                "info",
                "An answer is still being written.",
                "Stop it (Esc) or wait for it before starting a new conversation.",
                key="new-conversation",
            )
            return
        self.conversation.clear()
        self.sources.show_answer(None)
        self._save_conversation()
        self.conversation.input.setFocus()
        self.statusBar().showMessage("New conversation", 3000)

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self).exec()

    # --- several libraries ----------------------------------------------------------
    def open_library_dialog(self) -> None:
        """File → Open library…: a folder (an empty one becomes a new library)."""
        folder = QFileDialog.getExistingDirectory(
            self,
            "Open library",
            str(Path(self.session.settings.library).parent)
            if not is_remote(self.session.settings.library)
            else str(Path.home()),
        )
        if folder:
            self.open_library(Path(folder))

    def _fill_recent_libraries(self) -> None:
        self.recent_menu.clear()
        current = redact(self.session.settings.library)
        items = [r for r in recent_libraries() if r != current]
        for loc in items:
            act = self.recent_menu.addAction(f"{library_name(loc)} — {loc}")
            act.triggered.connect(lambda _=False, loc=loc: self.open_library(loc))
        if not items:
            act = self.recent_menu.addAction("No other library yet")
            act.setEnabled(False)

    def open_library(self, location: Path | str) -> None:
        """Switch this window to another library: its documents, its watched folders, its
        conversation (each library keeps its own); the current conversation is saved with
        the library it belongs to."""
        location = parse_location(location)
        if location == self.session.settings.library:
            return
        if self.ingest_job is not None:
            self.messages.show_message(
                "info", "Wait for the import to finish (or cancel it) before switching libraries."
            )
            return
        read_only = None if not os.environ.get("FOOTNOTE_READ_ONLY") else self.session.read_only
        new = self.session.settings.model_copy(update={"library": location, "read_only": read_only})
        self.apply_settings(new)
        self._show_read_only()

    def open_settings(self) -> None:
        # Imported here: it brings in app.generation, which the window's start-up does not need
        # (the services, built in the background once the window shows, import it anyway).
        from app.ui.settings_dialog import SettingsDialog

        dlg = SettingsDialog(self.session.settings, self)
        if dlg.exec():
            self.apply_settings(dlg.result_settings())

    def apply_settings(self, new: Settings) -> None:
        """Apply dialog changes. The services share one ``Settings`` object, updated in place."""
        cur = self.session.settings
        save_settings(new)
        if new.library != cur.library or new.embedder != cur.embedder:
            self._save_conversation()
            self.conversation.clear()
            self.library.set_loading()
            self.session.reopen(new)
            self._load_history()
            return
        old_model, old_url, old_ctx = cur.model, cur.llm_url, cur.n_ctx
        for field in ("top_k", "temperature", "n_ctx", "model", "llm_url"):
            setattr(cur, field, getattr(new, field))
        # A GGUF picked in the dialog clears llm_url (see SettingsDialog.result_settings) for
        # this session; FOOTNOTE_LLM_URL applies again at the next start. The context size is
        # the local model's: a server keeps its own.
        local_ctx = new.llm_url is None and new.n_ctx != old_ctx
        if (new.model, new.llm_url) != (old_model, old_url) or local_ctx:

            def revert(_exc: BaseException) -> None:
                if new.model is not None and new.model != old_model:
                    forget_model(new.model)
                cur.model, cur.llm_url, cur.n_ctx = old_model, old_url, old_ctx
                save_settings(cur)

            if new.model is not None:
                remember_model(new.model)
            self.session.load_model(on_failed=revert)

    def _model_state(self, text: str, busy: bool) -> None:
        self.model_label.setText(text)
        self.model_busy.setVisible(busy)

    # --- persistence --------------------------------------------------------------------
    def _save_conversation(self) -> None:
        save_history(self.session.settings.library, self.conversation.answers())

    def _load_history(self) -> None:
        for answer in load_history(self.session.settings.library):
            self.conversation.add_finished(answer)
        last = self.conversation.last_answer()
        if last is not None:
            self.sources.show_answer(last)
            self.conversation.scroll_to_bottom()

    def _splitters(self) -> dict[str, QSplitter]:
        return {"split_main": self.main_split, "split_left": self.left}

    def closeEvent(self, e: QCloseEvent) -> None:  # noqa: N802
        window_state.save(self, self._splitters())
        self.session.shutdown()
        super().closeEvent(e)
