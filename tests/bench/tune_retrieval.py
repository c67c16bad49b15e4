"""Tune retrieval on a library built by ``bench_ingest --keep DIR``: embedder levers and fusion.

For each embedder variant (token cap, int8) it re-embeds every chunk of the library in
memory (timed), then scores page recall@k of dense-only, BM25-only and hybrid search
with several fusion settings, using the library's real BM25 index. Nothing is written.

Usage: ``python -m tests.bench.tune_retrieval DIR [--variants 256,192:int8,128:int8]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings
from app.core.models import Chunk, Document
from app.retrieval import FusionParams, HybridRetriever, SentenceTransformerEmbedder
from app.services.library import Library, embedding_text
from tests.bench.common import evaluate
from tests.bench.question_set import QUESTIONS_PATH, load_questions

logger = logging.getLogger(__name__)


class MemoryVectors:
    """The library's store for everything but vectors, which come from an in-memory matrix."""

    def __init__(self, store: Any, ids: list[str], doc_of: list[str], matrix: np.ndarray) -> None:
        self.store = store
        self.ids = ids
        self.doc_of = np.array(doc_of)
        self.matrix = matrix

    def text_search(self, query: str, k: int, doc_ids: Sequence[str] | None = None):
        return self.store.text_search(query, k, doc_ids)

    def vector_search(self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None):
        sims = self.matrix @ vec
        if doc_ids is not None:
            sims = np.where(np.isin(self.doc_of, list(doc_ids)), sims, -2.0)
        top = np.argsort(-sims)[:k]
        return [(self.ids[i], float(sims[i])) for i in top]

    def get_chunks(self, chunk_ids: Sequence[str], *, charmap: bool = True) -> list[Chunk]:
        return self.store.get_chunks(chunk_ids, charmap=charmap)

    def documents(self) -> list[Document]:
        return [d.model_copy(update={"status": "ready"}) for d in self.store.documents()]


def variants(spec: str) -> list[tuple[int, bool]]:
    out = []
    for part in spec.split(","):
        msl, _, q = part.partition(":")
        out.append((int(msl), q == "int8"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("library", type=Path)
    ap.add_argument("--variants", default="256")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("bench-results/tune_retrieval.json"))
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    lib = Library(Settings(library=args.library / "library"))
    store = lib.store
    questions = load_questions(QUESTIONS_PATH)
    docs = store.documents()
    doc_ids = {Path(d.file).name: d.doc_id for d in docs}
    rows = [(d, c) for d in docs for c in store.chunks_of(d.doc_id)]
    texts = [embedding_text(d.title, c.section, c.text) for d, c in rows]
    ids = [c.chunk_id for _, c in rows]
    fusions = {
        "bm25": FusionParams(vector_weight=0.0),
        "dense": FusionParams(text_weight=0.0),
        "rrf": FusionParams(text_weight=1.0),
        "rrf_t1.5": FusionParams(text_weight=1.5),
        "rrf_v1.5": FusionParams(vector_weight=1.5),
        "rrf_k20": FusionParams(rrf_k=20.0),
        "rrf_t2": FusionParams(text_weight=2.0),
        "rrf_title": FusionParams(text_weight=1.5, title_boost=0.5),
        "rrf_cov": FusionParams(text_weight=1.5, coverage_boost=0.5),
        "rrf_adj": FusionParams(text_weight=1.5, dedupe_adjacent=True),
    }
    results: dict[str, Any] = {}
    for msl, q in variants(args.variants):
        emb = SentenceTransformerEmbedder(max_seq_length=msl, quantize=q)
        emb.embed(["warm up"])
        w, c = time.perf_counter(), time.process_time()
        matrix = emb.embed(texts)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        mem = MemoryVectors(store, ids, [c.doc_id for _, c in rows], matrix)
        name = emb.name
        results[name] = {
            "chunks_per_s": round(len(texts) / wall, 1),
            "chunks_per_cpu_s": round(len(texts) / cpu, 1),
        }
        print(f"{name}: {results[name]}", flush=True)
        for label, params in fusions.items():
            r = HybridRetriever(mem, emb, params)
            rep = evaluate(lambda s, n, r=r: r.search(s, top_k=n), questions, doc_ids, k=args.k)
            d = rep.as_dict()
            results[name][label] = {"page_recall": d["page_recall"], "misses": d["misses"]}
            print(
                f"  {label:10s} page recall@{args.k} {d['page_recall']}  ev {d['evidence_recall']}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
