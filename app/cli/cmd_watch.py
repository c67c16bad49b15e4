"""`footnote watch DIR... [--library DIR]`: keep the library in step with folders until Ctrl-C.

The folders are remembered in the library (``watched.json``), so `footnote watch` without
DIR watches them again, catching up first on what changed meanwhile; the desktop app does
the same at start. `--list` prints them, `--forget DIR` stops watching one. Exit 0 when
stopped by Ctrl-C, 1 when a folder does not exist, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from app.cli import common
from app.core.errors import FootnoteError
from app.core.terminal import safe_line

if TYPE_CHECKING:
    from app.services.watch import SyncReport


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "folders",
        nargs="*",
        metavar="DIR",
        help="Folders to keep in sync (remembered in the library); none: the remembered ones.",
    )
    common.add_library_option(parser)
    parser.add_argument("--list", action="store_true", help="Print the watched folders and exit.")
    parser.add_argument(
        "--forget", metavar="DIR", help="Stop watching DIR (its documents stay) and exit."
    )
    parser.add_argument(
        "--no-embed", action="store_true", help="Only keyword-index new files; embed later."
    )
    parser.add_argument(
        "--quiet-seconds",
        type=float,
        default=None,
        metavar="S",
        help="How long a file must be left alone before it is read (default 1).",
    )


def run(args: argparse.Namespace) -> int:
    from app.services.watch import QUIET_S, FolderSync, WatchList

    out = sys.stdout
    try:
        library = common.open_library(args)
        watched = WatchList(library.settings.library)
        if args.list:
            for f in watched.folders():
                print(safe_line(str(f)), file=out)
            return common.EXIT_OK
        if args.forget:
            if not watched.remove(args.forget):
                common.error(f"{args.forget} is not a watched folder.")
                return common.EXIT_FAILED
            print(f"No longer watching {safe_line(args.forget)}.", file=out)
            return common.EXIT_OK
        new = [Path(f).expanduser().absolute() for f in args.folders]
        for f in new:
            if not f.is_dir():
                common.error(f"{f} is not a folder.")
                return common.EXIT_FAILED
        folders = watched.add(new) if new else watched.folders()
        if not folders:
            common.error("No folder to watch: give one (footnote watch DIR).")
            return common.EXIT_USAGE
        gone = [f for f in folders if not f.is_dir()]
        for f in gone:
            print(f"Skipping {safe_line(str(f))}: it is not there now.", file=sys.stderr)
        folders = [f for f in folders if f.is_dir()]
        if not folders:
            return common.EXIT_FAILED
        library.store.claim_writer()
        quiet = QUIET_S if args.quiet_seconds is None else max(0.1, args.quiet_seconds)
        sync = FolderSync(library, folders, quiet_s=quiet, embed=not args.no_embed)
        bar = common.ProgressBar()

        def ready() -> None:
            bar.close()
            names = ", ".join(safe_line(str(f)) for f in folders)
            print(f"Watching {names} (Ctrl-C to stop).", file=out, flush=True)

        def report(r: SyncReport) -> None:
            bar.close()
            _print_report(r, out)

        with common.cancel_on_sigint() as cancel:
            sync.run(cancel, on_progress=bar, on_report=report, on_ready=ready)
        bar.close()
    except FootnoteError as exc:
        return common.report_error(exc)
    print("Stopped watching.", file=out)
    return common.EXIT_OK


def _print_report(report: SyncReport, out: TextIO) -> None:
    results = report.outcome.results if report.outcome is not None else []
    for r in results:
        if r.status == "unchanged":
            continue
        what = r.error if r.status == "failed" else f"{r.pages} pages, {r.chunks} passages"
        print(f"{r.status:<9} {safe_line(r.file)}  ({safe_line(what or '')})", file=out, flush=True)
    for f in report.removed:
        print(f"{'removed':<9} {safe_line(f)}", file=out, flush=True)
