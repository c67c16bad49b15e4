"""Bad input: every case raises its own IngestError subclass naming the file, never a raw error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.errors import (
    Cancelled,
    CorruptPdfError,
    EmptyFileError,
    EncryptedPdfError,
    FileMissingError,
    IngestError,
    NoPagesError,
    NotAPdfError,
    NoTextLayerError,
    PermissionDeniedError,
)
from app.core.progress import CancelToken, Progress
from app.ingest import file_sha, parse_pdf
from app.ingest._mupdf import pymupdf
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit


def _blank_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    doc.new_page()
    doc.new_page()
    doc.save(path)
    return path


def _garbage_pdf(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    return path


CASES: list[tuple[str, Callable[[Path], Path], type[IngestError], str]] = [
    ("empty.pdf", pf.make_empty_file, EmptyFileError, "empty"),
    ("notes.pdf", pf.make_not_pdf, NotAPdfError, "not a PDF"),
    ("locked.pdf", pf.make_encrypted_pdf, EncryptedPdfError, "password"),
    ("cut.pdf", pf.make_corrupt_pdf, CorruptPdfError, "damaged"),
    ("garbage.pdf", _garbage_pdf, CorruptPdfError, "damaged"),
    ("zero.pdf", pf.make_zero_page_pdf, NoPagesError, "no pages"),
    ("scan.pdf", pf.make_photo_pdf, NoTextLayerError, "no text layer"),
    ("blank.pdf", _blank_pdf, NoTextLayerError, "no text"),
]


@pytest.mark.parametrize(("name", "make", "error", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_specific_error(
    tmp_path: Path, name: str, make: Callable[[Path], Path], error: type[IngestError], words: str
) -> None:
    path = make(tmp_path / name)
    with pytest.raises(error) as info:
        parse_pdf(path)
    err = info.value
    assert type(err) is error  # the specific class, not a parent or a raw exception
    assert name in str(err)
    assert words in str(err)
    assert err.hint and err.code == error.code
    assert name in err.user_text()


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "gone.pdf"
    with pytest.raises(FileMissingError, match="gone.pdf"):
        parse_pdf(path)
    with pytest.raises(FileMissingError, match="gone.pdf"):
        file_sha(path)


def test_folder_given_as_file(tmp_path: Path) -> None:
    folder = tmp_path / "reports.pdf"
    folder.mkdir()
    with pytest.raises(NotAPdfError, match="folder"):
        parse_pdf(folder)


def test_other_file_types_are_named(tmp_path: Path) -> None:
    png = tmp_path / "picture.pdf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(NotAPdfError, match="PNG image"):
        parse_pdf(png)
    docx = tmp_path / "letter.pdf"
    docx.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    with pytest.raises(NotAPdfError, match="Office document"):
        parse_pdf(docx)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read a chmod 000 file"
)
def test_unreadable_file_real_permissions(tmp_path: Path) -> None:
    path = pf.make_manual_pdf(tmp_path / "private.pdf")
    path.chmod(0)
    try:
        with pytest.raises(PermissionDeniedError, match="private.pdf"):
            parse_pdf(path)
    finally:
        path.chmod(0o644)


def test_unreadable_file_maps_os_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The OS refusing to open the file (as for chmod 000 when not root) is reported as such."""
    import app.ingest.pdf as pdf_module

    path = pf.make_manual_pdf(tmp_path / "private.pdf")

    def refuse(file: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(pdf_module, "open", refuse, raising=False)
    with pytest.raises(PermissionDeniedError, match="private.pdf"):
        parse_pdf(path)
    with pytest.raises(PermissionDeniedError, match="private.pdf"):
        file_sha(path)

    def io_error(file: object, *args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(pdf_module, "open", io_error, raising=False)
    with pytest.raises(PermissionDeniedError, match="Input/output error"):
        parse_pdf(path)


def test_unreadable_page_is_corruption_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MuPDF failure while reading a page of a damaged file becomes CorruptPdfError."""
    from app.ingest.layout import PageExtractor

    path = pf.make_manual_pdf(tmp_path / "flaky.pdf")

    def boom(self: PageExtractor, page: object, pno: int) -> list:
        raise RuntimeError("code=2: syntax error in content stream")

    monkeypatch.setattr(PageExtractor, "extract", boom)
    with pytest.raises(CorruptPdfError, match="flaky.pdf"):
        parse_pdf(path)


def test_file_sha_matches_parse(tmp_path: Path) -> None:
    path = pf.make_two_column_pdf(tmp_path / "two.pdf")
    assert file_sha(path) == parse_pdf(path).document.doc_id
    assert len(file_sha(path)) == 16


# --- progress and cancel -----------------------------------------------------------------------


def test_progress_reports_pages(tmp_path: Path) -> None:
    path = pf.make_manual_pdf(tmp_path / "m.pdf")
    seen: list[Progress] = []
    parse_pdf(path, on_progress=seen.append)
    assert seen, "no progress reported"
    assert all(p.stage == "parse" and p.total == 5 and p.file == str(path) for p in seen)
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert seen[-1].done == 5 and seen[-1].fraction == 1.0


def test_cancel_before_start(tmp_path: Path) -> None:
    path = pf.make_manual_pdf(tmp_path / "m.pdf")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        parse_pdf(path, cancel=token)


def test_cancel_between_pages(tmp_path: Path) -> None:
    path = pf.make_manual_pdf(tmp_path / "m.pdf")
    token = CancelToken()
    seen: list[int] = []

    def on_progress(p: Progress) -> None:
        seen.append(p.done)
        if p.done == 2:
            token.cancel()

    with pytest.raises(Cancelled):
        parse_pdf(path, on_progress=on_progress, cancel=token)
    assert seen == [1, 2]  # stopped at the next page boundary


def test_encrypted_without_user_password_is_readable(tmp_path: Path) -> None:
    """Owner-password-only PDFs (copy/print restrictions) open without a password."""
    parsed = parse_pdf(pf.make_encrypted_pdf(tmp_path / "restricted.pdf", password=""))
    assert parsed.document.pages == 5
    assert any(pf.MANUAL_FACTS["e42"].sentence in c.text for c in parsed.chunks)


def test_only_headers_and_page_numbers_is_no_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for n in range(1, 4):
        page = doc.new_page()
        page.insert_text((72, 40), "ACME Corporation internal", fontsize=9)
        page.insert_text((300, 820), str(n), fontsize=9)
    path = tmp_path / "furniture.pdf"
    doc.save(path)
    with pytest.raises(NoTextLayerError, match="furniture.pdf"):
        parse_pdf(path)
