"""The embedding pool (app.services.embed_pool): batches side by side, one per core, and the
passages of stored documents embedded ahead while later files are parsed.

A fake embedder that says it has two threads (so the pool runs two streams), real PDFs and a
real LanceDB in tmp_path for the library-level checks: every passage gets its own vector (the
order survives two streams), none is embedded twice, and the embedder's threads come back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.services.embed_pool import EmbedPool
from app.services.library import Library, embedding_text
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder
from tests.store_invariants import assert_store_consistent

pytestmark = pytest.mark.unit


class TwoThreadEmbedder(HashEmbedder):
    """Says it uses two threads; records which threads called it and with what setting."""

    def __init__(self) -> None:
        super().__init__()
        self.threads = 2
        self.seen_threads: set[int] = set()
        self.callers: set[str] = set()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        with self._lock:
            self.seen_threads.add(self.threads)
            self.callers.add(threading.current_thread().name)
        time.sleep(0.001)  # let the other stream run meanwhile
        return super().embed(texts, batch_size=batch_size)


def test_results_come_back_in_order_from_two_streams() -> None:
    embedder = TwoThreadEmbedder()
    items = [(i, [f"passage number {i} about topic {i % 7}"] * (1 + i % 3)) for i in range(40)]
    items.insert(5, (-1, None))  # passes through in its place
    with EmbedPool(embedder, batch=4) as pool:
        assert pool.streams == 2 and embedder.threads == 1  # one core per stream
        out = list(pool.map(items))
    assert embedder.threads == 2  # given back
    assert [k for k, _ in out] == [k for k, _ in items]
    for (_, texts), (_, vecs) in zip(items, out, strict=True):
        if texts is None:
            assert vecs is None
        else:
            assert np.allclose(vecs, HashEmbedder().embed(texts))
    assert embedder.seen_threads == {1} and len(embedder.callers) == 2


def test_the_source_is_read_at_most_two_items_per_stream_ahead() -> None:
    read: list[int] = []

    def source():
        for i in range(10):
            read.append(i)
            yield i, [f"text {i}"]

    with EmbedPool(TwoThreadEmbedder(), batch=4) as pool:
        results = pool.map(source())
        next(results)
        assert len(read) <= 5  # the first, then one in work and one queued per stream
        results.close()


def test_a_stream_that_ends_first_does_not_wait_for_the_batch_before_it() -> None:
    """Batch 0 is slow, the rest quick: the other stream embeds batches 1, 2, 3... while
    batch 0 is still in work, instead of idling until the caller has taken batch 0."""
    started: list[int] = []
    release = threading.Event()

    class SlowFirst(TwoThreadEmbedder):
        def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
            n = int(texts[0].split()[1])
            started.append(n)
            if n == 0:
                release.wait(5)
            return super().embed(texts, batch_size=batch_size)

    items = [(i, [f"text {i}"]) for i in range(6)]
    with EmbedPool(SlowFirst(), batch=4) as pool:
        # The pool's first call runs alone (the tokenizer settles its settings): let a quick
        # one be it, so that the slow batch is not that call.
        assert [k for k, _ in pool.map([(-1, ["text 9"])])] == [-1]
        started.clear()
        results = pool.map(items)
        first = threading.Thread(target=lambda: next(results))
        first.start()
        deadline = time.monotonic() + 5
        while len(started) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert 0 in started and len(started) >= 3  # batch 2 began while batch 0 was in work
        release.set()
        first.join()
        assert [k for k, _ in results] == [1, 2, 3, 4, 5]


def test_ahead_vectors_are_taken_once_and_a_failure_ahead_is_dropped() -> None:
    class FailsOnBad(HashEmbedder):
        def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
            if "bad" in texts:
                raise RuntimeError("model exploded")
            return super().embed(texts, batch_size=batch_size)

    with EmbedPool(FailsOnBad(), batch=2) as pool:
        pool.ahead(["alpha beta", "gamma", "delta epsilon zeta"])
        deadline = time.monotonic() + 30
        while pool.held < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        vec = pool.take("gamma")
        assert vec is not None and np.allclose(vec, HashEmbedder().embed(["gamma"])[0])
        assert pool.take("gamma") is None  # taken once
        pool.ahead(["bad", "worse"])  # fails on the stream: dropped, nothing raised here
        pool.stop_ahead()
        assert pool.take("worse") is None
        pool.ahead(["late"])  # after the stop: ignored
        assert pool.take("late") is None


def test_an_ingest_embeds_every_passage_once_with_its_own_vector(tmp_path: Path) -> None:
    embedder = TwoThreadEmbedder()
    lib = Library(Settings(library=tmp_path / "lib"), embedder=embedder)
    files = [
        pf.make_manual_pdf(tmp_path / "a.pdf"),
        pf.make_long_table_pdf(tmp_path / "b.pdf"),
        pf.make_paper_pdf(tmp_path / "c.pdf"),
    ]
    outcome = lib.ingest(files)
    total = sum(r.chunks for r in outcome.results)
    assert outcome.embedded_chunks == total
    texts = [t for call in embedder.calls for t in call]
    assert len(texts) == len(set(texts)) == total  # none twice (ahead, then taken)
    assert embedder.threads == 2  # given back after the run
    for doc in lib.documents():
        assert doc.status == "ready"
        ids, vecs = lib.chunk_vectors(doc.doc_id)
        chunks = {c.chunk_id: c for c in lib.chunks_of(doc.doc_id, charmap=False)}
        assert set(ids) == set(chunks)
        expected = HashEmbedder().embed(
            [embedding_text(doc.title, chunks[i].section, chunks[i].text) for i in ids]
        )
        assert np.allclose(vecs, expected, atol=1e-6)  # each vector is its own passage's
    assert_store_consistent(lib.store)
