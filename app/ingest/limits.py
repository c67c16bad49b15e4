"""Limits on the work one file may cost, and the "only regular files" check.

Why limits: a PDF is a program. A 715 KB file of compressed text-drawing commands can
ask for hundreds of millions of characters (12 GB of memory); a 74 KB one produced
12,000 chunks and nine minutes of embedding. Real documents stay far below these
figures (a dense page holds ~10,000 characters, a 3,000-page book ~10 million), so
going past one means the file is hostile or broken: it fails on its own with a
``too_large`` message and the rest of the batch carries on. Memory during extraction
itself is bounded by parsing in a child process (see ``app.ingest.worker``).

Why ``os.stat`` first: opening a FIFO blocks forever and reading a device such as
/dev/zero never ends, so nothing but a regular file is ever opened.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import (
    FileMissingError,
    NotAFileError,
    NotAPdfError,
    PermissionDeniedError,
    TooLargeError,
)


@dataclass(frozen=True)
class Limits:
    """Per-file limits; the defaults are generous for real documents."""

    max_file_bytes: int = 8 << 30  # bigger files are refused before hashing or parsing
    in_memory_bytes: int = 64 << 20  # bigger files are opened from disk, not read into memory
    max_pages: int = 20_000
    max_page_chars: int = 200_000
    # Drawing commands of one page, decompressed (checked before MuPDF interprets them;
    # a full page of text is ~50 KB, a detailed technical drawing a few MB).
    max_page_content_bytes: int = 64 << 20
    max_doc_chars: int = 20_000_000
    # Text per byte of file: real PDFs compress text ~3-10x, so 40 characters per byte
    # means pages share (or repeat) drawing commands: a decompression bomb. Files with
    # up to ``min_ratio_chars`` characters are never refused on this ground.
    max_chars_per_byte: float = 40.0
    min_ratio_chars: int = 1_000_000
    max_chunks: int = 40_000
    # Time a single page may take (the parse worker's watchdog; a whole file has no limit,
    # as long as pages keep coming).
    page_timeout_s: float = 120.0
    # Memory the parse worker may use (Linux: RLIMIT_DATA; elsewhere not enforced).
    worker_memory_bytes: int = 1200 << 20


DEFAULT_LIMITS = Limits()

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def doc_char_limit(limits: Limits, file_size: int) -> int:
    """Characters a file of ``file_size`` bytes may hold (see ``max_chars_per_byte``)."""
    by_size = max(limits.min_ratio_chars, int(limits.max_chars_per_byte * file_size))
    return min(limits.max_doc_chars, by_size)


def file_kind(mode: int) -> str:
    """Words for a non-regular file's type."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def regular_file_size(path: Path) -> int:
    """Size of ``path`` if it is (a symlink to) a regular file; else a specific IngestError."""
    name = path.name
    try:
        st = os.stat(path)
    except FileNotFoundError as e:
        if os.path.lexists(path):
            raise FileMissingError(
                f"{name} is a symbolic link to a file that does not exist ({path})."
            ) from e
        raise FileMissingError(f"{name}: no such file ({path}).") from e
    except PermissionError as e:
        raise PermissionDeniedError(f"{name}: permission denied ({path}).") from e
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise NotAFileError(f"{name} is a symbolic link loop, not a file ({path}).") from e
        raise PermissionDeniedError(f"{name} cannot be read: {e.strerror or e} ({path}).") from e
    return check_regular(path, st)


def check_regular(path: Path, st: os.stat_result, limits: Limits = DEFAULT_LIMITS) -> int:
    """The file's size after checking its type and size (from a stat or fstat result)."""
    name = path.name
    if stat.S_ISDIR(st.st_mode):
        raise NotAPdfError(f"{name} is a folder, not a PDF file ({path}).")
    if not stat.S_ISREG(st.st_mode):
        raise NotAFileError(f"{name} is {file_kind(st.st_mode)}, not a PDF file ({path}).")
    if st.st_size > limits.max_file_bytes:
        raise TooLargeError(
            f"{name} is {st.st_size / (1 << 30):.1f} GB; the limit is "
            f"{limits.max_file_bytes / (1 << 30):.0f} GB per file."
        )
    return st.st_size


def nonblocking_opener(path: str | bytes | os.PathLike[str], flags: int) -> int:
    """``open(..., opener=nonblocking_opener)``: a FIFO swapped in after the check cannot block."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
