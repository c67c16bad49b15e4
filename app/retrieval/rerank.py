"""The first candidates' order from one small fitted model instead of fixed fusion weights.

Reciprocal rank fusion adds the ranks of the keyword list, the vector list, the asking part's
vector list and the translated keyword list with weights set by hand. It knows a passage only
by its ranks: not how far below the best its BM25 score or its cosine is, not whether one of
its sentences holds the question's words together (a passage that mentions each word in a
different paragraph ranks as high as one that answers), not whether it holds what the
question asks for (its focus) or only what it is about.

:func:`candidate_rows` describes each of the best fused candidates by those signals
(:data:`FEATURES`), every one relative to the same question's other candidates so that it
means the same in any library; :class:`Reranker`, a logistic regression over them, gives each
the probability that it is on the page that answers, and the candidates are shown in that
order. The weights are fitted by ``make train-rerank`` (``tests/bench/train_rerank.py``) on
the real corpus's development questions only, whole document families held out of every fold
of its cross-validation, and checked in as ``resources/rerank_model.json``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.core.focus import question_focus
from app.core.models import Chunk
from app.core.resources import resources_dir
from app.core.textkit import detect_language, stem, words
from app.retrieval.fusion import query_terms

MODEL_FILE = "rerank_model.json"

FEATURES: tuple[str, ...] = (
    "fused_rank",
    "fused",
    "keyword_rank",
    "keyword_score",
    "vector_rank",
    "vector_gap",
    "focus_rank",
    "translated_rank",
    "coverage",
    "sentence_coverage",
    "focus_coverage",
    "section_coverage",
)
"""Every signal the reranker weighs, in the order of its weights."""

_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+|\n{2,}|\n(?=\s*[-\u2022*\d])")


@dataclass(frozen=True)
class Lists:
    """A question's candidate lists before fusion, best first, with each list's own score
    (BM25 for keyword lists, cosine for vector lists), and the fused order."""

    keyword: Sequence[tuple[str, float]] = ()
    vector: Sequence[tuple[str, float]] = ()
    focus: Sequence[tuple[str, float]] = ()
    translated: Sequence[tuple[str, float]] = ()
    fused: Mapping[str, float] = field(default_factory=dict)
    order: Sequence[str] = ()
    translated_terms: Sequence[str] = ()
    """The question's words translated into the library's other languages (the translated
    keyword list's query)."""


def _inverse_ranks(items: Sequence[tuple[str, float]]) -> dict[str, float]:
    return {cid: 1.0 / rank for rank, (cid, _) in enumerate(items, start=1)}


def _weights(terms: Sequence[str], texts: Sequence[set[str]]) -> dict[str, float]:
    """Each query stem's rarity among the candidates (``log((n + 1) / (df + 0.5))``): a
    word every candidate holds tells them apart least."""
    n = len(texts)
    out = {}
    for t in terms:
        df = sum(1 for s in texts if t in s)
        out[t] = math.log((n + 1) / (df + 0.5))
    return out


def _share(terms: dict[str, float], have: set[str]) -> float:
    total = sum(terms.values())
    if total <= 0:
        return 0.0
    return sum(w for t, w in terms.items() if t in have) / total


def _stems(text: str, lang: str) -> set[str]:
    return {stem(w, lang) for w in words(text)}


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends, blank lines and list items (never empty)."""
    parts = [p for p in _SENTENCE_END.split(text) if p.strip()]
    return parts or [text]


def candidate_rows(
    query: str, lists: Lists, chunks: Mapping[str, Chunk], pool: Sequence[str]
) -> list[tuple[str, dict[str, float]]]:
    """``(chunk id, row of FEATURES)`` for each candidate of ``pool`` (chunk ids, fused
    order) that ``chunks`` holds, in that order.

    Ranks are inverse (1, 1/2, ...; 0: not in that list). ``keyword_score`` is the BM25
    score over the list's best, ``vector_gap`` how far the cosine lies below the vector
    list's best (a candidate the list did not return counts as its last). ``coverage`` is
    the share of the question's words (stems, each weighted by its rarity among the
    candidates) in the passage with its section path, ``sentence_coverage`` the same for
    the passage's best sentence alone, ``focus_coverage`` the share of the words of what
    the question asks for (:func:`app.core.focus.question_focus`; 1 when none was found)
    and ``section_coverage`` of the question's words in the section path. Where the
    question was translated, each coverage is the better of the question's own words and
    their translation, so a passage in another language is not judged by words it cannot
    hold.
    """
    ids = [c for c in pool if c in chunks]
    if not ids:
        return []
    lang = detect_language(query)
    terms = list(dict.fromkeys(stem(t, lang) for t in query_terms(query)))
    alt = list(dict.fromkeys(stem(t, lang) for t in lists.translated_terms))
    focus = question_focus(query, lang)
    focus_terms = {stem(w.lower(), lang) for w in focus.words}
    kw = _inverse_ranks(lists.keyword)
    vec = _inverse_ranks(lists.vector)
    foc = _inverse_ranks(lists.focus) if lists.focus else vec
    tr = _inverse_ranks(lists.translated)
    best_kw = lists.keyword[0][1] if lists.keyword else 0.0
    kw_score = dict(lists.keyword)
    cos = dict(lists.vector)
    best_cos = lists.vector[0][1] if lists.vector else 0.0
    last_cos = lists.vector[-1][1] if lists.vector else 0.0
    best_fused = max((lists.fused.get(c, 0.0) for c in ids), default=0.0) or 1.0

    texts = {c: _stems(f"{chunks[c].section}\n{chunks[c].text}", lang) for c in ids}
    weights = [w for w in (_weights(terms, [*texts.values()]), _weights(alt, [*texts.values()])) if w]

    def share(have: set[str]) -> float:
        return max((_share(w, have) for w in weights), default=0.0)

    rows = []
    for i, c in enumerate(ids, start=1):
        chunk = chunks[c]
        best_sentence = max((share(_stems(s, lang)) for s in sentences(chunk.text)), default=0.0)
        rows.append(
            (
                c,
                {
                "fused_rank": 1.0 / i,
                "fused": lists.fused.get(c, 0.0) / best_fused,
                "keyword_rank": kw.get(c, 0.0),
                "keyword_score": kw_score.get(c, 0.0) / best_kw if best_kw > 0 else 0.0,
                "vector_rank": vec.get(c, 0.0),
                "vector_gap": best_cos - cos.get(c, last_cos) if lists.vector else 0.0,
                "focus_rank": foc.get(c, 0.0),
                "translated_rank": tr.get(c, 0.0),
                "coverage": share(texts[c]),
                "sentence_coverage": best_sentence,
                "focus_coverage": (
                    len(focus_terms & texts[c]) / len(focus_terms) if focus_terms else 1.0
                ),
                "section_coverage": share(_stems(chunk.section, lang)),
                },
            )
        )
    return rows


@dataclass(frozen=True)
class Reranker:
    """A fitted logistic regression over standardised :data:`FEATURES`; ``pool``: how many
    of the best fused candidates it orders."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    pool: int = 30
    about: dict[str, object] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> Reranker:
        """The model in ``path`` (default: the one shipped in resources)."""
        path = path or resources_dir() / MODEL_FILE
        data = json.loads(path.read_text(encoding="utf-8"))
        names = tuple(data["features"])
        w = data["weights"]
        return cls(
            features=names,
            mean=tuple(float(w[n]["mean"]) for n in names),
            scale=tuple(float(w[n]["scale"]) for n in names),
            coef=tuple(float(w[n]["weight"]) for n in names),
            intercept=float(data["intercept"]),
            pool=int(data.get("pool", 30)),
            about=dict(data.get("about", {})),
        )

    def score(self, row: Mapping[str, float]) -> float:
        """The log-odds that the candidate described by ``row`` is on the answering page."""
        z = self.intercept
        for n, m, s, c in zip(self.features, self.mean, self.scale, self.coef, strict=True):
            z += c * (float(row.get(n, 0.0)) - m) / (s or 1.0)
        return z

    def order(self, rows: Sequence[tuple[str, Mapping[str, float]]]) -> list[str]:
        """The chunk ids of ``rows`` (from :func:`candidate_rows`) best first; ties keep
        the fused order."""
        scored = sorted((-self.score(r), i, c) for i, (c, r) in enumerate(rows))
        return [c for _, _, c in scored]
