"""The library use cases the CLI and the desktop app share: ingest, embed, list, remove, search.

Ingestion runs in two phases so a document is useful as early as possible: first it
is parsed, chunked and written with its keyword index ("indexed": BM25-searchable),
then its chunks are embedded ("ready"). Each file succeeds or fails on its own; a
cancelled or killed run leaves the library consistent and the next run finishes it.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from app.core.models import Chunk, Document, IngestOutcome, IngestResult, SearchHit
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
from app.core.timing import ms_since
from app.services.partial import PartialWriter
from app.store import Store

if TYPE_CHECKING:
    from app.core.models import ParsedDocument
    from app.ingest import ParseOptions
    from app.retrieval import HybridRetriever
    from app.retrieval.terms import TermIndex

logger = logging.getLogger(__name__)

EMBED_BATCH = 32  # chunks per embedder call; also the cancellation granularity


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
        outcome = IngestOutcome(results=self._index_files(paths, progress, cancel))
        outcome.index_ms = (time.perf_counter() - t0) * 1000
        outcome.cancelled = cancel is not None and cancel.cancelled
        if outcome.cancelled:
            return outcome
        progress(Progress(Stage.INDEXED, 1, 1, message="indexed"))
        if not embed:
            return outcome
        t1 = time.perf_counter()
        try:
            outcome.embedded_chunks = self.embed_pending(on_progress=progress, cancel=cancel)
        except Cancelled:
            logger.info("embedding cancelled; documents stay keyword-searchable")
            outcome.cancelled = True
        except FootnoteError as exc:
            outcome.embed_error = exc.user_text()
        except Exception as exc:  # documents stay keyword-searchable (logged)
            logger.exception("embedding failed")
            outcome.embed_error = f"{type(exc).__name__}: {exc}"
        outcome.embed_ms = (time.perf_counter() - t1) * 1000
        return outcome

    def _index_files(
        self,
        paths: Sequence[Path | str],
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> list[IngestResult]:
        """Phase 1: parse and store each file with its keyword index; results in order."""
        from app.ingest import file_sha, parse_pdf

        own = self.converted_dir  # the PDFs made from this library's EPUBs etc. are no input
        files = [p for p in expand_paths(paths) if not p.is_relative_to(own)]
        results: list[IngestResult] = []
        wrote = False
        parser = _parser(self.settings)  # a child process with a memory ceiling, or None
        if parser is not None:
            parse_pdf = parser.parse
        try:
            for i, path in enumerate(files):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                progress(Progress(Stage.FILE, i, len(files), file=str(path)))
                report = _for_file(progress, str(path), i, len(files))
                result = self._ingest_one(path, file_sha, parse_pdf, report, cancel)
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
            progress(Progress(Stage.FILE, len(files), len(files)))
        except Cancelled:
            logger.info("ingest cancelled after %d of %d files", len(results), len(files))
        finally:
            if parser is not None:
                parser.close()
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
    ) -> IngestResult:
        name = str(path)
        partial = PartialWriter(self.store, self._lock, name)
        sha = ""
        try:
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
            parsed: ParsedDocument = parse_pdf(
                source,
                on_progress=progress,
                cancel=cancel,
                params=options.params,
                ocr=options.ocr,
                on_partial=on_partial,
            )
            if source != path:
                parsed = _adopted(parsed, sha, path)
            doc = parsed.document.model_copy(update={"file": name, "status": "indexed"})
            parsed = parsed.model_copy(update={"document": doc})
            with self._lock:
                partial.discard()
                if self.store.get_document(doc.doc_id) is not None:  # raced with another ingest
                    return self._result(name, "unchanged", self.store.get_document(doc.doc_id))
                progress(Progress(Stage.INDEX, 0, 1, file=name))
                try:
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
        progress = on_progress or no_progress
        pending = self.store.pending_embeddings()
        if not pending and (
            self.store.count_chunks() == 0 or self.store.meta.embedder == self.embedder.name
        ):
            # A library embedded before sentence vectors were stored catches up here, once
            # (search works meanwhile, scoring those passages as a whole only).
            self.embed_sentences(on_progress=progress, cancel=cancel)
            return 0
        emb = self._ensure_embedder()  # a different embedder than last time re-queues all
        pending = self.store.pending_embeddings()  # a new embedder may have reset some
        work: list[tuple[Document, list[Chunk]]] = []
        for doc in pending:
            have = self.store.embedded_chunk_ids(doc.doc_id)
            work.append(
                (doc, [c for c in self.store.chunks_of(doc.doc_id) if c.chunk_id not in have])
            )
        total = sum(len(chunks) for _, chunks in work)
        done = embedded = 0
        with_sentences = self.settings.sentence_vectors
        progress(Progress(Stage.EMBED, 0, total))
        for index, (doc, chunks) in enumerate(work):
            report = _for_file(progress, doc.file, index, len(work))
            doc_done = 0
            seen: dict[str, np.ndarray] = {}  # a sentence in two overlapping chunks: once
            for batch in _batches(chunks, EMBED_BATCH):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                done += len(batch)
                doc_done += len(batch)
                # Another process (a second `footnote ingest`) may have embedded some
                # meanwhile: skip them (add_vectors also skips them, under the lock).
                have = self.store.vector_ids([c.chunk_id for c in batch])
                batch = [c for c in batch if c.chunk_id not in have]
                if batch:
                    texts = [embedding_text(doc.title, c.section, c.text) for c in batch]
                    vecs = emb.embed(texts)
                    rows = sentence_rows(emb, batch, seen) if with_sentences else []
                    with self._lock:
                        if self.store.get_document(doc.doc_id) is None:  # removed meanwhile
                            break
                        # Sentences first: a document counts as embedded once its chunk
                        # vectors are all there, and its sentences must be there by then.
                        self.store.add_sentence_vectors(doc.doc_id, rows)
                        self.store.add_vectors(doc.doc_id, [c.chunk_id for c in batch], vecs)
                    embedded += len(batch)
                report(Progress(Stage.EMBED, doc_done, len(chunks)))
                progress(Progress(Stage.EMBED, done, total))
            else:
                with self._lock:
                    if self.store.get_document(doc.doc_id) is not None:
                        self.store.mark_ready(doc.doc_id)
                # Many small documents: compact every so often, or each lookup slows down.
                self.store.maybe_optimize()
        self.store.optimize()
        self.embed_sentences(on_progress=progress, cancel=cancel)
        return embedded

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
        """Load the embedder and retriever now (e.g. before a batch of searches)."""
        self._get_retriever()
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


def _batches(items: Sequence[Chunk], size: int) -> Iterator[Sequence[Chunk]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
