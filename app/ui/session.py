"""The GUI's handle on the services: owns ``Library`` and ``AskService`` and runs them off-thread.

Why: widgets should only say *what* to do (ingest these paths, ask this question); this
object decides *where* it runs. Pools: "model" (load model, answer: one at a time, the model
is not re-entrant), "ingest" (parse, index, embed), "io" (quick library queries, creating
the services) and "watch" (the library's watched folders, followed while the window is open). Every result comes back as a Qt signal on the GUI thread.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.core.config import Settings
from app.core.errors import FootnoteError
from app.core.location import is_remote
from app.core.models import Answer, Document, IngestOutcome
from app.core.progress import Progress, Stage
from app.services.ingest_process import ingest_in_child
from app.ui.workers import Job, JobRunner

if TYPE_CHECKING:
    from app.services.ask import AskService
    from app.services.library import Library

logger = logging.getLogger(__name__)


def desktop_settings(settings: Settings) -> Settings:
    """Desktops open a team library (on object storage) read-only unless told otherwise
    (FOOTNOTE_READ_ONLY=false); the CLI or a cluster job is its writer."""
    if settings.read_only is not None:
        return settings
    return settings.model_copy(update={"read_only": is_remote(settings.library)})


class Session(QObject):
    """Services plus the background machinery to call them without freezing the window."""

    ready = Signal()  # services constructed
    documents_changed = Signal(list)  # list[Document]
    model_state = Signal(str, bool)  # message, busy
    model_failed = Signal(object)  # exception while loading a model
    watch_progress = Signal(object)  # Progress of a watched folder's import
    watch_report = Signal(object)  # SyncReport: what one sync step of the watched folders did
    watching = Signal(list)  # list[Path]: the folders now followed (empty: none)
    error = Signal(str, str)  # message, details

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = desktop_settings(settings)
        self.runner = JobRunner(self)
        self.library: Library | None = None
        self.asker: AskService | None = None
        self.documents: list[Document] = []
        self.model_name = ""
        self.model_loaded = False
        self.search_ready = False
        self.closed = False  # shut down: a job finishing late must not start another
        self.watch_job: Job | None = None
        self.watched: list[Path] = []
        # Workers run Python between native calls; a shorter GIL switch interval (default
        # 5 ms) lets the GUI thread take the GIL back sooner, keeping the window fluid.
        sys.setswitchinterval(0.001)

    @property
    def read_only(self) -> bool:
        return bool(self.settings.read_only)

    # --- start-up ------------------------------------------------------------------
    def start(self) -> None:
        """Create the services off the GUI thread (imports LanceDB etc.), then warm up the model."""

        def build(_: Job) -> tuple[Library, AskService]:
            from app.services.ask import AskService
            from app.services.library import Library

            if isinstance(self.settings.library, Path) and not self.read_only:
                self.settings.library.mkdir(parents=True, exist_ok=True)
            lib = Library(self.settings)
            return lib, AskService(lib, self.settings)

        self.runner.submit(
            "io",
            build,
            name="open-library",
            on_finished=self._built,
            on_failed=self._fail("Could not open the library."),
        )

    def _built(self, pair: tuple[Library, AskService]) -> None:
        if self.closed:  # opened after the window closed: nothing is to use it
            return
        self.library, self.asker = pair
        self.ready.emit()
        self.refresh_documents()
        self.load_model()
        self.watch()  # catch up on the watched folders, then follow them

    def reopen(self, settings: Settings) -> None:
        """Library folder or embedder changed: build fresh services for the new settings."""
        self._stop_watching()
        self.settings = desktop_settings(settings)
        self.library = None
        self.asker = None
        self.model_loaded = False
        self.search_ready = False
        self.start()

    # --- library -------------------------------------------------------------------
    def refresh_documents(self) -> None:
        lib = self.library
        if lib is None or self.closed:
            return
        self.runner.submit(
            "io",
            lambda _j: lib.documents(),
            name="documents",
            on_finished=self._set_documents,
            on_failed=self._fail("Could not list the documents."),
        )

    def _set_documents(self, docs: list[Document]) -> None:
        self.documents = sorted(docs, key=lambda d: (d.title or Path(d.file).name).lower())
        self.documents_changed.emit(self.documents)

    def document(self, doc_id: str) -> Document | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)

    def ingest(
        self,
        paths: Sequence[Path],
        *,
        on_progress: Callable[[Progress], None],
        on_finished: Callable[[IngestOutcome], None],
        on_cancelled: Callable[[], None],
        on_failed: Callable[[BaseException], None],
    ) -> Job | None:
        """``Library.ingest`` (keyword-searchable at once, then embedded) on the "ingest" pool.

        It runs in a child process (see app.services.ingest_process: parsing and embedding
        hold the GIL for long stretches); this thread only relays its events as signals.
        """
        if self.library is None:
            return None
        settings = self.settings

        def work(job: Job) -> IngestOutcome:
            return ingest_in_child(settings, list(paths), on_progress=job.report, cancel=job.cancel)

        return self.runner.submit(
            "ingest",
            work,
            name="ingest",
            on_progress=on_progress,
            on_finished=on_finished,
            on_cancelled=on_cancelled,
            on_failed=on_failed,
            on_done=self._ingested,
        )

    def _ingested(self) -> None:
        self.refresh_documents()
        self.warm_words()  # the new documents' words

    def embed_pending(self) -> None:
        """Finish embeddings left over from an interrupted session (background, silent)."""
        if self.library is None or not any(d.status == "indexed" for d in self.documents):
            return
        settings = self.settings

        def work(job: Job) -> IngestOutcome:
            return ingest_in_child(settings, [], cancel=job.cancel)

        self.runner.submit(
            "ingest",
            work,
            name="embed-pending",
            on_done=self.refresh_documents,
            on_failed=self._fail("Could not finish indexing."),
        )

    def remove(self, doc_id: str) -> None:
        lib = self.library
        if lib is None:
            return
        self.runner.submit(
            "io",
            lambda _j: lib.remove(doc_id),
            name="remove",
            on_done=self.refresh_documents,
            on_failed=self._fail("Could not remove the document."),
        )

    # --- watched folders ---------------------------------------------------------------
    def add_watched(self, folder: Path) -> None:
        """Remember ``folder`` in the library as kept in sync, and follow it from now on (its
        files are imported by the catch-up that starts the watch)."""
        from app.services.watch import WatchList

        WatchList(self.settings.library).add([folder])
        self.watch()

    def watch(self) -> None:
        """(Re)start following the library's watched folders: catch up on what changed while
        the window was closed, then follow their events (app/services/watch.py) on the
        "watch" pool until the window closes. Imports run in a child process, as a drop's."""
        from app.services.watch import FolderSync, SyncReport, WatchList

        lib = self.library
        self._stop_watching()
        if lib is None or self.read_only or self.closed:
            return
        folders = [f for f in WatchList(self.settings.library).folders() if f.is_dir()]
        self.watched = folders
        self.watching.emit(folders)
        if not folders:
            return
        settings = self.settings

        def ingest(paths: Sequence[Path], **kwargs: object) -> IngestOutcome:
            return ingest_in_child(settings, paths, **kwargs)  # type: ignore[arg-type]

        def work(job: Job) -> None:
            sync = FolderSync(lib, folders, ingest=ingest)
            sync.run(job.cancel, on_progress=job.report, on_report=job.report)  # type: ignore[arg-type]

        def event(item: object) -> None:
            if isinstance(item, SyncReport):
                self.refresh_documents()
                self.warm_words()
                self.watch_report.emit(item)
                return
            if isinstance(item, Progress) and item.stage is Stage.INDEXED:
                self.refresh_documents()  # keyword-searchable now; embedding follows
            self.watch_progress.emit(item)

        self.watch_job = self.runner.submit(
            "watch",
            work,
            name="watch",
            on_progress=event,  # type: ignore[arg-type]
            on_failed=self._fail("Could not keep the watched folders in sync."),
        )

    def _stop_watching(self) -> None:
        if self.watch_job is not None:
            self.watch_job.cancel.cancel()
            self.watch_job = None

    # --- model ----------------------------------------------------------------------
    def load_model(self, *, on_failed: Callable[[BaseException], None] | None = None) -> None:
        """Load the chat model the settings name (``AskService.reload_model``): the llama.cpp
        server at ``llm_url`` when set, else the GGUF at ``model``. The previous model answers
        until the new one is ready, and stays if it fails."""
        asker = self.asker
        if asker is None or self.closed:
            return
        label = model_label(self.settings)
        self.model_state.emit(f"Loading {label}…", True)

        def work(_: Job) -> str:
            asker.reload_model()
            return asker.model.name or label

        def loaded(name: str) -> None:
            self.model_loaded = True
            self.model_name = name
            self.model_state.emit(f"Model: {name}", False)
            self.warm_up()

        def failed(exc: BaseException) -> None:
            prev = self.model_name or "none loaded"
            self.model_state.emit(f"Model: {prev}", False)
            self.model_failed.emit(exc)
            if on_failed:
                on_failed(exc)

        self.runner.submit("model", work, name="load-model", on_finished=loaded, on_failed=failed)

    def warm_up(self) -> None:
        """Load the query embedder and prime the chat model now, on the model thread, not mid-question.

        Importing torch holds the GIL for a while; better once at start-up than mid-answer.
        """
        lib = self.library
        if lib is None or self.search_ready or self.closed:
            return

        asker = self.asker

        def work(_j: Job) -> None:
            import app.services.conversation  # noqa: F401  (what ask() imports first)
            from app.ui.pdf_viewer import mupdf

            mupdf()  # PyMuPDF, which the window's start-up left for later: not on a first click
            lib.warm_up()
            lib.count_words()  # rarity and absence lookups in microseconds
            if asker is not None:  # cache the system prompt so the first answer is not slower
                asker.warm_up()

        def done(_: object) -> None:
            self.search_ready = True
            self.warm_words()

        self.runner.submit(
            "model",
            work,
            name="warm-up",
            on_finished=done,
            on_failed=self._fail("Could not load the embedding model."),
        )

    def warm_words(self) -> None:
        """Embed the library's words ahead of questions (``AskService.warm_words``) on a pool
        of its own, so a question never waits for it: it pauses while one is answered."""
        asker = self.asker
        if asker is None or not self.search_ready or self.closed:
            return
        self.runner.submit(
            "words",
            lambda job: asker.warm_words(cancel=job.cancel),
            name="warm-words",
            on_failed=lambda exc: logger.warning("embedding the library's words failed: %r", exc),
        )

    def ask(
        self,
        question: str,
        doc_ids: list[str] | None,
        *,
        on_finished: Callable[[Answer], None],
        on_failed: Callable[[BaseException], None],
        on_cancelled: Callable[[], None],
        on_progress: Callable[[Progress], None] | None = None,
        history: Sequence[Answer] = (),
    ) -> Job | None:
        """Ask ``question`` in the conversation whose answers so far are ``history`` (a
        follow-up is understood with them: ``app.services.conversation``)."""
        asker = self.asker
        if asker is None:
            return None
        top_k = self.settings.top_k
        turns = list(history)

        def work(job: Job) -> Answer:
            from app.services.conversation import Conversation

            return Conversation(asker, turns=turns).ask(
                question,
                doc_ids=doc_ids,
                top_k=top_k,
                on_token=job.push_token,
                on_progress=job.report,
                cancel=job.cancel,
            )

        return self.runner.submit(
            "model",
            work,
            name="ask",
            on_finished=on_finished,
            on_failed=on_failed,
            on_cancelled=on_cancelled,
            on_progress=on_progress,
        )

    # --- helpers --------------------------------------------------------------------
    def _fail(self, message: str) -> Callable[[BaseException], None]:
        def handler(exc: BaseException) -> None:
            self.error.emit(message, describe_error(exc))

        return handler

    def shutdown(self) -> None:
        self.closed = True
        self.runner.cancel_all()
        self.runner.wait(20000)


def model_label(settings: Settings) -> str:
    """The chat model the settings name, in words, before it is loaded."""
    if settings.llm_url:
        from app.generation import server_label  # not at start-up: see MainWindow.open_settings

        return f"the {server_label(settings.llm_url)}"
    return settings.model.name if settings.model else "the embedded model"


def describe_error(exc: BaseException) -> str:
    """A user-readable sentence for any exception (typed errors carry their own hint)."""
    if isinstance(exc, FootnoteError):
        return exc.user_text()
    return f"{type(exc).__name__}: {exc}"
