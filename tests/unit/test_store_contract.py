"""One contract, two stores: what retrieval relies on holds for the fake and the real LanceDB store.

Haystack's pattern: the contract is a test class; each store inherits it and says only how to
make itself. If the real store changes behaviour, the fake's tests keep passing but this file
fails for one of them, so the fake (tests/fakes.py) cannot drift from ``app.store.Store``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.charmap import CharMap, Piece
from app.core.models import Chunk, Document, ParsedDocument
from app.store import Store
from tests.fakes import FakeStore, HashEmbedder

pytestmark = pytest.mark.unit

TEXTS = {
    "a" * 16: [
        "The pressure valve opens at four bar of steam.",
        "Clean the air filter every spring with warm water.",
        "Batteries last three years in the field station.",
    ],
    "b" * 16: [
        "The harbour pilot boards every tanker at the outer buoy.",
        "Tide tables are printed each month for the harbour.",
    ],
}
NOT_EMBEDDED = "c" * 16  # keyword-searchable only


def _parsed(doc_id: str, texts: list[str]) -> ParsedDocument:
    chunks = [
        Chunk(
            chunk_id=Chunk.make_id(doc_id, i),
            doc_id=doc_id,
            ordinal=i,
            page_start=i + 1,
            page_end=i + 1,
            section="",
            text=t,
            charmap=CharMap.from_pieces([Piece(0, len(t), i + 1, 72.0, 100.0, 300.0, 112.0, i)]),
        )
        for i, t in enumerate(texts)
    ]
    doc = Document(
        doc_id=doc_id,
        file=f"/docs/{doc_id}.pdf",
        title="Manual",
        pages=len(texts),
        status="indexed",
    )
    return ParsedDocument(document=doc, chunks=chunks, sections=[])


class SearchStoreContract:
    """Everything ``retrieval.hybrid.SearchStore`` promises, filled through the writer API."""

    def make_store(self, tmp_path: Path) -> Any:
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path) -> Any:
        store = self.make_store(tmp_path)
        emb = HashEmbedder()
        store.set_embedder(emb.name, emb.dim)
        for doc_id, texts in TEXTS.items():
            parsed = _parsed(doc_id, texts)
            store.add_document(parsed)
            store.add_vectors(doc_id, [c.chunk_id for c in parsed.chunks], emb.embed(texts))
            store.mark_ready(doc_id)
        store.add_document(_parsed(NOT_EMBEDDED, ["A steam valve manual without vectors yet."]))
        return store

    def test_keyword_search_ranks_the_chunk_with_the_words_first(self, store: Any) -> None:
        hits = store.text_search("harbour pilot tanker", 5)
        assert hits[0][0] == Chunk.make_id("b" * 16, 0)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)

    def test_keyword_search_covers_documents_not_embedded_yet(self, store: Any) -> None:
        ids = [cid for cid, _ in store.text_search("manual without vectors", 5)]
        assert Chunk.make_id(NOT_EMBEDDED, 0) in ids

    def test_keyword_search_respects_k_scope_and_empty_input(self, store: Any) -> None:
        assert len(store.text_search("the", 2)) <= 2
        assert store.text_search("", 5) == []
        assert store.text_search("harbour", 5, doc_ids=[]) == []
        scoped = store.text_search("harbour steam", 5, doc_ids=["a" * 16])
        assert scoped and all(cid.startswith("a" * 16) for cid, _ in scoped)
        assert store.text_search("zzzunknownword", 5) == []

    def test_vector_search_returns_cosine_best_first_only_for_embedded(self, store: Any) -> None:
        query = HashEmbedder().embed(["Tide tables are printed each month for the harbour."])[0]
        hits = store.vector_search(query, 10)
        assert hits[0][0] == Chunk.make_id("b" * 16, 1)
        assert hits[0][1] == pytest.approx(1.0, abs=1e-4)
        sims = [s for _, s in hits]
        assert sims == sorted(sims, reverse=True)
        assert all(-1.0001 <= s <= 1.0001 for s in sims)
        assert not any(cid.startswith(NOT_EMBEDDED) for cid, _ in hits)
        assert len(hits) == sum(len(t) for t in TEXTS.values())

    def test_vector_search_respects_k_and_scope(self, store: Any) -> None:
        query = HashEmbedder().embed(["steam valve"])[0]
        assert len(store.vector_search(query, 2)) == 2
        assert store.vector_search(query, 0) == []
        assert store.vector_search(query, 5, doc_ids=[]) == []
        scoped = store.vector_search(query, 10, doc_ids=["b" * 16])
        assert len(scoped) == 2 and all(cid.startswith("b" * 16) for cid, _ in scoped)

    def test_get_chunks_keeps_the_order_asked_and_skips_unknown(self, store: Any) -> None:
        ids = [Chunk.make_id("b" * 16, 1), "no-such-chunk", Chunk.make_id("a" * 16, 2)]
        chunks = store.get_chunks([*ids, ids[0]])
        assert [c.chunk_id for c in chunks] == [ids[0], ids[2]]
        assert chunks[0].text == TEXTS["b" * 16][1] and chunks[0].page_start == 2
        assert store.get_chunks([]) == []

    def test_documents_list_every_document_with_its_status(self, store: Any) -> None:
        status = {d.doc_id: d.status for d in store.documents()}
        assert status == {"a" * 16: "ready", "b" * 16: "ready", NOT_EMBEDDED: "indexed"}


class TestFakeStore(SearchStoreContract):
    def make_store(self, tmp_path: Path) -> FakeStore:
        return FakeStore()


class TestLanceDBStore(SearchStoreContract):
    def make_store(self, tmp_path: Path) -> Store:
        return Store(tmp_path / "library")


def test_hash_embedder_is_an_embedder() -> None:
    from app.core.protocols import Embedder

    emb = HashEmbedder()
    assert isinstance(emb, Embedder)
    v = emb.embed(["a b", "a b", ""])
    assert v.shape == (3, emb.dim) and np.allclose(v[0], v[1])
    assert np.allclose(np.linalg.norm(v[:2], axis=1), 1.0)
