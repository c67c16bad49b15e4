"""PDF file -> ParsedDocument: checks, extraction, sections, chunks.

Why read the bytes once: the content hash (document id), the "is this a PDF at all"
check and PyMuPDF all work from the same bytes, so a file replaced halfway cannot give a
mismatched id, and there is one place where OS errors become user-facing errors.
Every failure leaves as a specific :class:`~app.core.errors.IngestError`; raw PyMuPDF
exceptions never escape.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
    OcrUnavailableError,
    PermissionDeniedError,
)
from app.core.models import Document, ParsedDocument
from app.core.progress import CancelToken, Progress, ProgressCallback

from ._mupdf import MUPDF_LOCK, pymupdf
from .chunker import ChunkParams, chunk_segments, segments
from .layout import Line, PageExtractor, drop_furniture
from .ocr import OcrOptions, has_words, looks_scanned, ocr_words, text_is_garbage
from .ocr_pool import OcrPool, workers_for
from .sections import (
    first_heading,
    heuristic_sections,
    outline_entries,
    resolve_outline,
)
from .titles import choose_title, mark_stamps, page_one_title

logger = logging.getLogger(__name__)

PartialCallback = Callable[[ParsedDocument], None]
PARTIAL_EVERY = 3.0  # seconds between partial documents while OCR runs

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
    on_partial: PartialCallback | None = None,
) -> ParsedDocument:
    """Parse one PDF into a document, its sections and its chunks (with character maps).

    Pages without a usable text layer are read by OCR (``ocr``; default on, English),
    reported as stage "ocr" with per-page progress; ``parsed.ocr_pages`` lists them. While
    OCR runs, ``on_partial`` receives the document as read so far (text pages and the pages
    OCR has finished, at most every few seconds) so a caller can make it searchable early.
    Raises a specific ``IngestError`` for bad input and ``Cancelled`` when ``cancel`` is set.
    """
    path = Path(path).expanduser().resolve()
    t0 = time.perf_counter()
    data, mtime = _read(path)
    with MUPDF_LOCK:
        doc = _open(path, data)
    try:
        run = _Run(path, data, on_progress, cancel, params or ChunkParams(), ocr or OcrOptions())
        parsed = _parse(run, doc, on_partial)
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


@dataclass
class _Run:
    """One parse: its inputs, and what the page pass found (filled by ``_parse``)."""

    path: Path
    data: bytes
    on_progress: ProgressCallback | None
    cancel: CancelToken | None
    params: ChunkParams
    ocr: OcrOptions
    meta_title: str = ""
    entries: list = field(default_factory=list)
    pages: list[list[Line]] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)

    def check(self) -> None:
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()


def _parse(run: _Run, doc: pymupdf.Document, on_partial: PartialCallback | None) -> ParsedDocument:
    path, name = run.path, run.path.name
    with MUPDF_LOCK:
        total, repaired = doc.page_count, doc.is_repaired
        run.meta_title = (doc.metadata or {}).get("title") or ""
        entries = outline_entries(doc)
    run.entries = entries if len(entries) >= 2 else []  # a lone bookmark is no contents
    extractor = PageExtractor(want_fonts=not run.entries)
    broken: list[int] = []
    scanned: list[int] = []  # 0-based pages without a usable text layer
    every = max(1, min(8, total // 20))  # report every page of short files, every 8 of long
    for pno in range(total):
        run.check()
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
        run.pages.append(lines)
        run.heights.append(height)
        if run.on_progress is not None and ((pno + 1) % every == 0 or pno + 1 == total):
            run.on_progress(Progress(stage="parse", done=pno + 1, total=total, file=str(path)))
    run.check()
    ocr_done: list[int] = []
    if scanned and run.ocr.enabled and not repaired:
        try:
            ocr_done = _ocr_pages(run, doc, scanned, extractor, on_partial)
        except OcrUnavailableError:
            if not any(run.pages[p] for p in range(total) if p not in scanned):
                raise
            logger.warning("%s: OCR unavailable; %d scanned pages skipped", name, len(scanned))
    n_words = sum(len(ln.words) for lines in run.pages for ln in lines)
    if broken and (repaired or n_words == 0):
        raise CorruptPdfError(f"{name} is damaged: page {broken[0]} cannot be read.")
    if n_words == 0:
        if repaired:
            raise CorruptPdfError(f"{name} is damaged: no readable text was found.")
        _raise_no_text(name, total, scanned, run.ocr)
    if repaired:
        logger.warning("%s was damaged and has been repaired; some text may be missing", name)
    empty = sum(1 for lines in run.pages if not lines)
    if empty:
        logger.info("%s: %d of %d pages have no text (blank or scanned)", name, empty, total)
    return _assemble(run, ocr_done)


def _assemble(run: _Run, ocr_done: list[int]) -> ParsedDocument:
    """Sections, title and chunks from the pages read so far."""
    drop_furniture(run.pages, run.heights)
    mark_stamps(run.pages)
    lines = [ln for page_lines in run.pages for ln in page_lines if not ln.dropped]
    if run.entries:
        starts = resolve_outline(run.entries, lines)
        heading_title = None
    else:
        starts, heading_title = heuristic_sections(lines)
    big = page_one_title(lines)
    title = choose_title(run.meta_title, big, heading_title or first_heading(starts), run.path)
    if big and not run.entries:  # a title set over several lines is no section
        starts = [s for s in starts if not (s.section.page == 1 and s.section.title in big)]
    doc_id = _hash(run.data)
    chunks = chunk_segments(doc_id, segments(lines, starts, run.params), run.params)
    if not chunks:
        raise NoTextLayerError(
            f"{run.path.name} contains no text besides page headers and numbers."
        )
    document = Document(
        doc_id=doc_id,
        file=str(run.path),
        title=title,
        pages=len(run.pages),
        chunks=len(chunks),
        size=len(run.data),
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
    run: _Run,
    doc: pymupdf.Document,
    todo: list[int],
    extractor: PageExtractor,
    on_partial: PartialCallback | None,
) -> list[int]:
    """Replace the lines of pages ``todo`` (0-based) by what OCR reads there; returns the
    pages OCR found words on. One "ocr" progress report per page, cancellable between
    pages; a partial document now and then (see :func:`parse_pdf`)."""
    done: list[int] = []
    t0 = last = time.perf_counter()
    progress = run.on_progress
    if progress is not None:
        progress(Progress(stage="ocr", done=0, total=len(todo), file=str(run.path)))
    workers = workers_for(len(todo))
    with contextlib.ExitStack() as stack:
        if workers > 1:
            reader = stack.enter_context(OcrPool(run.data, workers)).read(todo, run.ocr)
        else:
            reader = (_ocr_here(doc, pno, run.ocr) for pno in todo)
        for i, pno in enumerate(todo):
            run.check()
            lines = extractor.lines(next(reader), pno + 1)
            if lines and has_words(" ".join(ln.text for ln in lines)):
                run.pages[pno] = lines
                done.append(pno)
            else:  # nothing readable: a garbage text layer is not kept either
                run.pages[pno] = []
            if progress is not None:
                progress(Progress(stage="ocr", done=i + 1, total=len(todo), file=str(run.path)))
            now = time.perf_counter()
            if on_partial and done and i + 1 < len(todo) and now - last >= PARTIAL_EVERY:
                last = now
                _emit_partial(run, done, on_partial)
    elapsed = time.perf_counter() - t0
    logger.info(
        "%s: OCR read %d of %d pages in %.1fs (%.2f pages/s, %d workers)",
        run.path.name,
        len(done),
        len(todo),
        elapsed,
        len(todo) / max(elapsed, 1e-6),
        workers,
    )
    return done


def _ocr_here(doc: pymupdf.Document, pno: int, options: OcrOptions) -> list[tuple]:
    with MUPDF_LOCK:
        return ocr_words(doc.load_page(pno), options)


def _emit_partial(run: _Run, done: list[int], on_partial: PartialCallback) -> None:
    try:
        partial = _assemble(run, list(done))
    except NoTextLayerError:
        return
    on_partial(partial)


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
