"""PDF file -> ParsedDocument: checks, extraction, sections, chunks.

Why read the bytes once: the content hash (document id), the "is this a PDF at all"
check and PyMuPDF all work from the same bytes, so a file replaced halfway cannot give a
mismatched id, and there is one place where OS errors become user-facing errors.
Every failure leaves as a specific :class:`~app.core.errors.IngestError`; raw PyMuPDF
exceptions never escape.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from app.core.errors import (
    CorruptPdfError,
    EmptyFileError,
    EncryptedPdfError,
    FileMissingError,
    FootnoteError,
    NoPagesError,
    NotAPdfError,
    NoTextLayerError,
    PermissionDeniedError,
)
from app.core.models import Document, ParsedDocument
from app.core.progress import CancelToken, Progress, ProgressCallback

from ._mupdf import MUPDF_LOCK, pymupdf
from .chunker import ChunkParams, chunk_segments, segments
from .layout import Line, PageExtractor, drop_furniture
from .ocr import OcrOptions, has_words, looks_scanned, ocr_textpage, text_is_garbage
from .sections import (
    first_heading,
    heuristic_sections,
    outline_entries,
    resolve_outline,
)
from .titles import choose_title, mark_stamps, page_one_title

logger = logging.getLogger(__name__)

# MuPDF would print repair warnings to stderr; we log them ourselves instead.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)

_MAGIC = {
    b"PK\x03\x04": "a ZIP archive or Office document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"{\\rtf": "an RTF document",
    b"\xd0\xcf\x11\xe0": "an old Office document",
    b"<!DOCTYPE html": "a web page",
    b"<html": "a web page",
}


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _check_path(path: Path) -> None:
    if not path.exists():
        raise FileMissingError(f"{path.name}: no such file ({path}).")
    if path.is_dir():
        raise NotAPdfError(f"{path.name} is a folder, not a PDF file ({path}).")


def _read(path: Path) -> tuple[bytes, float]:
    """The file's bytes and modification time, read together."""
    _check_path(path)
    try:
        with open(path, "rb") as fh:
            mtime = os.fstat(fh.fileno()).st_mtime
            return fh.read(), mtime
    except FileNotFoundError as e:
        raise FileMissingError(f"{path.name}: no such file ({path}).") from e
    except IsADirectoryError as e:
        raise NotAPdfError(f"{path.name} is a folder, not a PDF file ({path}).") from e
    except PermissionError as e:
        raise PermissionDeniedError(f"{path.name}: permission denied ({path}).") from e
    except OSError as e:
        raise PermissionDeniedError(
            f"{path.name} cannot be read: {e.strerror or e} ({path})."
        ) from e


def file_sha(path: Path | str) -> str:
    """The document id of a file (first 16 hex of its SHA-256), streamed, without parsing."""
    path = Path(path)
    _check_path(path)
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    except PermissionError as e:
        raise PermissionDeniedError(f"{path.name}: permission denied ({path}).") from e
    except OSError as e:
        raise PermissionDeniedError(
            f"{path.name} cannot be read: {e.strerror or e} ({path})."
        ) from e
    return h.hexdigest()[:16]


def _open(path: Path, data: bytes) -> pymupdf.Document:
    name = path.name
    if not data:
        raise EmptyFileError(f"{name} is empty (0 bytes).")
    if b"%PDF-" not in data[:1024]:
        kind = next(
            (v for k, v in _MAGIC.items() if data.lstrip()[: len(k)].lower() == k.lower()), None
        )
        what = f"it looks like {kind}" if kind else "it does not start with a PDF header"
        raise NotAPdfError(f"{name} is not a PDF file: {what}.")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:
        raise CorruptPdfError(f"{name} is damaged and cannot be opened ({e}).") from e
    if doc.needs_pass:
        doc.close()
        raise EncryptedPdfError(f"{name} is password-protected.")
    if doc.page_count == 0:
        repaired = doc.is_repaired
        doc.close()
        if repaired:
            raise CorruptPdfError(f"{name} is damaged: no readable pages were found.")
        raise NoPagesError(f"{name} has no pages.")
    return doc


def parse_pdf(
    path: Path | str,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    params: ChunkParams | None = None,
    ocr: OcrOptions | None = None,
) -> ParsedDocument:
    """Parse one PDF into a document, its sections and its chunks (with character maps).

    Pages without a usable text layer are read by OCR (``ocr``; default on, English),
    reported as stage "ocr" with per-page progress; ``document.ocr_pages`` lists them.
    Raises a specific ``IngestError`` for bad input and ``Cancelled`` when ``cancel`` is set.
    """
    path = Path(path).expanduser().resolve()
    t0 = time.perf_counter()
    data, mtime = _read(path)
    with MUPDF_LOCK:
        doc = _open(path, data)
    try:
        parsed = _parse(
            path, data, doc, on_progress, cancel, params or ChunkParams(), ocr or OcrOptions()
        )
        parsed.document.mtime = mtime
        _log_speed(parsed, t0)
        return parsed
    except FootnoteError:
        raise
    except Exception as e:  # MuPDF failing deep inside a damaged file
        logger.exception("parsing %s failed", path)
        raise CorruptPdfError(f"{path.name} is damaged and cannot be read ({e}).") from e
    finally:
        with MUPDF_LOCK:
            doc.close()
            warnings = pymupdf.TOOLS.mupdf_warnings(reset=True)
        if warnings:
            logger.debug("MuPDF messages for %s: %s", path.name, warnings[:500])


def _parse(
    path: Path,
    data: bytes,
    doc: pymupdf.Document,
    on_progress: ProgressCallback | None,
    cancel: CancelToken | None,
    params: ChunkParams,
    ocr: OcrOptions,
) -> ParsedDocument:
    name = path.name
    with MUPDF_LOCK:
        total, repaired = doc.page_count, doc.is_repaired
        meta_title = (doc.metadata or {}).get("title") or ""
        entries = outline_entries(doc)
    if len(entries) < 2:  # a lone bookmark (often just the title) is no table of contents
        entries = []
    extractor = PageExtractor(want_fonts=not entries)
    pages: list[list[Line]] = []
    heights: list[float] = []
    broken: list[int] = []
    scanned: list[int] = []  # 0-based pages without a usable text layer
    every = max(1, min(8, total // 20))  # report every page of short files, every 8 of long
    for pno in range(total):
        if cancel is not None:
            cancel.raise_if_cancelled()
        try:
            with MUPDF_LOCK:
                page = doc.load_page(pno)
                lines = extractor.extract(page, pno + 1)
                height = page.cropbox.height
                if _needs_ocr(page, lines):
                    scanned.append(pno)
        except Exception as e:  # noqa: BLE001 - MuPDF raises many types; one bad page is skipped
            logger.warning("%s: page %d unreadable: %s", name, pno + 1, e)
            broken.append(pno + 1)
            lines, height = [], 842.0
        pages.append(lines)
        heights.append(height)
        if on_progress is not None and ((pno + 1) % every == 0 or pno + 1 == total):
            on_progress(Progress(stage="parse", done=pno + 1, total=total, file=str(path)))
    if cancel is not None:
        cancel.raise_if_cancelled()
    ocr_done: list[int] = []
    if scanned and ocr.enabled and not repaired:
        ocr_done = _ocr_pages(path, doc, scanned, pages, extractor, ocr, on_progress, cancel)
    n_words = sum(len(ln.words) for lines in pages for ln in lines)
    if broken and (repaired or n_words == 0):
        raise CorruptPdfError(f"{name} is damaged: page {broken[0]} cannot be read.")
    if n_words == 0:
        if repaired:
            raise CorruptPdfError(f"{name} is damaged: no readable text was found.")
        _raise_no_text(name, total, scanned, ocr)
    if repaired:
        logger.warning("%s was damaged and has been repaired; some text may be missing", name)
    empty = sum(1 for lines in pages if not lines)
    if empty:
        logger.info("%s: %d of %d pages have no text (blank or scanned)", name, empty, total)
    drop_furniture(pages, heights)
    mark_stamps(pages)
    lines = [ln for page_lines in pages for ln in page_lines if not ln.dropped]
    if entries:
        starts = resolve_outline(entries, lines)
        heading_title = None
    else:
        starts, heading_title = heuristic_sections(lines)
    big = page_one_title(lines)
    title = choose_title(meta_title, big, heading_title or first_heading(starts), path)
    if big and not entries:  # a title set over several lines is no section
        starts = [s for s in starts if not (s.section.page == 1 and s.section.title in big)]
    doc_id = _hash(data)
    chunks = chunk_segments(doc_id, segments(lines, starts, params), params)
    if not chunks:
        raise NoTextLayerError(f"{name} contains no text besides page headers and numbers.")
    document = Document(
        doc_id=doc_id,
        file=str(path),
        title=title,
        pages=total,
        chunks=len(chunks),
        size=len(data),
        ingested_at=datetime.now(UTC),
        status="indexed",
    )
    return ParsedDocument(
        document=document,
        sections=[s.section for s in starts],
        chunks=chunks,
        ocr_pages=[p + 1 for p in ocr_done],
    )


def _needs_ocr(page: pymupdf.Page, lines: list[Line]) -> bool:
    """No words but a picture covering the page (a scan), or a garbage text layer."""
    if not lines:
        return looks_scanned(page)
    return text_is_garbage(" ".join(ln.text for ln in lines))


def _ocr_pages(
    path: Path,
    doc: pymupdf.Document,
    todo: list[int],
    pages: list[list[Line]],
    extractor: PageExtractor,
    options: OcrOptions,
    on_progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[int]:
    """Replace the lines of pages ``todo`` (0-based) by what OCR reads there; returns the
    pages OCR found words on. One "ocr" progress report per page, cancellable between pages."""
    done: list[int] = []
    t0 = time.perf_counter()
    if on_progress is not None:
        on_progress(Progress(stage="ocr", done=0, total=len(todo), file=str(path)))
    for i, pno in enumerate(todo):
        if cancel is not None:
            cancel.raise_if_cancelled()
        with MUPDF_LOCK:
            page = doc.load_page(pno)
            tp, matrix, keep = ocr_textpage(page, options)
            lines = extractor.extract(page, pno + 1, textpage=tp, matrix=matrix)
            del tp, keep
        if lines and has_words(" ".join(ln.text for ln in lines)):
            pages[pno] = lines
            done.append(pno)
        if on_progress is not None:
            on_progress(Progress(stage="ocr", done=i + 1, total=len(todo), file=str(path)))
    elapsed = time.perf_counter() - t0
    logger.info(
        "%s: OCR read %d of %d pages in %.1fs (%.2f pages/s)",
        path.name,
        len(done),
        len(todo),
        elapsed,
        len(todo) / max(elapsed, 1e-6),
    )
    return done


def _raise_no_text(name: str, total: int, scanned: list[int], ocr: OcrOptions) -> None:
    if not scanned:
        raise NoTextLayerError(f"{name} contains no text.", hint="Its pages are empty.")
    if not ocr.enabled:
        raise NoTextLayerError(
            f"{name} has no text layer (its pages are images) and reading scans (OCR) is "
            "turned off.",
            hint="Turn on OCR in Settings (or drop --no-ocr) and add it again.",
        )
    raise NoTextLayerError(
        f"{name} has no text layer, and OCR found no readable text on its {len(scanned)} "
        f"scanned page{'s' if len(scanned) != 1 else ''}.",
    )


def _log_speed(parsed: ParsedDocument, t0: float) -> None:
    elapsed = time.perf_counter() - t0
    doc = parsed.document
    logger.info(
        "parsed %s: %d pages, %d sections, %d chunks in %.2fs (%.0f pages/s)",
        Path(doc.file).name,
        doc.pages,
        len(parsed.sections),
        doc.chunks,
        elapsed,
        doc.pages / max(elapsed, 1e-6),
    )
