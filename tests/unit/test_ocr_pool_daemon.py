"""OCR inside the desktop app's import process: that process is daemonic and may not start
worker processes, so OCR must read in-process there (else every scanned page failed with
"daemonic processes are not allowed to have children")."""

from __future__ import annotations

import multiprocessing as mp

import pytest

from app.ingest.ocr_pool import workers_for

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
