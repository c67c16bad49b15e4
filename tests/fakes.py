"""Deterministic stand-ins for the heavy parts, shared by the fast unit tests (Haystack's habit).

- :class:`HashEmbedder`: a bag of hashed words, L2-normalised; texts that share words get
  similar vectors, instantly. It satisfies ``app.core.protocols.Embedder``.
- :class:`ScriptedModel`: a ``ChatModel`` that replays given outputs (Haystack's habit).
- :class:`FakeLibrary`: an ``AskLibrary`` whose search returns every chunk in order, so the
  ask tests decide what retrieval finds; tests/unit/test_ask_library_contract.py holds it and
  the real ``Library`` to one contract.
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
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from app.core.answer_spec import GrammarSpec
from app.core.config import Settings
from app.core.models import Chunk, Document, ParsedDocument, SearchHit
from app.core.progress import CancelToken, TokenCallback
from app.core.protocols import FinishReason, GenerationResult
from app.core.textkit import TOKEN
from app.generation.grammar import build_grammar

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
        self.sentences: dict[str, np.ndarray] = {}  # chunk id -> its sentences' vectors
        self.embedder = embedder or HashEmbedder()
        self.text_queries: list[str] = []
        self._embedder: tuple[str, int] | None = None

    # --- writes, as app.store.Store -------------------------------------------------------
    def set_embedder(self, name: str, dim: int) -> bool:
        """Record which model makes the vectors; True when that drops the old ones."""
        changed = bool(self.vectors) and (name, dim) != self._embedder
        if changed:
            self.vectors.clear()
            self.sentences.clear()
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

    def get_chunks(self, chunk_ids: Sequence[str], *, charmap: bool = True) -> list[Chunk]:
        return [self.chunks[c] for c in dict.fromkeys(chunk_ids) if c in self.chunks]

    def sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return {c: self.sentences[c] for c in chunk_ids if c in self.sentences}

    def documents(self) -> list[Document]:
        return list(self.docs.values())


class FakeLibrary:
    """A library (``app.core.protocols.AskLibrary``) whose search returns every chunk in order.

    The ask tests script what retrieval finds; tests/unit/test_ask_library_contract.py holds
    it to the same contract as the real ``Library``. No embedder: relevance by word overlap.
    """

    def __init__(self, texts: Sequence[str], tmp: Path) -> None:
        self.settings = Settings(library=tmp / "lib")
        self.chunks_by_id = {
            f"doc:{i:05d}": Chunk(
                chunk_id=f"doc:{i:05d}",
                doc_id="doc",
                ordinal=i,
                page_start=i + 1,
                page_end=i + 1,
                section=f"Section {i + 1}",
                text=t,
            )
            for i, t in enumerate(texts)
        }
        self.searches: list[str] = []

    def search(
        self, query: str, *, top_k: int | None = None, doc_ids: Sequence[str] | None = None
    ) -> tuple[list[SearchHit], dict[str, float]]:
        self.searches.append(query)
        chunks = [c for c in self.chunks_by_id.values() if doc_ids is None or c.doc_id in doc_ids]
        hits = [
            SearchHit(
                rank=i + 1,
                chunk_id=c.chunk_id,
                doc_id=c.doc_id,
                file="/docs/zephyr.pdf",
                title="Zephyr",
                page_start=c.page_start,
                page_end=c.page_end,
                section=c.section,
                score=1.0 / (i + 1),
                text=c.text,
                keyword_rank=i + 1,  # as if both of the real search's lists ranked them so
                vector_rank=i + 1,
            )
            for i, c in enumerate(chunks)
        ]
        return hits[: top_k or self.settings.top_k], {"total": 1.5}

    def chunks(self, ids: Sequence[str]) -> list[Chunk]:
        return [self.chunks_by_id[i] for i in ids if i in self.chunks_by_id]

    def term_counts(self, words: Iterable[str]) -> tuple[dict[str, int], int]:
        """Chunks containing each word (as a substring: a crude stemmer), and all chunks."""
        texts = [c.text.lower() for c in self.chunks_by_id.values()]
        return {w: sum(w.lower() in t for t in texts) for w in words}, len(texts)

    def stored_sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[int, np.ndarray]:
        """None stored: the answer step embeds its candidate sentences."""
        return {}

    def common_words(self, limit: int) -> list[str]:
        """Words by the number of chunks containing them, most first."""
        counts: Counter[str] = Counter()
        for c in self.chunks_by_id.values():
            counts.update(set(TOKEN.findall(c.text.lower())))
        return [w for w, _ in sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:limit]]

    def documents(self) -> list[Document]:
        if not self.chunks_by_id:
            return []
        return [
            Document(
                doc_id="doc",
                file="/docs/zephyr.pdf",
                title="Zephyr",
                pages=len(self.chunks_by_id),
                chunks=len(self.chunks_by_id),
                status="ready",
            )
        ]

    def chunks_of(self, doc_id: str, *, charmap: bool = True) -> list[Chunk]:
        return [c for c in self.chunks_by_id.values() if c.doc_id == doc_id]

    def chunk_vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        return [], np.zeros((0, 64), dtype=np.float32)  # never embedded

    @property
    def embedder(self) -> None:  # no embedder: relevance by word overlap
        return None


class ScriptedModel:
    """A :class:`ChatModel` that replies with the given outputs in turn, in 3-character pieces.

    ``press_stop`` (with ``cancel_after``): the caller's token, cancelled mid-answer as a
    user pressing Stop would; the model only sees the token the service hands it.
    """

    name = "scripted"

    def __init__(
        self,
        outputs: list[str],
        cancel_after: int | None = None,
        press_stop: CancelToken | None = None,
        *,
        chooses_evidence: bool = True,
    ) -> None:
        self.outputs = list(outputs)
        self.calls: list[list[dict[str, str]]] = []
        self.specs: list[GrammarSpec] = []
        self.max_tokens: list[int] = []
        self.cancel_after = cancel_after
        self.press_stop = press_stop
        self.chooses_evidence = chooses_evidence
        self.warmed = 0
        self.cached: list[list[dict[str, str]]] = []
        self.judged: list[str] = []

    @property
    def grammars(self) -> list[str]:
        return [build_grammar(s) for s in self.specs]

    def warm_up(self) -> None:
        self.warmed += 1

    def cache_prefix(self, messages: list[dict[str, str]]) -> None:
        self.cached.append(messages)

    def judge(self, messages: list[dict[str, str]], reply: str | None, query: str) -> float | None:
        """No logits here: a scripted model has no judgement of its own."""
        self.judged.append(query)
        return None

    def answer(
        self,
        messages: list[dict[str, str]],
        spec: GrammarSpec,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> GenerationResult:
        self.calls.append(messages)
        self.specs.append(spec)
        self.max_tokens.append(max_tokens)
        text = self.outputs.pop(0)
        out: list[str] = []
        finish: FinishReason = "stop"
        for i in range(0, len(text), 3):
            if cancel is not None and cancel.cancelled:
                finish = "cancelled"
                break
            piece = text[i : i + 3]
            out.append(piece)
            if on_token:
                on_token(piece)
            if self.cancel_after is not None and i >= self.cancel_after and self.press_stop:
                self.press_stop.cancel()
        return GenerationResult("".join(out), finish, 100, len(out), 5.0, 20.0)
