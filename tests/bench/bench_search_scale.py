"""Search latency at 10,000 and 100,000 chunks, each retrieval lever on and off (issue 31).

Synthetic stores are filled by replicating a real library's chunks with their stored chunk and
sentence vectors under new ids (``common.synthetic_copy``), flat below the ANN threshold and
HNSW above it, exactly as ``Store.optimize`` builds them. Every query is searched under each
setting in turn (interleaved, so a busy moment of a shared machine falls on all of them), after
three warm-up queries; p50 / p95 of ``HybridRetriever.search_with_timings`` per setting and
where the time goes (embed, text, vector, sentences, feedback, fetch).

    python -m tests.bench.bench_search_scale LIBRARY [--sizes 10000,100000] [--keep DIR]
        [--setting name=sentence_weight=1 ...]

LIBRARY should hold sentence vectors (``Library.embed_sentences`` adds them); a chunk whose
sentences it has not stored borrows another chunk's, so the sentence list costs what it costs. The queries are the real corpus's question texts (nothing about
any question is printed).
"""

from __future__ import annotations

import argparse
import logging
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings
from app.retrieval import FusionParams, HybridRetriever, SentenceTransformerEmbedder
from app.services.library import Library
from app.store import Store
from tests.bench.common import pct, synthetic_copy
from tests.bench.real import corpus as real_corpus
from tests.bench.retrieval_levers import parse_point

PARTS = ("embed", "text", "translated", "vector", "sentences", "feedback", "fetch")


def source_rows(lib: Library) -> list[tuple[Any, Any, np.ndarray, tuple[list[int], np.ndarray]]]:
    """(document, chunk, chunk vector, (sentence keys, sentence vectors)) of every chunk."""
    out = []
    for d in lib.documents():
        ids, vecs = lib.store.chunk_vectors(d.doc_id)
        by_id = dict(zip(ids, vecs, strict=True))
        chunks = lib.store.chunks_of(d.doc_id)
        sents = lib.store.stored_sentences([c.chunk_id for c in chunks])
        dim = vecs.shape[1] if len(vecs) else 384
        empty = ([], np.zeros((0, dim), dtype=np.float32))
        out.extend(
            (d, c, by_id[c.chunk_id], sents.get(c.chunk_id, empty))
            for c in chunks
            if c.chunk_id in by_id
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.bench_search_scale")
    ap.add_argument("library", type=Path)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--keep", type=Path, default=None, help="build (or reuse) the stores here")
    ap.add_argument(
        "--setting",
        action="append",
        default=[],
        help="NAME=overrides, e.g. 'sentences=sentence_weight=1' (repeatable); "
        "'default' (FusionParams()) is always measured",
    )
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    lib = Library(Settings(library=args.library))
    embedder = SentenceTransformerEmbedder()  # uncached: each setting embeds its query
    rows = source_rows(lib)
    docs = real_corpus.load_manifest()
    queries = [q.question for q in real_corpus.load_real_questions(real_corpus.QUESTIONS, docs)]
    queries = queries[: args.queries]
    settings: dict[str, FusionParams] = {"default": FusionParams()}
    for s in args.setting:
        name, _, over = s.partition("=")
        settings[name] = replace(FusionParams(), **parse_point(over))
    with_sentences = sum(len(r[3][0]) > 0 for r in rows)
    donors = [r[3] for r in rows if len(r[3][0])]
    if donors:  # a chunk whose sentences the source has not stored borrows another's
        rows = [
            (d, c, v, sent if len(sent[0]) else donors[i % len(donors)])
            for i, (d, c, v, sent) in enumerate(rows)
        ]
    print(
        f"source: {len(rows)} chunks ({with_sentences} with sentence vectors), "
        f"{len(queries)} queries, settings {', '.join(settings)}",
        flush=True,
    )
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="footnote-scale-"))
    try:
        store = Store(workdir / "scale")
        store.set_embedder(embedder.name, embedder.dim)
        per_doc, copy_no = 2_000, store.count_chunks() // 2_000
        for size in sorted(int(x) for x in args.sizes.split(",") if x.strip()):
            if store.count_chunks() > size:  # a kept store from a run with larger sizes
                print(
                    f"{size} chunks: skipped, the kept store already holds "
                    f"{store.count_chunks()} (use another --keep folder)",
                    flush=True,
                )
                continue
            t0 = time.perf_counter()
            while store.count_chunks() < size:
                n = min(per_doc, size - store.count_chunks())
                parsed, vecs = synthetic_copy(
                    [(d, c, v) for d, c, v, _ in rows], copy_no, n, start=copy_no * per_doc
                )
                doc_id = parsed.document.doc_id
                store.add_document(parsed)
                sentences = [
                    (c.chunk_id, *rows[(copy_no * per_doc + i) % len(rows)][3])
                    for i, c in enumerate(parsed.chunks)
                ]
                store.add_sentence_vectors(doc_id, sentences)
                store.add_vectors(doc_id, [c.chunk_id for c in parsed.chunks], np.stack(vecs))
                store.mark_ready(doc_id)
                copy_no += 1
            store.optimize()
            fill = time.perf_counter() - t0
            retrievers = {n: HybridRetriever(store, embedder, p) for n, p in settings.items()}
            for r in retrievers.values():
                for q in queries[:3]:
                    r.search(q, top_k=8)
            lat: dict[str, list[float]] = {n: [] for n in settings}
            parts: dict[str, dict[str, list[float]]] = {n: {k: [] for k in PARTS} for n in settings}
            for q in queries:
                for n, r in retrievers.items():
                    t = time.perf_counter()
                    _, timings = r.search_with_timings(q, top_k=8)
                    lat[n].append((time.perf_counter() - t) * 1000)
                    for k in PARTS:
                        parts[n][k].append(timings.get(k, 0.0))
            index = "ann" if store.has_vector_index() else "flat"
            print(f"{store.count_chunks()} chunks ({index}; built in {fill:.0f}s):", flush=True)
            for n in settings:
                where = ", ".join(f"{k} {pct(parts[n][k], 50)}" for k in PARTS if any(parts[n][k]))
                print(
                    f"  {n:<12} p50 {pct(lat[n], 50)} ms  p95 {pct(lat[n], 95)} ms"
                    f"  (p50 by part: {where})",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
