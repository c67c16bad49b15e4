"""Candidate signals for the status model, measured outside the app before any is built.

    python -m tests.bench.verdict_signals --real bench-results/verdict-real.json \
        --dev bench-results/verdict-dev.json --real-library ROOT/real --dev-library DEV_ROOT \
        [--cv 5] [--lm]

The inputs are ``make train-verdict``'s evaluation runs. For every answer the status model
judged, each candidate signal is computed from what the answer had (the question, its cited
quotes) with the library's embedder, and added to the answer's recorded features. The
status model's class (``train_verdict.shipped_class``) is then fitted with the same
document-held-out folds as ``train_verdict``, once with today's features and once with each
group of candidates added, and the held-out ROC AUC of P(right) is printed for the real
corpus and the development sets, with the real corpus's GREEN coverage at 95% precision (the
best threshold on the held-out probabilities themselves: an upper bound, the same for every
row). Only pooled figures are printed.

The candidates (written down before any figure was seen, 2026-11-28):

* ``focus_contrast``: how much the question's focus (what it asks for,
  ``app.core.focus.question_focus``) adds to its similarity with the cited quotes:
  ``max cos(question, quote) - max cos(question without its focus words, quote)``. A quote
  that answers the ask is closer to the whole question than to its topic alone; a near
  miss (the same topic, the asked detail absent) is as close to the topic alone.
* ``focus_similarity``: ``max cos(focus words, quote)``: the ask itself against the quotes,
  paraphrases included (the support check's focus coverage matches word by word).
* ``topic_similarity``: ``max cos(question without its focus, quote)``, so the model can
  weigh the two parts apart.
* ``retrieved_coverage``: the share of the question's asked concepts
  (``support.asked_concepts``, matched by form as the support check matches them) that any
  of the eight retrieved passages holds, and ``focus_retrieved`` the same of its focus
  words. A near miss asks for what no retrieved passage mentions; an answerable question
  whose cited passage lacks a concept often has it in a passage it did not cite.
* ``coverage_gap``: ``retrieved_coverage`` less the same share over the cited passages.
* With ``--lm``, two likelihoods of the embedded chat model (its own competence is predicting
  text, not following an instruction to judge): ``answer_pmi``, the mean over the quotes'
  tokens of ``log P(token | "Question: q\nAnswer:") - log P(token | "Answer:")`` (does the
  question make the quotes likelier?), and ``question_pmi``, the same of the question's tokens
  after ``"Passage: quotes\nQuestion:"`` against after ``"Question:"`` (query likelihood).

Added later (written down before any figure was seen, 2026-11-28, afternoon):

* ``margin``: how sure the answer step's sentence ranking was: the best candidate
  sentence's score (``prompt._select_semantic``: similarity, half the words, less the
  restatement penalty) less the runner-up's; and ``page_margin``, the best less the best
  sentence of another page. When a near miss wins, it tends to win narrowly over other
  sentences of the same topic; a sentence that answers tends to stand out. (Only answers
  with ranked evidence have a ranking; the embedded model's answers all do.)

The retrieved passages are searched again (the same library, the same search: deterministic);
a question whose search no longer returns the recorded pages is counted and left as it is.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.focus import question_focus
from tests.bench.eval_metrics import Outcome
from tests.bench.train_verdict import (
    fold_map,
    green_coverage,
    held_out_auc,
    held_out_probabilities,
    judged_table,
    load,
    shipped_class,
)

GROUPS: dict[str, tuple[str, ...]] = {
    "focus_contrast": ("focus_contrast",),
    "focus_similarity": ("focus_similarity",),
    "both similarities": ("focus_similarity", "topic_similarity"),
    "all three": ("focus_contrast", "focus_similarity", "topic_similarity"),
    "retrieved_coverage": ("retrieved_coverage",),
    "retrieved + gap": ("retrieved_coverage", "coverage_gap"),
    "retrieved + focus": ("retrieved_coverage", "focus_retrieved"),
    "retrieved, gap, focus": ("retrieved_coverage", "coverage_gap", "focus_retrieved"),
}
MARGIN_GROUPS: dict[str, tuple[str, ...]] = {
    "margin": ("margin",),
    "page_margin": ("page_margin",),
    "both margins": ("margin", "page_margin"),
}
MARGIN_NAMES = ("margin", "page_margin")
LM_GROUPS: dict[str, tuple[str, ...]] = {
    "answer_pmi": ("answer_pmi",),
    "question_pmi": ("question_pmi",),
    "both likelihoods": ("answer_pmi", "question_pmi"),
}
LM_NAMES = ("answer_pmi", "question_pmi")
NAMES = (
    "focus_contrast",
    "focus_similarity",
    "topic_similarity",
    "retrieved_coverage",
    "coverage_gap",
    "focus_retrieved",
)


def quotes(o: Outcome) -> list[str]:
    return [c["quote"] for c in (o.citations or o.judged) if c.get("quote")]


def without_focus(question: str, focus: Sequence[str]) -> str:
    out = question
    for w in focus:
        out = re.sub(rf"(?i)(?<!\w){re.escape(w)}(?!\w)", " ", out)
    return re.sub(r"\s+", " ", out).strip()


def signals(rows: Sequence[Outcome], embed) -> list[dict[str, float]]:
    out = []
    for o in rows:
        qs = quotes(o)
        focus = list(question_focus(o.question).words)
        if not qs:
            out.append({"focus_contrast": 0.0, "focus_similarity": 0.0, "topic_similarity": 0.0})
            continue
        bare = without_focus(o.question, focus) if focus else o.question
        texts = [o.question, bare, " ".join(focus) or o.question, *qs]
        v = embed(texts)
        sims = v[3:] @ v[:3].T  # quotes x (question, topic, focus)
        best = sims.max(axis=0)
        out.append(
            {
                "focus_contrast": float(best[0] - best[1]) if focus else 0.0,
                "focus_similarity": float(best[2]) if focus else float(best[0]),
                "topic_similarity": float(best[1]),
            }
        )
    return out


def form_share(concepts, texts: Sequence[str], lang: str) -> float:
    from app.validation.support import Evidence, _matches

    if not concepts:
        return 1.0
    ev = Evidence.of(list(texts), lang)
    return sum(_matches(c, ev) for c in concepts) / len(concepts)


def retrieval_signals(
    rows: Sequence[tuple[str, Outcome]], libraries: dict[str, object]
) -> tuple[list[dict[str, float]], int]:
    from app.core.textkit import detect_language
    from app.validation.support import asked_concepts, focus_concepts

    out, moved = [], 0
    for name, o in rows:
        lib = libraries[name]
        hits, _ = lib.search(o.question, top_k=8)
        pages = [f"{Path(h.file).name} p{h.page_start}-{h.page_end}" for h in hits]
        moved += pages != o.retrieved
        lang = detect_language(o.question)
        concepts = asked_concepts(o.question, lang=lang)
        focus = focus_concepts(question_focus(o.question, lang), lang)
        texts = [h.text for h in hits]
        cited_n = {c["n"] for c in (o.citations or o.judged)}
        cited = [h.text for i, h in enumerate(hits, start=1) if i in cited_n]
        got = form_share(concepts, texts, lang)
        out.append(
            {
                "retrieved_coverage": got,
                "coverage_gap": got - form_share(concepts, cited, lang),
                "focus_retrieved": form_share(focus, texts, lang),
            }
        )
    return out, moved


def margin_signals(
    rows: Sequence[tuple[str, Outcome]], libraries: dict[str, Any]
) -> list[dict[str, float]]:
    """``margin`` and ``page_margin`` (module docstring): the app's own steps run again
    (search, then the semantic sentence ranking), its candidate pool captured."""
    from tests.bench.evidence_choice import sentence_ranking

    out = []
    with sentence_ranking() as rank:
        for name, o in rows:
            ranked = rank(libraries[name], o.question)
            if ranked is None:
                out.append({"margin": 0.0, "page_margin": 0.0})
                continue
            by_n = {src.n: src for src in ranked.run.sources}
            scored = sorted(
                (
                    (x.score, (by_n[x.source].doc_id, by_n[x.source].page_start))
                    for x in ranked.pool
                ),
                key=lambda t: -t[0],
            )
            top, page = scored[0]
            second = scored[1][0] if len(scored) > 1 else 0.0
            other = max((sc for sc, pg in scored[1:] if pg != page), default=0.0)
            out.append({"margin": top - second, "page_margin": top - other})
    return out


def lm_signals(rows: Sequence[Outcome]) -> list[dict[str, float]]:
    """``answer_pmi`` and ``question_pmi`` (module docstring) from the embedded GGUF model,
    its logits of every prompt position read with llama.cpp (~1 s an answer on 2 cores)."""
    from llama_cpp import Llama

    from app.core.resources import default_chat_model_path

    llm = Llama(
        str(default_chat_model_path()), logits_all=True, n_ctx=1024, n_threads=2, verbose=False
    )

    def tokens(text: str, bos: bool = False) -> list[int]:
        return llm.tokenize(text.encode("utf-8"), add_bos=bos, special=False)

    def logprobs(prefix: str, continuation: str) -> np.ndarray:
        cont = tokens(continuation)[:120]
        toks = (tokens(prefix, bos=True) + cont)[-1000:]
        llm.reset()
        llm.eval(toks)
        start = len(toks) - len(cont)
        z = np.array(llm.scores[start - 1 : len(toks) - 1])
        z = z - z.max(axis=1, keepdims=True)
        z = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return z[np.arange(len(cont)), toks[start:]]

    out = []
    for o in rows:
        q = o.question
        said = " " + (" ".join(quotes(o))[:600] or "-")
        a = logprobs(f"Question: {q}\nAnswer:", said) - logprobs("Answer:", said)
        b = logprobs(f"Passage:{said}\nQuestion:", " " + q) - logprobs("Question:", " " + q)
        out.append({"answer_pmi": float(a.mean()), "question_pmi": float(b.mean())})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from app.core.config import Settings
    from app.services.library import Library

    p = argparse.ArgumentParser(prog="python -m tests.bench.verdict_signals")
    p.add_argument("--real", type=Path, required=True)
    p.add_argument("--dev", type=Path, default=None)
    p.add_argument("--cv", type=int, default=5)
    p.add_argument("--real-library", type=Path, required=True, help="the real corpus library")
    p.add_argument("--dev-library", type=Path, default=None, help="eval_answers --set all root")
    p.add_argument("--lm", action="store_true", help="also the chat model's likelihoods (slow)")
    args = p.parse_args(argv)
    outcomes = load(args.real, real=True)
    if args.dev is not None:
        outcomes += load(args.dev, real=False)
    t = judged_table(outcomes, fold_map(outcomes, args.cv))
    rows = t.rows
    embedder = Library(Settings()).embedder
    extra = signals([o for _n, o in rows], embedder.embed)
    libraries: dict[str, Any] = {}
    for name in {n for n, _o in rows}:
        folder = args.real_library if name == "real" else args.dev_library / name
        libraries[name] = Library(Settings(library=folder))
    more, moved = retrieval_signals(rows, libraries)
    for e, m in zip(extra, more, strict=True):
        e.update(m)
    print(f"({moved} of {len(rows)} searches returned other pages than recorded)")
    for e, m in zip(extra, margin_signals(rows, libraries), strict=True):
        e.update(m)
    groups, names = {**GROUPS, **MARGIN_GROUPS}, [*NAMES, *MARGIN_NAMES]
    if args.lm:
        for e, m in zip(extra, lm_signals([o for _n, o in rows]), strict=True):
            e.update(m)
        groups.update(LM_GROUPS)
        names += LM_NAMES
    y = t.y
    print(f"{len(rows)} judged answers ({int(y.sum())} right), {args.cv} document-held-out folds")
    for name, group in {"today": (), **groups}.items():
        added = np.array([[e[n] for n in group] for e in extra]).reshape(len(y), -1)
        ph = held_out_probabilities(shipped_class, np.hstack([t.x, added]), y, t.fold, args.cv)
        auc_real, auc_dev = held_out_auc(ph, t)
        print(
            f"  {name:<18} AUC real {auc_real:.3f}, development sets {auc_dev:.3f}; "
            f"real GREEN coverage at 95% {green_coverage(ph, t, 0.95):.1%}"
        )
    for n in names:
        auc_real, auc_dev = held_out_auc(np.array([e[n] for e in extra]), t)
        print(f"  {n:<18} alone: AUC real {auc_real:.3f}, development sets {auc_dev:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
