"""Retrieval levers judged by document-held-out cross-validation (issue 31).

Every lever is a small grid of ``FusionParams`` settings, "off" among them. For each fold of
the real corpus (whole document families, ``tests.bench.real.corpus.folds``) the grid point
with the best page recall@5 (then evidence recall@5, then MRR) on the other four folds'
questions is chosen and scored on the fold's own: the ``crossval.Lever`` protocol, with the
lever re-running the search instead of re-reading an outcome. The store's answers and the
query vectors are cached, so every grid point re-fuses the same candidate lists.

Only pooled figures are printed (per fold, per lever, per language pair): never a question,
never a per-question outcome.

    python -m tests.bench.retrieval_levers REAL_LIBRARY [--dev DEV_ROOT] [--levers a,b]

REAL_LIBRARY is a library of the real corpus (``eval_answers --set real --library DIR``
builds ``DIR/real``); DEV_ROOT is the ``--library`` folder of ``eval_answers --set all``
(one library per development set). Nothing is written to either.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings
from app.retrieval import FusionParams, HybridRetriever
from app.services.library import Library
from tests.bench.eval_metrics import evidence_rank, gold_rank
from tests.bench.question_set import SETS, load_questions
from tests.bench.real import corpus as real_corpus
from tests.bench.tune_fusion import CachedEmbedder, CachedStore

logger = logging.getLogger(__name__)

TOP_K = 8


@dataclass(frozen=True)
class Q:
    """What scoring a search needs of a question (its text never leaves this module)."""

    text: str
    doc_id: str | None
    page: int
    evidence: str
    fold: int = 0
    language: str = ""
    doc_language: str = ""


Ranks = list[tuple[int | None, int | None]]


class SentenceCachedStore(CachedStore):
    """A cached store that also remembers each chunk's stored sentence vectors."""

    prototype: dict[str, np.ndarray] | None = None  # sentence text -> vector (--sentence-cache)
    embed_missing: Any = None  # an embedder: sentences not stored are embedded on the fly

    def sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        missing = [c for c in chunk_ids if ("s", c) not in self._memo]
        if missing:
            got = (
                self._prototype(missing) if self.prototype else self.store.sentence_vectors(missing)
            )
            if self.embed_missing is not None and len(got) < len(missing):
                # Not stored: embedded here as ingestion would store them (sentence_rows).
                from app.services.library import sentence_rows

                got = dict(got)
                todo = self.store.get_chunks([c for c in missing if c not in got], charmap=False)
                for cid, _, vecs in sentence_rows(self.embed_missing, todo, {}):
                    got[cid] = vecs
            for c in missing:
                self._memo[("s", c)] = got.get(c)
        out = {}
        for c in chunk_ids:
            v = self._memo[("s", c)]
            if v is not None:
                out[c] = v
        return out

    def _prototype(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        from app.generation.prompt import _split_text

        assert self.prototype is not None
        out = {}
        for c in self.get_chunks(chunk_ids):
            vs = [self.prototype.get(x.scored_text) for x in _split_text(0, c.text)]
            vs = [v for v in vs if v is not None]
            if vs:
                out[c.chunk_id] = np.stack(vs)
        return out


# Each lever: a grid of FusionParams overrides, the first point being "off" (today's app).
LEVERS: dict[str, list[dict[str, Any]]] = {
    "prf": [
        {},
        *(
            {"prf_weight": w, "prf_docs": d, "prf_terms": t}
            for w, d, t in itertools.product((0.5, 1.0, 2.0), (2, 3, 5), (4, 8, 16))
        ),
    ],
    "sentences": [
        {},
        *(
            {"sentence_weight": w, "sentence_pool": n}
            for w, n in itertools.product((0.5, 1.0, 2.0, 3.0, 4.0), (20, 30, 40))
        ),
    ],
    "translation": [
        *({"translation_weight": w} for w in (0.0, 0.5, 0.75, 1.0, 1.5, 2.0)),
    ],
    "document": [
        {},
        *(
            {"document_weight": w, "document_pool": n}
            for w, n in itertools.product((0.25, 0.5, 1.0, 2.0, 4.0), (10, 20, 40))
        ),
    ],
    "boosts": [
        {},
        *(
            {"title_boost": t, "coverage_boost": c}
            for t, c in itertools.product((0.0, 0.5, 1.0, 2.0), (0.0, 0.5, 1.0, 2.0))
            if t or c
        ),
    ],
    "dedupe": [
        {},
        *(
            {"dedupe_overlap": o, "dedupe_adjacent": a}
            for o, a in itertools.product((0.3, 0.45, 0.6, 0.8), (False, True))
            if (o, a) != (0.6, False)
        ),
        {"candidates": 60},
        {"candidates": 80},
    ],
    "fusion": [
        {},
        *(
            {"text_weight": tw, "rrf_k": k, "focus_weight": fw}
            for tw, k, fw in itertools.product(
                (1.0, 1.5, 2.0, 3.0), (5.0, 10.0, 30.0), (0.0, 0.3, 0.6, 1.0)
            )
        ),
    ],
}


def figures(rs: Ranks) -> dict[str, float]:
    n = max(1, len(rs))
    return {
        "page@5": sum(r is not None and r <= 5 for r, _ in rs) / n,
        "evidence@5": sum(e is not None and e <= 5 for _, e in rs) / n,
        "mrr": sum(1 / r for r, _ in rs if r) / n,
    }


def key(rs: Ranks) -> tuple[float, float, float]:
    f = figures(rs)
    return (round(f["page@5"], 6), round(f["evidence@5"], 6), round(f["mrr"], 6))


class Bench:
    """One library and its answerable questions, searched under any ``FusionParams``."""

    def __init__(self, name: str, library: Path, questions: list[Q], prototype: Any = None) -> None:
        self.name = name
        self.questions = questions
        self.library = Library(Settings(library=library))
        self.store = SentenceCachedStore(self.library.store)
        self.store.prototype = prototype
        self.embedder = CachedEmbedder(self.library.embedder)
        self._memo: dict[tuple[Any, ...], Ranks] = {}

    def ranks(self, params: FusionParams) -> Ranks:
        memo_key = tuple(sorted(vars(params).items()))
        if memo_key not in self._memo:
            r = HybridRetriever(self.store, self.embedder, params)
            out: Ranks = []
            for q in self.questions:
                hits = r.search(q.text, top_k=TOP_K)
                out.append((gold_rank(hits, q.doc_id, q.page), evidence_rank(hits, q.evidence)))
            self._memo[memo_key] = out
        return self._memo[memo_key]


def real_bench(library: Path, k: int, prototype: Any = None) -> Bench:
    docs = real_corpus.load_manifest()
    fold_of = real_corpus.folds(docs, k)
    lang_of = {d.file: d.language for d in docs}
    lib = Library(Settings(library=library))
    doc_ids = {Path(d.file).name: d.doc_id for d in lib.store.documents()}
    qs = [
        Q(
            q.question,
            doc_ids.get(q.document),
            q.page,
            q.evidence,
            fold_of[q.document],
            q.language,
            lang_of[q.document],
        )
        for q in real_corpus.load_real_questions(real_corpus.QUESTIONS, docs)
        if q.answerable and q.page is not None and q.evidence
    ]
    return Bench("real", library, qs, prototype)


def dev_bench(name: str, root: Path, embed_missing: bool = False) -> Bench | None:
    folder = root / name
    if not folder.is_dir():
        return None
    lib = Library(Settings(library=folder))
    doc_ids = {Path(d.file).name: d.doc_id for d in lib.store.documents()}
    qs = [
        Q(q.question, doc_ids.get(q.doc), q.page, q.evidence)
        for q in load_questions(SETS[name].questions)
        if q.answerable and q.page is not None and q.evidence
    ]
    bench = Bench(name, folder, qs)
    if embed_missing:
        bench.store.embed_missing = bench.library.embedder
    return bench


def cross_validate(
    bench: Bench, base: FusionParams, grid: Sequence[dict[str, Any]], k: int
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Pooled held-out figures of the lever, and the point each fold's training folds chose."""
    per_point = [bench.ranks(replace(base, **pt)) for pt in grid]
    held: Ranks = [(None, None)] * len(bench.questions)
    chosen = []
    for fold in range(k):
        train = [i for i, q in enumerate(bench.questions) if q.fold != fold]
        test = [i for i, q in enumerate(bench.questions) if q.fold == fold]
        best = max(range(len(grid)), key=lambda j: key([per_point[j][i] for i in train]))
        chosen.append(grid[best])
        for i in test:
            held[i] = per_point[best][i]
    return figures(held), chosen


def fmt(f: dict[str, float]) -> str:
    return f"page@5 {f['page@5']:.3f}  evidence@5 {f['evidence@5']:.3f}  MRR {f['mrr']:.3f}"


def languages(bench: Bench, rs: Ranks) -> list[str]:
    """Page / evidence recall@5 per (question language, document language) pair."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, q in enumerate(bench.questions):
        groups.setdefault((q.language, q.doc_language), []).append(i)
    out = []
    for (ql, dl), idx in sorted(groups.items()):
        f = figures([rs[i] for i in idx])
        out.append(
            f"  question {ql} / document {dl}: {len(idx):>3} answerable  "
            f"page@5 {f['page@5']:.3f}  evidence@5 {f['evidence@5']:.3f}  MRR {f['mrr']:.3f}"
        )
    return out


def parse_point(text: str) -> dict[str, Any]:
    """``sentence_weight=1,prf_weight=0.5`` -> overrides."""
    out: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        name, value = part.split("=")
        field_type = type(getattr(FusionParams(), name))
        if field_type is bool:  # bool("False") is True
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"{name}: {value!r} is no boolean")
            out[name] = value.lower() in ("true", "1")
        else:
            out[name] = field_type(float(value)) if field_type is int else field_type(value)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.retrieval_levers")
    p.add_argument("library", type=Path, help="A library folder of the real corpus.")
    p.add_argument("--cv", type=int, default=5)
    p.add_argument("--levers", default=",".join(LEVERS), help="Levers to cross-validate.")
    p.add_argument(
        "--base", default="", help="FusionParams overrides every lever starts from (a=1,b=2)."
    )
    p.add_argument(
        "--point",
        action="append",
        default=[],
        help="A fixed setting to report on every bench (repeatable): overrides as for --base.",
    )
    p.add_argument(
        "--dev", type=Path, default=None, help="eval_answers --library root of --set all."
    )
    p.add_argument("--dev-only", action="store_true", help="Only the development sets.")
    p.add_argument("--languages", action="store_true", help="Figures per language pair.")
    p.add_argument(
        "--sentence-cache",
        type=Path,
        default=None,
        help="A pickle of (sentence texts, vectors) standing in for stored sentence vectors.",
    )
    p.add_argument(
        "--embed-missing",
        action="store_true",
        help="Embed the sentences of candidate chunks a library has not stored (as ingestion "
        "would), instead of embedding whole libraries ahead.",
    )
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    prototype = None
    if args.sentence_cache is not None:
        import pickle

        texts, vecs = pickle.loads(args.sentence_cache.read_bytes())
        prototype = dict(zip(texts, vecs, strict=True))

    base = replace(FusionParams(), **parse_point(args.base))
    t0 = time.perf_counter()
    if not args.dev_only:
        real = real_bench(args.library, args.cv, prototype)
        if args.embed_missing:
            real.store.embed_missing = real.library.embedder
        print(
            f"real: {len(real.questions)} answerable questions, {args.cv} folds; base {args.base or 'default'}"
        )
        print(f"  base: {fmt(figures(real.ranks(base)))}")
        if args.languages:
            print("\n".join(languages(real, real.ranks(base))))
        for point in args.point:
            rs = real.ranks(replace(base, **parse_point(point)))
            print(f"  {point}: {fmt(figures(rs))}")
            if args.languages:
                print("\n".join(languages(real, rs)))
        for name in filter(None, args.levers.split(",")):
            grid = LEVERS[name]
            pooled, chosen = cross_validate(real, base, grid, args.cv)
            print(
                f"  lever {name} ({len(grid)} points), fitted on 4 folds, scored on the 5th: {fmt(pooled)}"
            )
            for fold, pt in enumerate(chosen):
                print(f"    fold {fold} chose {pt or 'off'}")
        print(f"({time.perf_counter() - t0:.0f}s)")

    if args.dev is not None:
        for name in SETS:
            bench = dev_bench(name, args.dev, args.embed_missing)
            if bench is None or not bench.questions:
                continue
            cells = [fmt(figures(bench.ranks(base)))]
            cells += [
                fmt(figures(bench.ranks(replace(base, **parse_point(pt))))) for pt in args.point
            ]
            print(f"{name:<9} n={len(bench.questions):<3} " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
