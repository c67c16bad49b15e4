"""Scanned pages read by OCR beside the rest of an ingest (app.services.ocr_stage).

Real PDFs (tests/pdf_factory.py, tests/scan_factory.py), the real OCR engine, real parse workers
and a real LanceDB in tmp_path; a fast fake embedder. What is checked is the order of events and
what ends up stored, never a duration: a text file is keyword-searchable and embedded before the
scan's OCR is through, a file's text pages are searchable (and embedded once) while its scanned
page is read, and a failure or a cancel of OCR leaves the library consistent.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.progress import CancelToken, FileProgress, Progress, Stage
from app.ingest import parse_pdf
from app.ingest._mupdf import pymupdf
from app.ingest.ocr import OcrOptions
from app.services.library import Library, embedding_text
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder
from tests.scan_factory import SCAN_SENTENCES, make_scan_pdf
from tests.store_invariants import assert_store_consistent

pytestmark = [pytest.mark.unit, pytest.mark.slow]


@pytest.fixture(autouse=True)
def one_ocr_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOOTNOTE_OCR_WORKERS", "1")  # reaches the parse workers too


def _text_then_scan(path: Path, tmp_path: Path) -> Path:
    """The five-page manual followed by one scanned page (a picture of known sentences)."""
    scan, _ = make_scan_pdf(tmp_path / "page.pdf", dpi=150, per_page=4)
    doc = pymupdf.open(pf.make_manual_pdf(tmp_path / "manual-part.pdf"))
    with pymupdf.open(scan) as extra:
        doc.insert_pdf(extra)
    doc.save(path)
    doc.close()
    return path


def _texts(parsed: object) -> set[str]:
    doc = parsed.document  # type: ignore[attr-defined]
    return {embedding_text(doc.title, c.section, c.text) for c in parsed.chunks}  # type: ignore[attr-defined]


def test_a_text_file_is_embedded_while_a_scan_is_read(tmp_path: Path) -> None:
    scan, _ = make_scan_pdf(tmp_path / "scan.pdf", pages=3, dpi=150, per_page=4)
    text = pf.make_manual_pdf(tmp_path / "manual.pdf")
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    events: list[tuple[str, str, int, int]] = []

    def progress(p: Progress) -> None:
        name = Path(p.file).name if isinstance(p, FileProgress) else ""
        events.append((p.stage.value, name, p.done, p.total))

    outcome = lib.ingest([scan, text], on_progress=progress)
    by_name = {Path(r.file).name: r for r in outcome.results}
    assert by_name["scan.pdf"].status == "added" and by_name["scan.pdf"].ocr_pages == 3
    assert by_name["manual.pdf"].status == "added" and by_name["manual.pdf"].ocr_pages == 0
    assert {d.status for d in lib.documents()} == {"ready"}
    assert_store_consistent(lib.store)

    indexed = events.index(("indexed", "", 1, 1))
    ocr_done = max(i for i, e in enumerate(events) if e[0] == "ocr" and e[2] == e[3] == 3)
    manual_embedded = max(i for i, e in enumerate(events) if e[:2] == ("embed", "manual.pdf"))
    # The scan came first, yet the manual was searchable and then embedded before its OCR ended.
    assert indexed < ocr_done and manual_embedded < ocr_done
    assert outcome.timings_ms["ocr"] > 0 and by_name["scan.pdf"].timings_ms["ocr"] > 0
    hits, _ = lib.search("lighthouse keeper logbook")  # read by OCR
    assert hits and "logbook" in hits[0].text


def test_text_pages_are_searchable_first_and_embedded_once(tmp_path: Path) -> None:
    mixed = _text_then_scan(tmp_path / "mixed.pdf", tmp_path)
    partial = parse_pdf(mixed, ocr=OcrOptions(defer=True))
    final = parse_pdf(mixed)
    assert partial.ocr_pending == [6] and final.ocr_pages == [6]
    early, late = _texts(partial), _texts(final)
    assert late - early  # the scanned page adds passages

    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    searchable_before_ocr: list[bool] = []

    def progress(p: Progress) -> None:
        if p.stage is Stage.INDEXED:  # the text pages are in, the scanned one is not yet
            searchable_before_ocr.append(bool(lib.store.text_search("Zephyr", 3)))

    outcome = lib.ingest([mixed], on_progress=progress)
    (r,) = outcome.results
    assert (r.status, r.ocr_pages, r.chunks) == ("added", 1, len(final.chunks))
    assert searchable_before_ocr == [True]
    (doc,) = lib.documents()
    assert doc.status == "ready"
    # Each passage embedded once: the text pages' while OCR read, the new ones after it; the
    # text pages' vectors were kept when the final version replaced the partial one.
    assert outcome.embedded_chunks == len(early) + len(late - early)
    ids = {c.chunk_id for c in lib.chunks_of(doc.doc_id)}
    assert lib.store.embedded_chunk_ids(doc.doc_id) == ids
    kept = next(c for c in lib.chunks_of(doc.doc_id) if c.page_end == 1)
    [(cid, vec)] = [
        (i, v) for i, v in zip(*lib.chunk_vectors(doc.doc_id), strict=True) if i == kept.chunk_id
    ]
    expected = HashEmbedder().embed([embedding_text(doc.title, kept.section, kept.text)])[0]
    assert cid == kept.chunk_id and float(vec @ expected) == pytest.approx(1.0, abs=1e-5)
    assert_store_consistent(lib.store)


def test_keyword_only_ingest_waits_for_ocr(tmp_path: Path) -> None:
    mixed = _text_then_scan(tmp_path / "mixed.pdf", tmp_path)
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    outcome = lib.ingest([mixed], embed=False)
    (r,) = outcome.results
    assert (r.status, r.ocr_pages) == ("added", 1)
    (doc,) = lib.documents()
    assert doc.status == "indexed" and doc.chunks == r.chunks
    assert lib.store.text_search("treasurer surplus", 3)  # the OCR'd page is in the index


def test_a_scan_ocr_finds_nothing_on_fails_alone(tmp_path: Path) -> None:
    photo = pf.make_photo_pdf(tmp_path / "photo.pdf", pages=2)  # pictures without words
    text = pf.make_manual_pdf(tmp_path / "manual.pdf")
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    outcome = lib.ingest([photo, text])
    by_name = {Path(r.file).name: r for r in outcome.results}
    assert by_name["photo.pdf"].status == "failed"
    assert by_name["photo.pdf"].error_code == "no_text"
    assert by_name["manual.pdf"].status == "added"
    assert [d.title for d in lib.documents()] == [pf.MANUAL_TITLE]
    assert_store_consistent(lib.store)


def test_a_cancel_during_ocr_keeps_the_text_pages_and_the_next_run_finishes(
    tmp_path: Path,
) -> None:
    mixed = _text_then_scan(tmp_path / "mixed.pdf", tmp_path)
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    token = CancelToken()

    def stop_when_ocr_starts(p: Progress) -> None:
        if p.stage is Stage.OCR:
            token.cancel()

    outcome = lib.ingest([mixed], on_progress=stop_when_ocr_starts, cancel=token)
    assert outcome.cancelled and outcome.results == []  # not through: left out
    (doc,) = lib.documents()
    assert doc.status == "partial" and lib.store.text_search("Zephyr", 3)
    assert_store_consistent(lib.store)

    again = lib.ingest([mixed])
    assert [(r.status, r.ocr_pages) for r in again.results] == [("added", 1)]
    (doc,) = lib.documents()
    assert doc.status == "ready"
    assert_store_consistent(lib.store)


def test_ocr_off_reads_no_scan_and_starts_no_stage(tmp_path: Path) -> None:
    scan, _ = make_scan_pdf(tmp_path / "scan.pdf", dpi=100, sentences=SCAN_SENTENCES[:2])
    settings = Settings(library=tmp_path / "lib", ocr=False)
    lib = Library(settings, embedder=HashEmbedder())
    assert lib._ocr_stage(None) is None
    (r,) = lib.ingest([scan]).results
    assert r.status == "failed" and "turned off" in (r.error or "")
    assert replace(lib.parse_options.ocr, defer=True).enabled is False
