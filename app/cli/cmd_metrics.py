"""`footnote metrics`: print this process's answer metrics in the Prometheus text format.

The metrics live in memory and describe only what the current process did. Run on its
own, the command prints every series at zero; with ``--ask-batch FILE`` it first answers
each question of FILE (like ``footnote ask --batch``) and then prints the metrics those
answers produced. The desktop app keeps its own metrics for as long as it runs.
"""

from __future__ import annotations

import argparse
import logging
import sys

from app.cli import common
from app.core.errors import Cancelled, FootnoteError
from app.core.terminal import safe_line

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_library_option(parser)
    parser.add_argument(
        "--ask-batch",
        metavar="FILE",
        help="First ask each question in FILE (one per line), then print the metrics.",
    )


def run(args: argparse.Namespace) -> int:
    from app.services.metrics import render

    if args.ask_batch:
        try:
            questions = common.read_batch(args.ask_batch)
        except OSError as exc:
            common.error(f"cannot read the batch file {args.ask_batch}: {exc.strerror}.")
            return common.EXIT_USAGE
        from app.services.ask import AskService

        try:
            library = common.open_library(args)
            service = AskService(library, library.settings)
            with common.cancel_on_sigint() as cancel:
                for q in questions:
                    a = service.ask(q, cancel=cancel)
                    print(f"{a.validation.status} {a.kind}: {safe_line(q)}", file=sys.stderr)
        except Cancelled:
            print("Cancelled.", file=sys.stderr)
        except FootnoteError as exc:
            return common.report_error(exc)
    sys.stdout.write(render())
    sys.stdout.flush()
    return common.EXIT_OK
