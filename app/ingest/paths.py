"""Expanding what a user dropped or typed (files and folders) into the files to ingest.

Why keep explicit non-PDF files: a user who names a file should hear why it failed
(NotAPdfError) rather than have it silently ignored; only folder contents are filtered.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

logger = logging.getLogger(__name__)


def iter_pdf_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Files to ingest, in a stable order, without duplicates.

    - a folder expands recursively to its ``*.pdf`` files (any case), sorted, hidden
      files and folders skipped;
    - a file given explicitly is kept whatever its extension;
    - a path that does not exist is kept too, so the caller reports it as failed.
    """
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.absolute()
        if key not in seen:
            seen.add(key)
            out.append(key)

    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for f in _walk(p):
                add(f)
        else:
            add(p)
    return out


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=lambda e: logger.warning("skip: %s", e)):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(".pdf") and not name.startswith("."):
                f = Path(root) / name
                if f.is_file():
                    found.append(f)
    return found
