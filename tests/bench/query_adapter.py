"""A query-side linear adapter for the embedder, judged by document-held-out cross-validation.

The lever (issue 31): the chunks' vectors stay as ingestion stored them; only the question's
vector is moved, ``q' = normalise(q + W q)``, by a matrix fitted so that a question's vector
lands nearer the chunk that holds its evidence than every other chunk of its library (softmax
over the whole library, L2 penalty on W). It needs no new model and no re-embedding, which is
why it is worth measuring before anything heavier.

Protocol, fixed before any figure was seen:
- real corpus, fold f: W fitted on the other four folds' questions plus every development
  set, scored on fold f's questions with the app's full hybrid search;
- development set d: W fitted on the whole real corpus plus every other development set that
  shares no document (by file content) with d, scored on d.
Only pooled figures are printed, never a question.

    python -m tests.bench.query_adapter REAL_LIBRARY --dev DEV_ROOT [--rank R] [--l2 L]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.retrieval import FusionParams, HybridRetriever
from tests.bench.eval_metrics import evidence_rank, gold_rank, holds_evidence
from tests.bench.question_set import SETS
from tests.bench.retrieval_levers import TOP_K, Bench, dev_bench, figures, fmt, real_bench


@dataclass
class Examples:
    """One bench's training material: question vectors, the library's chunk vectors, and
    which chunks hold each question's evidence."""

    name: str
    queries: np.ndarray  # (n, d) unit question vectors
    chunks: np.ndarray  # (m, d) unit chunk vectors of the whole library
    gold: list[list[int]]  # per question: rows of ``chunks`` holding its evidence (or page)
    group: list[Any]  # per question: its fold (real) or its set's name (dev)
    documents: set[str]  # the library's doc ids (hashes of the files' content)


def examples(bench: Bench) -> Examples:
    store = bench.library.store
    flat = store._flat_vectors()
    assert flat is not None, "library too large for the in-memory scan"
    ids = flat.chunk_ids
    row = {c: i for i, c in enumerate(ids)}
    chunks = {c.chunk_id: c for c in store.get_chunks(ids, charmap=False)}
    by_doc: dict[str, list[str]] = {}
    for c in chunks.values():
        by_doc.setdefault(c.doc_id, []).append(c.chunk_id)
    qv = bench.embedder.embed([q.text for q in bench.questions]).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    gold: list[list[int]] = []
    for q in bench.questions:
        on_page = [
            cid
            for cid in by_doc.get(q.doc_id or "", [])
            if chunks[cid].page_start <= q.page <= chunks[cid].page_end
        ]
        holding = [cid for cid in on_page if holds_evidence(chunks[cid].text, q.evidence)]
        gold.append([row[c] for c in (holding or on_page) if c in row])
    docs = {d.doc_id for d in store.documents()}  # a hash of the file's content
    return Examples(
        bench.name,
        qv,
        flat._unit.copy(),
        gold,
        [q.fold if bench.name == "real" else bench.name for q in bench.questions],
        docs,
    )


def fit(
    parts: Sequence[tuple[Examples, list[int]]], rank: int, l2: float, steps: int
) -> np.ndarray:
    """W (d, d) of rank ``rank`` (0: full) fitted on the given questions of each bench."""
    import torch

    torch.manual_seed(0)
    d = parts[0][0].queries.shape[1]
    if rank:
        u = torch.nn.Parameter(torch.randn(d, rank) * 0.01)
        v = torch.nn.Parameter(torch.zeros(rank, d))
        params = [u, v]

        def matrix() -> torch.Tensor:
            return u @ v
    else:
        w = torch.nn.Parameter(torch.zeros(d, d))
        params = [w]

        def matrix() -> torch.Tensor:
            return w

    data = []
    for ex, idx in parts:
        keep = [i for i in idx if ex.gold[i]]
        if not keep:
            continue
        target = torch.zeros(len(keep), len(ex.chunks))
        for j, i in enumerate(keep):
            target[j, ex.gold[i]] = 1.0
        data.append((torch.from_numpy(ex.queries[keep]), torch.from_numpy(ex.chunks), target))
    n = sum(len(q) for q, _, _ in data)
    opt = torch.optim.Adam(params, lr=3e-3)
    scale = 20.0
    for _ in range(steps):
        opt.zero_grad()
        m = matrix()
        loss = torch.zeros(())
        for q, c, target in data:
            moved = q + q @ m
            moved = moved / moved.norm(dim=1, keepdim=True)
            logits = scale * moved @ c.T
            lse = torch.logsumexp(logits, dim=1)
            pos = torch.logsumexp(logits.masked_fill(target == 0, -1e9), dim=1)
            loss = loss + (lse - pos).sum()
        loss = loss / n + l2 * (m**2).sum()
        loss.backward()
        opt.step()
    return matrix().detach().numpy().astype(np.float32)


class AdaptedEmbedder:
    """The bench's embedder with every vector it returns moved by W."""

    def __init__(self, embedder: Any, w: np.ndarray) -> None:
        self.embedder = embedder
        self.w = w

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        v = self.embedder.embed(texts).astype(np.float32)
        v = v + v @ self.w
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.embedder, name)


def scored(bench: Bench, w: np.ndarray | None, idx: Sequence[int]) -> list[tuple[Any, Any]]:
    emb = bench.embedder if w is None else AdaptedEmbedder(bench.embedder, w)
    r = HybridRetriever(bench.store, emb, FusionParams())
    out = []
    for i in idx:
        q = bench.questions[i]
        hits = r.search(q.text, top_k=TOP_K)
        out.append((gold_rank(hits, q.doc_id, q.page), evidence_rank(hits, q.evidence)))
    return out


def dense_recall(ex: Examples, w: np.ndarray | None, idx: Sequence[int], k: int = 5) -> float:
    q = ex.queries[idx]
    if w is not None:
        q = q + q @ w
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
    s = q @ ex.chunks.T
    top = np.argsort(-s, axis=1)[:, :k]
    hit = [bool(set(top[j]) & set(ex.gold[i])) for j, i in enumerate(idx)]
    return sum(hit) / max(1, len(hit))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.query_adapter")
    p.add_argument("library", type=Path)
    p.add_argument("--dev", type=Path, required=True)
    p.add_argument("--cv", type=int, default=5)
    p.add_argument("--rank", type=int, default=0, help="Rank of W (0: full).")
    p.add_argument("--l2", type=float, default=1e-3)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument(
        "--dense-only", action="store_true", help="Only the dense recall of the real folds."
    )
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    real = real_bench(args.library, args.cv)
    devs = [b for name in SETS if (b := dev_bench(name, args.dev)) is not None and b.questions]
    benches = [real, *devs]
    exs = {b.name: examples(b) for b in benches}
    print(
        f"{sum(len(b.questions) for b in benches)} answerable questions with evidence "
        f"({time.perf_counter() - t0:.0f}s); rank {args.rank or 'full'}, l2 {args.l2}, "
        f"{args.steps} steps"
    )
    ex_real = exs["real"]
    base_all: list[tuple[Any, Any]] = [(None, None)] * len(real.questions)
    moved_all: list[tuple[Any, Any]] = [(None, None)] * len(real.questions)
    dense_base, dense_moved = [], []
    for fold in range(args.cv):
        train = [i for i, g in enumerate(ex_real.group) if g != fold]
        test = [i for i, g in enumerate(ex_real.group) if g == fold]
        parts = [(ex_real, train)] + [(exs[b.name], list(range(len(b.questions)))) for b in devs]
        w = fit(parts, args.rank, args.l2, args.steps)
        dense_base.append(dense_recall(ex_real, None, test) * len(test))
        dense_moved.append(dense_recall(ex_real, w, test) * len(test))
        print(f"  fold {fold}: |W| {np.linalg.norm(w):.2f} ({time.perf_counter() - t0:.0f}s)")
        if args.dense_only:
            continue
        for i, r in zip(test, scored(real, None, test), strict=True):
            base_all[i] = r
        for i, r in zip(test, scored(real, w, test), strict=True):
            moved_all[i] = r
    n = len(real.questions)
    print(f"real  dense chunk recall@5 {sum(dense_base) / n:.3f} -> {sum(dense_moved) / n:.3f}")
    if args.dense_only:
        return 0
    print(f"real  today   {fmt(figures(base_all))}")
    print(f"real  adapted {fmt(figures(moved_all))}")
    for b in devs:
        ex = exs[b.name]
        parts = [(ex_real, list(range(n)))] + [
            (exs[o.name], list(range(len(o.questions))))
            for o in devs
            if o is not b and not (exs[o.name].documents & ex.documents)
        ]
        w = fit(parts, args.rank, args.l2, args.steps)
        idx = list(range(len(b.questions)))
        print(
            f"{b.name:<8} n={len(idx):<3} (fitted beside {len(parts) - 1} sets) "
            f"today {fmt(figures(scored(b, None, idx)))} | adapted {fmt(figures(scored(b, w, idx)))}"
        )
    print(f"({time.perf_counter() - t0:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
