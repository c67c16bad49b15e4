"""The library use cases the CLI and the desktop app share: ingest, embed, list, remove, search.

Ingestion runs in two phases so a document is useful as early as possible: first it
is parsed, chunked and written with its keyword index ("indexed": BM25-searchable),
then its chunks are embedded ("ready"). Each file succeeds or fails on its own; a
cancelled or killed run leaves the library consistent and the next run finishes it.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from app.core.config import Settings, converted_dir
from app.core.errors import (
    Cancelled,
    FileMissingError,
    FootnoteError,
    IngestError,
    PermissionDeniedError,
    StoreError,
)
from app.core.models import Chunk, DocStatus, Document, IngestOutcome, IngestResult, SearchHit
from app.core.progress import (
    CancelToken,
    FileDone,
    FileProgress,
    Progress,
    ProgressCallback,
    Stage,
    no_progress,
)
from app.core.protocols import Embedder
from app.core.text import sentence_key
from app.core.timing import StageTimes, ms_since
from app.services.embed_pool import EmbedPool
from app.services.ocr_stage import Event as OcrEvent
from app.services.ocr_stage import OcrJob, OcrStage
from app.services.partial import PartialWriter
from app.store import Store

if TYPE_CHECKING:
    from app.core.models import ParsedDocument
    from app.ingest import ParseOptions
    from app.retrieval import HybridRetriever
    from app.retrieval.terms import TermIndex

logger = logging.getLogger(__name__)

EMBED_BATCH = 32  # chunks per embedder call; also the cancellation granularity
T = TypeVar("T")


def embedding_text(title: str, section: str, text: str) -> str:
    """What gets embedded for a chunk: its section path gives short passages their topic."""
    return f"{section}\n{text}" if section else text


def expand_paths(paths: Sequence[Path | str]) -> list[Path]:
    """Files to ingest (folders expanded by ``iter_pdf_paths``), resolved and de-duplicated.

    Resolving matters: a document is keyed by its path for "updated", so the same file
    reached through a symlink or ``..`` must give the same path string.
    """
    from app.ingest import iter_pdf_paths, safe_resolve

    return list(dict.fromkeys(safe_resolve(p) for p in iter_pdf_paths(paths)))


class Library:
    """One library folder: a Store plus the embedder and retriever over it."""

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None):
        self.settings = settings or Settings()
        self._embedder = embedder
        self._cached: Embedder | None = None
        self._store: Store | None = None
        self._retriever: HybridRetriever | None = None
        self._terms: TermIndex | None = None  # built by count_words (long-running front ends)
        self._lock = threading.RLock()  # one writer at a time in this process
        self._preload: threading.Thread | None = None  # loads the model while files are parsed

    # --- lazily created parts --------------------------------------------------------------

    @property
    def store(self) -> Store:
        with self._lock:
            if self._store is None:
                self._store = Store(self.settings.library, read_only=bool(self.settings.read_only))
            return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedder; the real one is created on first use (it imports torch). It remembers
        recent questions and sentences, so the search and the answer step embed a question
        once (app/retrieval/cache.py)."""
        with self._lock:
            if self._cached is None:
                from app.retrieval.cache import CachedEmbedder

                if self._embedder is None:
                    from app.retrieval import SentenceTransformerEmbedder

                    self._embedder = SentenceTransformerEmbedder(self.settings.embedder)
                self._cached = CachedEmbedder(self._embedder)
            return self._cached

    def preload_embedder(self) -> None:
        """Start loading the embedding model on a thread (once), so that it loads while files
        are parsed instead of after: an ingest calls this before its first parse when it will
        embed. A model that fails to load fails again, with its message, when first used."""
        with self._lock:
            if self._preload is not None:
                return
            emb = self.embedder
            self._preload = threading.Thread(
                target=_load_quietly, args=(emb,), name="embedder-load", daemon=True
            )
        self._preload.start()

    def _ensure_embedder(self) -> Embedder:
        emb = self.embedder
        with self._lock:
            if self.store.set_embedder(emb.name, emb.dim):
                logger.warning("stored vectors came from another embedder; re-embedding")
        return emb

    @property
    def parse_options(self) -> ParseOptions:
        """How files are read under the current settings (OCR on or off, its languages, chunk
        sizes): this ingest and a cluster's workers (``RayIngest``) both take them from here."""
        from app.ingest import ParseOptions

        return ParseOptions.from_settings(self.settings)

    # --- ingest: the one use case the CLI and the desktop app call -----------------------

    def ingest(
        self,
        paths: Sequence[Path | str],
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        embed: bool = True,
    ) -> IngestOutcome:
        """Add PDFs (files or folders): make each keyword-searchable, then embed.

        1. Parse, chunk and store each file with its keyword index, one result per file
           (added, unchanged, updated, or failed with the error's user text and code);
           ``Stage.INDEXED`` marks the end of this phase.
        2. Embed every chunk still lacking a vector: this run's files and any an earlier,
           interrupted run left behind (skipped when ``embed`` is False).

        Failures are reported, not raised: a bad file in its result (the others go on), a
        failed embedding in ``embed_error`` (the documents stay keyword-searchable). On
        cancellation the files not yet started are left out, everything written stays
        usable, and the next run finishes the rest. A library that cannot be opened raises
        StoreError.
        """
        progress = on_progress or no_progress
        t0 = time.perf_counter()
        run = StageTimes()  # the run's own stages (worker start, BM25 merge, compaction)
        store_before = dict(self.store.times.ms)
        preload = self.preload_embedder if embed else None
        ocr = self._ocr_stage(cancel)  # scanned pages, read beside the rest (None: OCR off)
        # The model's work, side by side on the cores; it starts ahead, while files are parsed.
        pool = EmbedPool(self.embedder, EMBED_BATCH) if embed else None
        try:
            results = self._index_files(
                paths, progress, cancel, run, preload, ocr, ahead=pool.ahead if pool else None
            )
        except BaseException:
            if pool is not None:
                pool.close()
            raise
        outcome = IngestOutcome(results=results)
        outcome.index_ms = (time.perf_counter() - t0) * 1000
        outcome.cancelled = cancel is not None and cancel.cancelled
        try:
            if outcome.cancelled:
                return outcome
            progress(Progress(Stage.INDEXED, 1, 1, message="indexed"))
            if not embed:
                return outcome
            t1 = time.perf_counter()
            per_doc: dict[str, StageTimes] = {}
            try:
                assert pool is not None
                outcome.embedded_chunks = self._embed_pending(
                    progress, cancel, run, per_doc, pool, ocr=(ocr, results)
                )
            except Cancelled:
                logger.info("embedding cancelled; documents stay keyword-searchable")
                outcome.cancelled = True
            except FootnoteError as exc:
                outcome.embed_error = exc.user_text()
            except Exception as exc:  # documents stay keyword-searchable (logged)
                logger.exception("embedding failed")
                outcome.embed_error = f"{type(exc).__name__}: {exc}"
            outcome.embed_ms = (time.perf_counter() - t1) * 1000
            if ocr is not None:  # embedding failed or was cancelled: OCR still ends here
                self._finish_ocr(ocr, results, progress, run)
            for r in outcome.results:
                if r.doc_id in per_doc and r.status in ("added", "updated"):
                    r.timings_ms = _merged(r.timings_ms, per_doc[r.doc_id].ms)
            return outcome
        finally:
            if pool is not None:
                pool.close()
                if pool.ahead_ms:
                    run.add("embed_ahead", pool.ahead_ms)
            if ocr is not None:
                self._finish_ocr(ocr, results, progress, run)
                outcome.cancelled = cancel is not None and cancel.cancelled
                # A file whose scanned pages were not all read when the run was cancelled is
                # left out, as a file not started is (its partial version stays searchable).
                outcome.results = [r for i, r in enumerate(results) if i not in ocr.cancelled]
            outcome.timings_ms = _run_profile(outcome, run, store_before, self.store.times.ms)

    def _index_files(
        self,
        paths: Sequence[Path | str],
        progress: ProgressCallback,
        cancel: CancelToken | None,
        run: StageTimes,
        before_parse: Callable[[], None] | None = None,
        ocr: OcrStage | None = None,
        ahead: Callable[[list[str]], None] | None = None,
    ) -> list[IngestResult]:
        """Phase 1: parse and store each file with its keyword index; results in order.
        ``before_parse`` is called once, before the first file that needs parsing (an ingest
        that will embed starts loading the model then). Scanned pages go to ``ocr`` (their
        results are applied between files here, and later by the embedding phase)."""
        from app.ingest import file_sha, parse_pdf

        own = self.converted_dir  # the PDFs made from this library's EPUBs etc. are no input
        files = [p for p in expand_paths(paths) if not p.is_relative_to(own)]
        results: list[IngestResult] = []
        wrote = False
        parser = _parser(self.settings)  # a child process with a memory ceiling, or None
        if parser is not None:
            if files:
                parser.start()  # its imports overlap the first file's hash and lookup
            parse_pdf = parser.parse
        hooks = [before_parse] if before_parse is not None else []

        def parse(*args: Any, **kwargs: Any) -> Any:
            while hooks:
                hooks.pop()()
            return parse_pdf(*args, **kwargs)

        try:
            for i, path in enumerate(files):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                progress(Progress(Stage.FILE, i, len(files), file=str(path)))
                report = _for_file(progress, str(path), i, len(files))
                result = self._ingest_one(
                    path,
                    file_sha,
                    parse,
                    report,
                    cancel,
                    ocr=ocr,
                    index=i,
                    count=len(files),
                    ahead=ahead,
                )
                results.append(result)
                progress(
                    FileDone(
                        Stage.DONE,
                        1,
                        1,
                        file=str(path),
                        index=i,
                        count=len(files),
                        status=result.status,
                        error=result.error,
                    )
                )
                if result.status in ("added", "updated"):
                    wrote = not self.store.maybe_optimize()
                if ocr is not None:
                    wrote |= self._apply_ocr_results(ocr, results, progress)
            progress(Progress(Stage.FILE, len(files), len(files)))
        except Cancelled:
            logger.info("ingest cancelled after %d of %d files", len(results), len(files))
        finally:
            if ocr is not None:
                ocr.close()  # no more files; the thread ends after the last one
            if parser is not None:
                parser.close()
                run.add("worker_start", parser.times.ms.get("worker_start", 0.0))
        if wrote:
            self.store.optimize()
        return results

    def _ingest_one(
        self,
        path: Path,
        file_sha: Any,
        parse_pdf: Any,
        progress: ProgressCallback,
        cancel: CancelToken | None,
        *,
        ocr: OcrStage | None = None,
        index: int = 0,
        count: int = 1,
        ahead: Callable[[list[str]], None] | None = None,
    ) -> IngestResult:
        name = str(path)
        partial = PartialWriter(self.store, self._lock, name)
        sha = ""
        times = StageTimes()
        try:
            with times.stage("hash"):
                sha = file_sha(path)
            known = self.store.get_document(sha)
            if known is not None and known.status == "partial":  # OCR was interrupted
                with self._lock:
                    self.store.remove(sha)
                known = None
            if known is not None:
                if known.file != name and not Path(known.file).exists():
                    # Same content, and the file it was added from is gone: it moved.
                    with self._lock:
                        self.store.set_file(sha, name)
                return self._result(name, "unchanged", known)
            options = self.parse_options
            source = self._converted(path, sha, progress, cancel)
            on_partial: Any = partial
            if source != path:
                on_partial = lambda p: partial(_adopted(p, sha, path))  # noqa: E731
            # With an OCR stage, scanned pages are left for it (``defer``): read beside the rest.
            ocr_options = replace(options.ocr, defer=True) if ocr is not None else options.ocr
            parsed: ParsedDocument = parse_pdf(
                source,
                on_progress=progress,
                cancel=cancel,
                params=options.params,
                ocr=ocr_options,
                on_partial=on_partial,
            )
            if source != path:
                parsed = _adopted(parsed, sha, path)
            times.merge(parsed.timings_ms)
            if parsed.ocr_pending and ocr is not None:
                job = OcrJob(index, count, path, source, sha)
                return self._defer_ocr(job, parsed, ocr, times)
            doc = parsed.document.model_copy(update={"file": name, "status": "indexed"})
            parsed = parsed.model_copy(update={"document": doc})
            with self._lock:
                partial.discard()
                if self.store.get_document(doc.doc_id) is not None:  # raced with another ingest
                    return self._result(name, "unchanged", self.store.get_document(doc.doc_id))
                progress(Progress(Stage.INDEX, 0, 1, file=name))
                try:
                    with times.stage("store"):
                        replaced = self.store.add_document(parsed) or partial.replaced
                except StoreError:  # another process added the same content just now
                    if (other := self.store.get_document(doc.doc_id)) is None:
                        raise
                    return self._result(name, "unchanged", other)
                progress(Progress(Stage.INDEX, 1, 1, file=name))
            for old_id in replaced if isinstance(replaced, list) else []:
                self._drop_converted(old_id)
            stored = self.store.get_document(doc.doc_id)
            result = self._result(name, "updated" if replaced else "added", stored)
            result.ocr_pages = len(parsed.ocr_pages)
            result.timings_ms = times.report(1)
            if ahead is not None:  # embedded on the core the parse worker leaves
                ahead([embedding_text(doc.title, c.section, c.text) for c in parsed.chunks])
            return result
        except Cancelled:
            raise  # a partial document stays: its pages are searchable, the next run redoes it
        except IngestError as exc:
            partial.discard()  # a failed file leaves nothing behind
            self._drop_unstored(sha)
            return self._failed(name, exc)
        except FileNotFoundError as exc:
            partial.discard()
            return self._failed(name, FileMissingError(f"{name} does not exist ({exc.strerror})."))
        except PermissionError as exc:
            partial.discard()
            return self._failed(name, PermissionDeniedError(f"Cannot read {name}: {exc.strerror}."))
        except FootnoteError as exc:
            partial.discard()
            return self._failed(name, exc)
        except Exception as exc:  # one bad file must never stop the others
            logger.exception("unexpected error ingesting %s", name)
            partial.discard()
            return IngestResult(
                file=name,
                status="failed",
                error=f"Unexpected error while adding {path.name}: {exc}",
                error_code="internal_error",
            )

    # --- scanned pages: read by OCR beside the rest of the run (app.services.ocr_stage) ------

    def _ocr_stage(self, cancel: CancelToken | None) -> OcrStage | None:
        """The run's OCR stage, with a parse worker of its own; None when OCR is off."""
        if not self.settings.ocr:
            return None
        from app.ingest import parse_pdf

        def make_parser() -> tuple[Any, Callable[[], None]]:
            parser = _parser(self.settings)
            if parser is None:
                return parse_pdf, lambda: None
            return parser.parse, parser.close

        return OcrStage(make_parser, self.parse_options, cancel)

    def _defer_ocr(
        self, job: OcrJob, parsed: ParsedDocument, ocr: OcrStage, times: StageTimes
    ) -> IngestResult:
        """Store a file's text pages now (status "partial": keyword-searchable) and hand its
        scanned pages to ``ocr``. Its result is final once they are read."""
        name = str(job.path)
        replaced: list[str] = []
        if parsed.chunks:
            doc = parsed.document.model_copy(update={"file": name, "status": "partial"})
            with self._lock, times.stage("store"):
                if self.store.get_document(job.sha) is not None:  # raced with another ingest
                    return self._result(name, "unchanged", self.store.get_document(job.sha))
                replaced = self.store.add_document(parsed.model_copy(update={"document": doc}))
            job.stored, job.replaced = True, bool(replaced)
            for old_id in replaced:
                self._drop_converted(old_id)
        ocr.submit(job)
        logger.info("%s: %d scanned pages go to OCR", name, len(parsed.ocr_pending))
        result = IngestResult(
            file=name,
            status="updated" if replaced else "added",
            doc_id=job.sha,
            pages=parsed.document.pages,
            chunks=len(parsed.chunks),
        )
        result.timings_ms = times.report(1)
        return result

    def _apply_ocr_results(
        self,
        ocr: OcrStage,
        results: list[IngestResult],
        progress: ProgressCallback,
        timeout: float = 0,
    ) -> bool:
        """Forward the OCR stage's progress, then store every partial version, final
        document or failure it has ready (waiting up to ``timeout`` seconds for the first).
        Called between documents only. Returns True when something was written."""
        for _, job, p in ocr.progress_events():
            _for_file(progress, str(job.path), job.index, job.count)(p)
        wrote = False
        event = ocr.next_result(timeout)
        while event is not None:
            wrote |= self._apply_ocr(event, ocr, results)
            event = ocr.next_result(0)
        return wrote

    def _apply_ocr(self, event: OcrEvent, ocr: OcrStage, results: list[IngestResult]) -> bool:
        kind, job, payload = event
        name = str(job.path)
        if kind in ("partial", "done"):
            parsed: ParsedDocument = payload
            if job.source != job.path:
                parsed = _adopted(parsed, job.sha, job.path)
            times = StageTimes()
            with times.stage("store"):
                replaced = self._replace_keeping_vectors(
                    name, parsed, "partial" if kind == "partial" else "indexed"
                )
            job.stored, job.replaced = True, job.replaced or bool(replaced)
            for old_id in replaced:
                self._drop_converted(old_id)
            if kind == "done":
                stored = self.store.get_document(job.sha)
                result = self._result(name, "updated" if job.replaced else "added", stored)
                result.ocr_pages = len(parsed.ocr_pages)
                times.merge(parsed.timings_ms)
                result.timings_ms = _merged(results[job.index].timings_ms, times.ms)
                results[job.index] = result
            return True
        if kind == "failed":
            with self._lock:
                if job.stored:
                    self.store.remove(job.sha)
            self._drop_unstored(job.sha)
            error: FootnoteError = payload
            results[job.index] = self._failed(name, error)
            return job.stored
        ocr.cancelled.add(job.index)  # "cancelled": its partial version stays
        return False

    def _finish_ocr(
        self,
        ocr: OcrStage,
        results: list[IngestResult],
        progress: ProgressCallback,
        run: StageTimes,
    ) -> None:
        """Wait for the OCR stage's last files (cancelled ones end at once), storing their
        results; compact what they wrote."""
        ocr.close()
        wrote = False
        while ocr.active:
            with run.stage("ocr_wait"):  # nothing else left to do meanwhile
                wrote |= self._apply_ocr_results(ocr, results, progress, timeout=0.2)
        ocr.join(timeout=10)
        if wrote:
            self.store.optimize()

    def _replace_keeping_vectors(
        self, name: str, parsed: ParsedDocument, status: DocStatus
    ) -> list[str]:
        """Store ``parsed`` in place of the version of it already stored (same id), with the
        vectors of every passage whose embedded text did not change: a partial document's
        text pages were embedded while OCR read its scanned ones, and are not embedded again.
        Returns the ids of other documents it replaced (an older file at the same path)."""
        doc = parsed.document.model_copy(update={"file": name, "status": status})
        parsed = parsed.model_copy(update={"document": doc})
        with self._lock:
            carried = self._vectors_by_text(doc.doc_id)
            if self.store.get_document(doc.doc_id) is not None:
                self.store.remove(doc.doc_id)
            replaced = self.store.add_document(parsed)
            keep = [
                (c.chunk_id, carried[text])
                for c in parsed.chunks
                if (text := embedding_text(doc.title, c.section, c.text)) in carried
            ]
            if keep:
                ids = [cid for cid, _ in keep]
                self.store.add_vectors(doc.doc_id, ids, np.stack([v for _, v in keep]))
        return replaced

    def _vectors_by_text(self, doc_id: str) -> dict[str, np.ndarray]:
        """A stored document's vectors keyed by the text each was embedded from."""
        ids, vecs = self.store.chunk_vectors(doc_id)
        if not ids:
            return {}
        doc = self.store.get_document(doc_id)
        title = doc.title if doc is not None else ""
        texts = {
            c.chunk_id: embedding_text(title, c.section, c.text)
            for c in self.store.chunks_of(doc_id, charmap=False)
        }
        return {texts[i]: v for i, v in zip(ids, vecs, strict=True) if i in texts}

    # --- documents that are not PDFs: read (and shown) through a converted PDF -------------

    @property
    def converted_dir(self) -> Path:
        """Where the PDFs made from EPUB, DOCX... files are kept (``<dir>/<doc_id>/``)."""
        return converted_dir(self.settings.library)

    def view_file(self, doc: Document) -> Path:
        """The PDF the viewer shows for ``doc``: its own file, or the PDF it was converted
        to (whose pages its citations' rectangles were measured on)."""
        from app.ingest import needs_conversion

        if not needs_conversion(doc.file):
            return Path(doc.file)
        folder = self.converted_dir / doc.doc_id
        found = sorted(folder.glob("*.pdf")) if folder.is_dir() else []
        return found[0] if found else folder / f"{Path(doc.file).stem}.pdf"

    def _converted(
        self, path: Path, sha: str, progress: ProgressCallback, cancel: CancelToken | None
    ) -> Path:
        """``path`` itself for a PDF (or an unknown type, which the PDF reader refuses with
        the right words); else the PDF it converts to, written under ``converted_dir``."""
        from app.ingest import convert_to_pdf, needs_conversion

        if not needs_conversion(path):
            return path
        progress(Progress(Stage.CONVERT, 0, 1, file=str(path)))
        out = self.converted_dir / sha
        if out.is_dir():
            shutil.rmtree(out, ignore_errors=True)  # a conversion an earlier run left
        pdf = convert_to_pdf(path, out, cancel=cancel)
        progress(Progress(Stage.CONVERT, 1, 1, file=str(path)))
        return pdf

    def _drop_converted(self, doc_id: str) -> None:
        if doc_id:
            shutil.rmtree(self.converted_dir / doc_id, ignore_errors=True)

    def _drop_unstored(self, doc_id: str) -> None:
        """A conversion whose document did not make it into the library leaves nothing."""
        if doc_id and self.store.get_document(doc_id) is None:
            self._drop_converted(doc_id)

    @staticmethod
    def _result(name: str, status: Any, doc: Document | None) -> IngestResult:
        return IngestResult(
            file=name,
            status=status,
            doc_id=doc.doc_id if doc else None,
            pages=doc.pages if doc else 0,
            chunks=doc.chunks if doc else 0,
        )

    @staticmethod
    def _failed(name: str, exc: FootnoteError) -> IngestResult:
        logger.info("cannot ingest %s: %s", name, exc.code)
        return IngestResult(file=name, status="failed", error=exc.user_text(), error_code=exc.code)

    # --- embed ---------------------------------------------------------------------------------

    def embed_pending(
        self, *, on_progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> int:
        """Embed every chunk still lacking a vector; returns how many were embedded.

        Works in batches of EMBED_BATCH, checking ``cancel`` between them; a cancelled
        (or killed) run keeps what it wrote and the next call resumes where it stopped.
        """
        with EmbedPool(self.embedder, EMBED_BATCH) as pool:
            return self._embed_pending(on_progress or no_progress, cancel, StageTimes(), {}, pool)

    def _embed_pending(
        self,
        progress: ProgressCallback,
        cancel: CancelToken | None,
        run: StageTimes,
        per_doc: dict[str, StageTimes],
        pool: EmbedPool,
        ocr: tuple[OcrStage | None, list[IngestResult]] | None = None,
    ) -> int:
        """``embed_pending``, timing the model's load in ``run`` and each document's stages
        (``embed_read``, ``embedding``, ``commit``) in ``per_doc[doc_id]``.

        Batches go through ``pool`` (one per core, side by side), in document order; vectors
        the pool embedded ahead, while files were parsed, are taken instead of embedded again.
        Vectors are committed in groups (:class:`_GroupCommit`): many documents' vectors in one
        write and one status update, every ``commit_every()`` seconds or ``COMMIT_CHUNKS``
        vectors, and whatever was embedded when the run is cancelled or fails. A document
        becomes "ready" only in the commit that holds its last vectors.

        With an OCR stage (``ocr``: the stage and the run's results) the text pages of files
        being read by OCR are embedded meanwhile; when OCR has finished something, no new
        batch starts: the ones in flight are committed, what OCR finished is stored (keeping
        the vectors of unchanged passages) and its new passages join the work, until OCR is
        through."""
        stage, results = ocr if ocr is not None else (None, [])
        pool.stop_ahead()  # from here on all streams embed in order
        pending = self.store.pending_embeddings()
        reading = stage is not None and stage.active
        if (
            not pending
            and not reading
            and (self.store.count_chunks() == 0 or self.store.meta.embedder == self.embedder.name)
        ):
            # A library embedded before sentence vectors were stored catches up here, once
            # (search works meanwhile, scoring those passages as a whole only).
            self.embed_sentences(on_progress=progress, cancel=cancel)
            return 0
        with run.stage("model_load"):
            self._ensure_embedder()  # a different embedder than last time re-queues all
        group = _GroupCommit(self.store, self._lock, per_doc)
        done = embedded = 0
        try:
            while True:
                group.flush()  # nothing of a document is in flight when OCR replaces it
                if stage is not None:
                    self._apply_ocr_results(stage, results, progress)
                work = self._embed_work(per_doc, stage.reading if stage is not None else set())
                if not work:
                    if stage is None or not stage.active:
                        break
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    with run.stage("ocr_wait"):  # nothing left to embed until OCR reads more
                        self._apply_ocr_results(stage, results, progress, timeout=0.2)
                    continue
                n, done, whole = self._embed_round(
                    work, pool, group, per_doc, cancel, stage, progress, done
                )
                embedded += n
                if whole and stage is None:
                    break
        except BaseException:
            group.flush_quietly()  # what was embedded is kept; the next run does the rest
            raise
        group.flush()
        self.store.optimize()
        self.embed_sentences(on_progress=progress, cancel=cancel)
        return embedded

    def _embed_work(
        self, per_doc: dict[str, StageTimes], reading: set[str]
    ) -> list[tuple[Document, list[Chunk]]]:
        """Documents with passages to embed, and those passages: every "indexed" document (one
        whose passages all have vectors is still listed, to be marked ready), and the partial
        versions of documents OCR is reading (their text pages) that lack some vector."""
        docs = self.store.pending_embeddings()
        if reading:
            partial = [self.store.get_document(doc_id) for doc_id in sorted(reading)]
            docs += [d for d in partial if d is not None and d.status == "partial"]
        work: list[tuple[Document, list[Chunk]]] = []
        for doc in docs:
            times = per_doc.setdefault(doc.doc_id, StageTimes())
            with times.stage("embed_read"):  # text only: the character maps are not needed
                have = self.store.embedded_chunk_ids(doc.doc_id)
                chunks = self.store.chunks_of(doc.doc_id, charmap=False)
            todo = [c for c in chunks if c.chunk_id not in have]
            if todo or doc.status == "indexed":
                work.append((doc, todo))
        return work

    def _embed_round(
        self,
        work: list[tuple[Document, list[Chunk]]],
        pool: EmbedPool,
        group: _GroupCommit,
        per_doc: dict[str, StageTimes],
        cancel: CancelToken | None,
        stage: OcrStage | None,
        progress: ProgressCallback,
        done: int,
    ) -> tuple[int, int, bool]:
        """Embed the passages of ``work`` into ``group``, each document's longest first (so a
        batch pads to texts of about its own length). Returns (passages embedded in this run,
        ahead or now; passages done in all; whether the round went through: False when it
        stopped early for OCR's results)."""
        plans = [
            _Plan.make(self.store, pool, _for_file(progress, doc.file, i, len(work)), doc, chunks)
            for i, (doc, chunks) in enumerate(work)
        ]
        total = done + sum(len(p.chunks) for p in plans)
        done += sum(p.done for p in plans)
        progress(Progress(Stage.EMBED, done, total))
        stopped = False

        def batches() -> Iterator[tuple[tuple[_Plan, list[str] | None], list[str] | None]]:
            nonlocal stopped
            for plan in plans:
                for batch in _batches(list(plan.ready), EMBED_BATCH):  # embedded ahead
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    yield (plan, list(batch)), None
                for batch in _batches(plan.todo, EMBED_BATCH):
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    if stage is not None and stage.has_results():
                        stopped = True  # commit what is in flight, store OCR's, plan again
                        return
                    yield (plan, list(batch)), [plan.texts[cid] for cid in batch]
                yield (plan, None), None  # the document is through

        embedded = 0
        clock = time.perf_counter()
        for (plan, ids), vecs in pool.map(batches()):
            doc = plan.doc
            times = per_doc[doc.doc_id]
            now = time.perf_counter()
            times.add("embedding", (now - clock) * 1000)  # waiting for the model, per document
            if ids is None:
                if not plan.todo and not plan.ready:
                    plan.report(Progress(Stage.EMBED, plan.done, len(plan.chunks)))
                group.finished(doc.doc_id)
                group.maybe_flush()
                clock = time.perf_counter()
                continue
            if vecs is None:  # embedded ahead, while files were parsed
                vecs = np.stack([plan.ready[cid] for cid in ids])
            embedded += len(ids)
            if doc.doc_id not in group.gone:  # else removed meanwhile
                group.add(doc.doc_id, ids, vecs)
            done += len(ids)
            plan.done += len(ids)
            plan.report(Progress(Stage.EMBED, plan.done, len(plan.chunks)))
            progress(Progress(Stage.EMBED, done, total))
            if stage is not None:  # OCR's progress between batches; its results wait
                for _, job, p in stage.progress_events():
                    _for_file(progress, str(job.path), job.index, job.count)(p)
            group.maybe_flush()
            clock = time.perf_counter()
        return embedded, done, not stopped

    def missing_sentences(self) -> list[Document]:
        """Embedded documents whose sentence vectors are not (all) stored: embedded before
        Footnote stored them. Search works without them (a passage is then scored as a
        whole only); :meth:`embed_sentences` adds them."""
        if not self.settings.sentence_vectors:
            return []
        have = Counter(self.store.doc_id_column("sentences"))
        return [
            d for d in self.store.documents() if d.status == "ready" and have[d.doc_id] < d.chunks
        ]

    def embed_sentences(
        self, *, on_progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> int:
        """Embed the sentences of embedded documents that lack them (a library made before
        sentence vectors were stored); returns how many chunks were done. Resumable, like
        :meth:`embed_pending`."""
        progress = on_progress or no_progress
        todo = self.missing_sentences()
        if not todo:
            return 0
        emb = self._ensure_embedder()
        work = []
        for doc in todo:
            chunks = self.store.chunks_of(doc.doc_id, charmap=False)
            have = self.store.sentence_chunk_ids([c.chunk_id for c in chunks])
            work.append((doc, [c for c in chunks if c.chunk_id not in have]))
        total = sum(len(chunks) for _, chunks in work)
        done = 0
        progress(Progress(Stage.EMBED, 0, total))
        for doc, chunks in work:
            seen: dict[str, np.ndarray] = {}
            for batch in _batches(chunks, EMBED_BATCH):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                rows = sentence_rows(emb, batch, seen)
                with self._lock:
                    if self.store.get_document(doc.doc_id) is None:  # removed meanwhile
                        break
                    self.store.add_sentence_vectors(doc.doc_id, rows)
                done += len(batch)
                progress(Progress(Stage.EMBED, done, total))
            self.store.maybe_optimize()
        self.store.optimize()
        return done

    def stored_sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[int, np.ndarray]:
        """Sentence text key (:func:`sentence_key`) -> stored vector, for the sentences of
        ``chunk_ids`` that have them."""
        out: dict[int, np.ndarray] = {}
        for keys, vecs in self.store.stored_sentences(chunk_ids).values():
            for k, v in zip(keys, vecs, strict=False):
                out[int(k)] = v
        return out

    # --- read / remove ---------------------------------------------------------------------------

    def documents(self) -> list[Document]:
        return self.store.documents()

    def get_document(self, doc_id: str) -> Document | None:
        return self.store.get_document(doc_id)

    def chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return self.store.get_chunks(chunk_ids)

    def chunks_of(self, doc_id: str, *, charmap: bool = True) -> list[Chunk]:
        return self.store.chunks_of(doc_id, charmap=charmap)

    def chunk_vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        return self.store.chunk_vectors(doc_id)

    def term_counts(self, words: Iterable[str]) -> tuple[dict[str, int], int]:
        """How many chunks of the whole library contain each word (the full-text index's
        stemmed match, capped), and how many chunks there are: rarity and absence.

        From the in-memory term index once :meth:`count_words` built it (microseconds a word),
        else one full-text query a word (a few milliseconds each); both count alike."""
        terms = self._terms
        if terms is not None:
            terms.refresh()
            return terms.counts(words)
        from app.retrieval.terms import document_frequencies

        return document_frequencies(self.store, words), self.store.count_chunks()

    def common_words(self, limit: int) -> list[str]:
        """Up to ``limit`` words of the library, in the most chunks first; none before
        :meth:`count_words` counted them."""
        terms = self._terms
        if terms is None:
            return []
        terms.refresh()
        return terms.words(limit)

    def remove(self, doc_id: str) -> bool:
        """Remove a document, then compact (old versions would keep its bytes on disk)."""
        with self._lock:
            if self._terms is not None:
                self._terms.forget(doc_id)
            removed = self.store.remove(doc_id)
            if removed:
                self.store.optimize()
                self._drop_converted(doc_id)
            return removed

    def search(
        self, query: str, *, top_k: int | None = None, doc_ids: Sequence[str] | None = None
    ) -> tuple[list[SearchHit], dict[str, float]]:
        """Hybrid search; returns hits and timings_ms {"embed", "search", "total"}."""
        t0 = time.perf_counter()
        k = top_k or self.settings.top_k
        if not query.strip() or self.store.count_chunks() == 0:
            return [], {"embed": 0.0, "search": 0.0, "total": ms_since(t0, 2)}
        retriever = self._get_retriever()
        ids = list(doc_ids) if doc_ids is not None else None
        hits, parts = retriever.search_with_timings(query, top_k=k, doc_ids=ids)
        total = ms_since(t0, 2)
        embed = parts.get("embed", 0.0)
        return hits, {"embed": embed, "search": max(total - embed, 0.0), "total": total}

    def _get_retriever(self) -> HybridRetriever:
        with self._lock:
            if self._retriever is None:
                from app.retrieval import HybridRetriever

                self._retriever = HybridRetriever(self.store, self._ensure_embedder())
            return self._retriever

    def warm_up(self) -> None:
        """Load the embedder and retriever now (e.g. before a batch of searches), and run one
        search, so the first question does not pay for what a search imports lazily
        (LanceDB's full-text path imports its remote-table module on first use)."""
        self._get_retriever()
        if self.store.count_chunks():
            self.search("warm up", top_k=1)
        self.embedder.embed(["warm up"])

    def count_words(self) -> None:
        """Count the library's words once, in memory, and keep the counts in step from now
        on: the support check's rarity and absence lookups then cost microseconds instead of
        a full-text query per word. For long-running front ends (the desktop): it reads
        every chunk once (0.2 s for 500 chunks, ~11 s for 100,000)."""
        with self._lock:
            if self._terms is None:
                from app.retrieval.terms import TermIndex

                self._terms = TermIndex(self.store)
            terms = self._terms
        terms.refresh()


def _load_quietly(embedder: Embedder) -> None:
    """Load ``embedder``'s model (``dim`` does); a failure is left for its first real use."""
    try:
        _ = embedder.dim
    except Exception:  # reported where the model is used (embed_error)
        logger.debug("loading the embedding model ahead of use failed", exc_info=True)


def _parser(settings: Settings) -> Any:
    """The parse worker (``app.ingest.worker``) when parsing is isolated, else None."""
    from app.ingest.worker import ParseWorker

    if settings.isolate_parsing:
        return ParseWorker()
    return None


def _adopted(parsed: ParsedDocument, doc_id: str, source: Path) -> ParsedDocument:
    """A document parsed from a converted PDF, given the id of the file the user added (its
    content hash: "unchanged" and "moved" are judged on that file) and that file's size and
    time. The chunk ids follow the id; their text and rectangles are the PDF's."""
    st = source.stat()
    document = parsed.document.model_copy(
        update={"doc_id": doc_id, "file": str(source), "size": st.st_size, "mtime": st.st_mtime}
    )
    chunks = [
        c.model_copy(update={"doc_id": doc_id, "chunk_id": Chunk.make_id(doc_id, c.ordinal)})
        for c in parsed.chunks
    ]
    return parsed.model_copy(update={"document": document, "chunks": chunks})


COMMIT_CHUNKS = 1024  # vectors per group commit at most (about 1.5 MB)
COMMIT_EVERY = 5.0  # seconds between group commits at most, so a killed run keeps its work


def commit_every() -> float:
    """``$FOOTNOTE_COMMIT_EVERY`` (tests: commit after every batch) or ``COMMIT_EVERY``."""
    return float(os.environ.get("FOOTNOTE_COMMIT_EVERY", COMMIT_EVERY))


class _Plan:
    """One document's passages in an embedding round: those embedded ahead (``ready``) and
    those still to embed (``todo``, longest first)."""

    def __init__(
        self,
        doc: Document,
        chunks: list[Chunk],
        texts: dict[str, str],
        ready: dict[str, np.ndarray],
        report: ProgressCallback,
    ) -> None:
        self.doc, self.chunks, self.texts, self.ready, self.report = (
            doc,
            chunks,
            texts,
            ready,
            report,
        )
        self.todo = sorted((c for c in texts if c not in ready), key=lambda c: -len(texts[c]))
        self.done = len(chunks) - len(texts)  # embedded by another process meanwhile

    @classmethod
    def make(
        cls,
        store: Store,
        pool: EmbedPool,
        report: ProgressCallback,
        doc: Document,
        chunks: list[Chunk],
    ) -> _Plan:
        # Another process (a second `footnote ingest`) may have embedded some meanwhile: skip
        # them (the commit skips them too, under the writer lock).
        have = store.vector_ids([c.chunk_id for c in chunks]) if chunks else set()
        texts = {
            c.chunk_id: embedding_text(doc.title, c.section, c.text)
            for c in chunks
            if c.chunk_id not in have
        }
        ready = {cid: v for cid, t in texts.items() if (v := pool.take(t)) is not None}
        return cls(doc, chunks, texts, ready, report)


class _GroupCommit:
    """Vectors waiting to be written, and documents whose vectors are all embedded.

    ``flush`` writes every waiting vector in one ``add_vector_groups`` and then marks the
    finished documents ready in one update: a document is ready only once its last vector is
    in the library, and a crash at any point leaves it "indexed" with the vectors written so
    far (the next run embeds the rest). The write time is shared out to the documents in the
    group by their number of vectors (their ``commit`` stage)."""

    def __init__(self, store: Store, lock: threading.RLock, per_doc: dict[str, StageTimes]):
        self.store, self.lock, self.per_doc = store, lock, per_doc
        self.waiting: list[tuple[str, list[str], np.ndarray]] = []
        self.size = 0
        self.done: list[str] = []  # embedded whole, to be marked ready by the next flush
        self.gone: set[str] = set()  # removed from the library while being embedded
        self.written = 0
        self._last = time.perf_counter()

    def add(self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
        self.waiting.append((doc_id, list(chunk_ids), vectors))
        self.size += len(chunk_ids)

    def finished(self, doc_id: str) -> None:
        self.done.append(doc_id)

    def maybe_flush(self) -> None:
        if self.size >= COMMIT_CHUNKS or time.perf_counter() - self._last >= commit_every():
            self.flush()

    def flush(self) -> None:
        waiting, done = self.waiting, self.done
        self.waiting, self.done, self.size = [], [], 0
        self._last = time.perf_counter()
        if not waiting and not done:
            return
        t0 = time.perf_counter()
        with self.lock:
            if waiting:
                present = self.store.existing_documents([d for d, _, _ in waiting])
                self.gone |= {d for d, _, _ in waiting} - present
                self.written += self.store.add_vector_groups(waiting)
            self.store.mark_ready_many([d for d in done if d not in self.gone])
        shares: dict[str, int] = {d: 0 for d in done}
        for doc_id, ids, _ in waiting:
            shares[doc_id] = shares.get(doc_id, 0) + len(ids)
        ms = (time.perf_counter() - t0) * 1000
        weight = sum(shares.values()) or len(shares)
        for doc_id, n in shares.items():
            times = self.per_doc.setdefault(doc_id, StageTimes())
            times.add("commit", ms * (n or 1) / weight)
        # Many small documents: compact every so often, or each lookup slows down.
        self.store.maybe_optimize()
        self._last = time.perf_counter()

    def flush_quietly(self) -> None:
        try:
            self.flush()
        except Exception:  # the run is failing already; its own error is the one to report
            logger.exception("could not commit the vectors embedded before the failure")


def _merged(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    times = StageTimes(a)
    times.merge(b)
    return times.report(1)


def _run_profile(
    outcome: IngestOutcome,
    run: StageTimes,
    store_before: dict[str, float],
    store_after: dict[str, float],
) -> dict[str, float]:
    """The run's stage profile: every file's stages summed, plus the run's own and what the
    store spent merging the BM25 index and compacting during the run."""
    total = StageTimes(run.ms)
    for r in outcome.results:
        total.merge(r.timings_ms)
    for stage, ms in store_after.items():
        total.add(stage, ms - store_before.get(stage, 0.0))
    return total.report(1)


def _for_file(progress: ProgressCallback, file: str, index: int, count: int) -> ProgressCallback:
    """A callback that reports ``p`` as progress of file ``index`` of ``count``."""

    def report(p: Progress) -> None:
        progress(
            FileProgress(
                p.stage, p.done, p.total, file=file, message=p.message, index=index, count=count
            )
        )

    return report


def sentence_rows(
    emb: Embedder, chunks: Sequence[Chunk], seen: dict[str, np.ndarray]
) -> list[tuple[str, list[int], np.ndarray]]:
    """(chunk id, sentence keys, sentence vectors) of ``chunks``: each sentence as the answer
    step scores it (``prompt.sentence_texts``), embedded once per document (``seen``: the
    sentences two overlapping chunks share)."""
    from app.generation.prompt import sentence_texts

    per_chunk = [sentence_texts(c.text) for c in chunks]
    todo = list(dict.fromkeys(t for ts in per_chunk for t in ts if t not in seen))
    if todo:
        for t, v in zip(todo, emb.embed(todo), strict=True):
            seen[t] = v
    dim = emb.dim
    return [
        (
            c.chunk_id,
            [sentence_key(t) for t in ts],
            np.stack([seen[t] for t in ts]) if ts else np.zeros((0, dim), dtype=np.float32),
        )
        for c, ts in zip(chunks, per_chunk, strict=True)
    ]


def _batches(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
