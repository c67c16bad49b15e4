"""The status of an answer from one calibrated model, not a rulebook.

The support check (:mod:`app.validation.support`) measures; this module decides. Each
answer's signals become one row of numbers (:func:`features`): how much of what the
question asks for (its focus) and of what it is about the cited evidence holds, whether
the kind of answer asked for is there, whether the answer only restates the question or
says what its quotes do not, how close and how highly ranked the cited passages are, and
the chat model's own judgement read from its logits. A logistic regression turns the row
into the probability that the answer is right (it cites a passage that answers the
question), and two thresholds turn that into the status a person sees: GREEN at or above
``green_at``, a refusal below ``refuse_below``, YELLOW between.

The weights and both thresholds are fitted by ``make train-verdict``
(``tests/bench/train_verdict.py``) on the real corpus and the development sets, with whole
documents held out of every fit, and checked in as ``resources/status_model.json``: a small
file a person can read. ``green_at`` is where GREEN's cross-validated precision reaches its
target, ``refuse_below`` where fewer than the target share of answerable questions fall
below. Cross-validation promised more than new documents gave: on 12 documents added after
the fit, whose questions nobody read, GREEN was right in 18 of 22 answers; pooled over every
measurement on documents the model was not fitted on, 71 of 78 (91%, README). The reasons a
person reads stay in words: the support check's, ordered by how much the signal behind each
pulled this answer's probability down (:meth:`StatusModel.weakest`).

The chat model's judgement means what it means only for the model it was fitted with: another
GGUF puts its P("yes") on a scale of its own (a confident model near 0 or 1, an agreeable one
always high), and a server gives none. So the file holds two models, fitted on the same
answers and folds: one that weighs the judgement of the chat model named in ``judged_by`` (the
embedded one), and one fitted without it, with thresholds of its own, for every other model
and for an answer whose judgement could not be read (:func:`for_chat_model`). Deciding a
server's answers with the first, a missing judgement counted as the most confident "yes" seen
in training, cross-validated on the real corpus, made GREEN's precision 78.8% instead of 95%
(tests/bench/README.md, 2026-11-29).

The similarities it weighs, and those the support check compares with its floors, are the
embedded embedder's; the file names it (``similarities_of``). Over a library another embedder
embedded, no threshold keeps GREEN's promise, so :func:`for_models` withholds GREEN there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.core.resources import resources_dir
from app.validation.support import SupportCheck

MODEL_FILE = "status_model.json"

FEATURES: tuple[str, ...] = (
    "coverage",
    "plain_coverage",
    "focus_coverage",
    "has_focus",
    "type_found",
    "asks_type",
    "restated",
    "contradiction",
    "key_missing",
    "unanswered",
    "absent",
    "similarity",
    "unsupported_share",
    "reversed_polarity",
    "generated",
    "verified",
    "cited_rank",
    "cited_score",
    "cited_keyword_rank",
    "cited_vector_rank",
    "top_keyword_rank",
    "top_vector_rank",
    "relevance",
    "n_citations",
    "other_language",
    "judgement",
    "has_judgement",
)
"""Every signal the model may weigh, in the order of its weights."""

JUDGEMENT_FEATURES: tuple[str, ...] = ("judgement", "has_judgement")
"""The signals read from the chat model's logits."""

FEATURES_WITHOUT_JUDGEMENT: tuple[str, ...] = tuple(
    n for n in FEATURES if n not in JUDGEMENT_FEATURES
)
"""What the model fitted without the judgement weighs: every signal but those."""

WITHHELD_LEAD = "Not marked GREEN"
"""How the flag of an answer whose GREEN :func:`for_models` withheld begins."""

MEAN_WHEN_MISSING = frozenset({"judgement"})
"""Signals a row may lack, which then count as their mean in training."""

NEUTRAL = {"similarity": 0.4, "focus_coverage": 1.0, "cited_score": 0.0}
"""What a missing signal counts as (no embedder: no similarity); ``has_*`` features tell the
model which were missing. A missing judgement is left out of the row and counts as the
judgement's mean in training: it pulls neither way (:meth:`StatusModel.contributions`)."""


def features(
    check: SupportCheck,
    *,
    generated: bool,
    verified: bool,
    cited_ranks: Sequence[int] = (),
    cited_scores: Sequence[float] = (),
    cited_list_ranks: tuple[int, int] = (0, 0),
    top_list_ranks: tuple[int, int] = (0, 0),
    relevance: float | None = None,
    n_citations: int = 0,
    other_language: bool = False,
    judgement: float | None = None,
) -> dict[str, float]:
    """One answer's signals as numbers (see :data:`FEATURES`).

    ``cited_ranks``: the 1-based retrieval ranks of the cited passages; ``cited_scores``
    their fused retrieval scores over the best retrieved passage's (1: the top one);
    ``cited_list_ranks``: the best-ranked cited passage's ranks in the question's keyword
    list and vector list before fusion (``SearchHit.keyword_rank``, ``vector_rank``; 0: not
    in it), ``top_list_ranks`` the same of the top retrieved passage: two searches that
    know nothing of each other agreeing on a passage is evidence the question has an answer
    there, and a question whose passage only one of them finds is often a near miss
    (query-performance prediction; cross-validated by document, the model's AUC on the
    real corpus rose 0.796 -> 0.808, on the development sets 0.790 -> 0.826; see
    tests/bench/README.md); ``relevance``: the best question-to-sentence cosine of
    the prompt's evidence; ``other_language``: the evidence is in another language than
    the question; ``judgement``: the chat model's P("yes"), None when it has none (the row
    then has no ``judgement``)."""
    sim = check.similarity
    best_rank = min(cited_ranks) if cited_ranks else 10
    row = {
        "coverage": check.coverage,
        "plain_coverage": check.plain_coverage,
        "focus_coverage": (
            NEUTRAL["focus_coverage"] if check.focus_coverage is None else check.focus_coverage
        ),
        "has_focus": float(check.focus_coverage is not None),
        "type_found": float(check.type_found),
        "asks_type": float(check.answer_type != "other"),
        "restated": float(check.restated),
        "contradiction": float(bool(check.contradictions)),
        "key_missing": float(check.key_missing),
        "unanswered": float(bool(check.unanswered or check.uncounted or check.none_answered)),
        "absent": float(bool(check.absent)),
        "similarity": NEUTRAL["similarity"] if sim is None else float(sim),
        "unsupported_share": check.unsupported_share,
        "reversed_polarity": float(check.reversed_polarity),
        "generated": float(generated),
        "verified": float(verified),
        "cited_rank": 1.0 / best_rank,
        "cited_score": max(cited_scores) if cited_scores else NEUTRAL["cited_score"],
        "cited_keyword_rank": inverse_rank(cited_list_ranks[0]),
        "cited_vector_rank": inverse_rank(cited_list_ranks[1]),
        "top_keyword_rank": inverse_rank(top_list_ranks[0]),
        "top_vector_rank": inverse_rank(top_list_ranks[1]),
        "relevance": NEUTRAL["similarity"] if relevance is None else float(relevance),
        "n_citations": float(min(n_citations, 5)),
        "other_language": float(other_language),
        "has_judgement": float(judgement is not None),
    }
    if judgement is not None:
        row["judgement"] = float(judgement)
    return row


def inverse_rank(rank: int) -> float:
    """1 / rank, 0 for a passage the list did not return (rank 0)."""
    return 1.0 / rank if rank > 0 else 0.0


def vouchable(x: Mapping[str, float]) -> bool:
    """Whether a GREEN may vouch for an answer with features ``x`` at all, whatever its
    probability. These are what GREEN means, not thresholds: the question's focus (what it
    asks for, when one was found) is in the evidence at least in part, nothing it asks about
    is missing from the whole library (a GREEN beside "No passage in your library mentions
    'antenna'" would contradict its own reason), the quotes say more than the question
    itself (quotes that only restate it answer nothing), and no sentence contradicts a quote,
    says what its quotes do not, or states what they negate."""
    if x.get("has_focus", 0.0) >= 0.5 and x.get("focus_coverage", 1.0) <= 0.0:
        return False
    if x.get("absent", 0.0) > 0:
        return False
    return not (
        x.get("restated", 0.0) > 0
        or x.get("contradiction", 0.0) > 0
        or x.get("unsupported_share", 0.0) > 0
        or x.get("reversed_polarity", 0.0) > 0
    )


REASON_SIGNALS: dict[str, tuple[str, ...]] = {
    "No passage in your library": ("absent", "coverage"),
    "don't say anything about": ("focus_coverage",),
    "don't answer": ("unanswered",),
    "don't say how many": ("unanswered",),
    "The question asks for": ("type_found",),
    "don't mention": ("coverage", "plain_coverage", "key_missing"),
    "only restates": ("restated",),
    "about something other": ("similarity",),
    "negates what the answer": ("reversed_polarity",),
    "which its quotes don't": ("unsupported_share",),
    "Contradiction": ("contradiction",),
}
"""Which signals each of the support check's reasons speaks for (by a phrase of it)."""


@dataclass(frozen=True)
class StatusModel:
    """A fitted logistic regression over standardised :data:`FEATURES`, and its thresholds."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    green_at: float
    refuse_below: float
    about: dict[str, object] = field(default_factory=dict)
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    """The range each feature had in training; a value outside it counts as its nearest end
    (a retrieval score of another scale must not outweigh every other signal)."""
    judge: str | None = None
    """The chat model (its ``name``) whose judgement the ``judgement`` feature was fitted on;
    None for a model that weighs no judgement."""
    embedder: str | None = None
    """The embedder (its ``name``) whose similarities the model was fitted on; None: not
    recorded (a file written before 2026-11-29, fitted on the embedded one)."""
    withheld: str = ""
    """Why this model never says GREEN (:func:`for_models`: the answers' similarities come
    from an embedder it was not fitted on); empty for a model that may."""

    @classmethod
    def load(cls, path: Path | None = None, *, judged: bool = True) -> StatusModel:
        """The model in ``path`` (default: the one shipped in resources): the one that weighs
        the chat model's judgement, or with ``judged`` False the one fitted without it (a
        file without that second model gives its only model, judgement left out)."""
        path = path or resources_dir() / MODEL_FILE
        return cls.from_file(json.loads(path.read_text(encoding="utf-8")), judged=judged)

    @classmethod
    def from_file(cls, data: Mapping[str, Any], *, judged: bool) -> StatusModel:
        """One of the models of a status model file's contents (see :meth:`load`)."""
        embedder = data.get("similarities_of")
        if judged:
            model = cls.from_dict(data, judge=data.get("judged_by"))
        elif "without_judgement" in data:
            model = cls.from_dict(data["without_judgement"], judge=None)
        else:
            model = cls.from_dict(data, judge=None).without(JUDGEMENT_FEATURES)
        return replace(model, embedder=None if embedder is None else str(embedder))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, judge: str | None) -> StatusModel:
        """A model from its readable form: ``features``, ``weights`` (weight, mean, scale and
        range per feature), ``intercept`` and ``thresholds``."""
        names = tuple(str(n) for n in data["features"])
        w = data["weights"]
        return cls(
            features=names,
            mean=tuple(float(w[n]["mean"]) for n in names),
            scale=tuple(float(w[n]["scale"]) for n in names),
            coef=tuple(float(w[n]["weight"]) for n in names),
            intercept=float(data["intercept"]),
            green_at=float(data["thresholds"]["green_at"]),
            refuse_below=float(data["thresholds"]["refuse_below"]),
            about=dict(data.get("about", {})),
            low=tuple(float(w[n].get("low", -math.inf)) for n in names),
            high=tuple(float(w[n].get("high", math.inf)) for n in names),
            judge=judge if "judgement" in names else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The readable form :meth:`from_dict` reads (``judge`` and ``about`` aside)."""
        return {
            "features": list(self.features),
            "weights": {
                n: {"weight": w, "mean": m, "scale": s, "low": lo, "high": hi}
                for n, w, m, s, lo, hi in zip(
                    self.features,
                    self.coef,
                    self.mean,
                    self.scale,
                    self.low,
                    self.high,
                    strict=True,
                )
            },
            "intercept": self.intercept,
            "thresholds": {"green_at": self.green_at, "refuse_below": self.refuse_below},
        }

    def without(self, names: Sequence[str]) -> StatusModel:
        """This model with ``names`` dropped (their pull left out, not refitted)."""
        keep = [i for i, n in enumerate(self.features) if n not in names]

        def pick(values: tuple[float, ...]) -> tuple[float, ...]:
            return tuple(values[i] for i in keep) if values else ()

        features = tuple(self.features[i] for i in keep)
        return replace(
            self,
            features=features,
            mean=pick(self.mean),
            scale=pick(self.scale),
            coef=pick(self.coef),
            low=pick(self.low),
            high=pick(self.high),
            judge=self.judge if "judgement" in features else None,
        )

    @property
    def weighs_judgement(self) -> bool:
        """Whether the chat model's judgement is one of this model's signals."""
        return "judgement" in self.features

    def contributions(self, x: Mapping[str, float]) -> dict[str, float]:
        """Each signal's pull on the log-odds: weight × standardised value (the value held
        to the range it had in training)."""
        n_f = len(self.features)
        low = self.low or (-math.inf,) * n_f
        high = self.high or (math.inf,) * n_f
        out = {}
        for i, (n, m, s, c) in enumerate(
            zip(self.features, self.mean, self.scale, self.coef, strict=True)
        ):
            if n in MEAN_WHEN_MISSING and n not in x:
                out[n] = 0.0  # no judgement: the mean one, which pulls neither way
                continue
            v = min(max(float(x.get(n, NEUTRAL.get(n, 0.0))), low[i]), high[i])
            out[n] = c * (v - m) / (s or 1.0)
        return out

    def probability(self, x: Mapping[str, float]) -> float:
        """P(the answer is right) for one answer's features."""
        z = self.intercept + sum(self.contributions(x).values())
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def status(
        self, probability: float, verified: bool, x: Mapping[str, float] | None = None
    ) -> str:
        """GREEN, YELLOW or REFUSE for ``probability``. GREEN also needs verified quotes and
        an answer a GREEN can vouch for (:func:`vouchable`, from its features ``x``)."""
        if probability < self.refuse_below:
            return "REFUSE"
        if (
            verified
            and not self.withheld
            and probability >= self.green_at
            and (x is None or vouchable(x))
        ):
            return "GREEN"
        return "YELLOW"

    def needs_judgement(self, x: Mapping[str, float], verified: bool) -> bool:
        """Whether the chat model's judgement could change the status of an answer whose
        other features are ``x``: the status with the judgement at the lowest value seen in
        training differs from the status at the highest. When it cannot, asking the model
        (a few hundred milliseconds) would decide nothing."""
        if not self.weighs_judgement:
            return False
        i = self.features.index("judgement")
        low = self.low[i] if self.low else 0.0
        high = self.high[i] if self.high else 1.0
        statuses = set()
        for value in (low, high):
            y = {**x, "judgement": value, "has_judgement": 1.0}
            statuses.add(self.status(self.probability(y), verified, y))
        return len(statuses) > 1

    def weakest(self, x: Mapping[str, float], reasons: Sequence[str]) -> list[str]:
        """``reasons`` ordered by how much the signals each speaks for pulled the
        probability down (most first); reasons of no signal keep their place after."""
        pull = self.contributions(x)

        def weight(reason: str) -> float:
            for phrase, names in REASON_SIGNALS.items():
                if phrase in reason:
                    return min(pull.get(n, 0.0) for n in names)
            return 0.0

        return sorted(reasons, key=weight)


_shipped: tuple[StatusModel, StatusModel] | None = None


def _both() -> tuple[StatusModel, StatusModel]:
    global _shipped
    if _shipped is None:
        data = json.loads((resources_dir() / MODEL_FILE).read_text(encoding="utf-8"))
        _shipped = (
            StatusModel.from_file(data, judged=True),
            StatusModel.from_file(data, judged=False),
        )
    return _shipped


def shipped() -> StatusModel:
    """The shipped model that weighs the judgement of the chat model it was fitted with
    (:attr:`StatusModel.judge`), loaded once."""
    return _both()[0]


def without_judgement() -> StatusModel:
    """The shipped model fitted without the chat model's judgement, loaded once."""
    return _both()[1]


def for_chat_model(name: str | None) -> StatusModel:
    """The status model for answers of the chat model called ``name``: the one that weighs
    its judgement if that judgement is the one it was fitted on, else the one fitted
    without any (a user's GGUF reads P("yes") on a scale of its own; a server gives none)."""
    judged = shipped()
    return judged if name is not None and name == judged.judge else without_judgement()


def for_models(chat_model: str | None, embedder: str | None) -> StatusModel:
    """The status model for answers of the chat model called ``chat_model`` over a library
    embedded by ``embedder`` (None: keyword search only): :func:`for_chat_model`'s, and one
    that never says GREEN when the embedder is not the one the model was fitted on.

    Why never, rather than a stricter threshold: the similarities of another embedder mean
    something else, and the model's probability stops telling right answers from wrong ones
    at the top. Measured on the real corpus's 440 development questions answered over a
    library embedded by paraphrase-MiniLM-L3-v2 (each fold decided by models fitted on the
    embedded embedder's answers without its documents): GREEN 88.9% precise at p >= 0.90,
    86.8% at 0.92, 86.7% at 0.96, against 95.1% with the embedded embedder; refitted on that
    embedder's own answers, 84.2% of 19; with its cosines mapped onto MiniLM's by their
    quantiles, 89.1% (tests/bench/README.md, 2026-11-29). So GREEN, which promises the
    calibrated precision, is withheld and the answer says why."""
    model = for_chat_model(chat_model)
    if embedder is None or model.embedder is None or embedder == model.embedder:
        return model
    return replace(
        model,
        withheld=f"{WITHHELD_LEAD}: Footnote's status is calibrated for the embedding model "
        f"{model.embedder}, not {embedder}.",
    )
