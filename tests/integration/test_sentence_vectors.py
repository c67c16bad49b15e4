"""Sentence vectors stored at ingestion (issue 31): with the real embedder, a real LanceDB in
tmp_path and a real PDF from tests/pdf_factory.py.

Every sentence the answer step scores is embedded once at ingestion and stored beside the chunk
vectors; search ranks a passage by its best sentence too (small-to-big), and the answer step
looks the sentences' vectors up instead of embedding them. A library embedded before they were
stored keeps working and catches up with ``Library.embed_sentences``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.core.text import sentence_key
from app.generation.prompt import sentence_texts
from app.retrieval import FusionParams, HybridRetriever
from app.services import ask_steps as steps
from app.services.ask import AskService
from app.services.library import Library
from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf

pytestmark = pytest.mark.integration


class Counting:
    """The real embedder, with every call it gets recorded."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed(texts, batch_size=batch_size)


def _ids(library: Library) -> list[str]:
    (doc,) = library.documents()
    return [c.chunk_id for c in library.chunks_of(doc.doc_id, charmap=False)]


def test_ingest_stores_the_vector_of_every_sentence_the_answer_step_scores(
    tmp_path: Path, shared_embedder: Embedder
) -> None:
    library = Library(
        Settings(library=tmp_path / "lib", sentence_vectors=True), embedder=shared_embedder
    )
    library.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    ids = _ids(library)
    stored = library.store.stored_sentences(ids)
    assert set(stored) == set(ids)
    for chunk in library.chunks(ids):
        keys, vecs = stored[chunk.chunk_id]
        texts = sentence_texts(chunk.text)
        assert keys == [sentence_key(t) for t in texts]
        assert vecs.shape == (len(texts), shared_embedder.dim)
    fact = MANUAL_FACTS["temperature"]
    by_key = library.stored_sentence_vectors(ids)
    vec = by_key[sentence_key(fact.sentence)]  # looked up: the vector embedding would give
    assert float(vec @ shared_embedder.embed([fact.sentence])[0]) > 0.999
    assert library.missing_sentences() == []


def test_a_passage_is_found_by_its_best_sentence(tmp_path: Path, shared_embedder: Embedder) -> None:
    """No word of the question is in the library, and the chunk holding the answer is about
    batteries and power as a whole: its best sentence is what matches."""
    library = Library(
        Settings(library=tmp_path / "lib", sentence_vectors=True), embedder=shared_embedder
    )
    library.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    store = library.store
    fact = MANUAL_FACTS["temperature"]
    question = "What heat can the unit withstand?"
    assert store.text_search(question, 5) == []
    whole = replace(FusionParams(), sentence_weight=0.0)
    small_to_big = replace(FusionParams(), sentence_weight=2.0)
    before = HybridRetriever(store, shared_embedder, whole).search(question, top_k=8)
    after = HybridRetriever(store, shared_embedder, small_to_big).search(question, top_k=8)

    def rank(hits: list) -> int:
        return next((i for i, h in enumerate(hits, 1) if fact.sentence in h.text), 99)

    assert rank(after) <= 2 < rank(before), (rank(before), rank(after))


def test_a_library_embedded_without_sentence_vectors_searches_and_catches_up(
    tmp_path: Path, shared_embedder: Embedder
) -> None:
    old = Library(
        Settings(library=tmp_path / "lib", sentence_vectors=False), embedder=shared_embedder
    )
    old.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    ids = _ids(old)
    assert old.store.stored_sentences(ids) == {}

    library = Library(
        Settings(library=tmp_path / "lib", sentence_vectors=True), embedder=shared_embedder
    )
    assert [d.doc_id for d in library.missing_sentences()] == [library.documents()[0].doc_id]
    fact = MANUAL_FACTS["temperature"]
    hits, _ = library.search(fact.question, top_k=3)  # the passage scored as a whole only
    assert any(fact.sentence in h.text for h in hits)
    assert library.embed_pending() == 0  # no chunk to embed: the sentences catch up
    assert library.missing_sentences() == []
    assert set(library.store.stored_sentences(ids)) == set(ids)
    assert library.embed_sentences() == 0


def test_the_answer_step_looks_sentences_up_instead_of_embedding_them(
    tmp_path: Path, shared_embedder: Embedder
) -> None:
    counting = Counting(shared_embedder)
    library = Library(Settings(library=tmp_path / "lib", sentence_vectors=True), embedder=counting)
    library.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    fact = MANUAL_FACTS["temperature"]
    run = steps.AskRun(question=fact.question, top_k=5)
    assert steps.retrieve(run, library)
    similarity = AskService(library)._similarity(run)
    assert similarity is not None
    texts = [t for s in run.sources for t in sentence_texts(s.text)][:16]
    counting.calls.clear()
    got = similarity(fact.question, texts)
    assert counting.calls == []  # the question was embedded by the search, the rest stored
    q = shared_embedder.embed([fact.question])[0]
    want = shared_embedder.embed(texts) @ q
    assert np.allclose(got, want, atol=1e-3)
    # A sentence that is not stored (another text) is embedded, alone.
    counting.calls.clear()
    assert similarity(fact.question, ["An unstored sentence."])[0] < 0.5
    assert counting.calls == [["An unstored sentence."]]
