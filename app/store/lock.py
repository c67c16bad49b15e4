"""One writer at a time per library folder, across threads *and* processes.

The desktop app and the ``footnote`` CLI may point at the same library. Writes take
an in-process lock plus an OS file lock (``flock`` / ``msvcrt.locking``) on
``<library>/.writer.lock``; the OS releases it when a process dies, even by kill -9,
so a crashed writer never blocks the next one. Readers take no lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from app.core.errors import ReadOnlyLibraryError, StoreError

logger = logging.getLogger(__name__)

LOCK_FILE = ".writer.lock"

if sys.platform == "win32":  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:  # POSIX
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WriterLock:
    """Re-entrant writer lock for one library folder."""

    def __init__(self, root: Path, *, timeout_s: float = 120.0) -> None:
        self._path = root / LOCK_FILE
        self._timeout_s = timeout_s
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for the block; waits for another process's write to finish."""
        with self._thread_lock:
            if self._depth == 0:
                self._acquire(blocking=True)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    @contextlib.contextmanager
    def try_hold(self) -> Iterator[bool]:
        """Like :meth:`hold` but never waits; yields whether the lock was obtained."""
        if not self._thread_lock.acquire(blocking=False):
            yield False
            return
        try:
            got = self._depth > 0 or self._acquire(blocking=False)
            if not got:
                yield False
                return
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()
        finally:
            self._thread_lock.release()

    def _acquire(self, *, blocking: bool) -> bool:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self._timeout_s
        while not _try_lock(fd):
            if not blocking or time.monotonic() > deadline:
                os.close(fd)
                if not blocking:
                    return False
                raise StoreError(
                    f"Another Footnote process has been writing to the library at "
                    f"{self._path.parent} for over {self._timeout_s:.0f} s.",
                    hint="Wait for it to finish (or close it) and try again.",
                )
            time.sleep(0.05)
        self._fd = fd
        return True

    def _release(self) -> None:
        if self._fd is not None:
            try:
                _unlock(self._fd)
            finally:
                os.close(self._fd)
                self._fd = None


class ReadOnlyLock:
    """The lock of a library opened read-only: every write is refused with a clear message."""

    def __init__(self, where: str) -> None:
        self._where = where

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        raise ReadOnlyLibraryError(
            f"The library at {self._where} is open read-only.",
            hint="Imports and removals of a team library are done by its writer "
            "(footnote ingest / remove on the command line, or a cluster job).",
        )
        yield  # pragma: no cover

    @contextlib.contextmanager
    def try_hold(self) -> Iterator[bool]:
        yield False
