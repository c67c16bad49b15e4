"""How fast is a document summary? Prints the figure; not a test (speed is never asserted).

    python tools/bench_summary.py [--pages 100] [--runs 3] [--pdf FILE]

Generates the 100-page handbook of ``tests/summary_factory.py`` (12 chapters, 36 sections),
ingests it into a temporary library with the real default embedder (all-MiniLM-L6-v2,
offline), then summarises it ``--runs`` times through the ask service's path
(``AskService.ask("What is this document about?")``, no chat model involved) and prints,
per run, the wall time, the share of top-level sections covered and the citations that
failed to verify. The first run is "cold" only in the sense that nothing of the summary was
cached; the embedding model is already loaded by the ingest, as in the app. ``--pdf FILE``
summarises a real document instead of the generated one (its top-level sections are those
of its outline, or of its headings when it has none).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main() -> int:
    from app.core.config import Settings
    from app.services.ask import AskService
    from app.services.library import Library
    from app.services.summary import section_path, top_sections
    from tests.summary_factory import make_long_pdf

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pdf", type=Path, default=None, help="a real document to summarise")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pdf = args.pdf or make_long_pdf(Path(tmp) / "handbook.pdf", pages=args.pages)
        lib = Library(Settings(library=Path(tmp) / "lib"))
        t0 = time.perf_counter()
        [result] = lib.ingest([pdf]).results
        args.pages = result.pages
        print(
            f"ingest: {pdf.name}, {result.pages} pages, {result.chunks} chunks,"
            f" {time.perf_counter() - t0:.1f} s"
        )
        assert result.doc_id is not None
        sections = top_sections(lib.chunks_of(result.doc_id, charmap=False))
        service = AskService(lib)
        times = []
        for run in range(1, args.runs + 1):
            t = time.perf_counter()
            answer = service.ask("What is this document about?")
            elapsed = time.perf_counter() - t
            times.append(elapsed)
            chunks = {c.chunk_id: c for c in lib.chunks([c.chunk_id for c in answer.citations])}
            invalid = sum(
                chunks[c.chunk_id].text[c.start : c.end] != c.quote or not c.rects
                for c in answer.citations
            )
            covered = {(section_path(chunks[c.chunk_id]) or [""])[0] for c in answer.citations}
            print(
                f"run {run}: {elapsed:.2f} s, kind={answer.kind}, "
                f"sections covered {len(covered & set(sections))}/{len(sections)}, "
                f"{len(answer.citations)} citations, {invalid} invalid, "
                f"dropped {len(answer.validation.dropped)}, timings_ms={answer.timings_ms}"
            )
        print(
            f"summary of a {args.pages}-page document: median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s over {len(times)} runs (os.cpu_count()={os.cpu_count()}, "
            f"load average {os.getloadavg()[0]:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
