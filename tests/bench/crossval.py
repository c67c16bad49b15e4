"""Document-held-out cross-validation of ``make eval`` figures (issue 29).

Every question is answered once by the app as it is; a *lever* is whatever has parameters fitted
on data (a threshold, weights, a learned model). For each fold the lever is fitted on the outcomes
of the other folds only and applied to the held-out fold's outcomes, which are then scored; the
folds are whole document families (``tests.bench.real.corpus.folds``), so no document's questions
are ever on both sides. With no lever (today's app: hand-set constants, nothing fitted) every fold
is simply scored as it is, and the per-fold spread shows how much the figures move from one set of
documents to another.

A lever that changes retrieval or generation, rather than re-reading an outcome, fits the same
protocol by having ``apply`` re-run the question with the fitted parameters; the runner's outcomes
carry everything the post-hoc levers here need.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tests.bench.eval_metrics import Outcome, on_gold, summarize


class Lever(Protocol):
    """Something tuned on data: fitted on the training folds, applied to the held-out one."""

    name: str

    def fit(self, train: Sequence[Outcome]) -> Any:
        """The parameters learned from the training folds' outcomes (never the test fold's)."""
        ...

    def apply(self, params: Any, outcome: Outcome) -> Outcome:
        """The outcome as it would be with ``params`` (a copy; the input is not changed)."""
        ...


@dataclass(frozen=True)
class GreenFloor:
    """A calibrated floor under GREEN: the lowest support score at which the training folds'
    GREEN answers reach ``precision``; a held-out GREEN below it is shown YELLOW.

    The one fitted lever the runner offers today, so that cross-validation can show what a
    threshold chosen on some documents is worth on others (issue 30 builds the full model)."""

    precision: float = 0.95
    name: str = "green-floor"

    def fit(self, train: Sequence[Outcome]) -> float:
        greens = sorted(
            (o for o in train if o.status == "GREEN" and not o.refused and o.support),
            key=lambda o: float(o.support["score"]),  # type: ignore[index]
        )
        for i, o in enumerate(greens):
            above = greens[i:]
            if sum(on_gold(x) for x in above) >= self.precision * len(above):
                return float(o.support["score"])  # type: ignore[index]
        return float("inf")  # no floor reaches the precision: nothing stays GREEN

    def apply(self, params: float, outcome: Outcome) -> Outcome:
        o = copy.deepcopy(outcome)
        if o.status == "GREEN" and (o.support is None or float(o.support["score"]) < params):
            o.status = "YELLOW"
        return o


def headline(summary: Mapping[str, Any]) -> dict[str, float | int | None]:
    """The figures issue 29's closing line names, from one ``summarize`` result."""
    v = summary["verdicts"]
    return {
        "questions": summary["questions"],
        "answerable": summary["answerable"],
        "unanswerable": summary["unanswerable"],
        "page_recall@5": summary["retrieval"].get("recall@5"),
        "evidence_recall@5": summary["retrieval"].get("evidence_recall@5"),
        "green": v["green"],
        "green_precision": v["green_precision"],
        "green_coverage": v["green_coverage"],
        "refused_unanswerable": summary["refusal_rate"]["unanswerable"],
        "refused_answerable": summary["refusal_rate"]["answerable"],
        "right_page_all": v["right_page_all"],
        "invalid_citations": summary["citations"]["invalid_shown"],
    }


def cross_validate(
    outcomes: Sequence[Outcome],
    fold_of: Mapping[str, int],
    k: int,
    lever: Lever | None = None,
    ks: Sequence[int] = (5,),
) -> dict[str, Any]:
    """Per-fold and pooled figures, the lever (if any) fitted without the fold it scores.

    ``fold_of`` maps a document file name to its fold; an outcome of a document with no fold
    (a sealed one) is an error, since it must never reach a fit.
    """
    stray = sorted({o.doc for o in outcomes if o.doc not in fold_of})
    if stray:
        raise ValueError(f"outcomes of documents outside the folds: {', '.join(stray)}")
    scored: list[Outcome] = []
    per_fold: list[dict[str, Any]] = []
    for fold in range(k):
        test = [o for o in outcomes if fold_of[o.doc] == fold]
        train = [o for o in outcomes if fold_of[o.doc] != fold]
        params = lever.fit(train) if lever is not None else None
        held = [lever.apply(params, o) for o in test] if lever is not None else list(test)
        scored.extend(held)
        per_fold.append(
            {
                "fold": fold,
                "documents": sorted({o.doc for o in test}),
                "params": params,
                **headline(summarize(held, ks)),
            }
        )
    return {
        "lever": lever.name if lever is not None else None,
        "k": k,
        "folds": per_fold,
        "pooled": headline(summarize(scored, ks)),
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_cv(report: Mapping[str, Any]) -> str:
    """A table with one row per fold and a pooled row."""
    head = (
        f"  {'fold':<7}{'docs':>5}{'Q':>5}{'U':>5}{'recall@5':>10}{'ev.rec@5':>10}"
        f"{'GREEN':>7}{'G.prec':>8}{'G.cov':>8}{'ref.U':>8}{'ref.A':>8}{'params':>10}"
    )
    rows = [head]
    for f in [*report["folds"], {"fold": "pooled", **report["pooled"]}]:
        docs = len(f["documents"]) if "documents" in f else ""
        params = f.get("params")
        shown = "" if params is None else f"{params:.3f}" if isinstance(params, float) else "fit"
        rows.append(
            f"  {f['fold']!s:<7}{docs!s:>5}{f['questions']:>5}{f['unanswerable']:>5}"
            f"{_pct(f['page_recall@5']):>10}{_pct(f['evidence_recall@5']):>10}{f['green']:>7}"
            f"{_pct(f['green_precision']):>8}{_pct(f['green_coverage']):>8}"
            f"{_pct(f['refused_unanswerable']):>8}{_pct(f['refused_answerable']):>8}{shown:>10}"
        )
    return "\n".join(rows)


def closing_line(
    name: str,
    figures: Mapping[str, Any],
    *,
    documents: int | None = None,
    kinds: int = 0,
    languages: int = 0,
    retrieval_only: bool = False,
) -> str:
    """``real: N documents (K kinds, L languages), Q questions (U unanswerable); page recall@5
    …; GREEN precision … (coverage …); unanswerable refused …; answerable refused …``; without
    ``documents`` the part about documents is left out (a row of a breakdown)."""
    corpus = (
        ""
        if documents is None
        else f"{documents} documents ({kinds} kinds, {languages} languages), "
    )
    line = (
        f"{name}: {corpus}"
        f"{figures['questions']} questions ({figures['unanswerable']} unanswerable); "
        f"page recall@5 {_num(figures['page_recall@5'])}"
    )
    if retrieval_only:
        return line + "; no answers asked (--retrieval-only)"
    return line + (
        f"; GREEN precision {_pct(figures['green_precision'])} "
        f"(coverage {_pct(figures['green_coverage'])}); "
        f"unanswerable refused {_pct(figures['refused_unanswerable'])}; "
        f"answerable refused {_pct(figures['refused_answerable'])}"
    )


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"
