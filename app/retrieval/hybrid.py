"""Hybrid search: BM25 and vector results fused by reciprocal rank fusion.

Why both: keyword search nails exact names (``\\newcommand``, ``longtable``, error
texts) that an embedding blurs, while the embedding finds paraphrases a question
uses instead of the manual's words. Documents whose embeddings are still being
computed are searchable by keyword alone, ranked as if both lists agreed, so a
freshly added PDF is not buried under fully embedded ones.

A question typed as people talk ("ok this is going to sound silly but my coworker and I
have a bet going. Is the name Debian actually named after real people? Loser buys lunch")
is also searched by the vector of its asking part alone ("Is the name Debian actually
named after real people?"): the whole question's vector is pulled toward the situation
and the talk around the ask.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.core.asking import asking_part, topic
from app.core.lexicon import PAIRS, translate
from app.core.models import Chunk, Document, SearchHit
from app.core.protocols import Embedder
from app.core.text import collapse_ws
from app.core.textkit import detect_language, main_script, word_languages
from app.core.timing import ms_since
from app.retrieval.fusion import (
    Passage,
    dedupe,
    feedback_terms,
    query_terms,
    reciprocal_rank_fusion,
    term_coverage,
    title_overlap,
)

logger = logging.getLogger(__name__)

SAFE_VECTOR_K = 12  # retried with this many candidates if the vector index rejects more
MAX_TRANSLATED_TERMS = 48  # a word's translations are several words: more than a question's


class SearchStore(Protocol):
    """The part of ``app.store.Store`` that retrieval reads (retrieval may not import store)."""

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]: ...

    def vector_search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]: ...

    def get_chunks(self, chunk_ids: Sequence[str], *, charmap: bool = True) -> list[Chunk]: ...

    def documents(self) -> list[Document]: ...

    def sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of each chunk's sentences (``(n, dim)`` per chunk id); chunks
        without them (a library from before they were stored, or not embedded yet) are left
        out."""
        ...


@dataclass
class FusionParams:
    """Tunable knobs, set from the benchmark's measurements (tests/bench/bench_ingest.py)."""

    # BM25 over title + section + text is the stronger list on technical manuals. Page
    # recall@5 over the corpus questions (tests/bench/tune_retrieval.py): BM25 alone 0.93,
    # vectors alone 0.82-0.83; RRF with keywords weighted 1 / 1.5 / 2: 0.92 / 0.93 / 0.92
    # (fp32, 256 tokens) and 0.87 / 0.88 / 0.92 (int8, 192 tokens, the default embedder).
    text_weight: float = 2.0
    vector_weight: float = 1.0
    # A small k lets a list's top hit count: with k=10 (vs the usual 60) page recall@5 rose
    # 0.917 -> 0.933 (fp32/256) and 0.900 -> 0.917 (fp32/192, the default) on two builds.
    rrf_k: float = 10.0
    # The vector list of a question's asking part (``focus``), when it differs from the
    # whole question. Page recall@5 on the chatty development sets (talk2 / talk3, the
    # second in German): 81.0 / 68.2% without it, 85.7 / 77.3% at 0.3 and at 0.5 (talk's
    # recall@8 fell 100 -> 95.5% at 0.5), 81.0 / 77.3% at 1.0; no change on the sets of
    # plainly asked questions (most are one sentence: no list is added).
    focus_weight: float = 0.3
    candidates: int = 40  # per list; more costs time and rarely changes the top 8
    title_boost: float = 0.0  # added per share of query terms found in the section title
    coverage_boost: float = 0.0  # added per share of query terms found in the chunk text
    dedupe_overlap: float = 0.6
    dedupe_adjacent: bool = False
    # Small-to-big: the best ``sentence_pool`` fused chunks ranked again by their best
    # sentence's cosine to the question (or its asking part), from the sentence vectors
    # stored at ingestion (``Settings.sentence_vectors``), a list of this weight. On the real
    # corpus (issue 31, README): page / evidence recall@5 0.860 / 0.764 without, 0.881 / 0.782
    # at 1, 0.891 / 0.787 at 2 (the weight every fold chose); but at 1 the German chatty set
    # talk3 loses a page (0.773 -> 0.727) and at 2 manuals and fhs do, so it is off by
    # default: set 1 (with sentence vectors stored) to have it. No sentence vectors: no list.
    # Beside the translation list, gated to the embedder's languages (below), it gained
    # nothing cross-validated (0.893 -> 0.891) and cost fhs and money a page: still off.
    sentence_weight: float = 0.0
    sentence_pool: int = 30
    # Sentence similarities only where the embedder knows the words (``word_languages``: the
    # embedded MiniLM knows English): a question in another language gets no sentence list,
    # and a chunk of a document in another language keeps its fused rank in it.
    sentence_languages_only: bool = True
    # Pseudo-relevance feedback: the telling words of the first pass's ``prf_docs`` best
    # chunks added to the keyword query, whose second answer is a list of this weight.
    # Off: fitted on four folds it lost on the fifth (page recall@5 0.860 -> 0.853).
    prf_weight: float = 0.0
    prf_docs: int = 3
    prf_terms: int = 8
    # Across languages (``app.core.lexicon``): the question's words translated word by word
    # into the languages of the other documents in scope, searched by keywords: a list of
    # this weight. Real corpus, folds of whole documents (issue 31): page / evidence
    # recall@5 0.860 / 0.764 without, 0.886 / 0.779 with the weight the other four folds
    # chose (1 on all five; 0.5, 0.75, 1.5 and 2 were offered, with and without a vector
    # list of the translation, which one fold chose at 0.3, and with the translation
    # searched only in the other languages' documents). No effect on a library in one
    # language.
    translation_weight: float = 1.0
    # The document's weight: each chunk gains ``document_weight`` times its document's share
    # of the best ``document_pool`` fused scores (the best document: 1), over ``rrf_k``, for a
    # question about one document whose passage of another ranks high on a shared word. Off:
    # on the real corpus every fold chose it off (weights 0.25-4, pools 10-40; issue 31).
    document_weight: float = 0.0
    document_pool: int = 20


class HybridRetriever:
    """``search(query, top_k, doc_ids) -> list[SearchHit]`` over a store and an embedder.

    ``embedder`` may be None: then the search is keyword-only (useful while the model
    loads, and in tests). Thread-safe as long as the store and embedder are.
    """

    def __init__(
        self,
        store: SearchStore,
        embedder: Embedder | None,
        params: FusionParams | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.params = params or FusionParams()
        self._executor: ThreadPoolExecutor | None = None
        self._vector_cap = 1_000_000
        self._doc_language: dict[str, str] = {}
        self._pool_lock = threading.Lock()

    def search(
        self, query: str, top_k: int = 8, doc_ids: Sequence[str] | None = None
    ) -> list[SearchHit]:
        hits, _ = self.search_with_timings(query, top_k=top_k, doc_ids=doc_ids)
        return hits

    def search_with_timings(
        self, query: str, top_k: int = 8, doc_ids: Sequence[str] | None = None
    ) -> tuple[list[SearchHit], dict[str, float]]:
        """Hits best first, and where the time went (ms): embed, text, vector, fetch, total."""
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        p = self.params
        if top_k <= 0 or not query.strip() or (doc_ids is not None and not doc_ids):
            return [], {"total": ms_since(t0, 3)}
        scope = list(dict.fromkeys(doc_ids)) if doc_ids is not None else None
        docs = {d.doc_id: d for d in self.store.documents()}
        if scope is not None:
            scope = [d for d in scope if d in docs]
            if not scope:
                return [], {"total": ms_since(t0, 3)}
        in_scope = [docs[d] for d in scope] if scope is not None else list(docs.values())
        pending = {d.doc_id for d in in_scope if d.status != "ready"}
        n = max(p.candidates, 2 * top_k)
        terms = query_terms(query)
        translated = self._translated(query, in_scope) if p.translation_weight else ""
        t_terms = translated.split()[:MAX_TRANSLATED_TERMS]  # distinct words already

        # The keyword search runs on a worker thread while this one embeds the query and
        # scans the vectors: LanceDB and torch release the GIL, so the two overlap.
        text_job = (
            self._pool().submit(self._timed_text_search, " ".join(terms), n, scope)
            if terms
            else None
        )
        translated_job = (
            self._pool().submit(self._timed_text_search, " ".join(t_terms), n, scope)
            if t_terms
            else None
        )
        vec_ids: list[str] = []
        focus_ids: list[str] = []
        vecs: np.ndarray | None = None
        if self.embedder is not None and len(pending) < len(in_scope):
            focus = focus_of(query) if p.focus_weight else None
            t = time.perf_counter()
            vecs = self.embedder.embed([query, focus] if focus else [query])
            timings["embed"] = ms_since(t, 3)
            t = time.perf_counter()
            vec_ids = self._vector_ids(vecs[0], n, scope)
            if focus:
                focus_ids = self._vector_ids(vecs[1], n, scope)
            timings["vector"] = ms_since(t, 3)
        text_ids: list[str] = []
        if text_job is not None:
            text_ids, timings["text"] = text_job.result()
        trans_text_ids: list[str] = []
        if translated_job is not None:
            trans_text_ids, timings["translated"] = translated_job.result()

        lists = [
            (text_ids, p.text_weight),
            (vec_ids, p.vector_weight),
            (focus_ids, p.focus_weight),
            (trans_text_ids, p.translation_weight),
        ]
        as_vectors = p.vector_weight + (p.focus_weight if focus_ids else 0.0)
        scores = self._fuse(lists, text_ids, set(vec_ids), pending, as_vectors)
        order = sorted(scores, key=lambda c: -scores[c])
        chunks: dict[str, Chunk] = {}
        pool_size = max(3 * top_k, top_k + 16)

        if p.document_weight and order:
            per_doc: dict[str, float] = {}
            for cid in order[: p.document_pool]:
                per_doc[_doc_of(cid)] = per_doc.get(_doc_of(cid), 0.0) + scores[cid]
            top = max(per_doc.values()) or 1.0
            for cid in scores:
                scores[cid] += p.document_weight * per_doc.get(_doc_of(cid), 0.0) / top / p.rrf_k
            order = sorted(scores, key=lambda c: -scores[c])

        if p.prf_weight and terms and order:
            t = time.perf_counter()
            self._fetch(chunks, order[: p.prf_docs], docs)
            pool_ids = order[:pool_size]
            self._fetch(chunks, pool_ids, docs)
            extra = feedback_terms(
                terms,
                [chunks[c].text for c in order[: p.prf_docs] if c in chunks],
                [chunks[c].text for c in pool_ids if c in chunks],
                p.prf_terms,
            )
            if extra:
                more = [cid for cid, _ in self.store.text_search(" ".join(terms + extra), n, scope)]
                lists.append((more, p.prf_weight))
                scores = self._fuse(lists, text_ids, set(vec_ids), pending, as_vectors)
                order = sorted(scores, key=lambda c: -scores[c])
            timings["feedback"] = ms_since(t, 3)

        known = self._sentence_languages(query, in_scope)
        if p.sentence_weight and vecs is not None and order and known != set():
            t = time.perf_counter()
            cand = order[: p.sentence_pool]
            # The passages to show will be among these (only they gain from this list), so
            # they are fetched on the worker thread while their sentences are read here.
            wanted = [c for c in order[: max(p.sentence_pool, pool_size)] if c not in chunks]
            prefetch = self._pool().submit(self._fetched, wanted, docs)
            readable = (
                cand
                if known is None
                else [c for c in cand if self._doc_language.get(_doc_of(c)) in known]
            )
            stored = self.store.sentence_vectors(readable) if readable else {}
            chunks.update(prefetch.result())
            if stored:
                best: dict[str, float] = {}
                for cid, m in stored.items():
                    if len(m):
                        best[cid] = float(np.max(m @ vecs.T))
                ranked = sorted(best, key=lambda c: -best[c])
                for rank, cid in enumerate(ranked, start=1):
                    scores[cid] += p.sentence_weight / (p.rrf_k + rank)
                # Chunks without stored sentence vectors (a document embedded before they
                # were stored) keep their place: their fused rank counts for this list.
                for rank, cid in enumerate(cand, start=1):
                    if cid not in best:
                        scores[cid] += p.sentence_weight / (p.rrf_k + rank)
                order = sorted(scores, key=lambda c: -scores[c])
            timings["sentences"] = ms_since(t, 3)

        pool = order[:pool_size]
        t = time.perf_counter()
        # Only chunks of committed documents: a writer in another process (or one killed
        # mid-document) may have chunks in the tables whose commit marker is not there yet.
        # The character maps are left out: a search result does not need them.
        self._fetch(chunks, pool, docs)
        timings["fetch"] = ms_since(t, 3)
        if p.title_boost or p.coverage_boost:
            for cid, c in chunks.items():
                scores[cid] += p.title_boost * title_overlap(terms, c.section) / p.rrf_k
                scores[cid] += p.coverage_boost * term_coverage(terms, c.text) / p.rrf_k
            pool.sort(key=lambda c: -scores[c])
        kept = dedupe(
            (
                Passage(c.chunk_id, c.doc_id, c.ordinal, c.text)
                for c in (chunks[cid] for cid in pool if cid in chunks)
            ),
            overlap=p.dedupe_overlap,
            adjacent=p.dedupe_adjacent,
            limit=top_k,
        )
        keyword_rank = {cid: i for i, cid in enumerate(text_ids, start=1)}
        vector_rank = {cid: i for i, cid in enumerate(vec_ids, start=1)}
        hits = []
        for rank, passage in enumerate(kept, start=1):
            c = chunks[passage.chunk_id]
            d = docs.get(c.doc_id)
            hits.append(
                SearchHit(
                    rank=rank,
                    chunk_id=c.chunk_id,
                    doc_id=c.doc_id,
                    file=d.file if d else "",
                    title=d.title if d else "",
                    page_start=c.page_start,
                    page_end=c.page_end,
                    section=c.section,
                    score=round(scores[c.chunk_id], 6),
                    text=c.text,
                    keyword_rank=keyword_rank.get(c.chunk_id, 0),
                    vector_rank=vector_rank.get(c.chunk_id, 0),
                )
            )
        timings["total"] = ms_since(t0, 3)
        return hits, timings

    def _translated(self, query: str, in_scope: Sequence[Document]) -> str:
        """``query``'s words in the languages of the documents in scope other than its own
        (``app.core.lexicon``); empty when every document is in the question's language, or
        no word list from it is shipped (a Korean question, a Danish one). The translation
        searches the whole scope: the words no list has (names, commands, numbers) are kept
        as asked, and a page in the question's own language may have them too."""
        if main_script(query) != "latin":
            return ""
        lang = detect_language(query)
        present = self._languages(in_scope)
        targets = [t for t in PAIRS.get(lang, ()) if t in present]
        return translate(query, lang, targets) if targets else ""

    def _sentence_languages(self, query: str, in_scope: Sequence[Document]) -> set[str] | None:
        """The languages of the documents whose sentences the sentence list may score: None
        for all (a multilingual embedder, or the gate off), an empty set for none (a question
        in a language the embedder's words do not know: its sentence cosines are noise)."""
        p = self.params
        if not p.sentence_weight or not p.sentence_languages_only or self.embedder is None:
            return None
        known = word_languages(self.embedder.name)
        if known is None:
            return None
        if main_script(query) != "latin" or detect_language(query) not in known:
            return set()
        self._languages(in_scope)  # each document's language, judged once
        return set(known)

    def _languages(self, in_scope: Sequence[Document]) -> set[str]:
        """The languages the documents in scope are written in, each judged once by
        :func:`~app.core.textkit.detect_language` over three of its chunks (a quarter, half
        and three quarters in) and remembered by its id (a hash of its content)."""
        todo = [d for d in in_scope if d.doc_id not in self._doc_language and d.chunks]
        if todo:
            ids = [
                f"{d.doc_id}:{o:05d}"
                for d in todo
                for o in sorted({d.chunks // 4, d.chunks // 2, (3 * d.chunks) // 4})
            ]
            texts: dict[str, list[str]] = {}
            for c in self.store.get_chunks(ids, charmap=False):
                texts.setdefault(c.doc_id, []).append(c.text)
            for d in todo:  # none of its samples readable: no language, and not asked again
                sample = "\n".join(texts.get(d.doc_id, ()))
                self._doc_language[d.doc_id] = detect_language(sample) if sample else ""
        return {self._doc_language[d.doc_id] for d in in_scope if d.doc_id in self._doc_language}

    def _fuse(
        self,
        lists: Sequence[tuple[Sequence[str], float]],
        text_ids: Sequence[str],
        in_vec: set[str],
        pending: set[str],
        as_vectors: float,
    ) -> dict[str, float]:
        scores = reciprocal_rank_fusion(lists, k=self.params.rrf_k)
        if pending:
            # Keyword-only documents: count their keyword rank for the vector lists too.
            for rank, cid in enumerate(text_ids, start=1):
                if cid not in in_vec and _doc_of(cid) in pending:
                    scores[cid] += as_vectors / (self.params.rrf_k + rank)
        return scores

    def _fetch(self, chunks: dict[str, Chunk], ids: Sequence[str], docs: dict) -> None:
        """Fetch the chunks of ``ids`` not fetched yet, of committed documents only."""
        chunks.update(self._fetched([c for c in ids if c not in chunks], docs))

    def _fetched(self, ids: Sequence[str], docs: dict) -> dict[str, Chunk]:
        if not ids:
            return {}
        return {
            c.chunk_id: c for c in self.store.get_chunks(ids, charmap=False) if c.doc_id in docs
        }

    def _pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(2, thread_name_prefix="footnote-search")
            return self._executor

    def _vector_ids(self, vec: np.ndarray, n: int, scope: Sequence[str] | None) -> list[str]:
        """Vector candidates; a failing vector index degrades to fewer (or keyword-only) results.

        Why: an ANN index can refuse a query shape (LanceDB 0.40 HNSW rejects a k above its
        ``ef`` after refinement); a search that still answers from BM25 beats an error.
        """
        for k in dict.fromkeys((min(n, self._vector_cap), SAFE_VECTOR_K)):
            try:
                return [cid for cid, _ in self.store.vector_search(vec, k, scope)]
            except Exception:
                if k <= SAFE_VECTOR_K:
                    logger.exception("vector search failed; keyword results only")
                    return []
                # The same request would fail again: ask for fewer from now on.
                logger.exception("vector search failed for k=%d; capping at %d", k, SAFE_VECTOR_K)
                self._vector_cap = SAFE_VECTOR_K
        return []

    def _timed_text_search(
        self, query: str, k: int, scope: Sequence[str] | None
    ) -> tuple[list[str], float]:
        t = time.perf_counter()
        ids = [cid for cid, _ in self.store.text_search(query, k, scope)]
        return ids, ms_since(t, 3)


def focus_of(query: str) -> str | None:
    """The part of ``query`` that asks, without the asker's talk and the situation told
    before it (:func:`app.core.asking.topic`, :func:`~app.core.asking.asking_part`); None
    when that is the whole query, as it is for most questions asked plainly."""
    focus = asking_part(topic(query)).strip()
    if not focus or collapse_ws(focus) == collapse_ws(query):
        return None
    return focus


def _doc_of(chunk_id: str) -> str:
    return chunk_id.rsplit(":", 1)[0]
