"""How long the question's concepts step takes with the library's words embedded ahead, by
how many of them are: the support check's slow tail.

Run: ``python -m tests.bench.bench_concepts_cache LIBRARY [--limits 20000,50000]``, with a
library of the real corpus (``eval_answers --set real --library ROOT`` makes one at
``ROOT/real``). Every question of the real corpus (answerable and not) is searched once;
then its concepts step (:func:`app.services.verdict.question_concepts`: rarity and absence
from the term index, paraphrases of absent words among the retrieved passages' words by the
embedder's word vectors) is timed once per word cache, the caches taking turns in first
place. Each cache is warmed as the desktop warms it (``AskService.warm_words``) up to its
limit, and keeps learning the words questions bring, as in a session. Prints p50 / p95 / max
per limit, and how many words each warm-up embedded and how long it took.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from app.core.config import Settings
from app.services import ask_steps as steps
from app.services import verdict
from app.services.ask import AskService
from app.services.library import Library
from app.validation.support import neighbour_candidates
from tests.bench.real import corpus as real_corpus


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.bench_concepts_cache")
    p.add_argument("library", type=Path, help="A library folder of the real corpus.")
    p.add_argument("--limits", default="20000,50000", help="Words warmed ahead, per cache.")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    limits = [int(x) for x in args.limits.split(",")]

    lib = Library(Settings(library=args.library))
    lib.warm_up()
    lib.count_words()
    ask = AskService(lib)
    embedder = lib.embedder
    assert embedder is not None
    languages = ask._word_languages()
    common = lib.common_words(max(limits))
    caches: list[verdict.CachedEmbed] = []
    for limit in limits:
        cache = verdict.CachedEmbed(lambda texts: embedder.embed(texts), max_words=limit)
        words = cache.unknown(neighbour_candidates(common[:limit], "en"))
        t0 = time.perf_counter()
        for start in range(0, len(words), 256):
            cache(words[start : start + 256])
        print(
            f"cache of {limit} words: {len(words)} embedded ahead in "
            f"{time.perf_counter() - t0:.1f} s"
        )
        caches.append(cache)

    docs = real_corpus.load_manifest()
    questions = [q.question for q in real_corpus.load_real_questions(real_corpus.QUESTIONS, docs)]
    times: list[list[float]] = [[] for _ in caches]
    for i, question in enumerate(questions):
        run = steps.AskRun(question=question, top_k=lib.settings.top_k)
        steps.retrieve(run, lib)
        order = list(range(len(caches)))
        if i % 2:
            order.reverse()
        for j in order:
            t0 = time.perf_counter()
            verdict.question_concepts(
                question, lib.term_counts, run.pairs, embed=caches[j], languages=languages
            )
            times[j].append((time.perf_counter() - t0) * 1000.0)
    print(f"{len(questions)} questions, concepts step (ms):")
    for limit, ts in zip(limits, times, strict=True):
        print(
            f"  warmed up to {limit} words: p50 {statistics.median(ts):.1f}  p95 {p95(ts):.1f}  "
            f"max {max(ts):.1f}  over 30 ms: {sum(t > 30 for t in ts)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
