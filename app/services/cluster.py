"""Bulk ingestion on a Ray cluster: parse, chunk and embed on the workers, commit here.

Why this split: parsing and embedding are the expensive, independent part of an import
(seconds per document) and spread over any number of workers; committing is cheap and
must follow the library's all-or-nothing rule and its one-writer lease, so it stays in
this process: chunks, then vectors, then the ``documents`` rows (the commit marker). The
driver commits the documents that arrived together as one group (``Store.add_documents``:
one write per table, one marker for the group; ``GROUP_DOCS`` documents or ``GROUP_SECONDS``
at most), so many workers are not held to one commit per document; a group that cannot be
written whole is written one document at a time, so a bad document fails alone. A worker
that dies, or a Ctrl-C, therefore never leaves a half-visible document; the next run redoes
what was not committed.

Each worker is a Ray actor that loads the embedder once and then serves many files. The
PDF's bytes travel through Ray's object store, so workers on other machines need no
shared file system. Ray is optional (``pip install 'footnote[cluster]'``); the desktop
app never imports this module.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.core.errors import Cancelled, FootnoteError, IngestError
from app.core.models import IngestResult, ParsedDocument
from app.core.progress import CancelToken, Progress, ProgressCallback, Stage, no_progress

if TYPE_CHECKING:
    from app.ingest import ParseOptions

logger = logging.getLogger(__name__)

INSTALL_HINT = "Install the cluster extra: pip install 'footnote[cluster]' (it adds Ray)."
POLL_S = 0.2  # how often the driver checks for Ctrl-C while waiting on workers
GROUP_DOCS = 32  # documents per group commit at most
GROUP_SECONDS = 2.0  # ... or committed once the first of them has waited this long


class RayMissingError(FootnoteError):
    code = "ray_missing"


def import_ray() -> Any:
    """Ray, or a clear message saying how to get it."""
    try:
        import ray
    except ImportError as exc:
        raise RayMissingError(
            "--ray needs Ray, which is not installed.", hint=INSTALL_HINT
        ) from exc
    return ray


@dataclass
class Prepared:
    """What a worker sends back for one file: a parsed, embedded document or a failure."""

    index: int
    parsed: ParsedDocument | None = None
    vectors: np.ndarray | None = None
    embedder: tuple[str, int] | None = None  # (name, dim) of the embedder that made vectors
    error: str | None = None
    error_code: str | None = None
    seconds: float = 0.0


class IngestWorker:
    """A Ray actor body: owns one embedder, loaded on the first file, kept for all others.

    ``options`` are the driver library's parse options (``Library.parse_options``), so a
    file reads here exactly as a local ingest reads it (OCR off, OCR languages, ...). A
    scan's OCR runs in at most ``threads`` processes, the CPUs Ray reserved for this actor
    (``OcrOptions.max_workers``; by default OCR would take up to 4 per actor, and N actors
    would start 4N on N cores).
    """

    def __init__(self, embedder_path: str | None, threads: int, options: ParseOptions) -> None:
        from app.core.logs import setup_logging

        setup_logging(console=False)
        self._embedder_path = embedder_path
        self._threads = threads
        self.options = replace(options, ocr=replace(options.ocr, max_workers=max(1, threads)))
        self._embedder: Any = None
        self.load_seconds = 0.0

    def _embed(self, texts: list[str]) -> tuple[np.ndarray, tuple[str, int]]:
        if self._embedder is None:
            from app.retrieval import SentenceTransformerEmbedder

            t0 = time.perf_counter()
            self._embedder = SentenceTransformerEmbedder(self._embedder_path, threads=self._threads)
            self._embedder.embed(["warm up"])  # loads torch and the weights, once per worker
            self.load_seconds = time.perf_counter() - t0
        emb = self._embedder
        vecs = emb.embed(texts) if texts else np.zeros((0, emb.dim), dtype=np.float32)
        return np.asarray(vecs, dtype=np.float32), (emb.name, emb.dim)

    def prepare(self, index: int, name: str, data: bytes) -> Prepared:
        from app.ingest import parse_pdf
        from app.services.library import embedding_text

        t0 = time.perf_counter()
        try:
            with tempfile.TemporaryDirectory(prefix="footnote-") as tmp:
                path = Path(tmp) / name  # same base name: error messages name the user's file
                path.write_bytes(data)
                parsed = parse_pdf(path, params=self.options.params, ocr=self.options.ocr)
            doc = parsed.document
            texts = [embedding_text(doc.title, c.section, c.text) for c in parsed.chunks]
            loaded = self._embedder is not None
            vectors, embedder = self._embed(texts)
            seconds = time.perf_counter() - t0 - (0.0 if loaded else self.load_seconds)
            return Prepared(index, parsed, vectors, embedder, seconds=seconds)
        except IngestError as exc:
            return Prepared(index, error=exc.user_text(), error_code=exc.code)
        except FootnoteError as exc:
            return Prepared(index, error=exc.user_text(), error_code=exc.code)
        except Exception as exc:
            logger.exception("unexpected error preparing %s", name)
            return Prepared(
                index,
                error=f"Unexpected error while adding {name}: {exc}",
                error_code="internal_error",
            )


def _repo_root() -> str:
    """The folder holding the ``app`` package, so workers of a local cluster import this code."""
    import app

    return str(Path(app.__file__).resolve().parent.parent)


def start_ray(address: str | None, workers: int | None) -> tuple[Any, bool]:
    """Connect to ``address`` (``auto``, ``ray://host:port``) or start a local cluster.

    Returns (ray, started): ``started`` means we own the local cluster and shut it down.
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.WARNING,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address:
        ray.init(address=address, **kwargs)
        return ray, True
    ray.init(
        num_cpus=workers or os.cpu_count() or 1,
        # A cluster of this machine only: its processes talk over loopback, never through a
        # network interface (Ray would otherwise pick the address of the default route).
        _node_ip_address="127.0.0.1",
        runtime_env={
            "env_vars": {
                "PYTHONPATH": _repo_root(),
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1",
            }
        },
        **kwargs,
    )
    return ray, True


class RayIngest:
    """One bulk import on Ray into a Library (the driver side)."""

    def __init__(
        self,
        library: Any,
        *,
        address: str | None = None,
        workers: int | None = None,
        threads_per_worker: int = 1,
    ) -> None:
        self.library = library
        self.address = address
        self.workers = workers
        self.threads_per_worker = threads_per_worker
        self.stats: dict[str, float] = {}

    def run(
        self,
        paths: Sequence[Path | str],
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[IngestResult]:
        """Ingest ``paths``; one result per file handled, in order (on cancel: those done)."""
        from app.services.library import expand_paths

        progress = on_progress or no_progress
        files = expand_paths(paths)
        results: dict[int, IngestResult] = {}
        store = self.library.store
        # The writer lock (a lease on object storage) for the whole run: a second writer is
        # refused before any work is spread over the cluster.
        with store.lock.hold():
            todo = self._skip_unchanged(files, results)
            if todo:
                ray, started = start_ray(self.address, self.workers)
                try:
                    self._run_on_ray(ray, files, todo, results, progress, cancel)
                finally:
                    if started:
                        ray.shutdown()
            progress(Progress(Stage.FILE, len(results), len(files)))
            if any(r.status in ("added", "updated") for r in results.values()):
                store.optimize()
        return [results[i] for i in sorted(results)]

    # --- driver ---------------------------------------------------------------------------

    def worker_args(self) -> tuple[str | None, int, ParseOptions]:
        """What each ``IngestWorker`` is built with (pickled to the cluster): the embedder,
        its threads, and the parse options the local ingest would use under these settings."""
        settings = self.library.settings
        embedder = str(settings.embedder) if settings.embedder else None
        return embedder, self.threads_per_worker, self.library.parse_options

    def _skip_unchanged(self, files: list[Path], results: dict[int, IngestResult]) -> list[int]:
        """Files whose content is already in the library need no worker at all."""
        from app.ingest import file_sha

        store = self.library.store
        todo = []
        for i, path in enumerate(files):
            try:
                known = store.get_document(file_sha(path))
            except IngestError as exc:
                results[i] = _failed(str(path), exc.user_text(), exc.code)
                continue
            if known is not None and known.status == "ready":
                results[i] = _result(
                    str(path), "unchanged", known.doc_id, known.pages, known.chunks
                )
            else:
                todo.append(i)
        return todo

    def _run_on_ray(
        self,
        ray: Any,
        files: list[Path],
        todo: list[int],
        results: dict[int, IngestResult],
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> None:
        n_workers = max(
            1, min(self.workers or int(ray.cluster_resources().get("CPU", 1)), len(todo))
        )
        actor_cls = ray.remote(num_cpus=self.threads_per_worker)(IngestWorker)
        args = self.worker_args()
        actors = [actor_cls.remote(*args) for _ in range(n_workers)]
        queue = list(todo)
        in_flight: dict[Any, tuple[int, Any]] = {}  # ref -> (file index, actor)
        idle = list(actors)
        t0 = time.perf_counter()
        group = _Group(self, files, results, progress)
        worker_seconds = 0.0  # time the workers spent parsing + embedding (after start-up)
        try:
            while queue or in_flight:
                while queue and idle:
                    i = queue.pop(0)
                    actor = idle.pop()
                    data = files[i].read_bytes()  # one file per worker in flight: bounded memory
                    in_flight[actor.prepare.remote(i, files[i].name, data)] = (i, actor)
                if cancel is not None and cancel.cancelled:
                    raise Cancelled()
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=POLL_S)
                for ref in ready:
                    i, actor = in_flight.pop(ref)
                    try:
                        prepared: Prepared = ray.get(ref)
                    except Exception as exc:  # noqa: BLE001 - a dead worker fails its file only
                        logger.warning("worker failed on %s: %s", files[i], exc)
                        results[i] = _failed(
                            str(files[i]), f"A cluster worker failed: {exc}", "worker_failed"
                        )
                        actor = actor_cls.remote(*args)
                        progress(Progress(Stage.FILE, len(results), len(files), file=str(files[i])))
                    else:
                        worker_seconds += prepared.seconds
                        group.add(i, prepared)
                    idle.append(actor)
                if group.due() or not (queue or in_flight):
                    group.commit()
        except Cancelled:
            logger.info("ray ingest cancelled with %d files in flight", len(in_flight))
            for ref in in_flight:
                ray.cancel(ref, force=True)
        finally:
            group.commit()  # what the workers finished is kept, whatever stopped the run
            for actor in actors + idle:
                ray.kill(actor, no_restart=True)
        seconds = time.perf_counter() - t0
        self.stats = {
            "workers": n_workers,
            "pages": group.pages,
            "seconds": round(seconds, 3),
            "worker_seconds": round(worker_seconds, 3),
            "commit_seconds": round(group.seconds, 3),
            "commits": group.commits,
        }

    def _commit_group(
        self, group: list[tuple[int, Prepared]], files: list[Path]
    ) -> dict[int, IngestResult]:
        """Write the prepared documents of ``group`` in one commit (under the writer lock /
        lease); a group that cannot be written whole is written one document at a time, so
        a bad document fails alone and none is lost. Results by file index."""
        out: dict[int, IngestResult] = {}
        ok: list[tuple[int, Prepared]] = []
        for i, prepared in group:
            if prepared.parsed is None:
                out[i] = _failed(
                    str(files[i]), prepared.error or "Unknown error.", prepared.error_code
                )
            else:
                ok.append((i, prepared))
        if not ok:
            return out
        store = self.library.store
        items = []
        for i, prepared in ok:
            assert prepared.parsed is not None
            doc = prepared.parsed.document.model_copy(update={"file": str(files[i])})
            items.append((prepared.parsed.model_copy(update={"document": doc}), prepared.vectors))
        try:
            with store.lock.hold():
                for embedder in {p.embedder for _, p in ok if p.embedder is not None}:
                    store.set_embedder(*embedder)
                # indexed earlier without vectors: replaced whole, as one by one
                for doc_id in store.existing_documents([p.document.doc_id for p, _ in items]):
                    store.remove(doc_id)
                replaced = store.add_documents(items)
        except Exception as exc:  # noqa: BLE001 - written one by one next, each failing alone
            logger.info("group of %d documents not written whole (%s): one by one", len(ok), exc)
            for i, prepared in ok:
                out[i] = self._commit(files[i], prepared)
            return out
        for (i, _prepared), (parsed, _), old in zip(ok, items, replaced, strict=True):
            doc = parsed.document
            result = _result(
                str(files[i]),
                "updated" if old else "added",
                doc.doc_id,
                doc.pages,
                len(parsed.chunks),
            )
            result.ocr_pages = len(parsed.ocr_pages)  # as a local ingest reports it
            out[i] = result
        return out

    def _commit(self, path: Path, prepared: Prepared) -> IngestResult:
        """Write one prepared document all-or-nothing (under the writer lock / lease)."""
        name = str(path)
        if prepared.parsed is None:
            return _failed(name, prepared.error or "Unknown error.", prepared.error_code)
        store = self.library.store
        parsed = prepared.parsed
        doc = parsed.document.model_copy(update={"file": name})
        parsed = parsed.model_copy(update={"document": doc})
        try:
            with store.lock.hold():
                if prepared.embedder is not None:
                    store.set_embedder(*prepared.embedder)
                known = store.get_document(doc.doc_id)
                if known is not None:  # indexed earlier without vectors: replace it whole
                    store.remove(doc.doc_id)
                replaced = store.add_document(parsed, vectors=prepared.vectors)
        except FootnoteError as exc:
            return _failed(name, exc.user_text(), exc.code)
        status = "updated" if replaced else "added"
        result = _result(name, status, doc.doc_id, doc.pages, len(parsed.chunks))
        result.ocr_pages = len(parsed.ocr_pages)  # as a local ingest reports it
        return result


class _Group:
    """Prepared documents waiting for the driver's next group commit."""

    def __init__(
        self,
        job: RayIngest,
        files: list[Path],
        results: dict[int, IngestResult],
        progress: ProgressCallback,
    ) -> None:
        self.job, self.files, self.results, self.progress = job, files, results, progress
        self.waiting: list[tuple[int, Prepared]] = []
        self.since = 0.0  # when the first waiting document arrived
        self.commits = 0
        self.seconds = 0.0
        self.pages = 0

    def add(self, index: int, prepared: Prepared) -> None:
        if not self.waiting:
            self.since = time.perf_counter()
        self.waiting.append((index, prepared))

    def due(self) -> bool:
        return bool(self.waiting) and (
            len(self.waiting) >= GROUP_DOCS or time.perf_counter() - self.since >= GROUP_SECONDS
        )

    def commit(self) -> None:
        waiting, self.waiting = self.waiting, []
        if not waiting:
            return
        t0 = time.perf_counter()
        done = self.job._commit_group(waiting, self.files)
        self.seconds += time.perf_counter() - t0
        self.commits += 1
        for i, _ in waiting:
            result = self.results[i] = done[i]
            self.pages += result.pages if result.status != "failed" else 0
            n = len(self.results)
            self.progress(Progress(Stage.FILE, n, len(self.files), file=str(self.files[i])))


def _result(name: str, status: Any, doc_id: str, pages: int, chunks: int) -> IngestResult:
    return IngestResult(file=name, status=status, doc_id=doc_id, pages=pages, chunks=chunks)


def _failed(name: str, error: str, code: str | None) -> IngestResult:
    return IngestResult(file=name, status="failed", error=error, error_code=code)
