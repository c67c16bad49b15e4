"""A team library on a real S3-compatible server (moto, 127.0.0.1), driven through the CLI.

Every command runs as a subprocess with nothing but the standard AWS_* variables
(AWS_ENDPOINT_URL, AWS_ALLOW_HTTP=true, dummy keys) and ``--library s3://bucket/prefix``:
ingest, docs, search, ask and remove; a kill -9 in the middle of an ingest; two writers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import LibraryBusyError, ReadOnlyLibraryError
from app.core.protocols import Embedder
from app.services.library import Library
from app.store import Store
from app.store.lease import Lease
from tests import pdf_factory as pf
from tests.integration.test_crash import make_big_pdf
from tests.s3_server import ACCESS, S3Library
from tests.store_invariants import assert_store_consistent

pytestmark = [pytest.mark.integration, pytest.mark.s3, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def cli(lib: S3Library, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args, "--library", lib.uri],
        cwd=REPO,
        env=lib.env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def cli_json(lib: S3Library, *args: str) -> dict:
    proc = cli(lib, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def check_consistent(uri: str) -> Store:
    """Take the writer lease (which runs the recovery sweep), then check the invariants."""
    store = Store(uri)
    with store.lock.hold():
        assert_store_consistent(store)
    store.close()
    return store


def test_cli_round_trip_on_s3(
    s3_library: S3Library, tmp_path: Path, shared_embedder: Embedder
) -> None:
    manual = pf.make_manual_pdf(tmp_path / "manual.pdf")
    other = pf.make_two_column_pdf(tmp_path / "two-column.pdf")

    data = cli_json(s3_library, "ingest", str(manual), str(other))
    assert [r["status"] for r in data["results"]] == ["added", "added"]
    docs = cli_json(s3_library, "docs")["documents"]
    assert {d["file"] for d in docs} == {str(manual.resolve()), str(other.resolve())}
    assert all(d["status"] == "ready" for d in docs)
    manual_id = next(d["doc_id"] for d in docs if d["file"] == str(manual.resolve()))

    fact = pf.MANUAL_FACTS["calibration"]
    hits = cli_json(s3_library, "search", fact.question)["hits"]
    assert hits and hits[0]["doc_id"] == manual_id
    assert any(fact.answer in h["text"] for h in hits[:3])

    answer = cli_json(s3_library, "ask", fact.question)
    assert answer["mode"] in ("answer", "refuse")
    assert {c["doc_id"] for c in answer["citations"]} <= {d["doc_id"] for d in docs}

    # Nothing beside the tables assumes a local folder: no meta.json, no conversation file.
    assert not (REPO / "s3:").exists()
    removed = cli(s3_library, "remove", manual_id)
    assert removed.returncode == 0, removed.stderr
    # Checked in-process (each CLI start costs ~15 s on this loaded machine), read-only.
    reader = Library(Settings(library=s3_library.uri, read_only=True), embedder=shared_embedder)
    assert [d.file for d in reader.documents()] == [str(other.resolve())]
    hits, _ = reader.search(fact.question)
    assert hits and all(h.doc_id != manual_id for h in hits)

    # Credentials never reach the log files or the output.
    logs = "".join(p.read_text(errors="replace") for p in (tmp_path / "logs").glob("*"))
    assert ACCESS["AWS_SECRET_ACCESS_KEY"] not in logs + removed.stdout + removed.stderr


def test_kill_9_during_ingest_then_rerun_on_s3(
    s3_library: S3Library, tmp_path: Path, shared_embedder: Embedder
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    n = 6
    for i in range(n):
        make_big_pdf(folder / f"report{i:02d}.pdf", seed=i, pages=8)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "ingest",
            str(folder),
            "--no-embed",
            "--library",
            s3_library.uri,
        ],
        cwd=REPO,
        env=s3_library.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    while True:  # progress lines on stderr (not a tty): "i/n name" per file
        line = proc.stderr.readline()
        assert line, f"ingest ended (rc={proc.wait()}) before it could be killed"
        if line.startswith("3/"):
            break
    # Kill while file 3 is being written. Not after a longer fixed sleep: on an idle machine
    # the remaining files were all committed within 0.3 s, and nothing was left to interrupt.
    time.sleep(0.05)
    assert proc.poll() is None, "ingest finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    # A reader (read-only, as a desktop opens a team library) never sees a half-written
    # document, even before any writer has swept up after the crash.
    reader = Library(Settings(library=s3_library.uri, read_only=True), embedder=shared_embedder)
    committed = {d.doc_id for d in reader.documents()}
    assert 0 < len(committed) < n
    hits, _ = reader.search("Reference code calibration sensor", top_k=20)
    assert {h.doc_id for h in hits} <= committed
    with pytest.raises(ReadOnlyLibraryError):
        reader.remove(next(iter(committed)))

    # The next writer takes over the dead process's lease at once, sweeps, and finishes.
    store = check_consistent(s3_library.uri)
    assert len(store.documents()) == len(committed)
    rerun = cli_json(s3_library, "ingest", str(folder))
    statuses = [r["status"] for r in rerun["results"]]
    assert len(statuses) == n and set(statuses) <= {"added", "unchanged"}
    store = check_consistent(s3_library.uri)
    assert len(store.documents()) == n
    assert all(d.status == "ready" for d in store.documents())


def test_a_second_writer_refuses_with_a_clear_message(
    s3_library: S3Library, tmp_path: Path
) -> None:
    manual = pf.make_manual_pdf(tmp_path / "manual.pdf")
    holder = Store(s3_library.uri)
    with holder.lock.hold():
        proc = cli(s3_library, "ingest", str(manual), "--no-embed")
        assert proc.returncode == 1
        assert "Another writer" in proc.stderr and "only one writer" in proc.stderr.lower()
        # Readers are not blocked by the writer.
        assert Store(s3_library.uri, read_only=True).documents() == []
    holder.close()
    proc = cli(s3_library, "ingest", str(manual), "--no-embed")
    assert proc.returncode == 0, proc.stderr


def test_racing_writers_get_exactly_one_lease(s3_library: S3Library) -> None:
    for _ in range(3):
        leases = [Lease(s3_library.uri, s3_library.uri) for _ in range(4)]
        won: list[bool] = [False] * 4
        start, tried = threading.Barrier(4), threading.Barrier(4)

        def take(
            i: int, leases: list[Lease] = leases, won: list[bool] = won, b: Any = (start, tried)
        ) -> None:
            b[0].wait()
            with leases[i].try_hold() as got:
                won[i] = got
                b[1].wait()  # nobody gives the lease back before every writer has tried

        threads = [threading.Thread(target=take, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sum(won) == 1, won
    busy = Lease(s3_library.uri, s3_library.uri)
    first = Lease(s3_library.uri, s3_library.uri)
    with first.hold(), pytest.raises(LibraryBusyError, match="Another writer"), busy.hold():
        pass
    first.release()
