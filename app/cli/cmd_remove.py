"""`footnote remove DOC_ID`: remove a document, its chunks and its vectors.

A unique prefix of the id is accepted (as shown by `footnote docs`).
"""

from __future__ import annotations

import argparse
import logging

from app.cli import common
from app.core.errors import FootnoteError
from app.core.terminal import safe_line

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc_id", metavar="DOC_ID", help="Document id (see `footnote docs`).")
    common.add_library_option(parser)
    common.add_json_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        library = common.open_library(args)
        doc = common.find_document(library, args.doc_id, json_key="removed", as_json=args.json)
        if doc is None:
            return common.EXIT_FAILED
        removed = library.remove(doc.doc_id)
    except FootnoteError as exc:
        return common.report_error(exc)
    if args.json:
        common.print_json({"removed": doc.doc_id if removed else None, "file": doc.file})
    elif removed:
        print(f"Removed {safe_line(doc.title)} ({doc.doc_id}, {safe_line(doc.file)}).")
    return common.EXIT_OK if removed else common.EXIT_FAILED
