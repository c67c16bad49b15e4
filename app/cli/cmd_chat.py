"""`footnote chat`: a conversation on standard input, one question per line.

Each line is asked as the desktop window asks it (``app.services.conversation``): a
follow-up ("How old are most of them?") is understood with the questions before it, and
searched and checked as understood. `--json` prints one JSON object per answer (the
`footnote ask --json` fields, with `understood_as`); `--export FILE` writes the whole
conversation as Markdown (`.md`) or HTML (`.html`) with every citation as a footnote. A line
`/new` starts a new conversation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from app.cli import common
from app.cli.cmd_ask import answer_json
from app.core.errors import Cancelled, FootnoteError
from app.core.models import Answer
from app.core.terminal import safe_line, safe_text

NEW_CONVERSATION = "/new"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_library_option(parser)
    parser.add_argument("--model", type=Path, default=None, metavar="GGUF", help="Chat model file.")
    parser.add_argument(
        "--llm-url", default=None, metavar="URL", help="Use an OpenAI-compatible llama.cpp server."
    )
    common.add_scope_options(
        parser,
        top_k_help="Sources to retrieve per question (default 8).",
        doc_help="Only use this document (repeatable).",
    )
    common.add_json_option(parser)
    parser.add_argument(
        "--export",
        metavar="FILE",
        type=Path,
        default=None,
        help="Write the conversation to FILE at the end: Markdown (.md) or HTML (.html).",
    )


def run(args: argparse.Namespace) -> int:
    from app.services.export import EXPORT_SUFFIXES

    if not common.top_k_is_valid(args):
        return common.EXIT_USAGE
    if args.model is not None and args.llm_url:
        common.error("use either --model or --llm-url, not both.")
        return common.EXIT_USAGE
    export: Path | None = args.export
    if export is not None and export.suffix.lower() not in EXPORT_SUFFIXES:
        common.error(f"--export: {export.name} must end in .md or .html.")
        return common.EXIT_USAGE
    if export is not None and not export.parent.is_dir():
        common.error(f"--export: the folder {export.parent} does not exist.")
        return common.EXIT_USAGE

    from app.services.ask import AskService
    from app.services.conversation import Conversation
    from app.services.export import export_conversation
    from app.services.library import Library

    settings = common.settings_from_args(args, model=args.model, llm_url=args.llm_url or None)
    answers: list[Answer] = []
    try:
        library = Library(settings)
        service = AskService(library, settings)
        if args.model is not None:
            service.load_model(args.model)
        talk = Conversation(service)
        with common.cancel_on_sigint() as cancel:
            for line in sys.stdin:
                question = line.strip()
                if not question:
                    continue
                if question == NEW_CONVERSATION:
                    talk.reset()
                    continue
                answer = talk.ask(question, doc_ids=args.doc_ids, top_k=args.top_k, cancel=cancel)
                answers.append(answer)
                if args.json:
                    common.print_json(answer_json(answer), indent=None)
                else:
                    _write(sys.stdout, answer)
    except Cancelled:
        print("\nCancelled.", file=sys.stderr)
        return 130
    except FootnoteError as exc:
        return common.report_error(exc)
    finally:
        if export is not None and answers:
            export_conversation(answers, export)
    return common.EXIT_OK


def _write(out: TextIO, answer: Answer) -> None:
    out.write(f"Q: {safe_line(answer.question)}\n")
    if answer.understood_as:
        out.write(f"Understood as: {safe_line(answer.understood_as)}\n")
    out.write(safe_text(answer.answer.strip()) + "\n")
    for c in answer.citations:
        section = f", {safe_line(c.section)}" if c.section else ""
        out.write(
            f'[{c.n}] {safe_line(Path(c.file).name)}, p. {c.page}{section}: "{safe_line(c.quote)}"\n'
        )
    status = "NOT ANSWERED" if answer.kind == "refusal" else answer.validation.status
    out.write(f"{status}\n\n")
    out.flush()
