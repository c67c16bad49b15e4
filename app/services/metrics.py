"""In-process metrics for answers: validation outcomes, dropped citations, latencies.

Prometheus counters and histograms in a private ``CollectorRegistry`` (never the global
one, so importing Footnote into another process adds nothing to its metrics, and tests
can reset them). They describe only what *this process* did: ``footnote metrics`` on
its own prints zeros; after ``footnote ask --batch FILE`` in the same process (or in the
GUI, which keeps running) they summarise every answer given.
"""

from __future__ import annotations

import logging
import threading

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from app.core.models import Answer

logger = logging.getLogger(__name__)

_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 10.0, 20.0, 60.0)
_FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

STATUSES = ("GREEN", "YELLOW", "RED", "REFUSED")
KINDS = ("generated", "extractive", "summary", "refusal")


class AnswerMetrics:
    """The metric families; one instance per registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.validations = Counter(
            "footnote_validations", "Validated answers by status.", ["status"], registry=r
        )
        self.answers = Counter("footnote_answers", "Answers given, by kind.", ["kind"], registry=r)
        self.dropped = Counter(
            "footnote_citations_dropped",
            "Citations dropped by the validator.",
            ["reason"],
            registry=r,
        )
        self.support = Histogram(
            "footnote_support_score",
            "How well the cited evidence covers the question (0..1), per answer with a verdict.",
            buckets=(0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 1.0),
            registry=r,
        )
        self.refusals = Counter(
            "footnote_refusals",
            "Refusals by why: a concept absent from the library, or evidence that does not "
            "answer (support), or another reason (other).",
            ["why"],
            registry=r,
        )
        self.repairs = Counter(
            "footnote_repair_retries", "Answers that needed a repair retry.", registry=r
        )
        self.validation_time = Histogram(
            "footnote_validation_seconds",
            "Time spent validating citations.",
            buckets=_FAST_BUCKETS,
            registry=r,
        )
        self.retrieval_time = Histogram(
            "footnote_retrieval_seconds",
            "Time spent retrieving sources.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.first_token_time = Histogram(
            "footnote_first_token_seconds",
            "Time from question to first answer token.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.generation_time = Histogram(
            "footnote_generation_seconds",
            "Time spent generating (all attempts).",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.total_time = Histogram(
            "footnote_answer_seconds",
            "Time from question to finished answer.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        for s in STATUSES:  # export zeros so a scrape shows every series
            self.validations.labels(status=s)
        for k in KINDS:
            self.answers.labels(kind=k)
        for why in ("absent", "support", "other"):
            self.refusals.labels(why=why)

    def record(self, answer: Answer) -> None:
        """Count one finished answer."""
        t = answer.timings_ms
        self.validations.labels(status=answer.validation.status).inc()
        self.answers.labels(kind=answer.kind).inc()
        for d in answer.validation.dropped:
            self.dropped.labels(reason=d.reason).inc()
        if answer.validation.repaired:
            self.repairs.inc()
        support = answer.validation.support
        if support is not None and answer.kind != "refusal":
            self.support.observe(support.score)
        if answer.kind == "refusal":
            self.refusals.labels(why=refusal_why(answer)).inc()
        for key, hist in (
            ("validate", self.validation_time),
            ("retrieve", self.retrieval_time),
            ("first_token", self.first_token_time),
            ("generate", self.generation_time),
            ("total", self.total_time),
        ):
            if t.get(key):
                hist.observe(t[key] / 1000.0)

    def render(self) -> str:
        """The metrics in the Prometheus text exposition format."""
        return generate_latest(self.registry).decode("utf-8")


def refusal_why(answer: Answer) -> str:
    """ "absent" (a key concept is nowhere in the library), "support" (the evidence does not
    answer) or "other" (empty library, no hits, the model declined)."""
    support = answer.validation.support
    if support is None:
        return "other"
    return "absent" if support.absent else "support"


_lock = threading.Lock()
_metrics: AnswerMetrics | None = None


def metrics() -> AnswerMetrics:
    """The process-wide metrics (created on first use)."""
    global _metrics
    with _lock:
        if _metrics is None:
            _metrics = AnswerMetrics()
        return _metrics


def reset_metrics() -> AnswerMetrics:
    """Start counting from zero (tests)."""
    global _metrics
    with _lock:
        _metrics = AnswerMetrics()
        return _metrics


def render() -> str:
    return metrics().render()
