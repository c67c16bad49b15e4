"""Documents that are not PDFs: EPUB, FB2, text, Markdown (MuPDF) and DOCX (LibreOffice).

Real files (tests/format_factory.py), the real ingestion (parse worker included), a real
LanceDB in tmp_path. The proof that matters to a person: a quote cited from such a file is
highlighted on exactly its words in the PDF the viewer shows (``Library.view_file``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.models import RawAnswer, RawCitation, Source
from app.core.progress import Progress, Stage
from app.ingest import iter_pdf_paths, needs_conversion
from app.services.library import Library
from app.validation import validate
from app.validation.normalize import loose
from tests import format_factory as ff
from tests.fakes import HashEmbedder
from tests.pdf_factory import highlighted_words

pytestmark = pytest.mark.unit


def _library(tmp_path: Path) -> Library:
    return Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())


def _assert_cited_exactly(lib: Library, fact: str) -> None:
    """Search finds ``fact``; a citation of it validates and highlights exactly its words
    in the PDF the viewer opens for the document."""
    hits, _ = lib.search(fact, top_k=3)
    chunk = next(
        c for c in lib.chunks([h.chunk_id for h in hits]) if fact in " ".join(c.text.split())
    )
    doc = lib.get_document(chunk.doc_id)
    assert doc is not None
    src = Source(
        rank=1, chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, file=doc.file, title=doc.title,
        page_start=chunk.page_start, page_end=chunk.page_end, section=chunk.section,
        score=1.0, text=chunk.text, n=1,
    )  # fmt: skip
    raw = RawAnswer(
        mode="answer", answer=f"{fact} [1]", citations=[RawCitation(source=1, quote=fact)]
    )
    (citation,) = validate(raw, [(src, chunk)]).citations
    shown = lib.view_file(doc)
    assert shown.suffix == ".pdf" and shown.is_file()
    assert shown.is_relative_to(lib.converted_dir / doc.doc_id)
    assert loose(highlighted_words(shown, citation.rects)) == loose(fact)


@pytest.mark.parametrize(
    ("make", "name", "fact"),
    [
        (ff.make_epub, "keeper.epub", ff.EPUB_FACT),
        (ff.make_txt, "hut.txt", ff.TXT_FACT),
        (ff.make_md, "setup.md", ff.MD_FACT),
        (ff.make_fb2, "ferries.fb2", ff.FB2_FACT),
    ],
)
def test_mupdf_formats_are_ingested_cited_and_highlighted(
    tmp_path: Path, make: object, name: str, fact: str
) -> None:
    path = make(tmp_path / name)  # type: ignore[operator]
    lib = _library(tmp_path)
    events: list[Progress] = []
    (result,) = lib.ingest([path], on_progress=events.append).results
    assert result.status == "added", result.error
    assert Stage.CONVERT in {e.stage for e in events}
    doc = lib.get_document(result.doc_id or "")
    assert doc is not None and doc.file == str(path.resolve())  # the user's file, not the copy
    assert doc.size == path.stat().st_size
    _assert_cited_exactly(lib, fact)
    # Unchanged on a second import: judged on the original's bytes.
    assert [r.status for r in lib.ingest([path]).results] == ["unchanged"]


def test_epub_title_comes_from_its_metadata(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    (result,) = lib.ingest([ff.make_epub(tmp_path / "b.epub")]).results
    doc = lib.get_document(result.doc_id or "")
    assert doc is not None and doc.title == ff.EPUB_TITLE


def test_folders_expand_to_every_supported_type(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for make, name in [
        (ff.make_epub, "a.epub"), (ff.make_txt, "b.TXT"), (ff.make_md, "c.md"),
        (ff.make_docx, "d.docx"),
    ]:  # fmt: skip
        make(folder / name)
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    (folder / ".hidden.txt").write_text("x")
    assert [p.name for p in iter_pdf_paths([folder])] == ["a.epub", "b.TXT", "c.md", "d.docx"]
    assert needs_conversion("x.EPUB") and not needs_conversion("x.pdf")


def test_a_folder_holding_the_library_does_not_read_its_converted_pdfs(tmp_path: Path) -> None:
    lib = _library(tmp_path)  # the library lives in tmp_path/lib
    ff.make_epub(tmp_path / "keeper.epub")
    lib.ingest([tmp_path])
    assert list(lib.converted_dir.rglob("*.pdf"))
    assert [r.status for r in lib.ingest([tmp_path]).results] == ["unchanged"]
    assert len(lib.documents()) == 1


def test_removing_a_converted_document_deletes_its_pdf(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    (result,) = lib.ingest([ff.make_txt(tmp_path / "n.txt")]).results
    folder = lib.converted_dir / (result.doc_id or "")
    assert folder.is_dir()
    assert lib.remove(result.doc_id or "")
    assert not folder.exists()


def test_a_changed_text_file_replaces_its_document_and_its_pdf(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    path = ff.make_txt(tmp_path / "n.txt")
    (first,) = lib.ingest([path]).results
    ff.make_txt(path, fact="The new kettle holds five litres.")
    (second,) = lib.ingest([path]).results
    assert second.status == "updated" and second.doc_id != first.doc_id
    assert [d.doc_id for d in lib.documents()] == [second.doc_id]
    assert not (lib.converted_dir / (first.doc_id or "")).exists()


def test_a_damaged_epub_fails_alone_with_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.epub"
    bad.write_bytes(b"PK\x03\x04 this is not a real zip archive")
    good = ff.make_md(tmp_path / "good.md")
    lib = _library(tmp_path)
    results = lib.ingest([bad, good]).results
    assert [r.status for r in results] == ["failed", "added"]
    assert results[0].error_code == "conversion_failed"
    assert "bad.epub" in (results[0].error or "")
    assert [p.name for p in lib.converted_dir.iterdir()] == [results[1].doc_id]


def test_office_document_without_libreoffice_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOOTNOTE_SOFFICE", "")  # as on a machine without LibreOffice
    lib = _library(tmp_path)
    (result,) = lib.ingest([ff.make_docx(tmp_path / "memo.docx")]).results
    assert result.status == "failed" and result.error_code == "converter_missing"
    assert "LibreOffice" in (result.error or "")
    assert "libreoffice-writer-nogui" in (result.error or "")
    assert lib.documents() == []
    assert not any(lib.converted_dir.iterdir()) if lib.converted_dir.exists() else True


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_docx_is_converted_by_libreoffice_and_cited_on_its_pages(tmp_path: Path) -> None:
    path = ff.make_docx(tmp_path / "memo.docx")
    lib = _library(tmp_path)
    (result,) = lib.ingest([path]).results
    assert result.status == "added", result.error
    _assert_cited_exactly(lib, ff.DOCX_FACT)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_pptx_and_xlsx_are_converted_and_cited(tmp_path: Path) -> None:
    slides = ff.make_pptx(tmp_path / "review.pptx")
    sheet = ff.make_xlsx(tmp_path / "prices.xlsx")
    lib = _library(tmp_path)
    results = lib.ingest([slides, sheet]).results
    assert [r.status for r in results] == ["added", "added"], [r.error for r in results]
    _assert_cited_exactly(lib, ff.PPTX_FACT)
    _assert_cited_exactly(lib, ff.XLSX_ROW)


def _slow_soffice(tmp_path: Path) -> Path:
    """A stand-in ``soffice`` that hangs (as LibreOffice does on some damaged files)."""
    script = tmp_path / "soffice"
    script.write_text("#!/bin/sh\nsleep 300\n")
    script.chmod(0o755)
    return script


def test_a_conversion_past_its_time_limit_is_killed_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from app.core.errors import ConversionError
    from app.ingest import convert_to_pdf

    monkeypatch.setenv("FOOTNOTE_SOFFICE", str(_slow_soffice(tmp_path)))
    t0 = time.monotonic()
    with pytest.raises(ConversionError, match="took over 1 s"):
        convert_to_pdf(ff.make_docx(tmp_path / "m.docx"), tmp_path / "out", timeout=1.0)
    assert time.monotonic() - t0 < 30
    assert not list((tmp_path / "out").glob("*.pdf"))


def test_cancel_stops_a_conversion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from app.core.errors import Cancelled
    from app.core.progress import CancelToken
    from app.ingest import convert_to_pdf

    monkeypatch.setenv("FOOTNOTE_SOFFICE", str(_slow_soffice(tmp_path)))
    token = CancelToken()
    threading.Timer(0.5, token.cancel).start()
    with pytest.raises(Cancelled):
        convert_to_pdf(ff.make_docx(tmp_path / "m.docx"), tmp_path / "out", cancel=token)
