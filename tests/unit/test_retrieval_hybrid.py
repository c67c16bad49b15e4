"""HybridRetriever logic with deterministic fakes: an in-memory store and a hashing embedder.

The fakes implement the same contract as ``app.store.Store`` (text_search / vector_search /
get_chunks / documents); the real store is exercised in tests/integration/test_retrieval.py.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import pytest

from app.core.models import Chunk, Document
from app.retrieval import FusionParams, HybridRetriever

pytestmark = pytest.mark.unit

_WORD = re.compile(r"[^\W_]+")


class HashEmbedder:
    """Bag of hashed words, L2-normalised: texts sharing words get similar vectors."""

    name = "hash-64"
    dim = 64

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _WORD.findall(t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class FakeStore:
    """In-memory store: keyword score = matching query words; vectors only for embedded docs."""

    def __init__(self, embedder: HashEmbedder) -> None:
        self.docs: dict[str, Document] = {}
        self.chunks: dict[str, Chunk] = {}
        self.vectors: dict[str, np.ndarray] = {}
        self.embedder = embedder
        self.text_queries: list[str] = []

    def add(
        self, doc_id: str, texts: list[str], *, embedded: bool = True, section: str = ""
    ) -> None:
        self.docs[doc_id] = Document(
            doc_id=doc_id,
            file=f"/tmp/{doc_id}.pdf",
            title=f"Title {doc_id}",
            pages=len(texts),
            chunks=len(texts),
            status="ready" if embedded else "indexed",
        )
        for i, t in enumerate(texts):
            c = Chunk(
                chunk_id=Chunk.make_id(doc_id, i),
                doc_id=doc_id,
                ordinal=i,
                page_start=i + 1,
                page_end=i + 1,
                section=section,
                text=t,
            )
            self.chunks[c.chunk_id] = c
            if embedded:
                self.vectors[c.chunk_id] = self.embedder.embed([t])[0]

    def _scope(self, doc_ids: Sequence[str] | None) -> list[Chunk]:
        return [c for c in self.chunks.values() if doc_ids is None or c.doc_id in doc_ids]

    def text_search(self, query: str, k: int, doc_ids: Sequence[str] | None = None):
        self.text_queries.append(query)
        terms = set(query.split())
        scored = []
        for c in self._scope(doc_ids):
            words = set(_WORD.findall(c.text.lower()))
            s = len(terms & words)
            if s:
                scored.append((c.chunk_id, float(s)))
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]

    def vector_search(self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None):
        scored = [
            (c.chunk_id, float(self.vectors[c.chunk_id] @ vec))
            for c in self._scope(doc_ids)
            if c.chunk_id in self.vectors
        ]
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return [self.chunks[c] for c in chunk_ids if c in self.chunks]

    def documents(self) -> list[Document]:
        return list(self.docs.values())


def _both_first() -> float:
    """Fused score of a chunk ranked first by both lists."""
    p = FusionParams()
    return (p.text_weight + p.vector_weight) / (p.rrf_k + 1)


@pytest.fixture
def emb() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def store(emb: HashEmbedder) -> FakeStore:
    s = FakeStore(emb)
    s.add(
        "aaaa",
        [
            "The battery lasts eighteen months when sampling once per minute.",
            "Clean the air filter every ninety days with a soft brush.",
            "Error code E42 means the sensor cable is broken.",
        ],
    )
    s.add(
        "bbbb",
        [
            "Longtable repeats the table caption on every page of a long table.",
            "Use the newcommand macro to define a new command with optional arguments.",
        ],
    )
    return s


def test_finds_the_right_chunk_with_hit_fields(store: FakeStore, emb: HashEmbedder) -> None:
    hits = HybridRetriever(store, emb).search("How often must I clean the air filter?", top_k=3)
    assert hits[0].chunk_id == "aaaa:00001"
    assert hits[0].rank == 1 and hits[0].page_start == 2 and hits[0].file == "/tmp/aaaa.pdf"
    assert hits[0].title == "Title aaaa" and "air filter" in hits[0].text
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_special_characters_reach_the_store_as_plain_words(
    store: FakeStore, emb: HashEmbedder
) -> None:
    r = HybridRetriever(store, emb)
    hits = r.search('\\newcommand: "optional" (arguments) AND OR*', top_k=2)
    assert hits[0].chunk_id == "bbbb:00001"
    assert store.text_queries[-1] == "newcommand optional arguments"
    asked = len(store.text_queries)
    r.search('"\\:(){}', top_k=3)  # no words at all: the keyword list is skipped, not sent
    assert len(store.text_queries) == asked


def test_doc_filter_limits_both_lists(store: FakeStore, emb: HashEmbedder) -> None:
    r = HybridRetriever(store, emb)
    hits = r.search("battery caption table error", top_k=10, doc_ids=["bbbb"])
    assert hits and {h.doc_id for h in hits} == {"bbbb"}
    assert r.search("battery", doc_ids=[]) == []
    assert r.search("battery", doc_ids=["unknown"]) == []


def test_empty_query_and_zero_k(store: FakeStore, emb: HashEmbedder) -> None:
    r = HybridRetriever(store, emb)
    emb.calls.clear()
    assert r.search("   ") == []
    assert r.search("battery", top_k=0) == []
    assert emb.calls == []  # nothing was embedded for nothing


def test_pending_document_ranks_by_keywords_alone(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("rrrr", [f"filler text number {i} about nothing in particular" for i in range(5)])
    s.add("pppp", ["The calibration must be repeated every twelve months."], embedded=False)
    r = HybridRetriever(s, emb)
    hits, timings = r.search_with_timings("calibration repeated twelve months", top_k=3)
    assert hits[0].chunk_id == "pppp:00000"
    # keyword-only documents count their keyword rank for both lists
    assert hits[0].score == pytest.approx(_both_first(), rel=1e-4)
    assert {"text", "embed", "vector", "fetch", "total"} <= set(timings)


def test_only_pending_documents_skip_the_embedder(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("pppp", ["The calibration must be repeated every twelve months."], embedded=False)
    emb.calls.clear()
    hits = HybridRetriever(s, emb).search("calibration", top_k=3)
    assert [h.chunk_id for h in hits] == ["pppp:00000"]
    assert emb.calls == []


def test_keyword_only_without_embedder(store: FakeStore) -> None:
    hits = HybridRetriever(store, None).search("sensor cable broken", top_k=2)
    assert hits[0].chunk_id == "aaaa:00002"


def test_overlapping_chunks_are_deduplicated(emb: HashEmbedder) -> None:
    words = [f"w{i}" for i in range(120)]
    s = FakeStore(emb)
    s.add(
        "oooo",
        [
            "gearbox torque " + " ".join(words[:80]),
            "gearbox torque " + " ".join(words[10:90]),  # an overlapping window
            "gearbox oil " + " ".join(f"x{i}" for i in range(60)),
        ],
    )
    hits = HybridRetriever(s, emb).search("gearbox torque", top_k=3)
    ids = [h.chunk_id for h in hits]
    assert len(ids) == 2 and "oooo:00002" in ids
    assert not {"oooo:00000", "oooo:00001"} <= set(ids)


def test_title_boost_promotes_matching_section(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("s1", ["Widgets are configured in the settings file."], section="1 General")
    s.add("s2", ["Widgets are configured in the settings file too."], section="2 Widgets")
    plain = HybridRetriever(s, emb).search("widgets", top_k=2)
    boosted = HybridRetriever(s, emb, FusionParams(title_boost=1.0, dedupe_overlap=1.1)).search(
        "widgets", top_k=2
    )
    assert boosted[0].section == "2 Widgets"
    assert boosted[0].score > plain[0].score


class PickyIndexStore(FakeStore):
    """Like an ANN index that rejects large k (LanceDB HNSW: 'ef must be >= k')."""

    def __init__(self, embedder: HashEmbedder) -> None:
        super().__init__(embedder)
        self.asked: list[int] = []

    def vector_search(self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None):
        self.asked.append(k)
        if k > 12:
            raise RuntimeError("lance error: ef must be greater than or equal to k")
        return super().vector_search(vec, k, doc_ids)


def test_vector_index_error_degrades_to_fewer_candidates(emb: HashEmbedder) -> None:
    s = PickyIndexStore(emb)
    s.add("pppp", ["How hot may it get", "unrelated words here"])
    r = HybridRetriever(s, emb)
    hits = r.search("hot get", top_k=2)
    assert hits[0].chunk_id == "pppp:00000"
    assert hits[0].score == pytest.approx(_both_first(), rel=1e-4)  # found by both lists
    r.search("hot", top_k=2)
    assert s.asked == [40, 12, 12]  # after one refusal it asks for fewer straight away
