"""`footnote docs`: list the documents in the library (no model is loaded)."""

from __future__ import annotations

import argparse
import logging

from app.cli import common
from app.core.errors import FootnoteError
from app.core.terminal import safe_line

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_library_option(parser)
    common.add_json_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        docs = common.open_library(args).documents()
    except FootnoteError as exc:
        return common.report_error(exc)
    if args.json:
        common.print_json({"documents": [d.model_dump(mode="json") for d in docs]})
        return common.EXIT_OK
    if not docs:
        print("The library is empty. Add PDFs with: footnote ingest PATH...")
        return common.EXIT_OK
    print(
        f"{'DOC_ID':<16}  {'PAGES':>5}  {'CHUNKS':>6}  {'STATUS':<7}  {'INGESTED':<16}  TITLE / FILE"
    )
    for d in docs:
        when = d.ingested_at.strftime("%Y-%m-%d %H:%M") if d.ingested_at else ""
        print(
            f"{d.doc_id:<16}  {d.pages:>5}  {d.chunks:>6}  {d.status:<7}  {when:<16}  {safe_line(d.title)}"
        )
        print(f"{'':<16}  {'':>5}  {'':>6}  {'':<7}  {'':<16}  {safe_line(d.file)}")
    print(f"{len(docs)} document(s).")
    return common.EXIT_OK
