"""`footnote search QUERY`: hybrid (BM25 + vector) search of the library.

`--batch FILE` runs one query per line with the models loaded once and prints one
JSON object per line (JSON Lines), for evaluation scripts and benchmarks.
"""

from __future__ import annotations

import argparse
import logging
import sys
import textwrap

from app.cli import common
from app.core.errors import FootnoteError
from app.core.terminal import safe_line

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", nargs="?", metavar="QUERY", help="What to look for.")
    common.add_library_option(parser)
    common.add_json_option(parser)
    common.add_scope_options(
        parser,
        top_k_help="Number of hits (default 8).",
        doc_help="Only search this document (repeatable).",
    )
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="Run each line of FILE ('-' = stdin) as a query; prints JSON Lines.",
    )


def run(args: argparse.Namespace) -> int:
    if (args.query is None) == (args.batch is None):
        common.error("give either a QUERY or --batch FILE (not both).")
        return common.EXIT_USAGE
    if not common.top_k_is_valid(args):
        return common.EXIT_USAGE
    try:
        queries = [args.query] if args.batch is None else common.read_batch(args.batch)
    except OSError as exc:
        common.error(f"cannot read the batch file {args.batch}: {exc.strerror}.")
        return common.EXIT_USAGE
    if args.query is not None and not args.query.strip():
        common.error("the query is empty.")
        return common.EXIT_USAGE
    try:
        library = common.open_library(args)
        if not library.documents():
            print(
                "The library is empty: nothing to search. Add PDFs with: footnote ingest PATH...",
                file=sys.stderr,
            )
        else:
            library.warm_up()  # load models once, so timings_ms measure the queries alone
        for query in queries:
            hits, timings = library.search(query, top_k=args.top_k, doc_ids=args.doc_ids)
            obj = {
                "query": query,
                "hits": [h.model_dump(mode="json") for h in hits],
                "timings_ms": timings,
            }
            if args.batch is not None:
                common.print_json(obj, indent=None)
            elif args.json:
                common.print_json(obj)
            else:
                _print_hits(query, obj)
    except FootnoteError as exc:
        return common.report_error(exc)
    return common.EXIT_OK


def _print_hits(query: str, obj: dict[str, object]) -> None:
    hits = obj["hits"]
    assert isinstance(hits, list)
    if not hits:
        print(f"No passages match '{safe_line(query)}'.")
        return
    for h in hits:
        pages = (
            f"p. {h['page_start']}"
            if h["page_start"] == h["page_end"]
            else f"pp. {h['page_start']}-{h['page_end']}"
        )
        section = f" | {safe_line(h['section'])}" if h["section"] else ""
        title = safe_line(h["title"])
        print(f"[{h['rank']}] {title}, {pages}{section}  (score {h['score']:.3f})")
        snippet = safe_line(" ".join(str(h["text"]).split()))
        print(textwrap.indent(textwrap.shorten(snippet, 300, placeholder=" ..."), "    "))
    timings = obj["timings_ms"]
    assert isinstance(timings, dict)
    print(f"({len(hits)} hits in {timings['total']:.0f} ms)", file=sys.stderr)
