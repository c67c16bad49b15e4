"""Library service with real PDFs, real parsing and real LanceDB but a fast fake embedder.

The integration tests repeat the important paths with the real embedder; these run in
seconds and pin down the service logic (statuses, progress, cancellation, resume).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core import errors
from app.core.config import Settings
from app.core.progress import CancelToken, Progress
from app.services import library as library_mod
from app.services.library import Library
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.unit


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    return Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())


def test_statuses_progress_and_remove(lib: Library, tmp_path: Path) -> None:
    pdf = pf.make_manual_pdf(tmp_path / "m.pdf")
    events: list[Progress] = []
    [r] = lib.ingest([pdf], on_progress=events.append).results
    assert r.status == "added" and r.pages == 5 and r.chunks > 0
    stages = [e.stage for e in events]
    assert stages[0] == "file" and "parse" in stages and "index" in stages and "embed" in stages
    assert events[-1].stage == "embed" and events[-1].done == r.chunks
    assert any(e.stage == "file" and e.done == e.total == 1 for e in events)
    assert lib.get_document(r.doc_id).status == "ready"
    assert lib.store.count_vectors() == r.chunks

    [again] = lib.ingest([pdf]).results
    assert again.status == "unchanged" and again.doc_id == r.doc_id and again.chunks == r.chunks

    pf.make_manual_pdf(pdf, title="Second edition")
    [u] = lib.ingest([pdf]).results
    assert u.status == "updated" and u.doc_id != r.doc_id
    assert [d.doc_id for d in lib.documents()] == [u.doc_id]
    assert lib.store.count_vectors() == u.chunks == lib.store.count_chunks()
    assert lib.remove(u.doc_id) and not lib.remove(u.doc_id)
    assert lib.documents() == [] and lib.store.count_vectors() == 0


def test_failures_are_per_file(lib: Library, tmp_path: Path) -> None:
    good = pf.make_manual_pdf(tmp_path / "good.pdf")
    corrupt = pf.make_corrupt_pdf(tmp_path / "bad.pdf")
    empty = pf.make_empty_file(tmp_path / "empty.pdf")
    results = lib.ingest([corrupt, good, empty, tmp_path / "missing.pdf"], embed=False).results
    assert [r.status for r in results] == ["failed", "added", "failed", "failed"]
    assert [r.error_code for r in results] == [
        errors.CorruptPdfError.code,
        None,
        errors.EmptyFileError.code,
        errors.FileMissingError.code,
    ]
    assert all(r.error for r in results if r.status == "failed")


def test_unexpected_exception_fails_only_that_file(
    lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.ingest

    real = app.ingest.parse_pdf

    def flaky(path: Path, **kw: object):  # type: ignore[no-untyped-def]
        if path.name == "boom.pdf":
            raise RuntimeError("parser exploded")
        return real(path, **kw)

    monkeypatch.setattr(app.ingest, "parse_pdf", flaky)
    monkeypatch.setattr(lib.settings, "isolate_parsing", False)  # the patch is in this process
    boom = pf.make_two_column_pdf(tmp_path / "boom.pdf")
    good = pf.make_manual_pdf(tmp_path / "good.pdf")
    r1, r2 = lib.ingest([boom, good], embed=False).results
    assert (r1.status, r1.error_code) == ("failed", "internal_error")
    assert "boom.pdf" in (r1.error or "") and "parser exploded" in (r1.error or "")
    assert r2.status == "added"


def test_cancel_mid_embedding_then_resume(
    lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_mod, "EMBED_BATCH", 2)
    [r] = lib.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")], embed=False).results
    cancel = CancelToken()

    def stop_after_4(p: Progress) -> None:
        if p.stage == "embed" and p.done >= 4:
            cancel.cancel()

    with pytest.raises(errors.Cancelled):
        lib.embed_pending(on_progress=stop_after_4, cancel=cancel)
    assert lib.store.count_vectors() == 4
    assert lib.get_document(r.doc_id).status == "indexed"
    assert lib.embed_pending() == r.chunks - 4
    assert lib.get_document(r.doc_id).status == "ready"
    assert lib.store.embedded_chunk_ids(r.doc_id) == {
        c.chunk_id for c in lib.store.chunks_of(r.doc_id)
    }


def test_cancel_during_ingest_returns_processed_files(lib: Library, tmp_path: Path) -> None:
    a = pf.make_manual_pdf(tmp_path / "a.pdf")
    b = pf.make_two_column_pdf(tmp_path / "b.pdf")
    cancel = CancelToken()

    def on_progress(p: Progress) -> None:
        if p.stage == "parse" and p.file and p.file.endswith("b.pdf"):
            cancel.cancel()  # cancelled while parsing the second file

    results = lib.ingest([a, b], on_progress=on_progress, cancel=cancel).results
    assert [Path(r.file).name for r in results] == ["a.pdf"]
    assert len(lib.documents()) == 1 and lib.documents()[0].status == "indexed"


def test_new_embedder_reembeds_everything(tmp_path: Path) -> None:
    settings = Settings(library=tmp_path / "lib")
    first = Library(settings, embedder=HashEmbedder("hash-64", 64))
    [r] = first.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")]).results
    second = Library(settings, embedder=HashEmbedder("hash-32", 32))
    assert second.embed_pending() == r.chunks
    assert second.store.meta.embedder == "hash-32"
    assert second.store.count_vectors() == r.chunks
    assert second.get_document(r.doc_id).status == "ready"


def test_moved_file_is_unchanged_and_its_new_path_recorded(lib: Library, tmp_path: Path) -> None:
    old = pf.make_manual_pdf(tmp_path / "old.pdf")
    [r] = lib.ingest([old]).results
    copy = pf.make_manual_pdf(tmp_path / "copy.pdf")
    [c] = lib.ingest([copy]).results  # same content, original still there: keep the original path
    assert c.status == "unchanged" and lib.get_document(r.doc_id).file == str(old.resolve())
    moved = tmp_path / "sub" / "moved.pdf"
    moved.parent.mkdir()
    old.rename(moved)
    [m] = lib.ingest([moved]).results
    assert (m.status, m.doc_id) == ("unchanged", r.doc_id)
    assert lib.get_document(r.doc_id).file == str(moved.resolve())
    assert lib.store.count_chunks() == r.chunks


def test_a_burst_of_small_files_is_compacted_while_indexed_and_embedded(
    lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each small document is a fragment of its own that every lookup opens (1,000 one-page
    # PDFs slowed to ~1 s a file): both phases compact every few documents, not only at the end.
    import pymupdf

    from app.store import store as store_mod

    monkeypatch.setattr(store_mod, "COMPACT_AT_FRAGMENTS", 4)
    files = []
    for i in range(10):
        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), f"Field note {i}: hut {i} holds {i + 3} litres.")
        doc.save(tmp_path / f"note-{i}.pdf")
        files.append(tmp_path / f"note-{i}.pdf")
    optimized: list[str] = []
    real = lib.store.optimize
    monkeypatch.setattr(lib.store, "optimize", lambda: (optimized.append("x"), real())[1])
    outcome = lib.ingest(files, embed=False)
    assert [r.status for r in outcome.results] == ["added"] * 10
    assert len(optimized) >= 2  # every 4 documents (plus the one at the end of the run)
    optimized.clear()
    assert lib.embed_pending() == 10
    # The embedding phase commits in groups: the ten documents' vectors in one write and their
    # status in one update (not a fragment each), then compacts once at the end.
    assert len(optimized) >= 1
    assert lib.store.small_fragments() < 4
    assert {d.status for d in lib.documents()} == {"ready"}
