"""How many cores other work kept busy lately, so the chat model can take every idle core.

Why: llama.cpp's worker threads spin while they wait for each other, so on a machine where
anything else runs, using every core makes generation several times slower (measured on 2
cores under load: prefill 52 tok/s with 1 thread vs 14 tok/s with 2). On an idle machine the
opposite holds: 2 threads prefill 260-290 tok/s against 125-150 with 1, and decode 94 against
42 tok/s. So the thread count is chosen per answer from what the rest of the machine did
since the previous one: the system's busy CPU time (``/proc/stat``) minus this process's own
(the model, the embedder, the search). The app imports PDFs in a child process, so a
background import counts as other work, as it should. Where ``/proc/stat`` does not exist the
1-minute load average stands in; where neither does, one core is left free.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass

logger = logging.getLogger(__name__)

PROC_STAT = "/proc/stat"
# Other work below this many busy cores counts as an idle machine (a GUI repaint, a shell).
IDLE_BELOW = 0.5
# After a pause this long since the last answer (the first question of a session, or after
# reading for a while) the average over the pause says little about now: sample briefly.
STALE_AFTER = 30.0
SAMPLE_SECONDS = 0.1  # /proc/stat counts in 10 ms ticks: 20 ticks of 2 cores


@dataclass(frozen=True)
class Snapshot:
    wall: float  # seconds (monotonic)
    busy: float | None  # CPU-seconds the whole system spent busy; None: unknown here
    own: float  # CPU-seconds this process spent (all its threads)


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
    t = os.times()
    return Snapshot(time.monotonic(), busy, t.user + t.system)


def others_busy(before: Snapshot, after: Snapshot) -> float | None:
    """Cores kept busy by other processes between two snapshots, on average; None if unknown."""
    wall = after.wall - before.wall
    if before.busy is None or after.busy is None or wall <= 0:
        return None
    own = after.own - before.own
    return max(0.0, (after.busy - before.busy - own) / wall)


def threads_for(cores: int, others: float | None, load_average: float | None) -> int:
    """All cores on an idle machine; else leave the busy ones to whoever uses them."""
    busy = others if others is not None else load_average
    if busy is None:
        return max(1, cores - 1)
    if busy < IDLE_BELOW:
        return cores
    return max(1, cores - max(1, round(busy)))


class CpuShare:
    """Per-answer thread count for one model: ``threads()`` before each answer."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = max(1, cores or os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._last = snapshot()

    def threads(self) -> int:
        with self._lock:
            now = snapshot()
            if now.wall - self._last.wall > STALE_AFTER:
                self._last = now
                time.sleep(SAMPLE_SECONDS)
                now = snapshot()
            others = others_busy(self._last, now)
            self._last = now
        load = None
        if others is None and hasattr(os, "getloadavg"):
            load = os.getloadavg()[0]
        n = threads_for(self.cores, others, load)
        logger.debug("other work kept %s cores busy: %d threads", others, n)
        return n
