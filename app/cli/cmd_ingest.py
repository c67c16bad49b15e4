"""`footnote ingest PATH...`: add PDF files or folders to the library.

Exit 0 when every file was added, updated or unchanged; 1 when some failed (the
others are still ingested); 2 on usage errors. Ctrl-C cancels after the current file.
Scanned pages are read by OCR unless ``--no-ocr``; ``--json`` reports ``ocr_pages`` per file,
and ``timings_ms`` per file and for the run: the wall milliseconds of every ingestion stage
(``app.core.timing.INGEST_STAGES``) beside the phases ``index``, ``embed`` and ``total``.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from typing import Any

from app.cli import common
from app.core.errors import FootnoteError
from app.core.models import IngestResult
from app.core.terminal import safe_line

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="PDF files or folders of PDFs.")
    common.add_library_option(parser)
    common.add_json_option(parser)
    parser.add_argument(
        "--no-embed",
        action="store_true",
        help="Only build the keyword index now; embed later (next ingest or search).",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="Parse, chunk and embed on a Ray cluster (needs footnote[cluster]): ADDRESS "
        "'auto' (a running cluster), 'ray://host:port', or nothing to start a local one.",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="With --ray: number of workers (each loads the embedder once; default: one per CPU).",
    )
    parser.add_argument(
        "--no-ocr",
        action="store_true",
        help="Do not read scanned pages with OCR (such files are then refused).",
    )


_ADDRESS = re.compile(r"^(auto|local|ray://.+|[A-Za-z0-9.-]+:\d+)$")


def _ray_address(args: argparse.Namespace) -> str | None:
    """The --ray address; a value that is no address was a PATH after a bare --ray."""
    value = args.ray
    if value and not _ADDRESS.match(value):
        args.paths.append(value)
        value = ""
    return None if value in ("", "local") else value


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    bar = None if args.json else common.ProgressBar()
    if args.workers is not None and args.workers < 1:
        common.error("--workers must be at least 1.")
        return common.EXIT_USAGE
    try:
        library = common.open_library(args)
        if args.no_ocr:
            library.settings = library.settings.model_copy(update={"ocr": False})
        library.store.claim_writer()
        if args.ray is not None:
            return _run_on_ray(args, library, bar, t0)
        t_open = time.perf_counter()
        with common.cancel_on_sigint() as cancel:
            outcome = library.ingest(
                args.paths, on_progress=bar, cancel=cancel, embed=not args.no_embed
            )
    except FootnoteError as exc:
        return common.report_error(exc)
    finally:
        if bar:
            bar.close()
    if outcome.embed_error:
        common.error(outcome.embed_error)
        return common.EXIT_FAILED
    t_end = time.perf_counter()
    results, cancelled = outcome.results, outcome.cancelled
    # The two phases and the whole command, then the stage profile (app.core.timing): each
    # file's stages are in its result's timings_ms.
    timings = {
        "index": round((t_open - t0) * 1000 + outcome.index_ms, 1),
        "embed": round(outcome.embed_ms, 1),
        "total": round((t_end - t0) * 1000, 1),
        "open_library": round((t_open - t0) * 1000, 1),
        **outcome.timings_ms,
    }
    if args.json:
        common.print_json(
            {
                "results": [_result_json(r) for r in results],
                "embedded_chunks": outcome.embedded_chunks,
                "cancelled": cancelled,
                "timings_ms": timings,
            }
        )
    else:
        _print_summary(results, timings, cancelled)
    return common.EXIT_FAILED if any(r.status == "failed" for r in results) else common.EXIT_OK


def _run_on_ray(args: argparse.Namespace, library: Any, bar: Any, t0: float) -> int:
    """`ingest --ray`: documents arrive embedded ("ready") from the workers."""
    from app.services.cluster import RayIngest, import_ray

    address = _ray_address(args)
    import_ray()  # fail fast, with what to install, before opening anything else
    job = RayIngest(library, address=address, workers=args.workers)
    with common.cancel_on_sigint() as cancel:
        results = job.run(args.paths, on_progress=bar, cancel=cancel)
        cancelled = cancel.cancelled
    if bar:
        bar.close()
    total = round((time.perf_counter() - t0) * 1000, 1)
    timings = {"total": total}
    if args.json:
        common.print_json(
            {
                "results": [_result_json(r) for r in results],
                "embedded_chunks": sum(
                    r.chunks for r in results if r.status in ("added", "updated")
                ),
                "cancelled": cancelled,
                "timings_ms": timings,
                "cluster": job.stats,
            }
        )
    else:
        _print_summary(results, timings, cancelled)
    return common.EXIT_FAILED if any(r.status == "failed" for r in results) else common.EXIT_OK


def _result_json(r: IngestResult) -> dict[str, object]:
    return r.model_dump(mode="json")


def _print_summary(results: list[IngestResult], timings: dict[str, float], cancelled: bool) -> None:
    out = sys.stdout
    for r in results:
        if r.status != "failed":
            ocr = f" ({r.ocr_pages} read by OCR)" if r.ocr_pages else ""
            print(
                f"{r.status:<9} {r.doc_id}  {r.pages:>4} pages{ocr} {r.chunks:>5} chunks  "
                f"{safe_line(r.file)}",
                file=out,
            )
    counts = {
        s: sum(1 for r in results if r.status == s)
        for s in ("added", "updated", "unchanged", "failed")
    }
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing to do"
    print(f"{summary} ({len(results)} files, {timings['total'] / 1000:.1f} s).", file=out)
    failed = [r for r in results if r.status == "failed"]
    if failed:
        print(f"{len(failed)} file(s) could not be added:", file=out)
        for r in failed:
            print(f"  {safe_line(r.file)}\n    {safe_line(r.error)}", file=out)
    if cancelled:
        print(
            "Cancelled: files already added are searchable; run the same command again to finish.",
            file=out,
        )
