"""OCR accuracy and speed on rendered pages of known text: ``python -m tests.bench.bench_ocr``.

Character error rate (CER) = edit distance between the printed text and what ingestion
read (whitespace collapsed), divided by the printed text's length. Pages: one-column pages
rendered at 300 dpi (clean) and 200 dpi (skewed by 1.5 degrees), and a two-column page
whose text must come back column by column. Speed is pages per second of the whole
``parse_pdf`` call on a scanned file (OCR dominates), in-process and with 2 worker
processes (CPU-seconds are counted for the in-process run only: workers are other processes). Figures depend on the machine's load:
run it on an idle machine for the README, and say so next to every figure.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from app.ingest import parse_pdf
from app.ingest.ocr import OcrOptions, tessdata_dir
from tests.scan_factory import make_scan_pdf

CASES = [
    ("clean 300 dpi", {"dpi": 300}, 0.02),
    ("200 dpi, 1.5 deg skew", {"dpi": 200, "skew": 1.5}, 0.05),
    ("two columns, 300 dpi", {"dpi": 300, "two_columns": True}, 0.02),
    ("rotated 90, 200 dpi", {"dpi": 200, "rotation": 90}, 0.05),
]


def cer(truth: str, got: str) -> float:
    t, g = " ".join(truth.split()), " ".join(got.split())
    return Levenshtein.distance(t, g) / max(1, len(t))


def joined(texts: list[str]) -> str:
    """Chunk texts joined without their overlaps (a chunk starts with the previous one's
    last sentences)."""
    acc = ""
    for t in texts:
        k = next((k for k in range(min(len(acc), len(t)), 0, -1) if acc.endswith(t[:k])), 0)
        acc = f"{acc} {t[k:]}" if acc and k == 0 else acc + t[k:]
    return acc


def read_text(path: Path, options: OcrOptions) -> tuple[str, int, float, float]:
    """Text of a parsed scan in reading order, its OCR'd pages, wall and CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    parsed = parse_pdf(path, ocr=options)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return joined([c.text for c in parsed.chunks]), len(parsed.ocr_pages), wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=6, help="pages per speed file")
    ap.add_argument("--dpi", type=int, default=300, help="OCR resolution ceiling")
    ap.add_argument("--languages", default="eng")
    args = ap.parse_args()
    options = OcrOptions(languages=args.languages, dpi=args.dpi)
    print(f"OCR: Tesseract (PyMuPDF built-in), tessdata {tessdata_dir()}, {args.languages}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        for label, kwargs, target in CASES:
            path, truth = make_scan_pdf(Path(tmp) / "case.pdf", **kwargs)
            got, n, secs, cpu = read_text(path, options)
            rate = cer(" ".join(p.text for p in truth), got)
            verdict = "met" if rate <= target else "MISSED"
            print(
                f"{label:24s} CER {rate:6.2%} (target <= {target:.0%}: {verdict}), "
                f"{secs:.1f} s wall, {cpu:.1f} s CPU"
            )
        for dpi, workers in ((200, 1), (200, 2), (300, 2)):
            os.environ["FOOTNOTE_OCR_WORKERS"] = str(workers)
            path, truth = make_scan_pdf(
                Path(tmp) / "speed.pdf", pages=args.pages, dpi=dpi, per_page=14
            )
            words = sum(len(p.text.split()) for p in truth) // len(truth)
            _, n, secs, cpu = read_text(path, options)
            per_cpu = f", {n / cpu:.2f} pages per CPU-second" if workers == 1 else ""
            print(
                f"speed, {args.pages} pages of {words} words scanned at {dpi} dpi, "
                f"{workers} worker(s): {n / secs:.2f} pages/s wall{per_cpu}"
            )
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
