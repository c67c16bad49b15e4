"""Logging set-up, done once at start-up by the CLI or the GUI.

Logs go to a rotating file in the per-user log folder (footnote.log, footnote.log.1, ...),
so a user can send one when something went wrong; the console gets warnings only
unless --verbose.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from app.core.config import log_dir

_configured = False


def setup_logging(*, verbose: bool = False, console: bool = True) -> Path | None:
    """Configure root logging once; return the log file path (None if it cannot be written)."""
    global _configured
    root = logging.getLogger()
    if _configured:
        return _log_file()
    _configured = True
    root.setLevel(logging.DEBUG)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s")
    file = _log_file()
    path: Path | None = file
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fh = logging.handlers.RotatingFileHandler(
            file, maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
        fh.setLevel(logging.INFO)
        fh.setFormatter(fmt)
        root.addHandler(fh)
    except OSError:
        path = None
    if console:
        ch = logging.StreamHandler(sys.stderr)
        ch.setLevel(logging.DEBUG if verbose else logging.WARNING)
        ch.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(ch)
    for noisy in ("urllib3", "filelock", "httpx", "sentence_transformers", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return path


def _log_file() -> Path:
    return log_dir() / "footnote.log"
