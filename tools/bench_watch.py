"""How quickly do watched folders follow the disk? Prints figures; not a test.

    python tools/bench_watch.py [--files 1000] [--big-mb 50] [--copy-seconds 10]

Runs the real service (``app.services.watch.FolderSync`` on its own thread, real watchdog /
inotify events) over a real library in a temporary folder with the real default embedder
(all-MiniLM-L6-v2, offline), and measures the targets of issue 34:

1. a 10-page PDF copied into the watched folder: seconds from the end of the copy until
   ``Library.search`` finds it (target <= 5 s); then deleted: seconds until it is gone from
   the library (target <= 5 s);
2. ``--files`` one-page PDFs dropped in at once (moved in from a folder beside it, as a file
   manager does): all ingested, none twice (no duplicate document or chunk ids, one vector a
   chunk), the time taken, and whether the progress callback reported the run;
3. a ``--big-mb`` MB PDF (one page of text and a big embedded file) written in chunks over
   ``--copy-seconds``: how many times the service tried to read it, and whether it did so
   only after the copy ended.

The embedding model is loaded before watching starts (as the desktop app has it loaded);
its load time is printed on its own.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pymupdf  # noqa: E402

if True:  # app imports after the path is set
    from app.core.config import Settings
    from app.core.models import IngestOutcome
    from app.core.progress import Progress, Stage
    from app.services.library import Library
    from app.services.watch import FolderSync, SyncReport, watch_threaded

WORDS = [
    *("river", "harbour", "ferry", "lantern", "orchard", "quarry", "meadow", "bridge"),
    *("cellar", "granary", "beacon", "mill", "tannery", "foundry", "cottage", "chapel"),
    *("market", "wharf", "kiln", "loom"),
]


# --- generated PDFs ------------------------------------------------------------------------------


def make_pages_pdf(path: Path, pages: int, marker: str) -> Path:
    """``pages`` pages of plain prose; every page names ``marker`` (a word found nowhere else)."""
    doc = pymupdf.open()
    for pno in range(pages):
        page = doc.new_page(width=595, height=842)
        text = " ".join(
            f"On page {pno + 1} the {WORDS[(pno + i) % len(WORDS)]} of {marker} was inspected "
            f"and its ledger entry {pno * 100 + i} was checked against the survey."
            for i in range(14)
        )
        page.insert_textbox(pymupdf.Rect(60, 60, 535, 780), text, fontsize=11)
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def make_note_pdf(path: Path, i: int) -> Path:
    """One small page; the number makes every file's content (and so its id) different."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_textbox(
        pymupdf.Rect(60, 60, 535, 400),
        f"Field note {i}. Hut {i} holds {i % 97 + 3} litres of water; the "
        f"{WORDS[i % len(WORDS)]} path to it was cleared on day {i % 31 + 1}.",
        fontsize=11,
    )
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def make_big_pdf(path: Path, mb: int) -> Path:
    """A one-page PDF padded to ``mb`` MB with an embedded file of random (incompressible)
    bytes."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_textbox(
        pymupdf.Rect(60, 60, 535, 400),
        "The survey archive of the quillwort estate, with its raw readings attached.",
        fontsize=11,
    )
    doc.embfile_add("readings.bin", os.urandom(mb * 1024 * 1024), filename="readings.bin")
    doc.save(path)
    doc.close()
    return path


# --- watching ------------------------------------------------------------------------------------


class Recorder:
    """Wraps Library.ingest: which files each run was asked to read, and when."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self.calls: list[tuple[float, list[str]]] = []
        self.lock = threading.Lock()

    def __call__(self, paths: list[Path], **kwargs: Any) -> IngestOutcome:
        with self.lock:
            self.calls.append((time.monotonic(), [Path(p).name for p in paths]))
        return self.lib.ingest(paths, **kwargs)

    def reads(self, name: str) -> list[float]:
        with self.lock:
            return [t for t, names in self.calls for _ in range(names.count(name))]


class ProgressLog:
    def __init__(self) -> None:
        self.events: list[Progress] = []
        self.lock = threading.Lock()

    def __call__(self, p: Progress) -> None:
        with self.lock:
            self.events.append(p)

    def clear(self) -> None:
        with self.lock:
            self.events.clear()

    def snapshot(self) -> list[Progress]:
        with self.lock:
            return list(self.events)


def wait_for(cond: Callable[[], bool], timeout: float, step: float = 0.05) -> float | None:
    """Seconds until ``cond()`` holds, or None after ``timeout``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def names(lib: Library) -> Counter[str]:
    return Counter(Path(d.file).name for d in lib.documents())


def verdict(value: float | None, target: float) -> str:
    if value is None:
        return "NOT REACHED"
    return "met" if value <= target else "MISSED"


def load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f}"


# --- the three cases -----------------------------------------------------------------------------


def case_single(lib: Library, folder: Path, staging: Path, timeout: float) -> None:
    marker = "zorblaxite"
    src = make_pages_pdf(staging / "survey.pdf", 10, marker)
    target = folder / "survey.pdf"

    def found() -> bool:
        hits, _ = lib.search(marker, top_k=3)
        return any(Path(h.file).name == target.name for h in hits)

    shutil.copy(src, target)
    t0 = time.monotonic()
    found_s = wait_for(found, timeout)
    print(
        f"1a. 10-page PDF copied in, found by search after: {fmt(found_s)}"
        f"   (target <= 5 s: {verdict(found_s, 5)})"
    )
    ready = wait_for(lambda: all(d.status == "ready" for d in lib.documents()), timeout)
    embedded_s = None if ready is None else time.monotonic() - t0
    print(f"    ... and embedded (status ready) {fmt(embedded_s)} after the copy ended")
    target.unlink()
    gone_s = wait_for(
        lambda: "survey.pdf" not in names(lib) and not lib.search(marker, top_k=3)[0], timeout
    )
    print(
        f"1b. deleted, gone from the library after:          {fmt(gone_s)}"
        f"   (target <= 5 s: {verdict(gone_s, 5)})"
    )


def case_burst(
    lib: Library,
    folder: Path,
    staging: Path,
    rec: Recorder,
    progress: ProgressLog,
    n: int,
    timeout: float,
) -> None:
    burst = staging / "burst"
    burst.mkdir()
    t = time.monotonic()
    for i in range(n):
        make_note_pdf(burst / f"note-{i:04d}.pdf", i)
    print(f"2.  {n} one-page PDFs generated in {time.monotonic() - t:.1f} s; moving them in")
    before = len(rec.calls)
    progress.clear()
    t0 = time.monotonic()
    for f in sorted(burst.iterdir()):
        os.replace(f, folder / f.name)
    moved_s = time.monotonic() - t0
    t0 = time.monotonic()
    indexed_s = wait_for(lambda: len(lib.documents()) >= n, timeout, step=0.5)
    ready = wait_for(
        lambda: len(lib.documents()) >= n and all(d.status == "ready" for d in lib.documents()),
        timeout,
        step=0.5,
    )
    ready_s = None if ready is None else time.monotonic() - t0
    time.sleep(3)  # let a stray second run (if any) start
    docs = lib.documents()
    counted = Counter(Path(d.file).name for d in docs)
    doc_ids = [d.doc_id for d in docs]
    chunk_ids = (
        lib.store._chunks.search()
        .select(["chunk_id"])
        .limit(None)
        .to_arrow()
        .column("chunk_id")
        .to_pylist()
    )
    chunks, vectors = lib.store.count_chunks(), lib.store.count_vectors()
    runs = rec.calls[before:]
    reads = Counter(name for _, names_ in runs for name in names_)
    twice = [k for k, v in reads.items() if v > 1]
    events = progress.snapshot()
    files = [e for e in events if e.stage == Stage.FILE]
    embeds = [e for e in events if e.stage == Stage.EMBED]
    print(
        f"    moved in {moved_s:.2f} s; all {n} keyword-searchable after {fmt(indexed_s)},"
        f" all embedded after {fmt(ready_s)} (from the last move)"
    )
    print(
        f"    documents: {len(docs)} (target {n}), duplicate doc ids:"
        f" {len(doc_ids) - len(set(doc_ids))}, files listed twice:"
        f" {sum(v > 1 for v in counted.values())}"
    )
    print(
        f"    chunks: {chunks} with {len(chunk_ids) - len(set(chunk_ids))} duplicate chunk ids;"
        f" vectors: {vectors} (one a chunk: {'yes' if vectors == chunks else 'NO'})"
    )
    print(
        f"    ingest runs: {len(runs)} (files per run: {[len(n_) for _, n_ in runs]}),"
        f" files read more than once: {len(twice)} (target 0)"
    )
    last = max((e.done for e in files if e.total >= n // 2), default=0)
    print(
        f"    progress callback: {len(events)} reports, {len(files)} file reports"
        f" (largest run total {max((e.total for e in files), default=0)}, reached {last}),"
        f" {len(embeds)} embedding reports: {'reported' if files else 'NOT reported'}"
    )


def case_slow_copy(
    lib: Library,
    folder: Path,
    staging: Path,
    rec: Recorder,
    mb: int,
    seconds: float,
    timeout: float,
) -> None:
    src = make_big_pdf(staging / "archive.pdf", mb)
    data = src.read_bytes()
    size = len(data)
    pieces = 50
    step = size // pieces + 1
    target = folder / "archive.pdf"
    t0 = time.monotonic()
    with open(target, "wb") as fh:
        for i in range(0, size, step):
            fh.write(data[i : i + step])
            fh.flush()
            time.sleep(seconds / pieces)
    end = time.monotonic()
    print(f"3.  {size / 1e6:.1f} MB PDF written in {pieces} pieces over {end - t0:.1f} s")
    found_s = wait_for(lambda: "archive.pdf" in names(lib), timeout, step=0.2)
    time.sleep(5)  # would a second read follow?
    reads = rec.reads("archive.pdf")
    (doc,) = [d for d in lib.documents() if Path(d.file).name == "archive.pdf"] or [None]
    early = [t for t in reads if t < end]
    print(
        f"    read attempts: {len(reads)} (target 1); before the copy ended: {len(early)};"
        f" first read {fmt(reads[0] - end if reads else None)} after the copy ended;"
        f" in the library after {fmt(found_s)}"
    )
    print(
        f"    stored size {doc.size if doc else 'none'} of {size} bytes:"
        f" {'full' if doc and doc.size == size else 'WRONG'}"
    )


def fmt(s: float | None) -> str:
    return "never" if s is None else f"{s:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--big-mb", type=int, default=50)
    parser.add_argument("--copy-seconds", type=float, default=10.0)
    parser.add_argument("--timeout", type=float, default=900.0, help="per wait, seconds")
    parser.add_argument("--skip", default="", help="cases to skip, e.g. 2,3")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    print(f"machine: {os.cpu_count()} cores, {load()} at start")
    with tempfile.TemporaryDirectory() as tmp:
        folder, staging = Path(tmp) / "watched", Path(tmp) / "staging"
        folder.mkdir()
        staging.mkdir()
        lib = Library(Settings(library=Path(tmp) / "lib"))
        t = time.monotonic()
        lib.warm_up()
        print(f"embedding model loaded in {time.monotonic() - t:.1f} s (before watching)")
        rec, progress = Recorder(lib), ProgressLog()
        reports: list[SyncReport] = []
        ready = threading.Event()
        sync = FolderSync(lib, [folder], ingest=rec)
        thread, token = watch_threaded(
            sync, on_progress=progress, on_report=reports.append, on_ready=ready.set
        )
        assert ready.wait(60), "the watcher did not start"
        try:
            if "1" not in skip:
                case_single(lib, folder, staging, args.timeout)
            if "2" not in skip:
                case_burst(lib, folder, staging, rec, progress, args.files, args.timeout)
                print(f"    ({load()} after the burst)")
            if "3" not in skip:
                case_slow_copy(
                    lib, folder, staging, rec, args.big_mb, args.copy_seconds, args.timeout
                )
        finally:
            token.cancel()
            thread.join(30)
    print(f"machine: {load()} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
