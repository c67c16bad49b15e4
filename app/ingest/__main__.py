"""Measure parsing speed: ``python -m app.ingest FILE.pdf ...`` prints one JSON line per file.

Why here: parse speed is ingestion's own figure (pages per second of wall and CPU time,
PyMuPDF included); ``make bench`` can call this without the store or the embedder.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from app.core.errors import IngestError

from . import iter_pdf_paths, parse_pdf

logger = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.ingest", description=__doc__)
    ap.add_argument("paths", nargs="+", type=Path, help="PDF files or folders")
    ap.add_argument("--show", type=int, default=0, help="print the first N chunks too")
    args = ap.parse_args(argv)
    total_pages, total_wall = 0, 0.0
    for path in iter_pdf_paths(args.paths):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        try:
            parsed = parse_pdf(path)
        except IngestError as e:
            print(json.dumps({"file": str(path), "error": e.code, "message": str(e)}))
            continue
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        pages = parsed.document.pages
        total_pages += pages
        total_wall += wall
        row = {
            "file": path.name,
            "pages": pages,
            "sections": len(parsed.sections),
            "chunks": len(parsed.chunks),
            "seconds": round(wall, 3),
            "pages_per_s": round(pages / max(wall, 1e-9), 1),
            "cpu_pages_per_s": round(pages / max(cpu, 1e-9), 1),
        }
        print(json.dumps(row))
        for c in parsed.chunks[: args.show]:
            print(f"--- {c.chunk_id} p{c.page_start}-{c.page_end} [{c.section}]\n{c.text}")
    if total_wall:
        print(
            json.dumps(
                {"total_pages": total_pages, "pages_per_s": round(total_pages / total_wall, 1)}
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
