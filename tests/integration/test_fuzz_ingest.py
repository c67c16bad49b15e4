"""Fuzzing ingestion: 108 mutated PDFs through the real `footnote ingest`, in batches each with
a good file, and the three inputs that once took 12 GB, 2.6 GB and 4.4 GB of memory.

Checked: no crash (exit code 0/1 and a JSON report), no hang (a time limit per file, read
from the per-file progress lines), every failure has a specific code and message, the good
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


def ingest_batch(files: list[Path], library: Path) -> tuple[dict, dict[str, float], int]:
    """Run one `footnote ingest --json --no-embed`; (report, seconds per file, peak RSS)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ingest", "--json", "--no-embed", "--library", str(library)]
        + [str(f) for f in files],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    rss = PeakRss(proc.pid)
    started: dict[str, float] = {}
    lines: list[str] = []

    def read_progress() -> None:  # "3/28 name.pdf" per file (stderr is not a tty)
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            parts = line.strip().split(" ", 1)
            if len(parts) == 2 and "/" in parts[0] and parts[0].split("/")[0].isdigit():
                started[parts[1]] = time.monotonic()

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    assert proc.stdout is not None
    budget = 60 + PER_FILE_S * len(files)
    try:
        out = proc.stdout.read()
        proc.wait(timeout=budget)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        peak = rss.stop()
        reader.join(timeout=5)
    end = time.monotonic()
    order = sorted(started.items(), key=lambda kv: kv[1])
    seconds = {
        name: (order[i + 1][1] if i + 1 < len(order) else end) - t
        for i, (name, t) in enumerate(order)
    }
    assert proc.returncode in (0, 1), f"crashed (exit {proc.returncode}): {''.join(lines)[-2000:]}"
    assert "Traceback" not in "".join(lines), "".join(lines)[-3000:]
    return json.loads(out), seconds, peak


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
    slowest = (0.0, "")
    for b in range(BATCHES):
        good = pf.make_manual_pdf(tmp_path / f"good-{b}.pdf", title=f"Good manual {b}")
        batch = files[b::BATCHES] + [good]
        report, seconds, peak = ingest_batch(batch, library)
        check_report(report, batch, good)
        for r in report["results"]:
            codes[r["error_code"] or r["status"]] = codes.get(r["error_code"] or r["status"], 0) + 1
        peak_all = max(peak_all, peak)
        slowest = max(slowest, max((s, n) for n, s in seconds.items()))
    print(
        f"\nfuzz: {N_FILES} files, outcomes {codes}, peak RSS {peak_all / 2**20:.0f} MB, "
        f"slowest file {slowest[1]} {slowest[0]:.1f} s (shared, loaded machine)"
    )
    assert slowest[0] < PER_FILE_S, f"{slowest[1]} took {slowest[0]:.0f} s"
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
        f"\nbombs: sizes {sizes}, peak RSS {peak / 2**20:.0f} MB, seconds "
        f"{ {n: round(s, 1) for n, s in seconds.items()} } (shared, loaded machine)"
    )
    assert results["text-bomb.pdf"]["error_code"] == "too_large"
    assert results["chunk-bomb.pdf"]["error_code"] == "too_large"
    assert results["padded.pdf"]["status"] == "added", results["padded.pdf"]["error"]
    assert results["good.pdf"]["status"] == "added"
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MB"
