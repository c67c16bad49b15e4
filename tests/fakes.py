"""Deterministic stand-ins for the heavy parts, shared by the fast unit tests (Haystack's habit).

- :class:`HashEmbedder`: a bag of hashed words, L2-normalised; texts that share words get
  similar vectors, instantly. It satisfies ``app.core.protocols.Embedder``.
- :class:`FakeStore`: an in-memory store with the same write calls (``add_document``,
  ``add_vectors``, ``mark_ready``) and the same reads (``retrieval.hybrid.SearchStore``) as
  ``app.store.Store``. tests/unit/test_store_contract.py runs one contract test class against
  both, so this fake cannot drift from the real LanceDB store.

Fakes serve unit tests of one layer; every flow a user meets is also tested with the real
embedder, model and LanceDB (tests/integration, tests/gui).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from app.core.models import Chunk, Document, ParsedDocument

_WORD = re.compile(r"[^\W_]+")


class HashEmbedder:
    """Bag of hashed words, L2-normalised: deterministic, normalised, instant."""

    def __init__(self, name: str = "hash-64", dim: int = 64) -> None:
        self.name = name
        self._dim = dim
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _WORD.findall(t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self._dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class FakeStore:
    """In-memory store: keyword score = how many query words a chunk has; cosine for vectors."""

    def __init__(self, embedder: HashEmbedder | None = None) -> None:
        self.docs: dict[str, Document] = {}
        self.chunks: dict[str, Chunk] = {}
        self.vectors: dict[str, np.ndarray] = {}
        self.embedder = embedder or HashEmbedder()
        self.text_queries: list[str] = []
        self._embedder: tuple[str, int] | None = None

    # --- writes, as app.store.Store -------------------------------------------------------
    def set_embedder(self, name: str, dim: int) -> bool:
        """Record which model makes the vectors; True when that drops the old ones."""
        changed = bool(self.vectors) and (name, dim) != self._embedder
        if changed:
            self.vectors.clear()
        self._embedder = (name, dim)
        return changed

    def add_document(self, parsed: ParsedDocument) -> list[str]:
        self.docs[parsed.document.doc_id] = parsed.document.model_copy(
            update={"status": "indexed", "chunks": len(parsed.chunks)}
        )
        for c in parsed.chunks:
            self.chunks[c.chunk_id] = c
        return []

    def add_vectors(self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
        for cid, v in zip(chunk_ids, vectors, strict=True):
            self.vectors[cid] = np.asarray(v, dtype=np.float32)

    def mark_ready(self, doc_id: str) -> None:
        self.docs[doc_id] = self.docs[doc_id].model_copy(update={"status": "ready"})

    # --- a shortcut for tests that only need texts ----------------------------------------
    def add(
        self, doc_id: str, texts: list[str], *, embedded: bool = True, section: str = ""
    ) -> None:
        chunks = [
            Chunk(
                chunk_id=Chunk.make_id(doc_id, i),
                doc_id=doc_id,
                ordinal=i,
                page_start=i + 1,
                page_end=i + 1,
                section=section,
                text=t,
            )
            for i, t in enumerate(texts)
        ]
        doc = Document(
            doc_id=doc_id,
            file=f"/tmp/{doc_id}.pdf",
            title=f"Title {doc_id}",
            pages=len(texts),
            chunks=len(texts),
            status="indexed",
        )
        self.add_document(ParsedDocument(document=doc, chunks=chunks, sections=[]))
        if embedded:
            self.add_vectors(doc_id, [c.chunk_id for c in chunks], self.embedder.embed(texts))
            self.mark_ready(doc_id)

    # --- reads, as retrieval.hybrid.SearchStore -------------------------------------------
    def _scope(self, doc_ids: Sequence[str] | None) -> list[Chunk]:
        return [c for c in self.chunks.values() if doc_ids is None or c.doc_id in doc_ids]

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        self.text_queries.append(query)
        if not query.strip() or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        terms = set(_WORD.findall(query.lower()))
        scored = []
        for c in self._scope(doc_ids):
            words = set(_WORD.findall(c.text.lower()))
            s = len(terms & words)
            if s:
                scored.append((c.chunk_id, float(s)))
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]

    def vector_search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        q = np.asarray(vec, dtype=np.float32).ravel()
        scored = [
            (c.chunk_id, float(self.vectors[c.chunk_id] @ q))
            for c in self._scope(doc_ids)
            if c.chunk_id in self.vectors
        ]
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return [self.chunks[c] for c in dict.fromkeys(chunk_ids) if c in self.chunks]

    def documents(self) -> list[Document]:
        return list(self.docs.values())
