"""Helpers for the ingest / retrieval benchmark: timing, memory, recall, synthetic scale.

Kept apart from ``bench_ingest.py`` so the pieces (recall scoring, scale synthesis) can
be reused by a tuning script without running the whole benchmark.
"""

from __future__ import annotations

import hashlib
import logging
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.models import Chunk, Document, ParsedDocument, SearchHit
from app.core.protocols import Embedder
from tests.bench.eval_metrics import evidence_rank, gold_rank, percentile
from tests.bench.question_set import Question

logger = logging.getLogger(__name__)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def pct(values: Sequence[float], p: float) -> float | None:
    v = percentile(list(values), p)
    return None if v is None else round(v, 2)


class RecordingEmbedder:
    """Wraps an embedder and remembers each text's vector (to replicate real vectors later)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.vectors: dict[str, np.ndarray] = {}
        self.texts = 0
        self.seconds = 0.0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.inner.embed(texts, batch_size=batch_size)
        self.seconds += time.perf_counter() - t0
        if len(texts) > 1:  # batches come from ingest, single texts from queries
            self.texts += len(texts)
            for t, v in zip(texts, out, strict=True):
                self.vectors[t] = v
        return out


@dataclass
class RecallReport:
    k: int
    answerable: int
    page_hits: int
    evidence_hits: int
    latencies_ms: list[float]
    misses: list[str]

    def as_dict(self) -> dict[str, Any]:
        n = max(self.answerable, 1)
        return {
            "k": self.k,
            "answerable": self.answerable,
            "page_recall": round(self.page_hits / n, 4),
            "evidence_recall": round(self.evidence_hits / n, 4),
            "search_p50_ms": pct(self.latencies_ms, 50),
            "search_p95_ms": pct(self.latencies_ms, 95),
            "misses": self.misses,
        }


def evaluate(
    search: Callable[[str, int], list[SearchHit]],
    questions: Sequence[Question],
    doc_ids: dict[str, str],
    *,
    k: int = 5,
) -> RecallReport:
    """Page recall@k: a hit is a retrieved chunk of the question's document whose page range
    covers the question's page; evidence recall@k also requires the evidence in its text.
    Latency is measured over every question, answerable or not."""
    page_hits = ev_hits = answerable = 0
    lat: list[float] = []
    misses: list[str] = []
    for q in questions:
        t0 = time.perf_counter()
        hits = search(q.question, k)
        lat.append((time.perf_counter() - t0) * 1000)
        if not q.answerable or q.doc not in doc_ids:
            continue
        answerable += 1
        if gold_rank(hits, doc_ids[q.doc], q.page) is not None:
            page_hits += 1
        else:
            misses.append(q.id)
        if any(
            evidence_rank([h], q.evidence) is not None for h in hits if h.doc_id == doc_ids[q.doc]
        ):
            ev_hits += 1
    return RecallReport(k, answerable, page_hits, ev_hits, lat, misses)


def synthetic_copy(
    base: Sequence[tuple[Document, Chunk, np.ndarray]], copy_no: int, n: int, start: int
) -> tuple[ParsedDocument, list[np.ndarray]]:
    """One synthetic document of ``n`` chunks cycling through real (document, chunk, vector)
    rows from position ``start``: real text, real vectors, new ids."""
    doc_id = hashlib.sha256(f"synthetic-{copy_no}".encode()).hexdigest()[:16]
    chunks: list[Chunk] = []
    vecs: list[np.ndarray] = []
    for i in range(n):
        d, c, v = base[(start + i) % len(base)]
        chunks.append(
            c.model_copy(
                update={"chunk_id": Chunk.make_id(doc_id, i), "doc_id": doc_id, "ordinal": i}
            )
        )
        vecs.append(v)
    pages = max(c.page_end for c in chunks)
    document = Document(
        doc_id=doc_id,
        file=f"/synthetic/copy-{copy_no}.pdf",
        title=f"Synthetic copy {copy_no}",
        pages=pages,
        chunks=n,
        status="indexed",
    )
    return ParsedDocument(document=document, chunks=chunks), vecs
