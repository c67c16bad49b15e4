"""Fit the status model (``make train-verdict``), cross-validated by document, and ship it.

    python -m tests.bench.train_verdict --real bench-results/verdict-real.json \
        --dev bench-results/verdict-dev.json [--cv 5] [--write]

The inputs are ``make eval`` JSON files of the real corpus's development half and of the
development sets, run with the app as it is: every answer the status model judges records its
signals (``support.features``) and, if it was refused after generation, the citations it had
(``judged``), so deciding again from them is deciding as the app would
(:func:`tests.bench.crossval.redecide`). ``make train-verdict`` runs both evaluations first.

Folds are whole documents: the real corpus's document families
(``tests.bench.real.corpus.folds``) and each development set's documents, spread over the same
K folds; every fold's model (weights and both thresholds) is fitted on the other folds only.
What it prints, per source and pooled: the held-out figures, the GREEN precision/coverage
curve of the held-out probabilities, and the weights, for two models on the same folds: one
that weighs the chat model's judgement (of the model the runs were made with, which it is then
``judged_by``) and one fitted without it, which every other chat model's answers are judged by
(``status_model.for_chat_model``). ``--write`` fits both on everything, takes each one's
thresholds from its held-out probabilities, and writes ``resources/status_model.json`` with
the chat model and the embedder the runs were made with. The sealed half never enters: its
run strips the per-question outcomes, and a real outcome of a document outside the folds is
an error.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from app.core.resources import DEFAULT_CHAT_MODEL_NAME, resources_dir
from app.validation.status_model import (
    FEATURES,
    FEATURES_WITHOUT_JUDGEMENT,
    MODEL_FILE,
    StatusModel,
    vouchable,
)
from tests.bench.crossval import (
    StatusModelLever,
    _features,
    _verified,
    choose_thresholds,
    curve,
    headline,
    judged,
    right,
)
from tests.bench.eval_answers import EMBEDDED, SEALED_SETS, embedder_name
from tests.bench.eval_metrics import Outcome, interval_text, summarize
from tests.bench.real import corpus as real_corpus


def load(path: Path, *, real: bool) -> list[tuple[str, Outcome]]:
    """(set name, outcome) for every question of every set in an eval JSON; a development
    set's documents are named ``set:file`` so that two sets' files never share a fold key."""
    report = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for name, rep in report["sets"].items():
        if name in SEALED_SETS:
            raise SystemExit(f"{path}: a sealed set never trains the status model")
        for q in rep.get("questions", []):
            o = Outcome(**q)
            if not real:
                o.doc = f"{name}:{o.doc}"
            out.append((name, o))
    return out


def fold_map(outcomes: Sequence[tuple[str, Outcome]], k: int) -> dict[str, int]:
    """Each document's fold: the real corpus's by family, a development document's by a
    stable hash of its name."""
    folds = real_corpus.folds(real_corpus.load_manifest(), k)
    out: dict[str, int] = {}
    for _name, o in outcomes:
        if o.doc in folds:
            out[o.doc] = folds[o.doc]
        elif ":" in o.doc:
            out[o.doc] = zlib.crc32(o.doc.encode("utf-8")) % k
        else:
            raise SystemExit(f"{o.doc}: a real document outside the folds (sealed?)")
    return out


def cross_validated(
    outcomes: Sequence[tuple[str, Outcome]], fold_of: dict[str, int], k: int, lever: Any
) -> tuple[list[tuple[str, Outcome]], dict[int, float], list[Any]]:
    """The held-out outcomes as each fold's model decides them, their probabilities (by
    position in ``outcomes``), and each fold's model."""
    held: list[tuple[str, Outcome] | None] = [None] * len(outcomes)
    probs: dict[int, float] = {}
    models = []
    for fold in range(k):
        train = [o for _n, o in outcomes if fold_of[o.doc] != fold]
        model = lever.fit(train)
        models.append(model)
        for i, (name, o) in enumerate(outcomes):
            if fold_of[o.doc] == fold:
                held[i] = (name, lever.apply(model, o))
                if _features(o):
                    probs[i] = model.probability(_features(o))
    return [h for h in held if h is not None], probs, models


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def figures_line(label: str, outcomes: Sequence[Outcome]) -> str:
    h = headline(summarize(outcomes, (5,)))
    return (
        f"  {label:<22} {h['questions']:>4} q ({h['unanswerable']:>3} unans.)  "
        f"GREEN {h['green']:>4} precision {_pct(h['green_precision']):>6} "
        f"{interval_text(h['green_precision'], h['green'] or 0):<13} "
        f"coverage {_pct(h['green_coverage']):>6}  unans. refused "
        f"{_pct(h['refused_unanswerable']):>6}  ans. refused {_pct(h['refused_answerable']):>6}  "
        f"evidence page cited {_pct(h['right_page_all']):>6}  invalid {h['invalid_citations']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.train_verdict", description=__doc__)
    p.add_argument("--real", type=Path, required=True, help="eval JSON of --set real")
    p.add_argument("--dev", type=Path, default=None, help="eval JSON of --set all")
    p.add_argument("--cv", type=int, default=5)
    p.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    p.add_argument("--write", action="store_true", help=f"write resources/{MODEL_FILE}")
    p.add_argument("--json", type=Path, default=None, help="write the report here")
    p.add_argument(
        "--compare-models",
        action="store_true",
        help="also compare the logistic regression with boosted trees on the same folds",
    )
    p.add_argument(
        "--learning-curve",
        nargs="?",
        const="rows",
        choices=("rows", "documents"),
        default=None,
        help="also fit on shares of the training rows (or of the training documents: "
        "'documents'): would more questions, or more documents, help?",
    )
    args = p.parse_args(argv)

    runs = [args.real] + ([args.dev] if args.dev is not None else [])
    judge, similarities_of = chat_model_of(runs), embedder_of(runs)
    outcomes = load(args.real, real=True)
    if args.dev is not None:
        outcomes += load(args.dev, real=False)
    fold_of = fold_map(outcomes, args.cv)
    rows = judged([o for _n, o in outcomes])
    print(
        f"{len(outcomes)} questions, {len(rows)} answers judged by the status model "
        f"({sum(right(o) for o in rows)} right), {args.cv} document-held-out folds; the "
        f"judgement is {judge}'s"
    )
    variants = {
        f"with the judgement of {judge}": StatusModelLever(c=args.c),
        "without the judgement (every other chat model)": StatusModelLever(
            c=args.c, features=FEATURES_WITHOUT_JUDGEMENT, name="status-model-without-judgement"
        ),
    }
    fitted = [
        fit_variant(label, lever, outcomes, fold_of, args.cv) for label, lever in variants.items()
    ]
    if args.compare_models:
        compare_models(outcomes, fold_of, args.cv)
    if args.learning_curve:
        learning_curve(outcomes, fold_of, args.cv, by=args.learning_curve)
    if args.write:
        write(fitted[0], fitted[1], judge, similarities_of, outcomes, rows)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {"judged_by": judge, "with_judgement": fitted[0].report}
        report["without_judgement"] = fitted[1].report
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def chat_model_of(paths: Sequence[Path]) -> str:
    """The chat model (its ``name`` in the app) whose answers and judgements the eval runs
    in ``paths`` recorded; runs of two models cannot train one model's judgement."""

    def name(config: dict[str, Any]) -> str:
        model = config.get("model", EMBEDDED)
        return DEFAULT_CHAT_MODEL_NAME if model == EMBEDDED else Path(model).name

    return _the_one(paths, "chat models", name)


def embedder_of(paths: Sequence[Path]) -> str:
    """The embedder (its ``name`` in the app) whose similarities the eval runs in ``paths``
    recorded (a run before 2026-11-29 names none: the embedded one)."""

    def name(config: dict[str, Any]) -> str:
        folder = config.get("embedder", EMBEDDED)
        recorded = config.get("embedder_name")
        return recorded or embedder_name(None if folder == EMBEDDED else Path(folder))

    return _the_one(paths, "embedders", name)


def _the_one(paths: Sequence[Path], what: str, name: Callable[[dict[str, Any]], str]) -> str:
    """The one ``name`` every eval run in ``paths`` gives from its ``config``; runs that
    give two stop the fit."""
    names = {name(json.loads(p.read_text(encoding="utf-8")).get("config", {})) for p in paths}
    if len(names) != 1:
        raise SystemExit(f"the eval runs were made with different {what}: {sorted(names)}")
    return names.pop()


@dataclass(frozen=True)
class Fitted:
    """One variant of the status model: fitted on everything, its thresholds from the
    held-out probabilities, and the cross-validated figures and curves it rests on."""

    model: StatusModel
    report: dict[str, Any]


def fit_variant(
    label: str,
    lever: StatusModelLever,
    outcomes: Sequence[tuple[str, Outcome]],
    fold_of: dict[str, int],
    k: int,
) -> Fitted:
    """Cross-validate ``lever`` by document, print its held-out figures, curves and weights,
    and fit it on everything with both thresholds taken from the held-out probabilities."""
    print(f"\n=== the status model {label} ===")
    held, probs, models = cross_validated(outcomes, fold_of, k, lever)
    print("\nheld-out figures (each fold's model fitted on the other folds):")
    sets = sorted({n for n, _ in held}, key=lambda n: (n != "real", n))
    for name in sets:
        print(figures_line(name, [o for n, o in held if n == name]))
    dev = [o for n, o in held if n != "real"]
    if dev:
        print(figures_line("development sets", dev))
    print("\nper-fold thresholds (green_at, refuse_below):")
    print("  " + ", ".join(f"({m.green_at:.3f}, {m.refuse_below:.3f})" for m in models))

    report: dict[str, Any] = {"cv": {}, "curve": {}}
    for name in ["real", "development sets"]:
        idx = [
            i
            for i, (n, _o) in enumerate(outcomes)
            if (n == "real") == (name == "real") and i in probs
        ]
        if not idx:
            continue
        answerable = sum(o.answerable for n, o in outcomes if (n == "real") == (name == "real"))
        c = curve([probs[i] for i in idx], [outcomes[i][1] for i in idx], answerable)
        report["curve"][name] = c
        print(f"\nGREEN precision / coverage of held-out probabilities, {name}:")
        for point in c:
            print(
                f"  p >= {point['threshold']:.2f}: {point['green']:>4} GREEN, precision "
                f"{_pct(point['precision']):>6}, coverage {_pct(point['coverage']):>6}"
            )
    for name in sets:
        report["cv"][name] = headline(summarize([o for n, o in held if n == name], (5,)))

    final = lever.fit([o for _n, o in outcomes])
    oof_rows = [outcomes[i][1] for i in sorted(probs)]
    green_at, refuse_below = choose_thresholds(
        [probs[i] for i in sorted(probs)],
        oof_rows,
        precision=lever.precision,
        answerable_refused=lever.answerable_refused,
    )
    print(
        f"\nthresholds from the held-out probabilities: green_at {green_at}, "
        f"refuse_below {refuse_below}"
    )
    print("\nweights of the model fitted on everything (standardised features):")
    for n, w in sorted(zip(final.features, final.coef, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {n:<20} {w:+.3f}")
    return Fitted(replace(final, green_at=green_at, refuse_below=refuse_below), report)


@dataclass(frozen=True)
class JudgedTable:
    """The answers the status model judged, as arrays over the same rows: the recorded
    features (``x``, in :data:`FEATURES` order), right or not, each answer's fold, whether it
    is the real corpus's, and whether it could be GREEN at all (verified and vouchable);
    ``answerable``: the real corpus's answerable questions, judged or not."""

    rows: list[tuple[str, Outcome]]
    x: np.ndarray
    y: np.ndarray
    fold: np.ndarray
    real: np.ndarray
    ok: np.ndarray
    answerable: int


def judged_table(outcomes: Sequence[tuple[str, Outcome]], fold_of: dict[str, int]) -> JudgedTable:
    rows = [(n, o) for n, o in outcomes if _features(o)]
    return JudgedTable(
        rows=rows,
        x=np.array([[float(_features(o).get(f, 0.0)) for f in FEATURES] for _n, o in rows]),
        y=np.array([right(o) for _n, o in rows], dtype=int),
        fold=np.array([fold_of[o.doc] for _n, o in rows]),
        real=np.array([n == "real" for n, _o in rows]),
        ok=np.array([_verified(o) and vouchable(_features(o)) for _n, o in rows]),
        answerable=sum(o.answerable for n, o in outcomes if n == "real"),
    )


def shipped_class() -> Any:
    """A fresh model of the shipped class: standardised features, L2 logistic regression
    (what ``crossval.fit_logistic`` fits)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))


def held_out_probabilities(
    make: Callable[[], Any],
    x: np.ndarray,
    y: np.ndarray,
    fold: np.ndarray,
    k: int,
    *,
    pick: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Each row's P(right) from a model (``make()``) fitted on the other folds' rows (those
    of their indices that ``pick`` keeps, when given)."""
    p = np.zeros(len(y))
    for f in range(k):
        train = np.flatnonzero(fold != f)
        if pick is not None:
            train = pick(train)
        model = make().fit(x[train], y[train])
        p[fold == f] = model.predict_proba(x[fold == f])[:, 1]
    return p


def held_out_auc(p: np.ndarray, t: JudgedTable) -> tuple[float, float]:
    """ROC AUC of the held-out P(right) ``p`` on the real corpus and on the development sets."""
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(t.y[t.real], p[t.real]), roc_auc_score(t.y[~t.real], p[~t.real])


def green_coverage(p: np.ndarray, t: JudgedTable, target: float) -> float:
    """The share of the real corpus's answerable questions an answer could be GREEN for at
    ``target`` precision, with the best threshold on ``p`` itself (an upper bound)."""
    pick = t.real & t.ok
    ranked = t.y[pick][np.argsort(-p[pick])]
    hits = np.cumsum(ranked)
    reach = [i for i in range(1, len(ranked) + 1) if hits[i - 1] >= target * i]
    n = max(reach, default=0)
    return hits[n - 1] / t.answerable if n else 0.0


def compare_models(
    outcomes: Sequence[tuple[str, Outcome]], fold_of: dict[str, int], k: int
) -> None:
    """Held-out ranking quality of the shipped model class against others on the same folds:
    ROC AUC of P(right) on the real corpus and the development sets, and on the real corpus
    the share of answerable questions an answer could be GREEN for at 90% / 95% precision
    (the best threshold, chosen on the held-out probabilities themselves: an upper bound)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    t = judged_table(outcomes, fold_of)
    makers: dict[str, Any] = {
        "logistic (shipped)": shipped_class,
        "logistic, feature pairs": lambda: make_pipeline(
            StandardScaler(),
            PolynomialFeatures(2, interaction_only=True),
            StandardScaler(),
            LogisticRegression(C=0.05, max_iter=4000),
        ),
        "boosted trees, depth 2": lambda: HistGradientBoostingClassifier(
            max_depth=2, learning_rate=0.05, max_iter=200, min_samples_leaf=20
        ),
        "boosted trees, depth 3": lambda: HistGradientBoostingClassifier(
            max_depth=3, learning_rate=0.05, max_iter=150, min_samples_leaf=20
        ),
    }
    print("\nmodel classes on the same folds (held-out):")
    for name, make in makers.items():
        p = held_out_probabilities(make, t.x, t.y, t.fold, k)
        auc_real, auc_dev = held_out_auc(p, t)
        line = f"  {name:<24} AUC real {auc_real:.3f}, development sets {auc_dev:.3f}"
        for target in (0.90, 0.95):
            line += f"; GREEN coverage at {target:.0%}: {green_coverage(p, t, target):.1%}"
        print(line)


def learning_curve(
    outcomes: Sequence[tuple[str, Outcome]],
    fold_of: dict[str, int],
    k: int,
    shares: Sequence[float] = (0.25, 0.5, 0.75, 1.0),
    repeats: int = 10,
    by: str = "rows",
) -> None:
    """Whether more judged answers would help the status model: the shipped class fitted on
    a random share of each fold's training rows (``repeats`` draws), scored on the held-out
    fold as :func:`compare_models` scores. Still rising at the full share: more questions
    (written blind) would raise it; flat: the signals, not the data, hold it.

    ``by="documents"`` draws a share of the training *documents* instead (a real document's
    whole family, a development set's document), keeping all their rows: whether more
    documents, not more questions about the same ones, would help on documents never seen."""
    t = judged_table(outcomes, fold_of)
    if by == "documents":
        family = {d.file: d.family for d in real_corpus.load_manifest()}
        group = np.array(
            [f"real:{family[o.doc]}" if n == "real" else f"{n}:{o.doc}" for n, o in t.rows]
        )
    rng = np.random.default_rng(0)
    print(f"\nlearning curve (held-out; mean over draws of the training {by}):")
    for share in shares:

        def draw(train: np.ndarray, share: float = share) -> np.ndarray:
            if by == "documents":
                return draw_documents(train, group, share, rng)
            size = max(int(share * len(train)), 20)
            return rng.choice(train, size=size, replace=False)

        real_auc, dev_auc, cover = [], [], []
        for _ in range(repeats if share < 1 else 1):
            p = held_out_probabilities(shipped_class, t.x, t.y, t.fold, k, pick=draw)
            auc_real, auc_dev = held_out_auc(p, t)
            real_auc.append(auc_real)
            dev_auc.append(auc_dev)
            cover.append(green_coverage(p, t, 0.95))
        print(
            f"  {share:>4.0%} of the training {by}: AUC real {np.mean(real_auc):.3f}, "
            f"development sets {np.mean(dev_auc):.3f}; real GREEN coverage at 95% "
            f"{np.mean(cover):.1%}"
        )


def draw_documents(
    train: np.ndarray, group: np.ndarray, share: float, rng: np.random.Generator
) -> np.ndarray:
    """The rows of ``train`` whose document (``group``, one per row) is among a random
    ``share`` of the training rows' documents (at least two): every row of a drawn document,
    none of the others."""
    groups = np.unique(group[train])
    keep = rng.choice(
        groups, size=min(len(groups), max(int(share * len(groups)), 2)), replace=False
    )
    return train[np.isin(group[train], keep)]


def write(
    judged: Fitted,
    unjudged: Fitted,
    judge: str,
    similarities_of: str,
    outcomes: Sequence[tuple[str, Outcome]],
    rows: Sequence[Outcome],
) -> None:
    """``resources/status_model.json``: both models (features, weights, thresholds) and
    what they rest on; the one that weighs the judgement names the chat model it is
    ``judged_by``, and both the embedder whose similarities they were fitted on."""
    about = {
        "what": "Logistic regression over the support check's signals; "
        "see app/validation/status_model.py. Written by `make train-verdict`.",
        "trained": dt.date.today().isoformat(),
        "questions": len(outcomes),
        "answers_judged": len(rows),
        "right": sum(right(o) for o in rows),
        "sets": sorted({n for n, _ in outcomes}),
        "thresholds_from": "held-out probabilities of document-held-out folds: GREEN "
        "precision >= 95%, < 10% of judged answerable questions below refuse_below",
    }
    data = {
        "about": {**about, "cross_validated": judged.report["cv"]},
        "judged_by": judge,
        "similarities_of": similarities_of,
        **judged.model.to_dict(),
        "without_judgement": {
            "about": {
                **about,
                "what": "The same, fitted without the chat model's judgement: for every chat "
                f"model but {judge}, and answers whose judgement could not be read.",
                "cross_validated": unjudged.report["cv"],
            },
            **unjudged.model.to_dict(),
        },
    }
    path = resources_dir() / MODEL_FILE
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
