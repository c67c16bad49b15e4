"""Expanding what a user dropped or typed (files and folders) into the files to ingest.

Why keep explicit non-PDF files: a user who names a file should hear why it failed
(NotAPdfError) rather than have it silently ignored; only folder contents are filtered.
Inside folders, anything *named* ``*.pdf`` that is not a regular file (a FIFO, a device,
a broken link, a symlink loop, a folder with no PDFs in it) is kept too, so it gets a
result row saying what it is instead of vanishing; nothing here ever opens a file.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .convert import is_supported_name

logger = logging.getLogger(__name__)


def iter_pdf_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Files to ingest, in a stable order, without duplicates.

    - a folder expands recursively to its ``*.pdf`` files and the other documents Footnote
      reads (EPUB, text, Office...; any case), sorted, hidden
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
            found = _walk(p)
            if not found and _is_pdf_name(p.name):
                found = [p]  # "x.pdf" that is a folder without PDFs: say so
            for f in found:
                add(f)
        else:
            add(p)
    return out


def safe_resolve(path: Path) -> Path:
    """``path.resolve()`` for a regular file; anything else (a symlink loop, a link to
    /dev/zero or to nothing) stays as given (absolute), so its error names what the user
    named. Never raises."""
    try:
        resolved = path.resolve()
        if stat.S_ISREG(os.stat(resolved).st_mode):
            return resolved
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" on Python < 3.13
        pass
    return path.absolute()


def _is_pdf_name(name: str) -> bool:
    return name.lower().endswith(".pdf") and not name.startswith(".")


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=lambda e: logger.warning("skip: %s", e)):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        pdf_dirs = {d for d in dirs if _is_pdf_name(d)}
        for name in sorted(files):
            if is_supported_name(name):  # a PDF, or a document Footnote converts
                found.append(Path(root) / name)  # regular or not: see the module docstring
        for d in sorted(pdf_dirs):
            sub = Path(root) / d
            if not any(is_supported_name(f) for _, _, fs in os.walk(sub) for f in fs):
                found.append(sub)
    return found
