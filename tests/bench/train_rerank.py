"""Fit the reranker (``make train-rerank``), cross-validated by document, and ship it.

    python -m tests.bench.train_rerank REAL_LIBRARY [--dev DEV_ROOT] [--cv 5] [--write]

REAL_LIBRARY is a library of the real corpus (``eval_answers --set real --library DIR`` builds
``DIR/real``); DEV_ROOT the ``--library`` folder of ``eval_answers --set all``. For every
answerable development question of the real corpus the search's best fused candidates are
described as the app describes them (``HybridRetriever.candidates``: the rows of
``app.retrieval.rerank.FEATURES``) and labelled by whether they lie on the question's page.

Cross-validation: for each of the K folds of whole document families
(``tests.bench.real.corpus.folds``) a logistic regression is fitted on the other folds'
candidates and the held-out fold's questions are searched again through the real retriever with
that model, so de-duplication and everything after the reranking run as they ship. Only pooled
figures are printed (page and evidence recall@5, MRR; per language pair with --languages),
never a question. The development sets are searched with the model fitted on the whole real
development corpus: none of their documents is in it, so their figures are held out too.
``--write`` writes that model to ``resources/rerank_model.json``. The sealed fifth never enters.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.resources import resources_dir
from app.retrieval import FusionParams, HybridRetriever
from app.retrieval.rerank import FEATURES, MODEL_FILE, Reranker
from tests.bench.eval_metrics import evidence_rank, gold_rank
from tests.bench.question_set import SETS
from tests.bench.retrieval_levers import Bench, Q, Ranks, dev_bench, figures, fmt, languages
from tests.bench.retrieval_levers import real_bench as levers_real_bench

POOL = 30
"""How many of the best fused candidates the reranker orders (the pool of the sentence
list, measured on the real corpus in issue 31); fixed, not fitted."""
C = 1.0
"""The logistic regression's inverse regularisation (scikit-learn's default); fixed."""
TOP_K = 8
DROP: frozenset[str] = frozenset()
POINTWISE = False


@dataclass
class Rows:
    """Every question's candidates as feature rows and labels."""

    x: np.ndarray
    on_page: np.ndarray
    question: np.ndarray


def collect(bench: Bench, pool: int = POOL) -> Rows:
    """Each question's ``pool`` best fused candidates, with the label "on its page"."""
    r = HybridRetriever(bench.store, bench.embedder, FusionParams())
    xs, ys, qs = [], [], []
    for i, q in enumerate(bench.questions):
        for chunk, row in r.candidates(q.text, pool):
            xs.append([row[f] for f in FEATURES])
            ys.append(
                float(chunk.doc_id == q.doc_id and chunk.page_start <= q.page <= chunk.page_end)
            )
            qs.append(i)
    return Rows(np.array(xs, dtype=float), np.array(ys), np.array(qs))


def pairs(x: np.ndarray, y: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Within each question, every candidate on the page against every one off it: the
    difference of their rows, labelled 1, and its negation, labelled 0 (a linear RankNet)."""
    dx = []
    for qi in np.unique(q):
        idx = np.flatnonzero(q == qi)
        pos = idx[y[idx] > 0]
        neg = idx[y[idx] <= 0]
        if len(pos) and len(neg):
            d = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1])
            dx.append(d)
    d = np.concatenate(dx) if dx else np.zeros((0, x.shape[1]))
    return np.concatenate([d, -d]), np.concatenate([np.ones(len(d)), np.zeros(len(d))])


def fit(
    x: np.ndarray,
    y: np.ndarray,
    q: np.ndarray,
    pool: int = POOL,
    about: dict | None = None,
) -> Reranker:
    """A linear pairwise ranker over standardised features, as a :class:`Reranker`: a
    logistic regression on the differences of on-page and off-page candidates of the same
    question, so it learns only what orders one question's candidates."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    keep = np.array([f not in DROP for f in FEATURES])
    z = (x - mean) / scale * keep
    if POINTWISE:
        model = LogisticRegression(C=C, max_iter=2000).fit(z, y)
    else:
        dx, dy = pairs(z, y, q)
        model = LogisticRegression(C=C, max_iter=2000, fit_intercept=False).fit(dx, dy)
    return Reranker(
        features=FEATURES,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        coef=tuple(float(v) * k for v, k in zip(model.coef_[0], keep, strict=True)),
        intercept=float(model.intercept_[0]) if POINTWISE else 0.0,
        pool=pool,
        about=about or {},
    )


def search_ranks(bench: Bench, reranker: Reranker | None, idx: Sequence[int]) -> Ranks:
    r = HybridRetriever(bench.store, bench.embedder, FusionParams(), reranker=reranker)
    out: Ranks = []
    for i in idx:
        q: Q = bench.questions[i]
        hits = r.search(q.text, top_k=TOP_K)
        out.append((gold_rank(hits, q.doc_id, q.page), evidence_rank(hits, q.evidence)))
    return out


def cross_validate(bench: Bench, rows: Rows, k: int) -> Ranks:
    """Each question searched with the model fitted without its fold."""
    held: Ranks = [(None, None)] * len(bench.questions)
    fold_of_row = np.array([bench.questions[i].fold for i in rows.question])
    for fold in range(k):
        train = fold_of_row != fold
        model = fit(rows.x[train], rows.on_page[train], rows.question[train])
        test = [i for i, q in enumerate(bench.questions) if q.fold == fold]
        for i, r in zip(test, search_ranks(bench, model, test), strict=True):
            held[i] = r
    return held


def write(model: Reranker, path: Path) -> None:
    data = {
        "about": model.about,
        "features": list(model.features),
        "pool": model.pool,
        "intercept": round(model.intercept, 6),
        "weights": {
            n: {"weight": round(c, 6), "mean": round(m, 6), "scale": round(s, 6)}
            for n, c, m, s in zip(model.features, model.coef, model.mean, model.scale, strict=True)
        },
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.train_rerank")
    p.add_argument("library", type=Path, help="A library folder of the real corpus.")
    p.add_argument("--dev", type=Path, default=None, help="eval_answers --library root of --set all.")
    p.add_argument("--cv", type=int, default=5)
    p.add_argument("--languages", action="store_true", help="Figures per language pair.")
    p.add_argument("--drop", default="", help="Features to leave out (a,b), for ablations.")
    p.add_argument("--pointwise", action="store_true", help="Fit on candidates, not pairs.")
    p.add_argument("--write", action="store_true", help=f"Write resources/{MODEL_FILE}.")
    args = p.parse_args(argv)
    global DROP, POINTWISE
    DROP = frozenset(filter(None, args.drop.split(",")))
    POINTWISE = args.pointwise
    t0 = time.perf_counter()
    real = levers_real_bench(args.library, args.cv)
    everyone = list(range(len(real.questions)))
    base = search_ranks(real, None, everyone)
    rows = collect(real)
    n_pos = int(rows.on_page.sum())
    in_pool = len({int(q) for q, y in zip(rows.question, rows.on_page, strict=True) if y})
    print(
        f"real: {len(real.questions)} answerable development questions, {args.cv} folds; "
        f"{len(rows.on_page)} candidates ({n_pos} on the page); the page among the "
        f"{POOL} best fused for {in_pool / max(1, len(real.questions)):.3f}"
    )
    print(f"  fused order (today):                 {fmt(figures(base))}")
    held = cross_validate(real, rows, args.cv)
    print(f"  reranked, fitted on 4 folds, 5th:    {fmt(figures(held))}")
    if args.languages:
        print("  today, per language pair:")
        print("\n".join(languages(real, base)))
        print("  reranked (held out), per language pair:")
        print("\n".join(languages(real, held)))
    model = fit(
        rows.x,
        rows.on_page,
        rows.question,
        about={
            "fitted": dt.date.today().isoformat(),
            "questions": len(real.questions),
            "candidates": len(rows.on_page),
            "cross-validated (real corpus, page@5 / evidence@5 / MRR)": {
                "fused": [round(v, 3) for v in figures(base).values()],
                "reranked": [round(v, 3) for v in figures(held).values()],
            },
        },
    )
    print("  weights (standardised):")
    for n, c in sorted(zip(model.features, model.coef, strict=True), key=lambda t: -abs(t[1])):
        print(f"    {n:<18} {c:+.3f}")
    if args.dev is not None:
        for name in SETS:
            bench = dev_bench(name, args.dev)
            if bench is None or not bench.questions:
                continue
            idx = list(range(len(bench.questions)))
            today = figures(search_ranks(bench, None, idx))
            ranked = figures(search_ranks(bench, model, idx))
            print(f"{name:<9} n={len(idx):<3} today {fmt(today)} | reranked {fmt(ranked)}")
    if args.write:
        path = resources_dir() / MODEL_FILE
        write(model, path)
        print(f"wrote {path}")
    print(f"({time.perf_counter() - t0:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
