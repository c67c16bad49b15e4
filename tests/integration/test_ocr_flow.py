"""A scanned PDF, end to end with the real parts: OCR at ingest, keyword and hybrid search, an
answer from the embedded GGUF model whose citation names the scanned page, and highlight
rectangles that cover the printed words (ground truth from tests/scan_factory.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.services.ask import AskService
from app.services.library import Library
from tests.scan_factory import SCAN_SENTENCES, make_scan_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LOGBOOK = SCAN_SENTENCES[5]  # "The lighthouse keeper's logbook from 1887 was found ..." (page 2)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder):
    root = tmp_path_factory.mktemp("ocr")
    path, truth = make_scan_pdf(root / "minutes-scan.pdf", pages=2, dpi=200, per_page=5)
    library = Library(Settings(library=root / "library"), embedder=shared_embedder)
    results = library.ingest([path]).results
    return library, results, truth


def _covers(rect: tuple, box: tuple) -> bool:
    """The highlight covers most of the printed word's box."""
    w = min(rect[2], box[2]) - max(rect[0], box[0])
    h = min(rect[3], box[3]) - max(rect[1], box[1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    return w > 0 and h > 0 and w * h >= 0.5 * area


def test_scanned_pdf_is_added_and_searchable_by_keyword(scanned) -> None:
    library, results, _ = scanned
    assert [r.status for r in results] == ["added"]
    assert results[0].ocr_pages == 2
    (doc,) = library.documents()
    assert doc.status == "ready" and doc.pages == 2
    hits, _ = library.search("lighthouse keeper logbook")
    assert hits and "lighthouse keeper's logbook from 1887" in hits[0].text
    (chunk,) = library.chunks([hits[0].chunk_id])
    assert chunk.charmap.page_at(chunk.text.index("lighthouse keeper")) == 2


def test_answer_cites_the_scanned_page_and_highlights_its_words(scanned) -> None:
    library, _, truth = scanned
    service = AskService(library, library.settings)
    answer = service.ask("In which year was the lighthouse keeper's logbook written?")
    assert answer.mode == "answer" and answer.citations
    on_page = [c for c in answer.citations if c.page == 2]
    assert on_page, [(c.page, c.quote) for c in answer.citations]
    words = truth[1].words  # printed boxes on page 2 (unrotated page space)
    for c in on_page:
        assert c.rects and all(r[0] == 2 for r in c.rects)
        printed = _printed_run(words, c.quote)
        assert printed, f"quote not printed on page 2: {c.quote!r}"
        covered = [b for b in printed if any(_covers(r[1:], b) for r in c.rects)]
        assert len(covered) >= 0.8 * len(printed), (c.quote, c.rects)


def _norm(word: str) -> str:
    return word.strip(".,;:'\"").lower()


def _printed_run(words: list[tuple], quote: str) -> list[tuple]:
    """Boxes of the printed words that make up ``quote`` (its inner words, whole)."""
    want = [_norm(w) for w in quote.split()][1:-1] or [_norm(w) for w in quote.split()]
    texts = [_norm(w[4]) for w in words]
    for i in range(len(texts) - len(want) + 1):
        if texts[i : i + len(want)] == want:
            return words[i : i + len(want)]
    return []


def test_cli_ingest_reports_ocr_pages_and_no_ocr_refuses(
    capsys: pytest.CaptureFixture[str], cli_embedder: object, tmp_path: Path
) -> None:
    import json

    from app.cli.main import main

    path, _ = make_scan_pdf(tmp_path / "letter.pdf", pages=1, dpi=150, per_page=3)
    lib = str(tmp_path / "lib")
    code = main(["ingest", str(path), "--library", lib, "--json", "--no-ocr"])
    out = json.loads(capsys.readouterr().out)
    (r,) = out["results"]
    assert code == 1 and r["status"] == "failed" and "turned off" in r["error"]
    code = main(["ingest", str(path), "--library", lib, "--json", "--no-embed"])
    (r,) = json.loads(capsys.readouterr().out)["results"]
    assert code == 0 and (r["status"], r["ocr_pages"]) == ("added", 1)


def test_interrupted_ocr_keeps_read_pages_searchable_and_is_redone(
    tmp_path: Path, shared_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.progress import CancelToken, Progress

    monkeypatch.setenv("FOOTNOTE_PARTIAL_EVERY", "0")  # also in the parse worker process
    monkeypatch.setenv("FOOTNOTE_OCR_WORKERS", "1")
    path, truth = make_scan_pdf(tmp_path / "three.pdf", pages=3, dpi=150, per_page=2)
    library = Library(Settings(library=tmp_path / "library"), embedder=shared_embedder)
    token = CancelToken()

    def stop_after_two_pages(p: Progress) -> None:
        if p.stage == "ocr" and p.done == 2:
            token.cancel()

    library.ingest([path], on_progress=stop_after_two_pages, cancel=token)
    (doc,) = library.documents()
    assert doc.status == "partial"
    hits = library.store.text_search("harbour commission", 5)  # page 1 is searchable
    assert hits
    again = library.ingest([path]).results
    assert [(r.status, r.ocr_pages) for r in again] == [("added", 3)]
    (doc,) = library.documents()
    assert doc.status == "ready"
