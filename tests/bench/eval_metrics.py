"""Scoring for ``make eval``: turns per-question outcomes into the summary table and JSON.

Pure functions over the core models (SearchHit, Answer, Citation), kept apart from the runner so
they can be unit-tested quickly without a library, an embedder or a chat model.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.models import Answer, Citation, SearchHit
from app.ingest.layout import SYMBOLS

LATENCY_KEYS = ("retrieve", "first_token", "generate", "validate", "total")
SUPPORT_PARTS = ("concepts", "kind", "precheck", "support")
"""Timings of the support check: the question's concepts (rarity, absence), the search of
the retrieved passages for the kind of answer asked (a price), the check of the ranked
evidence before generation (only below the relevance floor) and the verdict."""
ANSWER_KINDS = ("generated", "extractive", "refusal")
STATUSES = ("GREEN", "YELLOW", "RED", "REFUSED")

_SPACE = re.compile(r"\s+")
_AFTER_SYMBOL = re.compile(f"([{SYMBOLS}]) ")
_LINE_END_HYPHEN = re.compile(r"(\w)-\s+(\w)")


def _loose(text: str) -> str:
    """Lower-case, whitespace-collapsed text in compatibility form (NFKC): chunk cleaning
    may re-flow lines and hyphens, and writes a PDF's ligature glyphs as their letters
    ("ﬁle" is stored as "file"), while an evidence string copied from the page's raw text
    keeps them. Without the fold, 30 of the real corpus's 394 answerable development
    questions counted as evidence misses with their sentence in a top passage.

    A space after a symbol (``layout.SYMBOLS``: "▶ Bitte", "→ die") is left out on both
    sides: MuPDF's raw text has none there, whatever the gap, so an evidence string copied
    from it reads "▶Bitte", while ingestion puts back the space the page shows (two of the
    real corpus's development questions, 2026-11-29)."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().lower()
    return _AFTER_SYMBOL.sub(r"\1", text)


@dataclass
class Outcome:
    """What happened for one question; serialised as-is into eval.json."""

    id: str
    doc: str
    question: str
    answerable: bool
    gold_page: int | None
    also_pages: list[int] = field(default_factory=list)  # other pages stating the same
    gold_rank: int | None = None  # 1-based rank of the first retrieved chunk covering the page
    evidence_rank: int | None = None  # 1-based rank of the first chunk containing the evidence
    retrieved: list[str] = field(default_factory=list)  # "file p3-4" per hit, in rank order
    mode: str | None = None
    kind: str | None = None
    status: str | None = None
    answer: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    support: dict[str, Any] | None = None  # validation.support without its closest passages
    closest: list[dict[str, Any]] = field(default_factory=list)  # a refusal's closest passages
    judged: list[dict[str, Any]] = field(default_factory=list)  # a refused answer's citations
    error: str | None = None

    @property
    def refused(self) -> bool:
        return self.kind == "refusal" or self.mode == "refuse"

    @property
    def asked(self) -> bool:
        return self.error is None and self.mode is not None


def gold_rank(hits: Sequence[SearchHit], doc_id: str | None, page: int | None) -> int | None:
    """1-based position of the first hit from ``doc_id`` whose page range covers ``page``."""
    if doc_id is None or page is None:
        return None
    for i, h in enumerate(hits, start=1):
        if h.doc_id == doc_id and h.page_start <= page <= h.page_end:
            return i
    return None


def evidence_rank(hits: Sequence[SearchHit], evidence: str | None) -> int | None:
    """1-based position of the first hit whose text contains the evidence (loosely normalised)."""
    if not evidence:
        return None
    for i, h in enumerate(hits, start=1):
        if holds_evidence(h.text, evidence):
            return i
    return None


def holds_evidence(text: str, evidence: str) -> bool:
    """Whether a passage's ``text`` contains the evidence, both loosely normalised
    (:func:`_loose`), with or without its line-end hyphens joined."""
    needle, loose = _loose(evidence), _loose(text)
    return needle in loose or needle in _LINE_END_HYPHEN.sub(r"\1\2", loose)


def citation_pages(c: Citation) -> set[int]:
    """Every page the citation's highlight touches (its start page plus its rectangles' pages)."""
    return {c.page, *(int(r[0]) for r in c.rects)}


def quote_verbatim(c: Citation, chunk_text: str | None) -> bool:
    """True when the shown quote occurs character for character in the cited chunk's text."""
    return bool(c.quote) and chunk_text is not None and c.quote in chunk_text


def outcome_from_answer(
    outcome: Outcome,
    answer: Answer,
    *,
    gold_doc_id: str | None,
    chunk_texts: Mapping[str, str],
) -> Outcome:
    """Fill ``outcome`` from an Answer; ``chunk_texts`` maps chunk_id -> stored chunk text."""
    outcome.mode = answer.mode
    outcome.kind = answer.kind
    outcome.status = answer.validation.status
    outcome.answer = answer.answer
    outcome.dropped = [d.reason for d in answer.validation.dropped]
    outcome.timings_ms = {k: float(v) for k, v in answer.timings_ms.items()}
    parts = [outcome.timings_ms[k] for k in SUPPORT_PARTS if k in outcome.timings_ms]
    if parts:  # what the support check adds to an answer: its concepts, then its verdict
        outcome.timings_ms["support_check"] = round(sum(parts), 2)
    named = {outcome.gold_page}
    stated = named | set(outcome.also_pages)
    if answer.validation.support is not None:
        outcome.support = answer.validation.support.model_dump(exclude={"closest", "judged"})
        outcome.judged = [
            _cited(c, outcome, gold_doc_id, named, stated, chunk_texts)
            for c in answer.validation.support.judged
        ]
        for c in answer.validation.support.closest:
            in_doc = outcome.answerable and c.doc_id == gold_doc_id
            outcome.closest.append(
                {
                    "file": c.file.rsplit("/", 1)[-1],
                    "page": c.page,
                    "quote": c.quote,
                    "on_gold_page": bool(in_doc and citation_pages(c) & stated),
                }
            )
    outcome.citations = [
        _cited(c, outcome, gold_doc_id, named, stated, chunk_texts) for c in answer.citations
    ]
    return outcome


def _cited(
    c: Citation,
    outcome: Outcome,
    gold_doc_id: str | None,
    named: set[int | None],
    stated: set[int | None],
    chunk_texts: Mapping[str, str],
) -> dict[str, Any]:
    """One citation as eval.json records it, with whether it is on an evidence page."""
    in_doc = outcome.answerable and c.doc_id == gold_doc_id
    pages = citation_pages(c)
    return {
        "n": c.n,
        "file": c.file.rsplit("/", 1)[-1],
        "page": c.page,
        "match": c.match,
        "quote": c.quote,
        "section": c.section,
        "on_gold_page": bool(in_doc and pages & stated),
        "on_named_page": bool(in_doc and pages & named),
        "verbatim": quote_verbatim(c, chunk_texts.get(c.chunk_id)),
    }


def percentile(values: Sequence[float], p: float) -> float | None:
    """Linear-interpolated percentile (p in 0..100); None for no values."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * p / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _share(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _shares(counter: Counter[str], keys: Sequence[str], total: int) -> dict[str, float | None]:
    out = {k: _share(counter.get(k, 0), total) for k in keys}
    out.update({k: _share(v, total) for k, v in counter.items() if k not in out})
    return out


def summarize(outcomes: Sequence[Outcome], ks: Sequence[int]) -> dict[str, Any]:
    """Aggregate figures over all questions (see tests/bench/README.md for their meaning)."""
    answerable = [o for o in outcomes if o.answerable]
    unanswerable = [o for o in outcomes if not o.answerable]
    searched = [o for o in answerable if o.retrieved or o.gold_rank is not None]

    retrieval: dict[str, Any] = {"questions": len(searched)}
    for k in sorted(set(ks)):
        retrieval[f"recall@{k}"] = _share(
            sum(o.gold_rank is not None and o.gold_rank <= k for o in searched), len(searched)
        )
        retrieval[f"evidence_recall@{k}"] = _share(
            sum(o.evidence_rank is not None and o.evidence_rank <= k for o in searched),
            len(searched),
        )
    retrieval["mrr"] = (
        round(sum(1.0 / o.gold_rank for o in searched if o.gold_rank) / len(searched), 4)
        if searched
        else None
    )

    asked = [o for o in outcomes if o.asked]
    answered = [o for o in answerable if o.asked and not o.refused]
    all_cites = [c for o in answered for c in o.citations]
    citations = {
        "answered_answerable": len(answered),
        "right_page": _share(
            sum(any(c["on_gold_page"] for c in o.citations) for o in answered), len(answered)
        ),
        "citation_precision": _share(sum(c["on_gold_page"] for c in all_cites), len(all_cites)),
        "citations_per_answer": round(len(all_cites) / len(answered), 2) if answered else None,
        "invalid_shown": sum(not c["verbatim"] for o in asked for c in o.citations),
    }
    refusal = {
        "unanswerable": _share(
            sum(o.refused for o in unanswerable if o.asked), sum(o.asked for o in unanswerable)
        ),
        "answerable": _share(
            sum(o.refused for o in answerable if o.asked), sum(o.asked for o in answerable)
        ),
    }
    verdicts = verdict_figures(outcomes)
    dropped = Counter(r for o in asked for r in o.dropped)
    latency: dict[str, dict[str, float | int | None]] = {}
    extra = {k for o in asked for k in o.timings_ms if not k.endswith("_tokens")}
    for key in list(LATENCY_KEYS) + sorted(extra - set(LATENCY_KEYS)):
        # A stage that did not run (e.g. no generation before a refusal) is reported as 0.0;
        # only "total" keeps those, so stage percentiles describe the runs of that stage.
        vals = [
            o.timings_ms[key]
            for o in asked
            if key in o.timings_ms and (key == "total" or o.timings_ms[key] > 0)
        ]
        p50, p95 = percentile(vals, 50), percentile(vals, 95)
        latency[key] = {
            "n": len(vals),
            "p50": None if p50 is None else round(p50, 1),
            "p95": None if p95 is None else round(p95, 1),
        }
    return {
        "questions": len(outcomes),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "asked": len(asked),
        "errors": sum(o.error is not None for o in outcomes),
        "retrieval": retrieval,
        "citations": citations,
        "dropped": dict(sorted(dropped.items())),
        "dropped_total": sum(dropped.values()),
        "refusal_rate": refusal,
        "verdicts": verdicts,
        "split": split_figures(outcomes),
        "kinds": _shares(Counter(o.kind for o in asked if o.kind), ANSWER_KINDS, len(asked)),
        "validation": _shares(Counter(o.status for o in asked if o.status), STATUSES, len(asked)),
        "latency_ms": latency,
        "tokens_mean": {
            key: round(sum(vals) / len(vals), 1)
            for key in sorted({k for o in asked for k in o.timings_ms if k.endswith("_tokens")})
            if (vals := [o.timings_ms[key] for o in asked if o.timings_ms.get(key, 0) > 0])
        },
    }


def on_gold(o: Outcome) -> bool:
    """Whether an answer cites a page that states the evidence (its page or an 'also' page)."""
    return o.answerable and any(c["on_gold_page"] for c in o.citations)


def on_named(o: Outcome) -> bool:
    """Whether an answer cites the one page the question names (the stricter figure)."""
    return o.answerable and any(c.get("on_named_page", c["on_gold_page"]) for c in o.citations)


def verdict_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """What the statuses are worth (issue 8's targets).

    ``green_precision``: of all GREEN answers (answerable or not), the share citing the
    evidence page (or another page stating the same, the question's ``also``);
    ``green_precision_named``: the same counting the named evidence page only;
    ``green_coverage``: GREEN answers citing the evidence page per answerable
    question asked; ``right_page_all``: answerable questions asked whose answer cites the
    evidence page (refusals count as misses); ``refused_pointing``: of the answerable
    questions refused, the share whose closest passages include the evidence page (what a
    refusal's chips are for: letting the person find the answer the check could not confirm).
    """
    asked = [o for o in outcomes if o.asked]
    green = [o for o in asked if o.status == "GREEN" and not o.refused]
    answerable = [o for o in asked if o.answerable]
    refused = [o for o in answerable if o.refused]
    return {
        "refused_answerable": len(refused),
        "refused_pointing": _share(
            sum(any(c["on_gold_page"] for c in o.closest) for o in refused), len(refused)
        ),
        "green": len(green),
        "green_precision": _share(sum(on_gold(o) for o in green), len(green)),
        "green_precision_named": _share(sum(on_named(o) for o in green), len(green)),
        "green_coverage": _share(sum(on_gold(o) for o in green), len(answerable)),
        "right_page_all": _share(sum(on_gold(o) for o in answerable), len(answerable)),
        "green_unanswerable": sum(not o.answerable for o in green),
    }


def held_out(qid: str) -> bool:
    """Even-numbered ids are held out: verdict thresholds are tuned on the odd ones only."""
    digits = "".join(ch for ch in qid if ch.isdigit())
    return bool(digits) and int(digits) % 2 == 0


def split_figures(outcomes: Sequence[Outcome]) -> dict[str, dict[str, Any]]:
    """The verdict and refusal figures of the tuning half (odd ids) and the held-out half
    (even ids), so a threshold fitted to one half shows whether it holds on the other."""
    out: dict[str, dict[str, Any]] = {}
    for name, half in (("tune", False), ("held_out", True)):
        part = [o for o in outcomes if held_out(o.id) == half and o.asked]
        un, ans = [o for o in part if not o.answerable], [o for o in part if o.answerable]
        answered = [o for o in ans if not o.refused]
        out[name] = {
            **verdict_figures(part),
            "refused_unanswerable": _share(sum(o.refused for o in un), len(un)),
            "refused_answerable": _share(sum(o.refused for o in ans), len(ans)),
            "right_page": _share(sum(on_gold(o) for o in answered), len(answered)),
            "questions": len(part),
        }
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:5.1f}%"


def wilson(share: float | None, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a proportion ``share`` measured on ``n`` items (None
    for none): how far a precision measured on a few dozen GREEN answers may lie from the
    true one (95.1% of 41 is anywhere from 83.9% to 98.7%)."""
    if share is None or n <= 0:
        return None
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def interval_text(share: float | None, n: int) -> str:
    """``[83.9-98.7%]``, the Wilson interval of ``share`` of ``n``; empty without one."""
    w = wilson(share, n)
    return "" if w is None else f"[{100 * w[0]:.1f}-{100 * w[1]:.1f}%]"


def _ms(x: float | int | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def format_table(summary: Mapping[str, Any]) -> str:
    """A compact, fixed-width report for the terminal."""
    r, c, rr = summary["retrieval"], summary["citations"], summary["refusal_rate"]
    vd = summary.get("verdicts") or verdict_figures([])
    lines = [
        f"questions {summary['questions']} (answerable {summary['answerable']}, "
        f"unanswerable {summary['unanswerable']}), asked {summary['asked']}, "
        f"errors {summary['errors']}",
        "",
        "retrieval (evidence page among top-k sources)",
    ]
    for key, val in r.items():
        if key.startswith("recall@"):
            ev = r.get("evidence_" + key)
            lines.append(f"  {key:<12} {_pct(val)}   (evidence text in chunk: {_pct(ev)})")
    lines.append(f"  {'MRR':<12} {'-' if r.get('mrr') is None else format(r['mrr'], '.3f')}")
    if summary["asked"]:
        lines += [
            "",
            "answers",
            f"  right-page citations  {_pct(c['right_page'])} of {c['answered_answerable']} "
            f"answered answerable (citation precision {_pct(c['citation_precision'])}, "
            f"{c['citations_per_answer'] or 0} per answer)",
            f"  invalid citations shown after validation: {c['invalid_shown']}",
            f"  refusal rate          unanswerable {_pct(rr['unanswerable'])}   "
            f"answerable {_pct(rr['answerable'])}",
            "  kinds                 "
            + "   ".join(f"{k} {_pct(v)}" for k, v in summary["kinds"].items()),
            "  validation            "
            + "   ".join(f"{k} {_pct(v)}" for k, v in summary["validation"].items()),
            f"  GREEN precision       {_pct(vd['green_precision'])} of {vd['green']} GREEN "
            f"{interval_text(vd['green_precision'], vd['green'])} "
            f"({vd['green_unanswerable']} on unanswerable)   GREEN coverage "
            f"{_pct(vd['green_coverage'])}",
            f"  GREEN precision named {_pct(vd.get('green_precision_named'))} "
            "(a citation on the one page the question names; above: or a page stating the same)",
            f"  evidence page cited   {_pct(vd['right_page_all'])} of answerable asked "
            "(refusals count as misses)",
            f"  refusals pointing     {_pct(vd.get('refused_pointing'))} of "
            f"{vd.get('refused_answerable', 0)} refused answerable questions show a closest "
            "passage on the evidence page",
            *(
                f"  {name:<21} GREEN precision {_pct(f['green_precision'])} "
                f"coverage {_pct(f['green_coverage'])}  refused unanswerable "
                f"{_pct(f['refused_unanswerable'])} answerable {_pct(f['refused_answerable'])}  "
                f"right-page {_pct(f['right_page'])}  ({f['questions']} questions)"
                for name, f in (
                    ("tune half (odd ids)", summary["split"]["tune"]),
                    ("held out (even ids)", summary["split"]["held_out"]),
                )
                if "split" in summary
            ),
            f"  dropped before validation: {summary['dropped_total']}"
            + (
                " (" + ", ".join(f"{k} {v}" for k, v in summary["dropped"].items()) + ")"
                if summary["dropped"]
                else ""
            ),
            "",
            f"  {'latency ms':<14}{'p50':>10}{'p95':>10}{'n':>6}",
        ]
        for key, v in summary["latency_ms"].items():
            lines.append(f"  {key:<14}{_ms(v['p50']):>10}{_ms(v['p95']):>10}{v['n']:>6}")
        if summary.get("tokens_mean"):
            lines.append(
                "  mean tokens   "
                + "   ".join(f"{k} {v:,.0f}" for k, v in summary["tokens_mean"].items())
            )
    return "\n".join(lines)
