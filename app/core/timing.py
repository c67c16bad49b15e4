"""Elapsed time in milliseconds, the unit of every ``timings_ms`` figure Footnote reports, and
the per-stage profile of an ingestion (:class:`StageTimes`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

# The stages of an ingestion, in pipeline order; ``footnote ingest --json`` reports them per file
# (``results[i].timings_ms``) and summed over the run (``timings_ms``). Wall milliseconds.
INGEST_STAGES: tuple[str, ...] = (
    "model_load",  # loading the embedding model (once per process; overlaps parsing)
    "worker_start",  # starting the parse worker process until it can read a file
    "hash",  # the file's content hash (its id), to tell an unchanged file without parsing
    "open",  # reading the file, hashing it, opening it, checking the page tree
    "content_check",  # the per-page check of drawing commands before MuPDF runs them
    "layout",  # text extraction: pages to lines of words (MuPDF words, fonts, note marks)
    "tables",  # column-wise table cells regrouped into rows
    "ocr_detect",  # which pages lack a usable text layer (scan, garbage text)
    "ocr",  # reading those pages by OCR
    "chunk",  # running heads, sections, title, chunks with character maps
    "parse_other",  # the rest of a parse (progress reports, per-file limits)
    "transfer",  # the parsed document crossing from the parse worker (pickle, pipe, waiting)
    "store",  # writing chunks and the document row: keyword-searchable from here
    "bm25",  # merging new chunks into the full-text (BM25) index
    "embed_ahead",  # embedding while files are still parsed (one core; overlaps the above)
    "embed_read",  # reading the chunks to embed back from the store
    "embedding",  # the embedding model's work
    "commit",  # writing vectors and marking documents ready
    "compaction",  # compacting tables and dropping old versions (and deciding when to)
)


def ms_since(t0: float, ndigits: int | None = None) -> float:
    """Milliseconds since ``t0`` (a :func:`time.perf_counter` reading), rounded to
    ``ndigits`` decimals if given."""
    ms = (time.perf_counter() - t0) * 1000
    return ms if ndigits is None else round(ms, ndigits)


def process_age_s() -> float | None:
    """Seconds since this process started (Linux ``/proc``, 10 ms steps); None elsewhere.

    Counts what happened before Python ran too (a frozen bundle's loader), so "the window
    appeared N s after launch" means what a user sees.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return max(0.0, uptime - int(fields[19]) / ticks)


class StageTimes:
    """Wall milliseconds per stage, summed over every call: ``with times.stage("store"): ...``
    or ``times.add("ocr", ms)``. Cheap enough to call per page."""

    __slots__ = ("ms",)

    def __init__(self, ms: Mapping[str, float] | None = None) -> None:
        self.ms: dict[str, float] = dict(ms or {})

    def add(self, stage: str, ms: float) -> None:
        self.ms[stage] = self.ms.get(stage, 0.0) + ms

    def merge(self, other: Mapping[str, float]) -> None:
        for stage, ms in other.items():
            self.add(stage, ms)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, (time.perf_counter() - t0) * 1000)

    def total(self) -> float:
        return sum(self.ms.values())

    def report(self, ndigits: int = 1) -> dict[str, float]:
        """The stages in pipeline order (others after them), rounded; stages never timed are
        left out."""
        order = {s: i for i, s in enumerate(INGEST_STAGES)}
        keys = sorted(self.ms, key=lambda s: (order.get(s, len(order)), s))
        return {k: round(self.ms[k], ndigits) for k in keys}
