"""OCR worker processes: inside the desktop app's import process (daemonic, so it may not start
any: OCR reads in-process there, else every scanned page failed with "daemonic processes are not
allowed to have children"), and after their parent was killed (they leave too)."""

from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.ingest.ocr_pool import workers_for
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit


def _report(q: mp.Queue) -> None:  # type: ignore[type-arg]
    from app.ingest.ocr_pool import workers_for

    q.put(workers_for(100))


def test_a_daemonic_process_reads_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOOTNOTE_OCR_WORKERS", "4")
    assert workers_for(100) == 4
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_report, args=(q,), daemon=True)
    p.start()
    try:
        assert q.get(timeout=120) == 1
    finally:
        p.join(timeout=60)


POOL_THEN_WAIT = """
import os, sys, time
from pathlib import Path
from app.ingest.ocr_pool import OcrPool
pool = OcrPool(Path(sys.argv[1]).read_bytes(), 2)
pids = {pool._ex.submit(os.getpid).result(timeout=300) for _ in range(8)}
print(" ".join(map(str, sorted(pids))), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_ocr_workers_leave_when_their_parent_is_killed(tmp_path: Path) -> None:
    """A parse worker killed mid-OCR (its watchdog, kill -9, the out-of-memory killer) must
    not leave its OCR processes behind: they would wait forever and hold its output pipes."""
    pdf = pf.make_scanned_pdf(tmp_path / "scan.pdf", pages=2)
    proc = subprocess.Popen(
        [sys.executable, "-c", POOL_THEN_WAIT, str(pdf)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert pids and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 60  # they look for their parent every second
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in pids), "OCR workers outlived their parent"
