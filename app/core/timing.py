"""Elapsed time in milliseconds, the unit of every ``timings_ms`` figure Footnote reports."""

from __future__ import annotations

import time


def ms_since(t0: float, ndigits: int | None = None) -> float:
    """Milliseconds since ``t0`` (a :func:`time.perf_counter` reading), rounded to
    ``ndigits`` decimals if given."""
    ms = (time.perf_counter() - t0) * 1000
    return ms if ndigits is None else round(ms, ndigits)
