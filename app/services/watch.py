"""Watched folders: a library that keeps itself in step with folders on disk.

What it does: new files in a watched folder are added, changed files re-ingested, deleted
files (and files moved out of the folder) removed; a file moved within the folder keeps its
document (``Library.ingest`` recognises the same content whose old path is gone, so the
document id, and the conversation's references to it, stay). The folders are remembered in
the library (:class:`WatchList`) and caught up on when watching starts again
(:meth:`FolderSync.catch_up`): whatever changed while nothing was watching.

Why watchdog: it is the well-kept, cross-platform wrapper of each system's own file events
(inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows), so a change is seen
when it happens, without scanning the folders every few seconds; and it runs without Qt, so
the command line (``footnote watch``) and the desktop share this one service. Qt's
QFileSystemWatcher would tie the logic to the UI and watches no subfolders.

Debouncing and half-written files: events are collected per path; a path is acted on only
when it has been quiet for ``quiet_s`` *and* its size and modification time did not change
between two looks. On Linux, where inotify reports a writer closing the file, a file opened
for writing also waits for that close (or for ``quiet_s * 10`` without any event, should the
writer keep it open). So a copy in progress is read once, after it ends, and a burst of 1,000
new files is one ingest run (each file once).

Services are synchronous and Qt-free: :meth:`FolderSync.run` blocks until its CancelToken is
cancelled (Ctrl-C in the CLI, the window closing in the desktop app, which runs it on a
worker thread).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.config import user_state_dir
from app.core.errors import StoreError
from app.core.formats import is_supported_name
from app.core.location import is_remote, location_key, parse_location
from app.core.models import Document, IngestOutcome
from app.core.progress import CancelToken, ProgressCallback
from app.services.library import Library, expand_paths

logger = logging.getLogger(__name__)

WATCH_FILE = "watched.json"
QUIET_S = 1.0  # a path must be quiet this long before it is read (debounce)


# --- the remembered folders ------------------------------------------------------------------


def watch_file(location: Path | str) -> Path:
    """Where a library's watched folders are remembered: ``watched.json`` inside a local
    library (it moves with the library); for a team library on object storage, in this
    desktop's data folder (the folders are this machine's)."""
    location = parse_location(location)
    if is_remote(location):
        return user_state_dir() / "watched" / f"{location_key(location)}.json"
    return Path(location) / WATCH_FILE


class WatchList:
    """The folders a library keeps in sync with, kept in :func:`watch_file`."""

    def __init__(self, location: Path | str) -> None:
        self.path = watch_file(location)

    def folders(self) -> list[Path]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            logger.warning("cannot read the watched folders in %s: %s", self.path, exc)
            return []
        raw = data.get("folders", []) if isinstance(data, dict) else []
        return [Path(f) for f in raw if isinstance(f, str)]

    def add(self, folders: Iterable[Path | str]) -> list[Path]:
        """Remember ``folders`` (absolute, de-duplicated); returns the whole list."""
        current = self.folders()
        for f in folders:
            p = Path(f).expanduser().absolute()
            if p not in current:
                current.append(p)
        self._write(current)
        return current

    def remove(self, folder: Path | str) -> bool:
        p = Path(folder).expanduser().absolute()
        current = self.folders()
        if p not in current:
            return False
        self._write([f for f in current if f != p])
        return True

    def _write(self, folders: list[Path]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(
                json.dumps({"folders": [str(f) for f in folders]}, indent=2), encoding="utf-8"
            )
            os.replace(tmp, self.path)
        except OSError as exc:
            raise StoreError(
                f"Cannot remember the watched folders in {self.path} ({exc.strerror or exc})."
            ) from exc


# --- one sync step ---------------------------------------------------------------------------


@dataclass
class SyncReport:
    """What one sync step did: the ingest run (None when nothing needed reading) and the
    files whose documents were removed."""

    outcome: IngestOutcome | None = None
    removed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.removed and (self.outcome is None or not self.outcome.results)


def _under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _same_as_stored(path: Path, doc: Document | None) -> bool:
    """The file is the one the document was read from (same size and time): no need to read
    or even hash it again."""
    if doc is None:
        return False
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size == doc.size and abs(st.st_mtime - doc.mtime) < 1e-3


class FolderSync:
    """Keeps ``library`` in step with ``folders``. ``ingest`` and ``remove`` default to the
    library's own; a front end that imports differently (the desktop's import process)
    passes its own."""

    def __init__(
        self,
        library: Library,
        folders: Sequence[Path | str],
        *,
        quiet_s: float = QUIET_S,
        embed: bool = True,
        ingest: Callable[..., IngestOutcome] | None = None,
        remove: Callable[[str], bool] | None = None,
    ) -> None:
        self.library = library
        self.folders = [Path(f).expanduser().resolve() for f in folders]
        # The library's own folder (its converted PDFs, its tables) is never read as documents,
        # even when it lies inside a watched folder.
        location = library.settings.library
        self._own = None if is_remote(location) else Path(location).expanduser().resolve()
        self.quiet_s = quiet_s
        self.embed = embed
        self._ingest = ingest or library.ingest
        self._remove = remove or library.remove

    # The sync itself ---------------------------------------------------------------------

    def catch_up(
        self, *, on_progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> SyncReport:
        """Bring the library in step with the folders as they are now (files changed while
        nothing watched): every supported file not yet read as it is, then the documents of
        files that are gone."""
        present = [p for p in expand_paths(self.folders) if p.is_file()]
        return self.sync(present, self.folders, on_progress=on_progress, cancel=cancel)

    def sync(
        self,
        changed: Iterable[Path],
        gone: Iterable[Path],
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> SyncReport:
        """Read the ``changed`` files (those not already read as they are), then remove the
        documents of files at or under ``gone`` paths that no longer exist. Reading comes
        first so that a file moved within the folders keeps its document."""
        docs = self.library.documents()
        by_file = {d.file: d for d in docs}
        todo = [
            p
            for p in dict.fromkeys(changed)
            if is_supported_name(p.name)
            and self._watched(p)
            and not _same_as_stored(p, by_file.get(str(p)))
        ]
        report = SyncReport()
        if todo:
            report.outcome = self._ingest(
                todo, on_progress=on_progress, cancel=cancel, embed=self.embed
            )
            if report.outcome.cancelled:
                return report
            docs = self.library.documents()
        gone = [Path(g) for g in gone]
        for doc in docs:
            file = Path(doc.file)
            if not any(_under(file, g) for g in gone) or not self._watched(file):
                continue
            if not file.is_file() and self._remove(doc.doc_id):
                report.removed.append(doc.file)
        return report

    def _watched(self, path: Path) -> bool:
        """Under a watched folder, and not hidden there (".git", "~/.cache", ".x.pdf"), and
        not inside the library itself."""
        if self._own is not None and _under(path, self._own):
            return False
        return any(
            _under(path, f) and not any(part.startswith(".") for part in path.relative_to(f).parts)
            for f in self.folders
        )

    # Watching ----------------------------------------------------------------------------

    def run(
        self,
        cancel: CancelToken,
        *,
        on_progress: ProgressCallback | None = None,
        on_report: Callable[[SyncReport], None] | None = None,
        on_ready: Callable[[], None] | None = None,
        poll_s: float = 0.1,
    ) -> None:
        """Catch up, then follow the folders' events until ``cancel``; each sync step's
        report goes to ``on_report``. ``on_ready`` is called once the watches are set and
        the catch-up is done (tests and front ends: from now on changes are seen)."""
        from watchdog.observers import Observer

        missing = [f for f in self.folders if not f.is_dir()]
        if missing:
            from app.core.errors import FileMissingError

            raise FileMissingError(f"{missing[0]} is not a folder.")
        events: queue.Queue[tuple[str, str, str]] = queue.Queue()
        observer: Any = Observer()
        handler = _Handler(events)
        for folder in self.folders:
            observer.schedule(handler, str(folder), recursive=True)
        observer.start()
        try:
            first = self.catch_up(on_progress=on_progress, cancel=cancel)
            if on_report is not None and not first.empty:
                on_report(first)
            if on_ready is not None:
                on_ready()
            pending = _Pending(self.quiet_s, close_events=sys.platform.startswith("linux"))
            while not cancel.cancelled:
                try:
                    kind, src, dest = events.get(timeout=poll_s)
                    pending.add(kind, Path(src), Path(dest) if dest else None)
                    while True:  # drain the burst at once
                        kind, src, dest = events.get_nowait()
                        pending.add(kind, Path(src), Path(dest) if dest else None)
                except queue.Empty:
                    pass
                changed, gone = pending.settled(time.monotonic())
                if not changed and not gone:
                    continue
                files = [p for p in expand_paths(changed) if p.is_file() and self._watched(p)]
                report = self.sync(files, gone, on_progress=on_progress, cancel=cancel)
                if on_report is not None and not report.empty:
                    on_report(report)
        finally:
            observer.stop()
            observer.join(timeout=5)


class _Handler:
    """watchdog's event handler interface (``dispatch``), feeding a queue; duck-typed so
    this module imports watchdog only when watching starts."""

    def __init__(self, events: queue.Queue[tuple[str, str, str]]) -> None:
        self.events = events

    def dispatch(self, event: Any) -> None:
        kind = event.event_type  # created, modified, deleted, moved, closed, opened, ...
        if kind in ("opened", "closed_no_write"):
            return
        src = os.fsdecode(event.src_path)
        dest = os.fsdecode(getattr(event, "dest_path", "") or "")
        if event.is_directory and kind == "modified":
            return  # a folder's own time changed: its files report themselves
        self.events.put((kind, src, dest))


@dataclass
class _Seen:
    last_event: float
    stat: tuple[int, int] | None  # (size, mtime_ns) at the last look; None: does not exist
    writing: bool = False  # opened for writing and not yet closed (inotify only)


class _Pending:
    """Paths with events not yet acted on, released once settled (see the module doc)."""

    def __init__(self, quiet_s: float, *, close_events: bool) -> None:
        self.quiet_s = quiet_s
        self.close_events = close_events
        self.paths: dict[Path, _Seen] = {}

    def add(self, kind: str, src: Path, dest: Path | None, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        touched = [src] if dest is None else [src, dest]
        for p in touched:
            seen = self.paths.get(p)
            if seen is None:
                seen = self.paths[p] = _Seen(now, _stat(p))
            seen.last_event = now
            if self.close_events and p == src:
                if kind in ("created", "modified"):
                    seen.writing = True
                elif kind == "closed":
                    seen.writing = False

    def settled(self, now: float) -> tuple[list[Path], list[Path]]:
        """(paths that exist, paths that are gone) quiet and stable since their last look."""
        changed: list[Path] = []
        gone: list[Path] = []
        for p, seen in list(self.paths.items()):
            st = _stat(p)
            if st != seen.stat:  # still growing (or replaced): look again later
                seen.stat, seen.last_event = st, now
                continue
            quiet = now - seen.last_event
            if quiet < self.quiet_s or (seen.writing and quiet < self.quiet_s * 10):
                continue
            del self.paths[p]
            (changed if st is not None else gone).append(p)
        return changed, gone


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def watch_threaded(sync: FolderSync, **kwargs: Any) -> tuple[threading.Thread, CancelToken]:
    """``sync.run`` on a daemon thread; cancel the returned token to stop it (tests, and a
    front end that has no worker threads of its own)."""
    token = CancelToken()
    thread = threading.Thread(
        target=sync.run, args=(token,), kwargs=kwargs, name="folder-watch", daemon=True
    )
    thread.start()
    return thread, token
