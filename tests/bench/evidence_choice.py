"""Which sentence the answer step cites, and whether the passage's retrieval rank should weigh in.

    python -m tests.bench.evidence_choice LIBRARY [--limit 440]

LIBRARY is the real corpus's library (``eval_answers --set real --library ROOT`` builds it in
``ROOT/real``). For every answerable development question it runs the app's own steps (search,
then the prompt's semantic sentence ranking, ``prompt._select_semantic``) and records each
candidate sentence's signals: its similarity to the question, its share of the question's
words, whether it only restates the question, its passage's retrieval rank and score (as a
share of the best passage's); and whether it is on an evidence page of the question's own
document (the page the question names or one stating the same, as the evaluation counts).

Then it scores the candidates with ``similarity + a * words + b * score share + k / rank -
r * restates + m * agreement`` (today: a = 0.5, b = k = m = 0, r = 1; agreement: the mean of
the passage's inverse ranks in the question's keyword and vector lists, 1 for a passage both
rank first, ``SearchHit.keyword_rank`` / ``vector_rank``) and chooses (a, b, k, r) on four folds of
whole document families (``real.corpus.folds``) by how often the evidence the answer step would
cite (the best sentence, and the runner-up when it scores at least 90% as well,
``prompt.pick_evidence``) is on an evidence page, scored on the fifth. It prints pooled figures
only: nothing about any one question.

With ``--context`` (written down before any figure was seen, 2026-11-28, 16:10): a sentence
read alone often does not say what it is about ("It is set with the second argument."; its
subject is in the sentence before it or in its section's heading), so the similarity of the
sentence *in its context* is measured too: ``ctx``, the cosine of the question with the
sentence before it in its passage followed by the sentence, and ``sec``, with its passage's
section heading followed by the sentence (the plain cosine when it has none). The candidates
are scored with ``(1 - c - s) * similarity + c * ctx + s * sec + a * words - r * restates`` and
(a, r, c, s) chosen on four folds and scored on the fifth as above (the passage's rank, score
and agreement, which gained nothing, are left out of this grid).

With ``--learned`` (written down before any figure was seen, 2026-11-29, 07:05): instead of a
hand-weighted sum, a logistic regression over every candidate's signals, fitted on four folds'
candidates (label: on an evidence page) and used to rank the fifth fold's: the signals above
(similarity, words, restates, score share, 1 / rank, agreement, ``ctx``, ``sec``) and four the
grids never had: ``type`` (the question asks for a kind of answer, ``answer_type``, and the
sentence holds one, ``type_present``), ``focus`` (the share of the question's focus words,
``question_focus``, in the sentence, by stem), ``length`` (log of its characters) and
``first`` (it opens its passage). The guess: the kind of thing asked for and the focus tell an
answer from a sentence of the same topic better than the similarity does. Kept only if it
cites an evidence page for at least 2 points (six questions) more than today's 72.0%,
cross-validated; otherwise not built.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.focus import question_focus
from app.core.textkit import detect_language, restates, stem, words
from app.generation import prompt
from app.services import ask_steps as steps
from app.services.ask import AskService
from app.services.library import Library
from app.validation.answer_checks import answer_type, type_present
from app.validation.status_model import inverse_rank
from tests.bench.real import corpus as real_corpus

TODAY = (0.5, 0.0, 0.0, 1.0, 0.0)
GRID = list(
    itertools.product(
        (0.0, 0.25, 0.5, 0.75, 1.0),  # words
        (0.0, 0.1, 0.2, 0.3, 0.5),  # retrieval score share
        (0.0, 0.05, 0.1, 0.2, 0.3),  # 1 / rank
        (0.5, 1.0),  # restates
        (0.0, 0.05, 0.1, 0.2, 0.4),  # the two lists' agreement on the passage
    )
)


CONTEXT_GRID = list(
    itertools.product(
        (0.0, 0.25, 0.5, 0.75, 1.0),  # words
        (0.5, 1.0),  # restates
        (0.0, 0.25, 0.5, 0.75, 1.0),  # the sentence after the one before it
        (0.0, 0.25, 0.5),  # the sentence after its section's heading
    )
)
CONTEXT_TODAY = (0.5, 1.0, 0.0, 0.0)


def context_score(c: dict, w: Sequence[float]) -> float:
    a, r, k, s = w
    mix = (1 - k - s) * c["sim"] + k * c["ctx"] + s * c["sec"]
    return mix + a * c["words"] - r * c["restates"]


def context_signals(
    library: Library, question: str, pool: Sequence[Any], by_n: dict, sentences: Sequence[Any]
) -> list[tuple[float, float]]:
    """(ctx, sec) of each candidate in ``pool`` (module docstring)."""
    before = {(x.source, x.index + 1): x.scored_text for x in sentences}
    texts = [question]
    for x in pool:
        prev = before.get((x.source, x.index))
        texts.append(f"{prev} {x.scored_text}" if prev else x.scored_text)
        section = by_n[x.source].section.strip()
        texts.append(f"{section}. {x.scored_text}" if section else x.scored_text)
    v = library.embedder.embed(texts)
    sims = v[1:] @ v[0]
    return [(float(sims[2 * i]), float(sims[2 * i + 1])) for i in range(len(pool))]


@dataclass
class Ranked:
    """One question through the answer step's sentence ranking: the run (its sources), the
    candidates the ranking scored (``pool``) and every sentence of the sources it read."""

    run: steps.AskRun
    pool: list[prompt.ShownSentence]
    sentences: list[prompt.ShownSentence]


@contextmanager
def sentence_ranking() -> Iterator[Callable[[Library, str], Ranked | None]]:
    """A function running the app's own steps for a question over a library (search, then
    the semantic sentence ranking, ``prompt._select_semantic``) with the ranking's candidates
    captured; None when the search finds nothing or no candidate is scored."""
    captured: dict[str, list[prompt.ShownSentence]] = {}
    original = prompt._select_semantic
    askers: dict[int, AskService] = {}

    def capture(question, sources, sentences, similarity, budget):  # type: ignore[no-untyped-def]
        out = original(question, sources, sentences, similarity, budget)
        captured["pool"] = [x for x in sentences if x.similarity is not None]
        captured["sentences"] = list(sentences)
        return out

    def rank(library: Library, question: str) -> Ranked | None:
        if id(library) not in askers:
            askers[id(library)] = AskService(library)
        run = steps.AskRun(question=question, top_k=library.settings.top_k)
        captured.clear()
        if not steps.retrieve(run, library):
            return None
        similarity = askers[id(library)]._similarity(run)
        steps.select(run, ranked=True, free_quotes=False, similarity=similarity)
        if not captured.get("pool"):
            return None
        return Ranked(run, captured["pool"], captured["sentences"])

    prompt._select_semantic = capture
    try:
        yield rank
    finally:
        prompt._select_semantic = original


def candidates(
    library: Library, questions: Sequence[real_corpus.RealQuestion], *, context: bool = False
) -> list[dict]:
    """Per answerable question: its document and its candidate sentences' signals."""
    files = {d.doc_id: Path(d.file).name for d in library.store.documents()}
    rows = []
    with sentence_ranking() as rank:
        for q in questions:
            if not q.answerable:
                continue
            lang = detect_language(q.question)
            kind = answer_type(q.question)
            focus = {stem(w.lower(), lang) for w in question_focus(q.question, lang).words}
            ranked = rank(library, q.question)
            if ranked is None:
                continue
            run = ranked.run
            by_n = {s.n: s for s in run.sources}
            chunks = {
                c.chunk_id: c
                for c in library.store.get_chunks([s.chunk_id for s in run.sources], charmap=True)
            }
            best = max(s.score for s in run.sources) or 1.0
            stated = {q.page, *(a.page for a in q.also)}
            cands = []
            extra = (
                context_signals(library, q.question, ranked.pool, by_n, ranked.sentences)
                if context
                else [(0.0, 0.0)] * len(ranked.pool)
            )
            for x, (ctx, sec) in zip(ranked.pool, extra, strict=True):
                src = by_n[x.source]
                chunk = chunks.get(src.chunk_id)
                pages = {src.page_start}
                if chunk is not None and chunk.charmap is not None and len(chunk.charmap):
                    at = chunk.charmap.page_at(x.start) or src.page_start
                    pages = {at, *(r.page for r in chunk.charmap.rects(x.start, x.end))}
                cands.append(
                    {
                        "sim": float(x.similarity or 0.0),
                        "words": x.coverage,
                        "restates": restates(x.text, q.question, lang),
                        "share": src.score / best,
                        "rank": src.n,
                        "inv_rank": 1.0 / src.n,
                        "agree": (inverse_rank(src.keyword_rank) + inverse_rank(src.vector_rank))
                        / 2,
                        "ctx": ctx,
                        "sec": sec,
                        "type": float(kind != "other" and type_present(kind, x.text)),
                        "focus": (
                            len(focus & {stem(w.lower(), lang) for w in words(x.text)}) / len(focus)
                            if focus
                            else 0.0
                        ),
                        "length": math.log(1 + len(x.text)),
                        "first": float(
                            x.index
                            == min(y.index for y in ranked.sentences if y.source == x.source)
                        ),
                        "right": files.get(src.doc_id) == q.document and bool(pages & stated),
                    }
                )
            rows.append({"doc": q.document, "cands": cands})
    return rows


def score(c: dict, w: Sequence[float]) -> float:
    a, b, k, r, m = w
    return (
        c["sim"]
        + a * c["words"]
        + b * c["share"]
        + k / c["rank"]
        - r * c["restates"]
        + m * c.get("agree", 0.0)
    )


Scorer = Callable[[dict, Sequence[float]], float]


def cited_right(row: dict, w: Sequence[float], by: Scorer = score) -> bool:
    """Whether the evidence the answer step would cite with weights ``w`` is on a right page."""
    ranked = sorted(row["cands"], key=lambda c: -by(c, w))
    cited = ranked[:1]
    if len(ranked) > 1 and by(ranked[0], w) > 0 and by(ranked[1], w) >= 0.9 * by(ranked[0], w):
        cited.append(ranked[1])
    return any(c["right"] for c in cited)


def share(rows: Sequence[dict], w: Sequence[float], by: Scorer = score) -> float:
    return sum(cited_right(r, w, by) for r in rows) / max(len(rows), 1)


LEARNED = (
    "sim",
    "words",
    "restates",
    "share",
    "inv_rank",
    "agree",
    "ctx",
    "sec",
    "type",
    "focus",
    "length",
    "first",
)


def _row(c: dict) -> list[float]:
    return [float(c[k]) for k in LEARNED]


def _pairs(rows: Sequence[dict]) -> tuple[Any, Any]:
    """Within each question, every (evidence-page, other) candidate pair's feature difference,
    both ways round: a pairwise ranking's training rows."""
    import numpy as np

    x, y = [], []
    for r in rows:
        good = [_row(c) for c in r["cands"] if c["right"]]
        bad = [_row(c) for c in r["cands"] if not c["right"]]
        for g in good:
            for b in bad:
                d = [gi - bi for gi, bi in zip(g, b, strict=True)]
                x += [d, [-v for v in d]]
                y += [1, 0]
    return np.array(x), np.array(y)


def learned(rows: Sequence[dict], fold_of: dict[str, int], *, pairwise: bool = False) -> float:
    """Cited on an evidence page, cross-validated, with the candidates ranked by a logistic
    regression fitted on the other folds' candidates (module docstring, ``--learned``); with
    ``pairwise``, fitted on pairs of one question's candidates instead."""
    import numpy as np

    from tests.bench.crossval import fit_logistic

    held = 0
    for fold in sorted({fold_of[r["doc"]] for r in rows}):
        train_rows = [r for r in rows if fold_of[r["doc"]] != fold]
        if pairwise:
            x, y = _pairs(train_rows)
        else:
            train = [c for r in train_rows for c in r["cands"]]
            x = np.array([_row(c) for c in train])
            y = np.array([int(c["right"]) for c in train])
        m = fit_logistic(x, y)
        mean, scale, coef = (np.array(m[k]) for k in ("mean", "scale", "coef"))
        if pairwise:  # a difference's standardisation: scale only, no intercept
            mean = np.zeros_like(mean)

        def prob(
            c: dict, _w: Sequence[float], mean=mean, scale=scale, coef=coef, b=m["intercept"]
        ) -> float:
            z = float(((np.array(_row(c)) - mean) / scale) @ coef) + (0.0 if pairwise else b)
            return 1.0 / (1.0 + math.exp(-z))

        test = [r for r in rows if fold_of[r["doc"]] == fold]
        got = sum(cited_right(r, (), prob) for r in test)
        held += got
        print(
            f"fold {fold}: {got}/{len(test)}; weights "
            + ", ".join(f"{k} {v:+.2f}" for k, v in zip(LEARNED, coef, strict=True))
        )
    return held / max(len(rows), 1)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("library", type=Path)
    ap.add_argument("--limit", type=int, default=440)
    ap.add_argument("--context", action="store_true", help="the sentences in context (doc)")
    ap.add_argument("--learned", action="store_true", help="a fitted ranking (doc)")
    args = ap.parse_args(argv)
    library = Library(Settings(library=args.library))
    library.warm_up()
    library.count_words()
    docs = real_corpus.load_manifest()
    questions = real_corpus.load_real_questions(real_corpus.QUESTIONS, docs)[: args.limit]
    rows = candidates(library, questions, context=args.context or args.learned)
    fold_of = real_corpus.folds(docs, 5)
    reach = sum(any(c["right"] for c in r["cands"]) for r in rows) / max(len(rows), 1)
    print(f"{len(rows)} answerable questions; a candidate on an evidence page: {reach:.3f}")
    if args.learned:
        print(f"today's weights {TODAY}: {share(rows, TODAY):.3f}")
        print(f"learned ranking, cross-validated: {learned(rows, fold_of):.3f}")
        print(f"pairwise ranking, cross-validated: {learned(rows, fold_of, pairwise=True):.3f}")
        return 0
    grid, today, by, added = (
        (CONTEXT_GRID, CONTEXT_TODAY, context_score, (2, 3))
        if args.context
        else (GRID, TODAY, score, (1, 2, 4))
    )

    def simpler(w: Sequence[float]) -> float:  # ties go to the least of the added weights
        return -sum(w[i] for i in added)

    print(
        f"today's weights {today}: evidence cited on an evidence page {share(rows, today, by):.3f}"
    )
    held = 0.0
    for fold in sorted({fold_of[r["doc"]] for r in rows}):
        train = [r for r in rows if fold_of[r["doc"]] != fold]
        test = [r for r in rows if fold_of[r["doc"]] == fold]
        w = max(grid, key=lambda w: (share(train, w, by), simpler(w)))
        held += share(test, w, by) * len(test)
        print(f"fold {fold}: chose {w}")
    print(f"cross-validated (weights chosen on the other folds): {held / len(rows):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
