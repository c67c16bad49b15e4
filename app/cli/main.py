"""`footnote` command line (the desktop app is started by app.launch when no command is given). Each sub-command lives in its own module and is imported lazily,
so `footnote docs` never pays for loading torch or llama.cpp.

Exit codes: 0 success, 1 some input failed (others succeeded), 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from app import __version__
from app.core.logs import setup_logging

# name -> (module, one-line help). Each module defines add_arguments(parser) and run(args) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("app.cli.cmd_ingest", "Add PDF files or folders to the library."),
    "watch": ("app.cli.cmd_watch", "Keep the library in step with folders until Ctrl-C."),
    "docs": ("app.cli.cmd_docs", "List the documents in the library."),
    "remove": ("app.cli.cmd_remove", "Remove a document and its chunks."),
    "search": ("app.cli.cmd_search", "Search the library (hybrid keyword + vector)."),
    "ask": ("app.cli.cmd_ask", "Ask a question; get an answer with validated citations."),
    "chat": (
        "app.cli.cmd_chat",
        "A conversation: one question per line on stdin; follow-ups understood in context.",
    ),
    "summarize": (
        "app.cli.cmd_summarize",
        "Summarise a document: its sections in its own sentences, each a verified citation.",
    ),
    "metrics": ("app.cli.cmd_metrics", "Print in-process metrics (Prometheus text format)."),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="footnote",
        description="Ask questions about your own PDFs, offline, with proven citations. "
        "Run without a command to open the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"footnote {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="Log debug output to stderr.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod = importlib.import_module(module)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        build_parser().print_help()
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(verbose=args.verbose)
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(run(args))
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_went_away()


def _reader_went_away() -> int:
    """stdout's reader closed the pipe (``footnote search --batch q.txt | head``): stop
    quietly, like a tool killed by SIGPIPE, without a traceback from the final flush."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (tests): nothing to redirect
        pass
    return 128 + 13  # 141, the status a SIGPIPE'd process reports
