"""Group commit of the embedding phase: many documents' vectors in one write, none lost.

Real PDFs (tests/pdf_factory.py), real parsing, a real LanceDB in tmp_path; a fast fake
embedder, which is not what is tested. A document is "ready" only in the commit that holds its
last vector; a failure or a cancel keeps every vector embedded before it; the next run finishes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.services import library as library_mod
from app.services.library import Library
from app.store import Store
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder
from tests.store_invariants import assert_store_consistent

pytestmark = pytest.mark.unit


class FailingEmbedder(HashEmbedder):
    """Fails on call number ``fail_at`` (1-based) and every call after it."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if len(self.calls) + 1 >= self.fail_at:
            self.calls.append(list(texts))
            raise RuntimeError("embedder exploded")
        return super().embed(texts, batch_size=batch_size)


@pytest.fixture
def three_pdfs(tmp_path: Path) -> list[Path]:
    # Three documents with different text (the embedder's cache would skip repeated passages).
    return [
        pf.make_manual_pdf(tmp_path / "a-manual.pdf"),
        pf.make_long_table_pdf(tmp_path / "b-table.pdf"),
        pf.make_paper_pdf(tmp_path / "c-paper.pdf"),
    ]


@pytest.fixture
def one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is committed before the run ends (or fails): the whole run is one group."""
    monkeypatch.setattr(library_mod, "EMBED_BATCH", 2)
    monkeypatch.setattr(library_mod, "COMMIT_CHUNKS", 10_000)
    monkeypatch.setenv("FOOTNOTE_COMMIT_EVERY", "1000")


def _indexed(tmp_path: Path, files: list[Path], embedder: HashEmbedder) -> Library:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=embedder)
    outcome = lib.ingest(files, embed=False)
    assert [r.status for r in outcome.results] == ["added"] * len(files)
    return lib


def test_many_documents_are_committed_in_one_write(
    tmp_path: Path, three_pdfs: list[Path], one_group: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = _indexed(tmp_path, three_pdfs, HashEmbedder())
    writes: list[list[str]] = []
    ready: list[list[str]] = []
    add, mark = lib.store.add_vector_groups, lib.store.mark_ready_many
    monkeypatch.setattr(
        lib.store, "add_vector_groups", lambda g: (writes.append([d for d, _, _ in g]), add(g))[1]
    )
    monkeypatch.setattr(
        lib.store, "mark_ready_many", lambda ids: (ready.append(sorted(ids)), mark(ids))[1]
    )
    chunks = sum(d.chunks for d in lib.documents())
    assert lib.embed_pending() == chunks
    assert len(writes) == 1 and len(set(writes[0])) == 3  # three documents, one write
    assert ready == [sorted(d.doc_id for d in lib.documents())]
    assert {d.status for d in lib.documents()} == {"ready"}
    assert lib.store.count_vectors() == chunks
    assert_store_consistent(lib.store)


def test_a_failure_mid_group_loses_no_finished_document(
    tmp_path: Path, three_pdfs: list[Path], one_group: None
) -> None:
    indexed = _indexed(tmp_path, three_pdfs, HashEmbedder())
    order = indexed.store.pending_embeddings()  # the order the embedding phase takes
    first = order[0]
    calls_for_first = -(-first.chunks // 2)  # batches of 2
    # The first document is embedded whole, the second fails after one batch: all one group.
    lib = Library(Settings(library=tmp_path / "lib"), embedder=FailingEmbedder(calls_for_first + 2))
    with pytest.raises(RuntimeError, match="exploded"):
        lib.embed_pending()
    status = {d.doc_id: d.status for d in lib.documents()}
    assert status == {
        order[0].doc_id: "ready",
        order[1].doc_id: "indexed",
        order[2].doc_id: "indexed",
    }
    assert len(lib.store.embedded_chunk_ids(first.doc_id)) == first.chunks
    assert len(lib.store.embedded_chunk_ids(order[1].doc_id)) == 2  # its first batch is kept
    assert_store_consistent(lib.store)

    again = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    total = sum(d.chunks for d in order)
    assert again.embed_pending() == total - first.chunks - 2  # only what was missing
    assert {d.status for d in again.documents()} == {"ready"}
    assert again.store.count_vectors() == total
    assert_store_consistent(again.store)


def test_an_ingest_whose_embedding_fails_reports_it_and_keeps_the_rest(
    tmp_path: Path, three_pdfs: list[Path], one_group: None
) -> None:
    embedder = FailingEmbedder(4)
    lib = Library(Settings(library=tmp_path / "lib"), embedder=embedder)
    outcome = lib.ingest(three_pdfs)
    assert outcome.embed_error and "exploded" in outcome.embed_error
    assert [r.status for r in outcome.results] == ["added"] * 3
    # The three batches embedded before the failure are committed on the way out.
    assert lib.store.count_vectors() == sum(len(c) for c in embedder.calls[:3]) > 0
    assert all(d.status in ("indexed", "ready") for d in lib.documents())
    assert_store_consistent(lib.store)


def test_a_document_removed_while_embedding_gets_no_vectors(
    tmp_path: Path, three_pdfs: list[Path], one_group: None
) -> None:
    lib = _indexed(tmp_path, three_pdfs, HashEmbedder())
    victim = lib.store.pending_embeddings()[-1]  # embedded last: removed before its turn

    class RemovingEmbedder(HashEmbedder):
        def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
            if len(self.calls) == 1:  # while the first batch is being embedded
                lib.store.remove(victim.doc_id)
            return super().embed(texts, batch_size=batch_size)

    lib._cached = None
    lib._embedder = RemovingEmbedder()
    lib.embed_pending()
    assert lib.get_document(victim.doc_id) is None
    assert victim.doc_id not in lib.store.doc_id_column("vectors")
    assert {d.status for d in lib.documents()} == {"ready"}
    assert_store_consistent(lib.store)


def test_store_group_writes_skip_known_vectors_and_missing_documents(
    tmp_path: Path, three_pdfs: list[Path]
) -> None:
    lib = _indexed(tmp_path, three_pdfs[:2], HashEmbedder())
    store: Store = lib.store
    store.set_embedder("hash-64", 64)
    a, b = lib.documents()
    ids_a = [c.chunk_id for c in store.chunks_of(a.doc_id)]
    ids_b = [c.chunk_id for c in store.chunks_of(b.doc_id)]
    vec = np.eye(64, dtype=np.float32)
    store.add_vectors(a.doc_id, ids_a[:1], vec[:1])
    written = store.add_vector_groups(
        [
            (a.doc_id, ids_a, np.tile(vec[:1], (len(ids_a), 1))),  # the first one is known
            (b.doc_id, ids_b, np.tile(vec[1:2], (len(ids_b), 1))),
            ("0000000000000000", ["0000000000000000:00000"], vec[:1]),  # no such document
        ]
    )
    assert written == len(ids_a) - 1 + len(ids_b)
    assert store.count_vectors() == len(ids_a) + len(ids_b)
    store.set_status(b.doc_id, "partial")  # replaced by a partial version meanwhile
    store.mark_ready_many([a.doc_id, b.doc_id])
    assert store.get_document(a.doc_id).status == "ready"
    assert store.get_document(b.doc_id).status == "partial"  # not made ready by old vectors
