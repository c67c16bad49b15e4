"""Fuzzing ingestion: 108 mutated PDFs through the real `footnote ingest`, in batches each with
a good file, and the three inputs that once took 12 GB, 2.6 GB and 4.4 GB of memory.

Checked: no crash (exit code 0/1 and a JSON report), no hang (each command must end within
60 s per file; the parse worker gives up on a page after two minutes), every failure has a specific code and message, the good
file is always added, and the peak memory (RSS) of the whole process tree stays bounded
(psutil, sampled every 50 ms). ``--no-embed``: embedding is not what is under test.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests import hostile_pdfs as hp
from tests import pdf_factory as pf

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
N_FILES = 108
BATCHES = 4
PER_FILE_S = 60.0  # generous: the machine may be shared; a hang is minutes or forever
RSS_LIMIT = 1.5 * (1 << 30)
SPECIFIC = {
    "corrupt_pdf",
    "no_text",
    "no_pages",
    "not_pdf",
    "empty_file",
    "encrypted_pdf",
    "too_large",
}


class PeakRss:
    """Peak resident memory of a process and all its children, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                tree = [self.proc, *self.proc.children(recursive=True)]
                total = 0
                for p in tree:
                    with contextlib.suppress(psutil.Error):
                        total += p.memory_info().rss
                self.peak = max(self.peak, total)
            except psutil.Error:
                pass
            time.sleep(0.05)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def ingest_batch(files: list[Path], library: Path) -> tuple[dict, float, int]:
    """Run one `footnote ingest --json --no-embed`; (report, seconds, peak RSS of the tree).

    A hang fails the batch: it must finish within PER_FILE_S per file (the parse worker's
    own watchdog gives up on a page after two minutes)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ingest", "--json", "--no-embed", "--library", str(library)]
        + [str(f) for f in files],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    rss = PeakRss(proc.pid)
    try:
        out, err = proc.communicate(timeout=60 + PER_FILE_S * len(files))
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        peak = rss.stop()
    assert proc.returncode in (0, 1), f"crashed (exit {proc.returncode}): {err[-2000:]}"
    assert "Traceback" not in err, err[-3000:]
    return json.loads(out), time.monotonic() - t0, peak


def check_report(report: dict, files: list[Path], good: Path) -> None:
    results = {Path(r["file"]).name: r for r in report["results"]}
    assert set(results) == {f.name for f in files}, "a file got no result row"
    assert results[good.name]["status"] in ("added", "unchanged")
    for name, r in results.items():
        if r["status"] == "failed":
            assert r["error_code"] in SPECIFIC, f"{name}: {r['error_code']}: {r['error']}"
            assert name in r["error"] and len(r["error"]) > len(name) + 20, r["error"]


def test_fuzzed_pdfs_never_crash_hang_or_fail_silently(tmp_path: Path) -> None:
    files = hp.write_mutations(tmp_path / "fuzz", N_FILES)
    library = tmp_path / "lib"
    codes: dict[str, int] = {}
    peak_all = 0
    seconds = 0.0
    for b in range(BATCHES):
        good = pf.make_manual_pdf(tmp_path / f"good-{b}.pdf", title=f"Good manual {b}")
        batch = files[b::BATCHES] + [good]
        report, took, peak = ingest_batch(batch, library)
        check_report(report, batch, good)
        for r in report["results"]:
            codes[r["error_code"] or r["status"]] = codes.get(r["error_code"] or r["status"], 0) + 1
        peak_all = max(peak_all, peak)
        seconds += took
    print(
        f"\nfuzz: {N_FILES} files, outcomes {codes}, peak RSS {peak_all / 2**20:.0f} MB, "
        f"{seconds:.0f} s for {BATCHES} commands (shared, loaded machine)"
    )
    assert peak_all < RSS_LIMIT
    assert codes.get("too_large", 0) >= 5 and codes.get("corrupt_pdf", 0) >= 5


@pytest.mark.skipif(os.name != "posix", reason="sparse files")
def test_bombs_and_a_4_gib_file_stay_under_1_5_gb(tmp_path: Path) -> None:
    """The three inputs of issue #14, generated: a ~700 KB text-drawing bomb (once 12 GB),
    a ~70 KB file of 12,000+ passages (once 2.6 GB and 9 minutes of embedding) and a PDF
    padded to 4 GiB (sparse; once read whole into memory)."""
    folder = tmp_path / "in"
    folder.mkdir()
    text_bomb = folder / "text-bomb.pdf"
    text_bomb.write_bytes(hp.text_bomb(700_000_000, line=2_000))
    chunk_bomb = folder / "chunk-bomb.pdf"
    chunk_bomb.write_bytes(hp.chunk_bomb(pages=300, words_per_page=8_000))
    padded = folder / "padded.pdf"
    with padded.open("wb") as fh:
        fh.write(hp.text_page("A valid page followed by four gibibytes of nothing."))
        fh.truncate(4 << 30)
    good = pf.make_manual_pdf(folder / "good.pdf")
    files = [text_bomb, chunk_bomb, padded, good]
    report, seconds, peak = ingest_batch(files, tmp_path / "lib")
    results = {Path(r["file"]).name: r for r in report["results"]}
    sizes = {f.name: f.stat().st_size for f in files}
    print(
        f"\nbombs: sizes {sizes}, peak RSS {peak / 2**20:.0f} MB, {seconds:.0f} s "
        "(shared, loaded machine)"
    )
    assert results["text-bomb.pdf"]["error_code"] == "too_large"
    assert results["chunk-bomb.pdf"]["error_code"] == "too_large"
    assert results["padded.pdf"]["status"] == "added", results["padded.pdf"]["error"]
    assert results["good.pdf"]["status"] == "added"
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MB"
