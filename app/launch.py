"""Process entry point shared by `python -m app`, the `footnote` script and the frozen bundle.

One executable serves both faces of Footnote: with a command (``ingest``, ``ask``, ...) it is
the command line; with no arguments, desktop-app options (``--smoke``, ``--library DIR``) or
PDF files (a file manager's "Open with Footnote") it opens the window. This module sits above
both ``app.cli`` and ``app.ui`` so that neither imports the other.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.core import importlog, memory
from app.core.formats import is_supported_name

# Options only the desktop app understands (app.ui.main); Qt's own start with -platform.
GUI_OPTIONS = ("--smoke", "--library", "-platform")
CLI_ONLY = ("-h", "--help", "--version")


def wants_gui(args: list[str], commands: set[str]) -> bool:
    """True when ``args`` are for the desktop app rather than a CLI command."""
    if not args:
        return True
    if any(a in commands or a in CLI_ONLY for a in args):
        return False
    first = next((a for a in args if a not in ("-v", "--verbose")), None)
    if first is None:
        return True
    return first.startswith(GUI_OPTIONS) or is_supported_name(Path(first).name)


# First argument that makes the (frozen) executable a parse worker (app.ingest.worker).
PARSE_WORKER_ARG = "--footnote-parse-worker"


def run(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    memory.limit_malloc_arenas()  # before any thread allocates (app.core.memory)
    importlog.install()  # FOOTNOTE_IMPORT_LOG=DIR: what this process loaded, written at exit
    if args[:1] == [PARSE_WORKER_ARG]:
        from app.ingest.worker import child_main

        return child_main(args[1:])

    from app.cli.main import COMMANDS, build_parser, main

    if wants_gui(args, set(COMMANDS)):
        try:
            from app.ui.main import main as gui_main
        except ImportError as exc:  # e.g. Qt's system libraries missing on a headless box
            print(f"The desktop app cannot start here ({exc}).", file=sys.stderr)
            build_parser().print_help()
            return 0 if not args else 2
        return int(gui_main(args))
    return int(main(args))


def entry() -> None:
    """Run, then leave the process without running interpreter teardown once LanceDB is loaded.

    LanceDB's background runtime threads can crash at interpreter shutdown (a segfault that would
    turn exit code 1 into 139); by then all output is flushed and every write has committed.
    """
    code = run()
    if "lancedb" in sys.modules:
        from app.core.exiting import leave

        leave(code)  # multiprocessing's semaphores released first (app/core/exiting.py)
    raise SystemExit(code)
