"""Elapsed time in milliseconds, the unit of every ``timings_ms`` figure Footnote reports."""

from __future__ import annotations

import os
import time


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
