"""The chat model's per-answer thread count (app.core.cpu): every core when the machine is
idle, fewer while other work keeps cores busy."""

from __future__ import annotations

import os
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
    before = Snapshot(10.0, 50.0, own=4.0)
    assert others_busy(before, Snapshot(12.0, 53.0, own=5.0)) == pytest.approx(1.0)  # 3 - 1 in 2 s
    assert others_busy(before, Snapshot(12.0, 53.0, own=9.0)) == 0.0  # never negative
    assert others_busy(Snapshot(1.0, None, 0.0), Snapshot(12.0, 53.0, 0.0)) is None


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
    start = cpu.snapshot()
    if start.busy is None:
        pytest.skip("no /proc/stat on this system")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<0.8: pass"],
        check=True,
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cores = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / wall
    seen = others_busy(start, cpu.snapshot())
    assert seen is not None and seen >= 0.8 * child_cores

    mine = cpu.snapshot()
    t = time.monotonic()
    # spin until this process has used 0.3 CPU-s (on a loaded machine that takes longer)
    while cpu.snapshot().own - mine.own < 0.3 and time.monotonic() - t < 10:
        pass
    end = cpu.snapshot()
    assert end.own - mine.own >= 0.3
    ours_seen = others_busy(mine, end)
    assert ours_seen is not None and ours_seen < (end.busy - mine.busy) / (end.wall - mine.wall)


def test_cpu_share_gives_a_valid_thread_count() -> None:
    share = CpuShare(cores=2)
    assert share.threads() in (1, 2)


def test_after_a_long_pause_the_machine_is_sampled_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """An hour-long average says nothing about now: a busy hour that just ended must not
    cost the next answer its second core, nor an idle hour hide a job that just started."""
    share = CpuShare(cores=2)
    share._last = Snapshot(0.0, 0.0, 0.0)
    fresh = iter([Snapshot(3600.0, 3600.0, 0.0), Snapshot(3600.1, 3600.0, 0.0)])  # idle now
    monkeypatch.setattr(cpu, "snapshot", lambda: next(fresh))
    monkeypatch.setattr(cpu.time, "sleep", lambda s: None)
    assert share.threads() == 2  # the hour (1 core busy throughout) is ignored


def test_numpy_runs_on_one_thread_unless_the_user_says_otherwise() -> None:
    """numpy's OpenBLAS idles its worker in a spin for ~0.1 s after each product; on 2 cores
    the embedder call right after a search then took 60-120 ms instead of 9. Importing the
    app sets it to one thread before numpy loads, and leaves a user's own setting alone."""
    probe = "import os, app, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "1", out.stderr
    env["OPENBLAS_NUM_THREADS"] = "2"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "2", out.stderr
