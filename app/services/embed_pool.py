"""The embedding model's work spread over the cores: batches side by side, each on one core.

Why not torch's own threads: torch splits every matrix product of a batch over its threads,
and they wait for each other after each one. Two batches of the real corpus's passages run side
by side on one thread each took 13-21% less wall time than the same batches one after the other
on two torch threads, and ~25% less CPU (2 cores, load average 5-6, 2026-11-27). So during an
ingest the embedder runs single-threaded (its ``threads``, restored afterwards) and this pool
keeps one batch in flight per core. Threads, not processes: the model is shared (no second copy
in memory) and its forward pass releases the GIL; one warm-up call comes first, so that the
tokenizer settles its (shared) truncation and padding settings before calls overlap.

It also embeds ahead: while the first phase still parses files (one core busy in the parse
worker), one stream embeds the passages of documents already stored, on the other core. Those
vectors wait here, in memory, keyed by the embedded text; the embedding phase takes them
(``take``) instead of embedding again, and commits them. A failure ahead is dropped: the
embedding phase embeds those passages itself and reports the error where it always did.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from app.core.protocols import Embedder

logger = logging.getLogger(__name__)

K = TypeVar("K")
AHEAD_MAX = 50_000  # vectors held ahead at most (~75 MB)


def _threaded(embedder: Embedder) -> Any:
    """The embedder object that has a ``threads`` setting (a cache wraps it as ``inner``)."""
    target: Any = embedder
    while not hasattr(target, "threads") and hasattr(target, "inner"):
        target = target.inner
    return target if hasattr(target, "threads") else None


class EmbedPool:
    """Batches embedded side by side, one per stream; use as a context manager."""

    def __init__(self, embedder: Embedder, batch: int) -> None:
        self.embedder = embedder
        self.batch = batch
        target = _threaded(embedder)
        # One stream per thread the embedder would have used (a model: the cores); an
        # embedder without threads (a test's fake) gets one stream.
        self.streams = max(1, int(target.threads)) if target is not None else 1
        self._target = target
        self._saved_threads: int | None = None
        self._ex = ThreadPoolExecutor(max_workers=self.streams, thread_name_prefix="embed")
        self._warm = threading.Lock()
        self._warmed = False
        self._queue: queue.Queue[list[str] | None] = queue.Queue()
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ahead: threading.Thread | None = None
        self.ahead_ms = 0.0  # wall ms the ahead stream spent embedding (beside the parsing)
        if target is not None and target.threads != 1:
            self._saved_threads = int(target.threads)
            target.threads = 1

    def __enter__(self) -> EmbedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.stop_ahead()
        self._ex.shutdown(wait=True, cancel_futures=True)
        if self._target is not None and self._saved_threads is not None:
            self._target.threads = self._saved_threads
            self._saved_threads = None

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not self._warmed:
            with self._warm:  # the first call alone: the tokenizer settles its settings
                if not self._warmed:
                    out = self.embedder.embed(texts)
                    self._warmed = True
                    return out
        return self.embedder.embed(texts)

    # --- ahead: while files are still being parsed ----------------------------------------------

    def ahead(self, texts: list[str]) -> None:
        """Embed ``texts`` on the one background stream, longest first, when it gets to them."""
        if self._stop.is_set() or not texts:
            return
        if self._ahead is None:
            self._ahead = threading.Thread(target=self._run_ahead, name="embed-ahead", daemon=True)
            self._ahead.start()
        self._queue.put(sorted(set(texts), key=len, reverse=True))

    def _run_ahead(self) -> None:
        try:
            while (texts := self._queue.get()) is not None:
                for start in range(0, len(texts), self.batch):
                    if self._stop.is_set() or len(self._vectors) >= AHEAD_MAX:
                        return
                    part = texts[start : start + self.batch]
                    t0 = time.perf_counter()
                    vecs = self._embed(part)
                    with self._lock:
                        self._vectors.update(zip(part, vecs, strict=True))
                        self.ahead_ms += (time.perf_counter() - t0) * 1000
        except Exception:  # the embedding phase embeds them itself, and reports its error
            logger.debug("embedding ahead stopped", exc_info=True)

    def stop_ahead(self) -> None:
        """Stop embedding ahead (after the batch in hand); what it embedded stays to be taken."""
        self._stop.set()
        self._queue.put(None)
        if self._ahead is not None:
            self._ahead.join()

    def take(self, text: str) -> np.ndarray | None:
        """The vector embedded ahead for ``text``, if any (taken: asked once)."""
        with self._lock:
            return self._vectors.pop(text, None)

    @property
    def held(self) -> int:
        return len(self._vectors)

    # --- the embedding phase: all streams ---------------------------------------------------------

    def map(
        self, items: Iterable[tuple[K, list[str] | None]]
    ) -> Iterator[tuple[K, np.ndarray | None]]:
        """``(key, texts)`` in, ``(key, vectors)`` out, in the same order, with one batch in
        flight per stream; an item without texts passes through (``None``). ``items`` is read
        lazily: it may stop early, or raise (a cancel), between batches."""
        pending: list[tuple[K, Future[np.ndarray] | None]] = []
        source = iter(items)
        try:
            while True:
                # One item per stream in work and one queued behind it: a stream whose batch
                # ends first (a shorter one) starts the next at once instead of waiting for
                # the caller to take the batch before it. A cancel the caller sees in a result
                # still stops the source within two batches per stream.
                while len(pending) < 2 * self.streams:
                    item = next(source, None)
                    if item is None:
                        break
                    key, texts = item
                    future = None if texts is None else self._ex.submit(self._embed, texts)
                    pending.append((key, future))
                if not pending:
                    return
                key, future = pending.pop(0)
                yield key, None if future is None else future.result()
        finally:
            for _, future in pending:
                if future is not None:
                    future.cancel()
                    with contextlib.suppress(Exception):  # its error is not this caller's
                        future.exception()
