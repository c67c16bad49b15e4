"""kill -9 a real `python -m app ingest` mid-run, reopen, check consistency, finish the job."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pymupdf
import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.services.library import Library
from app.store import Store
from tests.store_invariants import assert_store_consistent

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
WORDS = [
    "sensor",
    "logger",
    "channel",
    "battery",
    "housing",
    "bracket",
    "calibration",
    "filter",
    "display",
    "memory",
    "card",
    "sample",
    "rate",
    "burst",
    "mode",
    "temperature",
    "voltage",
    "current",
    "cable",
    "connector",
    "firmware",
    "wizard",
    "measurement",
    "plan",
    "interval",
    "alarm",
    "threshold",
    "report",
    "export",
    "network",
    "module",
    "relay",
    "switch",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "for",
    "with",
    "on",
    "by",
    "at",
    "from",
    "that",
    "this",
    "each",
    "every",
    "must",
    "should",
    "can",
]


def make_big_pdf(path: Path, seed: int, pages: int = 12) -> Path:
    """A text PDF with distinct, deterministic content (so each file is its own document)."""
    rng = random.Random(seed)
    doc = pymupdf.open()
    for p in range(pages):
        page = doc.new_page()
        body = f"Chapter {p + 1} of report {seed}\n\n"
        for _ in range(7):
            sentence_count = rng.randint(4, 7)
            sentences = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."
                for _ in range(sentence_count)
            ]
            body += " ".join(sentences) + f" Reference code R{seed}-{p}.\n\n"
        page.insert_textbox(pymupdf.Rect(60, 60, 535, 790), body, fontsize=9.5)
    doc.set_metadata({"title": f"Report {seed}"})
    doc.save(path)
    doc.close()
    return path


def check_consistent(library_dir: Path) -> Store:
    """Reopen (which runs the crash sweep) and check the store invariants."""
    store = Store(library_dir)
    assert_store_consistent(store)
    return store


def start_ingest(
    folder: Path, library_dir: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "ingest", str(folder), "--library", str(library_dir), *extra],
        cwd=REPO,
        env={**os.environ, "FOOTNOTE_LIBRARY": str(library_dir), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_line(proc: subprocess.Popen[str], prefix: str, timeout_s: float = 300) -> str:
    """Read the child's progress lines (stderr, not a tty: one line per file) until ``prefix``."""
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            raise AssertionError(f"ingest ended (rc={proc.wait()}) before printing {prefix!r}")
        if line.startswith(prefix):
            return line
    raise AssertionError(f"no {prefix!r} line within {timeout_s} s")


def row_count(library_dir: Path, table: str) -> int:
    """A table's row count, read-only (opening a Store would run the sweep)."""
    import lancedb

    db = lancedb.connect(library_dir)
    return db.open_table(table).count_rows() if table in db.list_tables().tables else 0


def wait_for_rows(library_dir: Path, table: str, n: int, proc: subprocess.Popen[str]) -> None:
    """Poll a table's row count read-only (opening a Store would run the sweep)."""
    import lancedb

    db = lancedb.connect(library_dir)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"ingest ended (rc={proc.returncode}) before it could be killed")
        if table in db.list_tables().tables and db.open_table(table).count_rows() >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{table} never reached {n} rows")


def kill9(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


@pytest.fixture
def pdf_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "reports"
    folder.mkdir()
    for i in range(10):
        make_big_pdf(folder / f"report{i:02d}.pdf", seed=i)
    return folder


def test_kill_during_indexing_then_rerun_completes(
    pdf_folder: Path, tmp_path: Path, shared_embedder: Embedder
) -> None:
    library_dir = tmp_path / "lib"
    n = len(list(pdf_folder.glob("*.pdf")))
    # Two rounds, killed at different moments: just after file 3 is through, and just after
    # the next file's passages are written once file 6 is through. The second waits for the
    # write itself, not for a fixed time: on an idle machine the last four files took less
    # than the 0.4 s this round once slept, and nothing was left to interrupt.
    for round_no, wait_for in enumerate(["3/", "6/"]):
        proc = start_ingest(pdf_folder, library_dir, "--no-embed")
        wait_for_line(proc, wait_for)
        if round_no == 0:
            time.sleep(0.05)
        else:
            wait_for_rows(library_dir, "chunks", row_count(library_dir, "chunks") + 1, proc)
        if proc.poll() is not None:
            pytest.fail(f"round {round_no}: ingest finished before it could be killed")
        kill9(proc)
        store = check_consistent(library_dir)
        assert 0 < len(store.documents()) < n

    library = Library(Settings(library=library_dir), embedder=shared_embedder)
    before = {d.doc_id for d in library.documents()}
    results = library.ingest([pdf_folder]).results
    assert len(results) == n
    assert all(r.status in ("added", "unchanged") for r in results), results
    assert {r.doc_id for r in results if r.status == "unchanged"} == before
    store = check_consistent(library_dir)
    assert len(store.documents()) == n
    assert all(d.status == "ready" for d in store.documents())


def test_kill_during_embedding_then_resume(
    pdf_folder: Path, tmp_path: Path, shared_embedder: Embedder
) -> None:
    library_dir = tmp_path / "lib"
    n = len(list(pdf_folder.glob("*.pdf")))
    # Vectors are committed in groups (every few seconds); commit after every batch here, so
    # that a kill lands between commits with some documents embedded and others not.
    proc = start_ingest(pdf_folder, library_dir, env={"FOOTNOTE_COMMIT_EVERY": "0"})
    wait_for_line(proc, "embedding", timeout_s=600)
    # Kill as soon as the first vectors are committed: mid-way through embedding.
    wait_for_rows(library_dir, "vectors", 1, proc)
    kill9(proc)

    store = check_consistent(library_dir)
    docs = store.documents()
    assert len(docs) == n  # the keyword phase had finished for every file
    assert any(d.status == "indexed" for d in docs)

    library = Library(Settings(library=library_dir), embedder=shared_embedder)
    library.embed_pending()
    store = check_consistent(library_dir)
    assert all(d.status == "ready" for d in store.documents())
    assert store.count_vectors() == store.count_chunks()
    hits, _ = library.search("Reference code R3-2")
    assert hits and hits[0].doc_id == next(d.doc_id for d in docs if d.title == "Report 3")
