"""Entry point of the frozen Footnote executable.

One executable serves both faces of the app: with a command (``ingest``, ``ask``, ...) it is the
``footnote`` command line; with no arguments, with desktop-app options (``--smoke``,
``--library DIR``) or with PDF files (a file manager's "Open with Footnote") it opens the window.
``freeze_support`` must run first so that a worker process spawned by a library
(multiprocessing, joblib) re-enters here as a worker instead of opening a second window.
"""

from __future__ import annotations

import multiprocessing
import sys

# Options only the desktop app understands (app.ui.main.parse_args); Qt's own start with -platform.
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
    return first.startswith(GUI_OPTIONS) or first.lower().endswith(".pdf")


def run() -> int:
    """Start Footnote; kept tiny so start-up time is the app's own, not the launcher's."""
    multiprocessing.freeze_support()
    from app.cli.main import COMMANDS, main

    args = sys.argv[1:]
    if args and wants_gui(args, set(COMMANDS)):
        from app.ui.main import main as gui_main

        return int(gui_main(args))
    return int(main(args))


if __name__ == "__main__":
    raise SystemExit(run())
