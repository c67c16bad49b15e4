"""Fusion weights learned on folds: a retrieval lever judged by document-held-out
cross-validation on the real corpus (issues 29 and 31).

The lever's parameters are the reciprocal-rank-fusion knobs of ``FusionParams`` (keyword and
vector weights, the rank constant, the asking part's weight). For each fold the grid point with
the best page recall@5 (then MRR) on the other folds' questions is chosen and scored on the
fold's own, whole document families held out. The store's answers to each query are cached, so
every grid point re-fuses the same candidate lists instead of searching again.

    python -m tests.bench.tune_fusion LIBRARY [--cv 5]

LIBRARY is a library of the real corpus (``make eval SET=real EVAL_ARGS="--library DIR"``
builds ``DIR/real``). Nothing is written to it.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings
from app.core.models import Chunk, Document
from app.retrieval import FusionParams, HybridRetriever
from app.services.library import Library
from tests.bench.eval_metrics import evidence_rank, gold_rank
from tests.bench.real import corpus as real_corpus

logger = logging.getLogger(__name__)

GRID = {
    "text_weight": (1.0, 1.5, 2.0, 3.0),
    "vector_weight": (1.0,),
    "rrf_k": (5.0, 10.0, 30.0, 60.0),
    "focus_weight": (0.0, 0.3, 0.6),
}


class CachedStore:
    """The library's store with every search and fetch remembered (read-only use)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._docs: list[Document] | None = None

    def _cached(self, key: tuple[Any, ...], call: Any) -> Any:
        if key not in self._memo:
            self._memo[key] = call()
        return self._memo[key]

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        scope = tuple(doc_ids) if doc_ids is not None else None
        return self._cached(
            ("t", query, k, scope), lambda: self.store.text_search(query, k, doc_ids)
        )

    def vector_search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        scope = tuple(doc_ids) if doc_ids is not None else None
        key = ("v", vec.tobytes(), k, scope)
        return self._cached(key, lambda: self.store.vector_search(vec, k, doc_ids))

    def get_chunks(self, chunk_ids: Sequence[str], *, charmap: bool = True) -> list[Chunk]:
        missing = [c for c in chunk_ids if ("c", c) not in self._memo]
        if missing:
            for chunk in self.store.get_chunks(missing, charmap=False):
                self._memo[("c", chunk.chunk_id)] = chunk
        return [self._memo[("c", c)] for c in chunk_ids if ("c", c) in self._memo]

    def documents(self) -> list[Document]:
        if self._docs is None:
            self._docs = self.store.documents()
        return self._docs


class CachedEmbedder:
    """The embedder with every text's vector remembered."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in texts if t not in self._memo]
        if todo:
            for t, v in zip(todo, self.embedder.embed(todo), strict=True):
                self._memo[t] = v
        return np.stack([self._memo[t] for t in texts])

    def __getattr__(self, name: str) -> Any:  # dimension, model name: as the real one
        return getattr(self.embedder, name)


def ranks(
    retriever: HybridRetriever, questions: Sequence[real_corpus.RealQuestion], doc_ids: dict
) -> list[tuple[int | None, int | None]]:
    """(page rank, evidence rank) of every answerable question, top 8."""
    out = []
    for q in questions:
        hits = retriever.search(q.question, top_k=8)
        out.append(
            (gold_rank(hits, doc_ids.get(q.document), q.page), evidence_rank(hits, q.evidence))
        )
    return out


def figures(rs: Sequence[tuple[int | None, int | None]]) -> dict[str, float]:
    n = max(1, len(rs))
    return {
        "recall@5": sum(r is not None and r <= 5 for r, _ in rs) / n,
        "evidence@5": sum(e is not None and e <= 5 for _, e in rs) / n,
        "mrr": sum(1 / r for r, _ in rs if r) / n,
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.tune_fusion")
    p.add_argument("library", type=Path, help="A library folder of the real corpus.")
    p.add_argument("--cv", type=int, default=5)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    docs = real_corpus.load_manifest()
    fold_of = real_corpus.folds(docs, args.cv)
    questions = [
        q for q in real_corpus.load_real_questions(real_corpus.QUESTIONS, docs) if q.answerable
    ]
    library = Library(Settings(library=args.library))
    doc_ids = {Path(d.file).name: d.doc_id for d in library.store.documents()}
    store = CachedStore(library.store)
    embedder = CachedEmbedder(library.embedder)

    grid = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    default = FusionParams()
    t0 = time.perf_counter()
    per_point: list[list[tuple[int | None, int | None]]] = []
    for point in grid:
        retriever = HybridRetriever(store, embedder, replace(default, **point))
        per_point.append(ranks(retriever, questions, doc_ids))
    base = ranks(HybridRetriever(store, embedder, default), questions, doc_ids)
    print(
        f"{len(grid)} grid points x {len(questions)} questions in {time.perf_counter() - t0:.0f}s"
    )

    def score(rs: Sequence[tuple[int | None, int | None]], idx: list[int]) -> tuple[float, float]:
        f = figures([rs[i] for i in idx])
        return (f["recall@5"], f["mrr"])

    folds_idx = [
        [i for i, q in enumerate(questions) if fold_of[q.document] == f] for f in range(args.cv)
    ]
    chosen_all: list[int] = []
    held: list[tuple[int | None, int | None]] = []
    base_held: list[tuple[int | None, int | None]] = []
    print(
        f"  {'fold':<6}{'Q':>5}  {'chosen (text, vector, k, focus)':<34}{'default':>16}{'fitted':>16}"
    )
    for f, test in enumerate(folds_idx):
        train = [i for g, idx in enumerate(folds_idx) if g != f for i in idx]
        best = max(range(len(grid)), key=lambda j: score(per_point[j], train))
        chosen_all.append(best)
        fitted = [per_point[best][i] for i in test]
        held.extend(fitted)
        base_held.extend(base[i] for i in test)
        pt = grid[best]
        fb, ff = figures([base[i] for i in test]), figures(fitted)
        print(
            f"  {f:<6}{len(test):>5}  {pt['text_weight']:>4} {pt['vector_weight']:>4} "
            f"{pt['rrf_k']:>5} {pt['focus_weight']:>4}{'':<14}"
            f"{100 * fb['recall@5']:>7.1f}% {fb['mrr']:.3f}{100 * ff['recall@5']:>8.1f}% {ff['mrr']:.3f}"
        )
    fb, ff = figures(base_held), figures(held)
    print(
        f"  pooled{len(held):>5}{'':<36}{100 * fb['recall@5']:>7.1f}% {fb['mrr']:.3f}"
        f"{100 * ff['recall@5']:>8.1f}% {ff['mrr']:.3f}"
    )
    print(
        f"evidence recall@5 pooled: default {100 * fb['evidence@5']:.1f}%, "
        f"fitted {100 * ff['evidence@5']:.1f}%"
    )
    everything = list(range(len(questions)))
    best = max(range(len(grid)), key=lambda j: score(per_point[j], everything))
    fa = figures(per_point[best])
    print(
        f"best on all development questions (a development figure): {grid[best]} "
        f"recall@5 {100 * fa['recall@5']:.1f}%, MRR {fa['mrr']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
