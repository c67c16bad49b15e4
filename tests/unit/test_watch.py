"""Watched folders (app/services/watch.py): real files, real watchdog (inotify) events, a real
LanceDB in tmp_path, the fast fake embedder. Also `footnote watch` as a user runs it: a child
process, stopped with Ctrl-C (SIGINT)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.models import IngestOutcome
from app.services.library import Library
from app.services.watch import FolderSync, SyncReport, WatchList, _Pending, watch_threaded
from tests import format_factory as ff
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.unit

QUIET = 0.3


def _library(tmp_path: Path) -> Library:
    return Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())


def _files(lib: Library) -> dict[str, str]:
    return {Path(d.file).name: d.doc_id for d in lib.documents()}


def _wait(cond: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


class Recorder:
    """Wraps Library.ingest to count which files each run was asked to read."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self.calls: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, paths: list[Path], **kwargs: Any) -> IngestOutcome:
        with self.lock:
            self.calls.append([Path(p).name for p in paths])
        return self.lib.ingest(paths, **kwargs)

    def times_read(self, name: str) -> int:
        with self.lock:
            return sum(call.count(name) for call in self.calls)


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[tuple[Path, Library, Recorder, list[SyncReport]]]:
    folder = tmp_path / "papers"
    folder.mkdir()
    lib = _library(tmp_path)
    rec = Recorder(lib)
    reports: list[SyncReport] = []
    ready = threading.Event()
    sync = FolderSync(lib, [folder], quiet_s=QUIET, ingest=rec)
    thread, token = watch_threaded(sync, on_report=reports.append, on_ready=ready.set)
    assert ready.wait(30)
    yield folder, lib, rec, reports
    token.cancel()
    thread.join(10)
    assert not thread.is_alive()


# --- the debouncer -----------------------------------------------------------------------------


def test_a_path_is_released_only_when_quiet_and_stable(tmp_path: Path) -> None:
    f = tmp_path / "a.pdf"
    f.write_bytes(b"x")
    p = _Pending(1.0, close_events=False)
    p.add("created", f, None, now=0.0)
    assert p.settled(0.5) == ([], [])  # not quiet yet
    f.write_bytes(b"xy")  # still growing: the look at 1.2 sees another size
    assert p.settled(1.2) == ([], [])
    assert p.settled(1.8) == ([], [])  # stable now, but quiet only since 1.2
    assert p.settled(2.3) == ([f], [])
    assert p.settled(9.0) == ([], [])  # released once


def test_a_file_open_for_writing_waits_for_its_close(tmp_path: Path) -> None:
    f = tmp_path / "big.pdf"
    f.write_bytes(b"x")
    p = _Pending(1.0, close_events=True)
    p.add("modified", f, None, now=0.0)
    assert p.settled(0.1) == ([], [])
    assert p.settled(5.0) == ([], [])  # quiet and stable, but the writer has not closed it
    p.add("closed", f, None, now=5.0)
    assert p.settled(6.1) == ([f], [])


def test_moves_and_deletions_are_released_as_gone(tmp_path: Path) -> None:
    old, new = tmp_path / "old.pdf", tmp_path / "new.pdf"
    new.write_bytes(b"x")
    p = _Pending(0.5, close_events=False)
    p.add("moved", old, new, now=0.0)
    p.settled(0.1)
    assert p.settled(1.0) == ([new], [old])


# --- the remembered folders ----------------------------------------------------------------------


def test_watched_folders_are_remembered_in_the_library(tmp_path: Path) -> None:
    lib_dir = tmp_path / "lib"
    a, b = tmp_path / "a", tmp_path / "b"
    WatchList(lib_dir).add([a, b, a])
    assert WatchList(lib_dir).folders() == [a, b]
    assert (lib_dir / "watched.json").is_file()
    assert WatchList(lib_dir).remove(a) and not WatchList(lib_dir).remove(a)
    assert WatchList(lib_dir).folders() == [b]


# --- catching up at start ------------------------------------------------------------------------


def test_catch_up_adds_new_rereads_changed_and_removes_deleted_files(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    elsewhere = pf.make_two_column_pdf(tmp_path / "elsewhere.pdf")
    pf.make_manual_pdf(folder / "manual.pdf")
    ff.make_txt(folder / "sub" / "notes.txt")
    ff.make_md(folder / "gone.md")
    lib = _library(tmp_path)
    lib.ingest([elsewhere])  # added by hand, outside the folder: never touched
    sync = FolderSync(lib, [folder])
    first = sync.catch_up()
    assert first.outcome is not None
    assert sorted(r.status for r in first.outcome.results) == ["added"] * 3
    ids = _files(lib)

    # While nothing watched: one file deleted, one changed, one added, one moved.
    (folder / "gone.md").unlink()
    ff.make_txt(folder / "sub" / "notes.txt", fact="The kettle was replaced in May.")
    ff.make_fb2(folder / "ferries.fb2")
    (folder / "manual.pdf").rename(folder / "sub" / "manual-v7.pdf")
    second = FolderSync(lib, [folder]).catch_up()

    assert second.outcome is not None
    status = {Path(r.file).name: r.status for r in second.outcome.results}
    assert status == {"notes.txt": "updated", "ferries.fb2": "added", "manual-v7.pdf": "unchanged"}
    assert [Path(f).name for f in second.removed] == ["gone.md"]
    now = _files(lib)
    assert set(now) == {"elsewhere.pdf", "notes.txt", "ferries.fb2", "manual-v7.pdf"}
    assert now["manual-v7.pdf"] == ids["manual.pdf"]  # moved: same document, same id
    # Nothing changed since: nothing is read (not even hashed) and nothing removed.
    third = FolderSync(lib, [folder]).catch_up()
    assert third.empty and third.outcome is None


def test_a_library_inside_a_watched_folder_is_not_read_as_documents(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    ff.make_epub(folder / "keeper.epub")
    lib = Library(Settings(library=folder / "footnote-library"), embedder=HashEmbedder())
    sync = FolderSync(lib, [folder])
    sync.catch_up()
    assert list((folder / "footnote-library" / "converted").rglob("*.pdf"))  # the EPUB's PDF
    again = sync.catch_up()
    assert again.empty
    assert set(_files(lib)) == {"keeper.epub"}


# --- following events ----------------------------------------------------------------------------


@pytest.mark.slow
def test_new_changed_moved_and_deleted_files_follow_the_folder(
    watching: Any, tmp_path: Path
) -> None:
    folder, lib, rec, _ = watching
    src = pf.make_manual_pdf(tmp_path / "manual.pdf")
    t0 = time.monotonic()
    shutil.copy(src, folder / "manual.pdf")
    _wait(lambda: "manual.pdf" in _files(lib))
    assert time.monotonic() - t0 < 5.0 + 10  # target 5 s; generous on a shared machine
    hits, _ = lib.search("calibration accredited laboratory", top_k=3)
    assert hits  # searchable

    doc_id = _files(lib)["manual.pdf"]
    (folder / "sub").mkdir()
    (folder / "manual.pdf").rename(folder / "sub" / "renamed.pdf")  # a move within the folder
    _wait(lambda: "renamed.pdf" in _files(lib))
    assert _files(lib) == {"renamed.pdf": doc_id}  # same document: references stay valid

    ff.make_txt(folder / "notes.txt")
    _wait(lambda: "notes.txt" in _files(lib))
    first_id = _files(lib)["notes.txt"]
    ff.make_txt(folder / "notes.txt", fact="The kettle was replaced in May.")
    _wait(lambda: _files(lib).get("notes.txt") not in (None, first_id))

    (folder / "notes.txt").unlink()
    _wait(lambda: "notes.txt" not in _files(lib))
    shutil.move(str(folder / "sub" / "renamed.pdf"), str(tmp_path / "moved-away.pdf"))
    _wait(lambda: _files(lib) == {})
    assert rec.times_read("manual.pdf") == 1


@pytest.mark.slow
def test_a_file_copied_slowly_is_read_once_after_the_copy_ends(
    watching: Any, tmp_path: Path
) -> None:
    folder, lib, rec, _ = watching
    data = pf.make_manual_pdf(tmp_path / "manual.pdf").read_bytes()
    target = folder / "slow.pdf"
    step = len(data) // 6 + 1
    with open(target, "wb") as fh:  # a slow copy: pauses longer than the quiet time
        for i in range(0, len(data), step):
            fh.write(data[i : i + step])
            fh.flush()
            time.sleep(QUIET * 1.5)
    _wait(lambda: "slow.pdf" in _files(lib))
    time.sleep(QUIET * 4)
    assert rec.times_read("slow.pdf") == 1
    (doc,) = lib.documents()
    assert doc.size == len(data)


@pytest.mark.slow
def test_many_files_dropped_at_once_are_each_read_once(watching: Any, tmp_path: Path) -> None:
    folder, lib, rec, reports = watching
    staging = tmp_path / "staging"
    staging.mkdir()
    n = 40
    for i in range(n):
        ff.make_txt(staging / f"note-{i:03d}.txt", fact=f"Hut {i} holds {i + 3} litres of water.")
    for f in sorted(staging.iterdir()):
        os.replace(f, folder / f.name)  # each appears whole, as a file manager's move does
    _wait(lambda: len(_files(lib)) == n, timeout=240)
    assert all(rec.times_read(f"note-{i:03d}.txt") == 1 for i in range(n))
    assert len(rec.calls) <= 3  # a burst is one run (or a few), not one per file


# --- the command ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_footnote_watch_until_ctrl_c(tmp_path: Path) -> None:
    folder, lib_dir = tmp_path / "papers", tmp_path / "lib"
    folder.mkdir()
    ff.make_md(folder / "setup.md")  # there before: caught up on at start
    cmd = [sys.executable, "-m", "app", "watch", str(folder), "--library", str(lib_dir)]
    proc = subprocess.Popen(
        [*cmd, "--no-embed", "--quiet-seconds", str(QUIET)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    lines: list[str] = []
    assert proc.stdout is not None

    def read_until(text: str) -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if text in line:
                return
        raise AssertionError("".join(lines))

    try:
        read_until("Watching")
        assert any("added" in ln and "setup.md" in ln for ln in lines)
        ff.make_epub(tmp_path / "keeper.epub")
        shutil.copy(tmp_path / "keeper.epub", folder / "keeper.epub")
        read_until("keeper.epub")
        (folder / "setup.md").unlink()
        read_until("removed")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, "".join(lines) + out
    assert "Stopped watching." in out
    listed = subprocess.run(
        [sys.executable, "-m", "app", "watch", "--list", "--library", str(lib_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert listed.stdout.strip() == str(folder)
