"""How many cores other work kept busy lately, so the chat model can take every idle core.

Why: llama.cpp's worker threads spin while they wait for each other, so on a machine where
anything else runs, using every core makes generation several times slower (measured on 2
cores under load: prefill 52 tok/s with 1 thread vs 14 tok/s with 2). On an idle machine the
opposite holds: 2 threads prefill 260-290 tok/s against 125-150 with 1, and decode 94 against
42 tok/s. So the thread count is chosen per answer from what the rest of the machine did
since the previous one: the system's busy CPU time (``/proc/stat``) minus what the model
itself used while answering. Work of Footnote's own (embedding a PDF imported in the
background) counts as other work, as it should. Where ``/proc/stat`` does not exist the
1-minute load average stands in; where neither does, one core is left free.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

logger = logging.getLogger(__name__)

PROC_STAT = "/proc/stat"
# Other work below this many busy cores counts as an idle machine (a GUI repaint, a shell).
IDLE_BELOW = 0.5


@dataclass(frozen=True)
class Snapshot:
    wall: float  # seconds (monotonic)
    busy: float | None  # CPU-seconds the whole system spent busy; None: unknown here


def busy_seconds(stat_line: str, ticks_per_second: float) -> float:
    """System-wide busy CPU-seconds from the first line of ``/proc/stat``
    (``cpu user nice system idle iowait irq softirq steal ...``)."""
    fields = [float(x) for x in stat_line.split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    steal = fields[7] if len(fields) > 7 else 0.0
    return (user + nice + system + irq + softirq + steal) / ticks_per_second


def snapshot() -> Snapshot:
    try:
        with open(PROC_STAT, encoding="ascii") as fh:
            line = fh.readline()
        busy = busy_seconds(line, float(os.sysconf("SC_CLK_TCK")))
    except (OSError, ValueError, IndexError):
        busy = None
    return Snapshot(time.monotonic(), busy)


def others_busy(before: Snapshot, after: Snapshot, own_cpu_seconds: float) -> float | None:
    """Cores kept busy by other work between two snapshots, on average; None if unknown."""
    wall = after.wall - before.wall
    if before.busy is None or after.busy is None or wall <= 0:
        return None
    return max(0.0, (after.busy - before.busy - own_cpu_seconds) / wall)


def threads_for(cores: int, others: float | None, load_average: float | None) -> int:
    """All cores on an idle machine; else leave the busy ones to whoever uses them."""
    busy = others if others is not None else load_average
    if busy is None:
        return max(1, cores - 1)
    if busy < IDLE_BELOW:
        return cores
    return max(1, cores - max(1, round(busy)))


class CpuShare:
    """Per-answer thread count for one model: ``threads()`` before answering, and the answer
    runs inside ``ours()`` so that the model's own CPU time is not mistaken for other work."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = max(1, cores or os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._last = snapshot()
        self._own = 0.0

    def threads(self) -> int:
        with self._lock:
            now = snapshot()
            others = others_busy(self._last, now, self._own)
            self._last, self._own = now, 0.0
        load = None
        if others is None and hasattr(os, "getloadavg"):
            load = os.getloadavg()[0]
        n = threads_for(self.cores, others, load)
        logger.debug("other work kept %s cores busy: %d threads", others, n)
        return n

    @contextmanager
    def ours(self) -> Iterator[None]:
        t = os.times()
        try:
            yield
        finally:
            u = os.times()
            with self._lock:
                self._own += (u.user - t.user) + (u.system - t.system)
