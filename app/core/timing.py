"""Elapsed time in milliseconds, the unit of every ``timings_ms`` figure Footnote reports."""

from __future__ import annotations

import time


def ms_since(t0: float) -> float:
    """Milliseconds since ``t0``, a :func:`time.perf_counter` reading."""
    return (time.perf_counter() - t0) * 1000
