"""`footnote summarize DOC_ID`: an outline of a document's sections in its own sentences.

Each top-level section (or, with ``--section``, each subsection of one) is told in one to
three of its most central sentences, every one a citation the validator found in the
document: printed as ``[n] file, p. X, section: "quote"``. ``--json`` prints the same
object as ``footnote ask --json`` (``answer``, ``citations`` with ``page``, ``quote`` and
``rects``; ``kind`` "summary"). No chat model is loaded. A unique prefix of the id is
accepted (as shown by `footnote docs`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from app.cli import common
from app.core.errors import Cancelled, FootnoteError
from app.core.terminal import safe_line, safe_text

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc_id", metavar="DOC_ID", help="Document id (see `footnote docs`).")
    parser.add_argument(
        "--section",
        default=None,
        metavar="NAME",
        help="Summarise one top-level section: its number ('3', 'chapter 3') or title words.",
    )
    common.add_library_option(parser)
    common.add_json_option(parser)


def run(args: argparse.Namespace) -> int:
    from app.services.summary import Summarizer, match_section, top_sections

    try:
        library = common.open_library(args)
        doc = common.find_document(library, args.doc_id, json_key="answer", as_json=args.json)
        if doc is None:
            return common.EXIT_FAILED
        section = None
        if args.section is not None:
            sections = top_sections(library.chunks_of(doc.doc_id, charmap=False))
            section = match_section(args.section, sections)
            if section is None:
                listed = "; ".join(sections) or "none"
                common.error(f"No section '{args.section}' in {doc.title}. Its sections: {listed}")
                if args.json:
                    common.print_json({"answer": None, "error": "unknown_section"})
                return common.EXIT_FAILED
        with common.cancel_on_sigint() as cancel:
            answer = Summarizer(library).summarize(doc.doc_id, section=section, cancel=cancel)
    except Cancelled:
        print("\nCancelled.", file=sys.stderr)
        return 130
    except FootnoteError as exc:
        return common.report_error(exc)
    if args.json:
        common.print_json(answer.model_dump(mode="json"))
        return common.EXIT_OK if answer.kind == "summary" else common.EXIT_FAILED
    out = sys.stdout
    out.write(safe_text(answer.answer.strip()) + "\n")
    if answer.citations:
        out.write("\n")
    for c in answer.citations:
        where = f", {safe_line(c.section)}" if c.section else ""
        out.write(
            f'[{c.n}] {safe_line(Path(c.file).name)}, p. {c.page}{where}: "{safe_line(c.quote)}"\n'
        )
    v = answer.validation
    status = "NOT ANSWERED" if answer.kind == "refusal" else v.status
    out.write(
        f"\n{status}: {len(answer.citations)} citation(s) verified; "
        f"{answer.timings_ms.get('total', 0) / 1000:.1f} s\n"
    )
    return common.EXIT_OK if answer.kind == "summary" else common.EXIT_FAILED
