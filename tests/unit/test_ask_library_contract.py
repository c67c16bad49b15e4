"""One contract for what the ask service uses of a library, held by the fake and the real one.

``tests.fakes.FakeLibrary`` scripts retrieval for the ask tests; ``app.services.library.Library``
is the real thing (real PDF parsing and LanceDB, with the hash embedder to stay fast). Both must
keep the promises of ``app.core.protocols.AskLibrary``, so the fake cannot drift.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.models import Document
from app.core.protocols import Embedder
from app.services.library import Library
from tests import pdf_factory as pf
from tests.fakes import FakeLibrary, HashEmbedder

pytestmark = pytest.mark.unit

QUERY = "How often must the air filter be cleaned?"


class AskLibraryContract:
    def make_library(self, tmp_path: Path) -> Any:
        raise NotImplementedError

    @pytest.fixture
    def library(self, tmp_path: Path) -> Any:
        return self.make_library(tmp_path)

    def test_settings_and_embedder(self, library: Any) -> None:
        assert isinstance(library.settings, Settings)
        assert library.embedder is None or isinstance(library.embedder, Embedder)

    def test_documents_are_documents(self, library: Any) -> None:
        docs = library.documents()
        assert docs and all(isinstance(d, Document) for d in docs)

    def test_search_ranks_hits_within_top_k_with_timings(self, library: Any) -> None:
        hits, timings = library.search(QUERY, top_k=2)
        assert 1 <= len(hits) <= 2
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert "total" in timings and timings["total"] >= 0
        known = {d.doc_id for d in library.documents()}
        assert all(h.doc_id in known and h.text.strip() for h in hits)

    def test_search_default_top_k_comes_from_settings(self, library: Any) -> None:
        hits, _ = library.search(QUERY)
        assert len(hits) <= library.settings.top_k

    def test_search_scope_by_document(self, library: Any) -> None:
        assert library.search(QUERY, doc_ids=["no-such-document"])[0] == []
        doc_id = library.documents()[0].doc_id
        hits, _ = library.search(QUERY, doc_ids=[doc_id])
        assert hits and all(h.doc_id == doc_id for h in hits)

    def test_chunks_match_hits_in_the_order_asked(self, library: Any) -> None:
        hits, _ = library.search(QUERY, top_k=3)
        ids = [h.chunk_id for h in reversed(hits)]
        chunks = library.chunks([*ids, "no-such-chunk"])
        assert [c.chunk_id for c in chunks] == ids
        by_id = {h.chunk_id: h for h in hits}
        for c in chunks:
            assert by_id[c.chunk_id].page_start == c.page_start
            assert c.text.strip()

    def test_term_counts_count_chunks_with_the_word(self, library: Any) -> None:
        df, n_chunks = library.term_counts(["filter", "watermark"])
        assert set(df) == {"filter", "watermark"}
        assert 1 <= df["filter"] <= n_chunks and df["watermark"] == 0

    def test_chunks_of_a_document_in_order_and_its_vectors(self, library: Any) -> None:
        doc_id = library.documents()[0].doc_id
        chunks = library.chunks_of(doc_id, charmap=False)
        assert chunks and all(c.doc_id == doc_id for c in chunks)
        assert [c.ordinal for c in chunks] == sorted(c.ordinal for c in chunks)
        assert library.chunks_of("no-such-document") == []
        ids, vecs = library.chunk_vectors(doc_id)
        assert len(ids) == vecs.shape[0] and set(ids) <= {c.chunk_id for c in chunks}
        if ids:  # an embedded document: unit vectors of the embedder's dimension
            assert vecs.shape[1] == library.embedder.dim
            assert abs(float((vecs[0] ** 2).sum()) - 1.0) < 1e-3


class TestFakeLibrary(AskLibraryContract):
    def make_library(self, tmp_path: Path) -> FakeLibrary:
        return FakeLibrary(
            [
                "Clean the air filter every 90 days with a soft brush.",
                "The Zephyr 3000 records up to 64 channels.",
                "The housing is made of aluminium.",
            ],
            tmp_path,
        )


class TestRealLibrary(AskLibraryContract):
    def make_library(self, tmp_path: Path) -> Library:
        lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
        [result] = lib.ingest([pf.make_manual_pdf(tmp_path / "manual.pdf")]).results
        assert result.status == "added"
        return lib
