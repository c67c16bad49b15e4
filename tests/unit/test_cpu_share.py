"""The chat model's per-answer thread count (app.core.cpu): every core when the machine is
idle, fewer while other work keeps cores busy."""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import pytest

from app.core import cpu
from app.core.cpu import CpuShare, Snapshot, busy_seconds, others_busy, threads_for


def test_busy_seconds_counts_everything_but_idle_and_iowait() -> None:
    line = "cpu  100 10 50 1000 40 5 5 2 0 0"
    assert busy_seconds(line, 100.0) == pytest.approx((100 + 10 + 50 + 5 + 5 + 2) / 100)


def test_others_busy_subtracts_our_own_cpu_time() -> None:
    before, after = Snapshot(10.0, 50.0), Snapshot(12.0, 53.0)  # 3 CPU-s busy in 2 s
    assert others_busy(before, after, own_cpu_seconds=1.0) == pytest.approx(1.0)
    assert others_busy(before, after, own_cpu_seconds=5.0) == 0.0  # never negative
    assert others_busy(Snapshot(1.0, None), after, 0.0) is None


@pytest.mark.parametrize(
    ("cores", "others", "load", "expected"),
    [
        (2, 0.1, None, 2),  # idle: every core
        (2, 0.9, None, 1),  # one core busy elsewhere: leave it
        (2, 3.0, None, 1),  # overloaded: still one
        (8, 2.2, None, 6),
        (2, None, 0.2, 2),  # no /proc/stat: the load average decides
        (2, None, None, 1),  # nothing known: leave a core free
    ],
)
def test_threads_for(cores: int, others: float | None, load: float | None, expected: int) -> None:
    assert threads_for(cores, others, load) == expected


def test_a_busy_process_is_seen_and_our_own_work_is_not() -> None:
    share = CpuShare(cores=2)
    share.threads()  # start a window now
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<0.8: pass"],
        check=True,
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cores = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / wall
    now = cpu.snapshot()
    seen = others_busy(share._last, now, share._own)
    if seen is None:
        pytest.skip("no /proc/stat on this system")
    assert seen >= 0.8 * child_cores

    with share.ours():  # our own spinning is subtracted
        t = time.monotonic()
        while time.monotonic() - t < 0.3:
            pass
    assert share._own >= 0.2

