"""The built bundle (dist/Footnote) works on its own: packaging/package_test.py, run by pytest.

Skipped when no bundle has been built (``make package``; CI does not build one, see
packaging/README.md). A stale bundle tests stale code: rebuild before relying on this.
The rest are fast checks of the package-test runner's own logic and of the launcher's routing,
which run everywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.packaging_modules import load

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "Footnote"


package_test = load("package_test")
launcher = load("launcher")


@pytest.mark.integration
@pytest.mark.slow
def test_bundle_ingests_answers_with_valid_citations_and_opens_window(tmp_path: Path) -> None:
    if not (BUNDLE / "Footnote").is_file():
        pytest.skip("no bundle at dist/Footnote: build it with `make package` (several minutes)")
    report = package_test.run_all(BUNDLE, workdir=tmp_path)
    assert [s.name for s in report.steps] == [
        "version",
        "ingest",
        "docs",
        "search",
        "ask",
        "gui-smoke",
        "gui-import",
        "first-answer",
        "ocr-ingest",
        "ocr-search",
    ]


def _answer(quote: str, source_text: str) -> dict[str, object]:
    return {
        "answer": "It defines the longtable environment [1].",
        "citations": [{"n": 1, "chunk_id": "c1", "quote": quote}],
        "sources": [{"n": 1, "chunk_id": "c1", "text": source_text}],
    }


@pytest.mark.unit
def test_citation_check_accepts_a_quote_from_its_source() -> None:
    text = "The longtable package defines a new environment, longtable."
    summary = package_test.check_citations(_answer("defines a new environment", text))
    assert summary.startswith("1 citation")


@pytest.mark.unit
@pytest.mark.parametrize(
    "answer",
    [
        _answer("a quote that is nowhere", "The longtable package defines a new environment."),
        {"answer": "x", "citations": [], "sources": []},
        {
            "answer": "x",
            "citations": [{"n": 2, "chunk_id": "c1", "quote": "longtable"}],
            "sources": [{"n": 1, "chunk_id": "c1", "text": "longtable"}],
        },
    ],
    ids=["quote-not-in-source", "no-citations", "unknown-source"],
)
def test_citation_check_rejects_unproven_answers(answer: dict[str, object]) -> None:
    with pytest.raises(package_test.PackageTestError):
        package_test.check_citations(answer)


@pytest.mark.unit
def test_gui_import_check_needs_a_child_process_in_the_log(tmp_path: Path) -> None:
    shown = {"shown": True, "results": [{"file": "a.pdf", "status": "added"}]}
    log = tmp_path / "footnote.log"
    log.write_text("x INFO MainThread app.ui.session: something else\n")
    with pytest.raises(package_test.PackageTestError, match="child import process"):
        package_test.check_gui_import(shown, log)
    log.write_text(
        "x INFO Dummy-1 app.services.ingest_process: import process 4242 started for 1 path(s)\n"
        "x INFO MainThread app.services.ingest_process: import process 4242 running (1 path(s))\n"
    )
    assert package_test.check_gui_import(shown, log) == "added through import process 4242"
    with pytest.raises(package_test.PackageTestError, match="unexpected result"):
        package_test.check_gui_import({"shown": True, "results": []}, log)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("args", "gui"),
    [
        ([], True),
        (["--smoke"], True),
        (["--library", "/tmp/lib"], True),
        (["-v", "--smoke"], True),
        (["/home/me/paper.PDF"], True),
        (["/home/me/book.epub"], True),  # "Open with Footnote" on any document it reads
        (["notes.md"], True),
        (["memo.DOCX"], True),
        (["ingest", "paper.pdf"], False),
        (["docs", "--json"], False),
        (["--version"], False),
        (["--help"], False),
        (["-v", "ask", "why?"], False),
        (["frobnicate"], False),
    ],
)
def test_launcher_routes_desktop_and_command_line_arguments(args: list[str], gui: bool) -> None:
    commands = {"ingest", "docs", "remove", "search", "ask", "metrics"}
    assert launcher.wants_gui(args, commands) is gui


def _ocr_ingest(status: str = "added", chunks: int = 1, ocr_pages: int = 1) -> dict[str, object]:
    result = {"status": status, "doc_id": "d1", "chunks": chunks, "ocr_pages": ocr_pages}
    return {"results": [result]}


@pytest.mark.unit
def test_ocr_checks_accept_a_scanned_page_read_by_ocr() -> None:
    assert "ocr_pages=1" in package_test.check_ocr_ingest(_ocr_ingest())
    text = "The lighthouse keeper's logbook from 1887 was found behind a loose panel."
    hits = [{"doc_id": "d1", "page_start": 1, "text": text}]
    assert package_test.check_ocr_search(hits, "d1").startswith("OCR text found")


@pytest.mark.unit
@pytest.mark.parametrize(
    "ingest",
    [_ocr_ingest(ocr_pages=0), _ocr_ingest(status="failed"), _ocr_ingest(chunks=0)],
    ids=["no-page-ocred", "failed", "no-chunks"],
)
def test_ocr_ingest_check_rejects_a_scan_that_was_not_read(ingest: dict[str, object]) -> None:
    with pytest.raises(package_test.PackageTestError):
        package_test.check_ocr_ingest(ingest)


@pytest.mark.unit
def test_ocr_search_check_rejects_text_without_the_scanned_words() -> None:
    hits = [{"doc_id": "d1", "page_start": 1, "text": "Th3 l1ghth0use k33per"}]
    with pytest.raises(package_test.PackageTestError):
        package_test.check_ocr_search(hits, "d1")
    with pytest.raises(package_test.PackageTestError):
        package_test.check_ocr_search([{**hits[0], "doc_id": "other"}], "d1")


@pytest.mark.unit
def test_ocr_data_check_names_the_missing_language(tmp_path: Path) -> None:
    (tmp_path / "_internal" / "tessdata").mkdir(parents=True)
    (tmp_path / "_internal" / "tessdata" / "eng.traineddata").write_bytes(b"x")
    with pytest.raises(package_test.PackageTestError, match="deu"):
        package_test.check_ocr_data(tmp_path, system=str(tmp_path / "no-system-tessdata"))


@pytest.mark.unit
def test_first_answer_check_wants_citations_and_no_heavy_import() -> None:
    ask = {"answered_s": 3.1, "kind": "generated", "citations": 1, "warm_s": 40.0,
           "answer_imports": ["app.services.conversation"], "citation_s": 0.2,
           "citation_imports": []}  # fmt: skip
    assert "answer 3.1 s" in package_test.check_first_answer({"shown": True, "ask": ask})
    for bad in (
        {**ask, "answer_imports": ["torch._dynamo.polyfills"]},  # the answer loaded torch
        {**ask, "citation_imports": ["pymupdf.table"]},  # the viewer loaded PyMuPDF
        {**ask, "citations": 0},
        {k: v for k, v in ask.items() if k != "answered_s"},  # no answer before the deadline
    ):
        with pytest.raises(package_test.PackageTestError):
            package_test.check_first_answer({"shown": True, "ask": bad})


@pytest.mark.unit
def test_parse_worker_check_wants_a_new_worker_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "footnote.log"
    log.write_text("2026 INFO MainThread app.ingest.worker: parse worker 4242 started\n")
    detail, seen = package_test.check_parse_worker(log, set())
    assert "4242" in detail and seen == {"4242"}
    with pytest.raises(package_test.PackageTestError):  # the same worker again is not new
        package_test.check_parse_worker(log, seen)
    with pytest.raises(package_test.PackageTestError):  # no log at all
        package_test.check_parse_worker(tmp_path / "missing.log", set())
