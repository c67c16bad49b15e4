"""Library service end to end: real PDFs (pdf_factory), real LanceDB, the real embedder."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from app.core import errors
from app.core.progress import CancelToken, Progress
from app.services import library as library_mod
from app.services.library import Library
from tests import pdf_factory as pf
from tests.store_invariants import assert_store_consistent

pytestmark = pytest.mark.integration


def assert_consistent(lib: Library) -> None:
    """Every committed document has all its chunks (and, if ready, vectors); nothing else."""
    assert_store_consistent(lib.store)


def test_added_unchanged_updated_removed(library: Library, tmp_path: Path) -> None:
    pdf = pf.make_manual_pdf(tmp_path / "manual.pdf")
    [r] = library.ingest([pdf]).results
    assert (r.status, r.pages, r.file) == ("added", 5, str(pdf.resolve()))
    assert r.chunks > 0 and r.error is None
    doc = library.get_document(r.doc_id)
    assert doc is not None and doc.status == "ready" and doc.title == pf.MANUAL_TITLE
    assert library.store.count_vectors() == r.chunks
    assert_consistent(library)

    # Same content again, at the same path and at another path: nothing to do.
    copy = tmp_path / "elsewhere" / "copy.pdf"
    copy.parent.mkdir()
    shutil.copy(pdf, copy)
    again = library.ingest([pdf, copy]).results
    assert [(x.status, x.doc_id) for x in again] == [("unchanged", r.doc_id)] * 2
    assert len(library.documents()) == 1

    # New content at the same path replaces the old document, chunks and vectors.
    pf.make_manual_pdf(pdf, title="Zephyr 3000 Field Manual, second edition")
    [u] = library.ingest([pdf]).results
    assert u.status == "updated" and u.doc_id != r.doc_id
    assert [d.doc_id for d in library.documents()] == [u.doc_id]
    assert library.chunks([f"{r.doc_id}:00000"]) == []
    assert library.store.count_vectors() == u.chunks
    assert_consistent(library)

    assert library.remove(u.doc_id) is True
    assert library.remove(u.doc_id) is False
    assert library.documents() == []
    assert library.store.count_chunks() == 0 and library.store.count_vectors() == 0


def _bad_inputs(folder: Path) -> dict[Path, type[errors.IngestError]]:
    folder.mkdir()
    return {
        pf.make_not_pdf(folder / "notes.pdf"): errors.NotAPdfError,
        pf.make_corrupt_pdf(folder / "truncated.pdf"): errors.CorruptPdfError,
        pf.make_encrypted_pdf(folder / "locked.pdf"): errors.EncryptedPdfError,
        pf.make_photo_pdf(folder / "scan.pdf"): errors.NoTextLayerError,
        pf.make_zero_page_pdf(folder / "nopages.pdf"): errors.NoPagesError,
        pf.make_empty_file(folder / "empty.pdf"): errors.EmptyFileError,
        folder / "missing.pdf": errors.FileMissingError,
    }


def test_each_bad_file_fails_with_its_own_message_and_good_ones_ingest(
    library: Library, tmp_path: Path
) -> None:
    bad = _bad_inputs(tmp_path / "bad")
    good1 = pf.make_manual_pdf(tmp_path / "good1.pdf")
    good2 = pf.make_two_column_pdf(tmp_path / "good2.pdf")
    image = tmp_path / "photo.png"  # a type Footnote does not read (text files it does)
    image.write_bytes(b"\x89PNG\r\n\x1a\n not a document")
    bad[image] = errors.NotAPdfError
    paths = [good1, *bad, good2]

    results = library.ingest(paths).results

    by_file = {r.file: r for r in results}
    assert len(results) == len(paths)
    for path, exc in bad.items():
        r = by_file[str(path.resolve())]
        assert (r.status, r.error_code) == ("failed", exc.code), r
        assert exc.default_hint in (r.error or "")
        assert path.name in (r.error or "")
        assert r.doc_id is None
    assert [by_file[str(p.resolve())].status for p in (good1, good2)] == ["added", "added"]
    assert len(library.documents()) == 2
    assert_consistent(library)
    hits, _ = library.search("Error code E42 sensor cable")
    assert hits and "E42" in hits[0].text


def test_folder_expands_to_its_documents_only(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    pf.make_manual_pdf(folder / "b.pdf")
    pf.make_two_column_pdf(folder / "sub" / "a.PDF")
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff ignored inside folders")
    results = library.ingest([folder], embed=False).results
    assert sorted(Path(r.file).name for r in results) == ["a.PDF", "b.pdf"]
    assert all(r.status == "added" for r in results)


def test_keyword_search_works_before_embedding_then_embed_pending(
    library: Library, tmp_path: Path
) -> None:
    [r] = library.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")], embed=False).results
    assert library.get_document(r.doc_id).status == "indexed"
    assert library.store.count_vectors() == 0
    hits, timings = library.search("thermocouple type K")
    assert hits and any("Thermocouple" in h.text for h in hits[:3])
    assert set(timings) >= {"embed", "search", "total"}
    events: list[Progress] = []
    assert library.embed_pending(on_progress=events.append) == r.chunks
    assert events[-1].stage == "embed" and events[-1].done == events[-1].total == r.chunks
    assert library.get_document(r.doc_id).status == "ready"
    assert library.embed_pending() == 0
    assert_consistent(library)


def test_search_finds_fact_pages_and_filters_by_document(library: Library, tmp_path: Path) -> None:
    [m] = library.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")]).results
    [t] = library.ingest([pf.make_two_column_pdf(tmp_path / "t.pdf")]).results
    fact = pf.MANUAL_FACTS["calibration"]
    hits, timings = library.search(fact.question, top_k=5)
    assert 0 < len(hits) <= 5
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    top = next(h for h in hits if fact.answer in h.text)
    assert top.doc_id == m.doc_id and top.page_start <= fact.page <= top.page_end
    assert timings["total"] >= timings["embed"] > 0
    only_t, _ = library.search(fact.question, doc_ids=[t.doc_id])
    assert only_t and {h.doc_id for h in only_t} == {t.doc_id}
    assert library.search("   ")[0] == []


def test_cancel_between_files_leaves_a_consistent_library(library: Library, tmp_path: Path) -> None:
    pdfs = [
        pf.make_manual_pdf(tmp_path / "a.pdf"),
        pf.make_two_column_pdf(tmp_path / "b.pdf"),
        pf.make_no_outline_pdf(tmp_path / "c.pdf"),
    ]
    cancel = CancelToken()

    def on_progress(p: Progress) -> None:
        if p.stage == "file" and p.done == 1:  # the second file is about to start
            cancel.cancel()

    results = library.ingest(pdfs, on_progress=on_progress, cancel=cancel).results
    assert [r.status for r in results] == ["added"]
    assert_consistent(library)
    # Nothing was embedded after the cancel; the added document is keyword-searchable.
    assert library.get_document(results[0].doc_id).status == "indexed"
    rerun = library.ingest(pdfs).results
    assert [r.status for r in rerun] == ["unchanged", "added", "added"]
    assert all(d.status == "ready" for d in library.documents())
    assert_consistent(library)


def test_cancel_during_embedding_keeps_partial_work_and_resumes(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One chunk per batch: the embedding pool keeps two batches per stream in work or queued,
    # so a cancel after the second result still finds the source with chunks left to stop.
    monkeypatch.setattr(library_mod, "EMBED_BATCH", 1)
    [r] = library.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")], embed=False).results
    assert r.chunks > 6
    cancel = CancelToken()
    at: list[int] = []

    def on_progress(p: Progress) -> None:
        if p.stage == "embed" and p.done >= 2 and not at:
            at.append(p.done)
            cancel.cancel()

    with pytest.raises(errors.Cancelled):
        library.embed_pending(on_progress=on_progress, cancel=cancel)
    assert library.get_document(r.doc_id).status == "indexed"
    assert 0 < library.store.count_vectors() == at[0] < r.chunks  # what was done is kept
    assert_consistent(library)
    # A fresh Library on the same folder (as after a restart) finishes the job.
    fresh = Library(library.settings, embedder=library.embedder)
    assert fresh.embed_pending() == r.chunks - at[0]
    assert fresh.get_document(r.doc_id).status == "ready"
    assert_consistent(fresh)


def test_search_from_another_thread_during_ingest(library: Library, tmp_path: Path) -> None:
    [first] = library.ingest([pf.make_manual_pdf(tmp_path / "a.pdf")]).results
    more = [pf.make_two_column_pdf(tmp_path / "b.pdf"), pf.make_no_outline_pdf(tmp_path / "c.pdf")]
    errors_seen: list[BaseException] = []
    found: list[int] = []
    stop = threading.Event()

    def searcher() -> None:
        while not stop.is_set():
            try:
                hits, _ = library.search("battery lasts 18 months", top_k=3)
                found.append(len(hits))
            except BaseException as exc:  # noqa: BLE001 - report any failure to the test
                errors_seen.append(exc)
                return

    t = threading.Thread(target=searcher)
    t.start()
    try:
        results = library.ingest(more).results
    finally:
        stop.set()
        t.join(timeout=60)
    assert errors_seen == []
    assert found and min(found) > 0
    assert [r.status for r in results] == ["added", "added"]
    assert first.doc_id in {d.doc_id for d in library.documents()}
    assert_consistent(library)


def test_unreadable_file_fails_with_permission_message(
    library: Library, shared_embedder: object
) -> None:
    """chmod 000 file. As root permissions do not apply, so the ingest then runs with the
    effective uid of 'nobody' (real uid stays root, so it can switch back)."""
    import contextlib
    import os
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="footnote-perm-"))
    try:
        os.chmod(work, 0o777)
        good = pf.make_manual_pdf(work / "good.pdf")
        locked = pf.make_manual_pdf(work / "locked.pdf", title="Locked copy")
        os.chmod(good, 0o644)
        os.chmod(locked, 0o000)
        lib = Library(
            library.settings.model_copy(update={"library": work / "lib"}),
            embedder=shared_embedder,  # type: ignore[arg-type]
        )

        @contextlib.contextmanager
        def as_unprivileged():
            if os.geteuid() != 0:
                yield
                return
            os.setegid(65534)
            os.seteuid(65534)
            try:
                yield
            finally:
                os.seteuid(0)
                os.setegid(0)

        with as_unprivileged():
            results = lib.ingest([locked, good], embed=False).results
        assert [r.status for r in results] == ["failed", "added"]
        assert results[0].error_code == errors.PermissionDeniedError.code
        assert "locked.pdf" in (results[0].error or "")
        assert errors.PermissionDeniedError.default_hint in (results[0].error or "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_ingest_and_search_make_no_network_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sockets blocked: loading the embedder, ingesting and searching must still work."""
    import socket

    attempts: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args[1:] if args else kwargs)
        raise OSError("network access attempted during an offline test")

    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: object) -> None:
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        refuse(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)

    from app.core.config import Settings

    lib = Library(Settings(library=tmp_path / "offline-lib"))  # loads its own embedder
    [r] = lib.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")]).results
    assert r.status == "added" and lib.get_document(r.doc_id).status == "ready"
    hits, _ = lib.search(pf.MANUAL_FACTS["filter"].question)
    assert any(pf.MANUAL_FACTS["filter"].answer in h.text for h in hits)
    assert attempts == []
