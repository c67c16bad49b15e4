"""Does the status model carry over to another chat model's answers? (issue 30)

    python -m tests.bench.judge_transfer --real bench-results/verdict-real.json \
        --dev bench-results/verdict-dev.json --other OTHER.json [--cv 5]

``--real`` and ``--dev`` are the runs the shipped model is fitted on (``make train-verdict``,
the embedded chat model); ``--other`` is ``make eval SET=real`` run with another GGUF
(``EVAL_ARGS="--model PATH"``), whose rows record that model's own judgement. Each fold's two
models (with and without the judgement) are fitted on the embedded model's runs without the
fold's documents, and decide the other model's answers to the fold's questions, which no fit
saw, in these ways:

- *as run*: the statuses of the run itself, decided by the shipped model the app chose;
- *without judgement*: what the app does for any chat model but the one the judgement was
  fitted on (``status_model.for_chat_model``);
- *judged as embedded's*: its judgement weighed as the embedded model's, what the app did
  before 2026-11-29;
- *none as surest yes*: no judgement, counted as the most confident "yes" seen in training,
  what the app did before for a server, or when a judgement could not be read;
- *refitted on its own*: each fold's model fitted on the other model's rows of the
  other folds (what ``make train-verdict EVAL_ARGS="--model PATH"`` would ship).

It also prints how well the judgement alone ranks right answers above wrong ones (ROC AUC), for
each chat model. Figures only, pooled over the folds; no per-question outcome is printed.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from pathlib import Path

from app.validation.status_model import FEATURES_WITHOUT_JUDGEMENT
from tests.bench.crossval import StatusModelLever, _features, judged, redecide, right
from tests.bench.eval_metrics import Outcome
from tests.bench.train_verdict import figures_line, fold_map, load


def with_judgement(o: Outcome, value: float) -> Outcome:
    """A copy of ``o`` whose recorded judgement is ``value``."""
    o = copy.deepcopy(o)
    feats = (o.support or {}).get("features")
    if feats:
        feats["judgement"] = value
    return o


def judgement_auc(rows: Sequence[Outcome]) -> float | None:
    """ROC AUC of the recorded judgement alone as a score of right answers."""
    from sklearn.metrics import roc_auc_score

    pairs = [(_features(o)["judgement"], right(o)) for o in rows if "judgement" in _features(o)]
    if len({r for _j, r in pairs}) < 2:
        return None
    return float(roc_auc_score([r for _j, r in pairs], [j for j, _r in pairs]))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.judge_transfer", description=__doc__)
    p.add_argument("--real", type=Path, required=True, help="embedded model, --set real")
    p.add_argument("--dev", type=Path, default=None, help="embedded model, --set all")
    p.add_argument("--other", type=Path, required=True, help="another model, --set real")
    p.add_argument("--cv", type=int, default=5)
    args = p.parse_args(argv)

    embedded = load(args.real, real=True)
    if args.dev is not None:
        embedded += load(args.dev, real=False)
    other = [(n, o) for n, o in load(args.other, real=True) if n == "real"]
    fold_of = fold_map(embedded + other, args.cv)
    with_j = StatusModelLever()
    without_j = StatusModelLever(features=FEATURES_WITHOUT_JUDGEMENT)

    ways: dict[str, list[Outcome]] = {
        "as run": [],
        "without judgement": [],
        "judged as embedded's": [],
        "none as surest yes": [],
        "refitted on its own": [],
    }
    for fold in range(args.cv):
        train = [o for _n, o in embedded if fold_of[o.doc] != fold]
        test = [o for _n, o in other if fold_of[o.doc] == fold]
        judged_model, unjudged_model = with_j.fit(train), without_j.fit(train)
        # what a missing judgement counted as before: the highest seen in training
        surest_yes = judged_model.high[judged_model.features.index("judgement")]
        own = with_j.fit([o for _n, o in other if fold_of[o.doc] != fold])
        for o in test:
            ways["as run"].append(o)
            ways["without judgement"].append(redecide(o, unjudged_model))
            ways["judged as embedded's"].append(redecide(o, judged_model))
            ways["none as surest yes"].append(redecide(with_judgement(o, surest_yes), judged_model))
            ways["refitted on its own"].append(redecide(o, own))

    print(
        f"{len(other)} questions answered by the other model, each decided by models fitted "
        f"without its documents ({args.cv} folds):"
    )
    for label, rows in ways.items():
        print(figures_line(label, rows))
    for label, rows in (
        ("embedded model, real corpus", [o for n, o in embedded if n == "real"]),
        ("other model, real corpus", [o for _n, o in other]),
    ):
        auc = judgement_auc(judged(rows))
        print(f"judgement alone, ROC AUC of right answers, {label}: {auc:.3f}" if auc else label)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
