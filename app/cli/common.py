"""Helpers shared by the CLI commands: --library, JSON output, a stderr progress bar,
Ctrl-C as a polite cancel, and reading --batch files.

Machine-readable output goes to stdout only; progress and human messages go to stderr,
so `footnote search --json ... | jq` always sees clean JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from app.core.config import Settings
from app.core.errors import FootnoteError
from app.core.location import parse_location, redact
from app.core.progress import CancelToken, FileProgress, Progress, Stage
from app.core.terminal import json_safe, safe_line

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_library_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--library",
        metavar="DIR|URI",
        type=parse_location,
        default=None,
        help="Library folder, or a team library on object storage such as s3://bucket/prefix "
        "(credentials and endpoint from the usual AWS_* variables / profile files; "
        "default: $FOOTNOTE_LIBRARY or the per-user data folder).",
    )
    parser.add_argument(
        "--embedder",
        metavar="DIR",
        type=Path,
        default=None,
        help="sentence-transformers model folder (default: the embedded all-MiniLM-L6-v2; "
        "changing it re-embeds the library).",
    )


def add_scope_options(parser: argparse.ArgumentParser, *, top_k_help: str, doc_help: str) -> None:
    """--top-k and repeatable --doc, shared by `search` and `ask`; see ``top_k_is_valid``."""
    parser.add_argument("--top-k", type=int, default=None, metavar="N", help=top_k_help)
    parser.add_argument("--doc", action="append", dest="doc_ids", metavar="DOC_ID", help=doc_help)


def top_k_is_valid(args: argparse.Namespace) -> bool:
    """Report an out-of-range --top-k (a usage error) and return False; True when fine."""
    if args.top_k is not None and not 1 <= args.top_k <= 50:
        error("--top-k must be between 1 and 50.")
        return False
    return True


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="Print JSON on stdout.")


def settings_from_args(args: argparse.Namespace, **extra: Any) -> Settings:
    """Settings from the environment, overridden by the options given on the command line."""
    overrides: dict[str, Any] = {k: v for k, v in extra.items() if v is not None}
    for name in ("library", "embedder"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    return Settings(**overrides)


def open_library(args: argparse.Namespace, **kwargs: Any) -> Any:
    """The Library for ``--library``; imported here so `--help` stays instant."""
    from app.services.library import Library

    return Library(settings_from_args(args), **kwargs)


def find_document(library: Any, doc_id: str, *, json_key: str, as_json: bool) -> Any | None:
    """The library's one document whose id is ``doc_id`` or starts with it; None (the reason
    said on stderr, and in JSON as ``{json_key: null, "error": "unknown_doc_id"}``) when no
    document or several match."""
    wanted = doc_id.strip().lower()
    docs = library.documents()
    matches = [d for d in docs if d.doc_id == wanted] or [
        d for d in docs if wanted and d.doc_id.startswith(wanted)
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        error(f"'{doc_id}' matches {len(matches)} documents; give more of the id.")
    else:
        error(
            f"No document with id '{doc_id}' in {redact(library.settings.library)}. "
            "List the documents with: footnote docs"
        )
    if as_json:
        print_json({json_key: None, "error": "unknown_doc_id"})
    return None


def print_json(obj: Any, *, stream: TextIO | None = None, indent: int | None = 2) -> None:
    out = stream or sys.stdout
    out.write(json_safe(json.dumps(obj, ensure_ascii=False, indent=indent, default=str)) + "\n")
    out.flush()


def error(message: str) -> None:
    print(f"footnote: {safe_line(message)}", file=sys.stderr)


def report_error(exc: FootnoteError) -> int:
    """Print a Footnote error (message + hint) on stderr; the exit code for it."""
    error(exc.user_text())
    return EXIT_FAILED


def read_batch(path: str) -> list[str]:
    """Queries of a --batch file (``-`` = stdin): one per line, blank lines skipped."""
    if path == "-":
        lines = sys.stdin.read().splitlines()
    else:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


class ProgressBar:
    """Progress callback drawing one updating line on stderr (plain lines when not a tty)."""

    WIDTH = 24

    def __init__(self, stream: TextIO | None = None, *, min_interval_s: float = 0.1) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.min_interval_s = min_interval_s
        self._last = 0.0
        self._last_key: tuple[str, str | None] | None = None
        self._file_pos = ""
        self._drawn = False

    def __call__(self, p: Progress) -> None:
        if p.stage in (Stage.INDEXED, Stage.DONE) or (
            p.stage is Stage.EMBED and isinstance(p, FileProgress)
        ):
            return  # the embedding line counts the passages of all files; results come last
        if p.stage is Stage.FILE:
            self._file_pos = f"{min(p.done + 1, p.total)}/{p.total}" if p.total else ""
        key = (p.stage, p.file)
        now = time.monotonic()
        finished = p.total > 0 and p.done >= p.total
        if key == self._last_key and not finished and now - self._last < self.min_interval_s:
            return
        self._last = now
        name = safe_line(Path(p.file).name) if p.file else ""
        if self.tty:
            filled = int(self.WIDTH * p.fraction)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            head = f"[{self._file_pos}] " if self._file_pos and p.stage is not Stage.EMBED else ""
            line = f"{head}{p.stage:<6} [{bar}] {p.done}/{p.total} {name}"[:120]
            self.stream.write("\r\x1b[2K" + line)
            self._drawn = True
        elif p.stage is Stage.FILE and key != self._last_key and not finished:
            self.stream.write(f"{self._file_pos} {name}\n")
        elif p.stage is Stage.EMBED and (self._last_key is None or self._last_key[0] != "embed"):
            self.stream.write(f"embedding {p.total} passages\n")
        self._last_key = key
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False


@contextlib.contextmanager
def cancel_on_sigint() -> Iterator[CancelToken]:
    """First Ctrl-C cancels politely (current unit of work finishes); the second aborts."""
    token = CancelToken()
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        if token.cancelled:
            signal.signal(signal.SIGINT, previous)
            raise KeyboardInterrupt
        token.cancel()
        print("\nCancelling after the current step (Ctrl-C again to abort)...", file=sys.stderr)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not in the main thread (e.g. called from tests in a worker)
        yield token
        return
    try:
        yield token
    finally:
        signal.signal(signal.SIGINT, previous)
