"""PDF file -> ParsedDocument: checks, extraction, sections, chunks.

Why read the bytes once: the content hash (document id), the "is this a PDF at all"
check and PyMuPDF all work from the same bytes, so a file replaced halfway cannot give a
mismatched id, and there is one place where OS errors become user-facing errors. Files
bigger than ``Limits.in_memory_bytes`` are the exception: they are hashed by streaming
and opened from disk, so a 4 GB file never sits in memory. Only regular files are
opened, and the work per file is bounded (see ``limits``).
Every failure leaves as a specific :class:`~app.core.errors.IngestError`; raw PyMuPDF
exceptions never escape.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from app.core.errors import (
    CorruptPdfError,
    EmptyFileError,
    EncryptedPdfError,
    FileMissingError,
    FootnoteError,
    IngestError,
    NoPagesError,
    NotAPdfError,
    NoTextLayerError,
    OcrUnavailableError,
    PermissionDeniedError,
    TooLargeError,
)
from app.core.models import Document, ParsedDocument
from app.core.progress import CancelToken, Progress, ProgressCallback, Stage
from app.core.timing import StageTimes, ms_since

from ._mupdf import MUPDF_LOCK, pymupdf
from .chunker import ChunkParams, chunk_segments, segments
from .layout import Line, PageExtractor, drop_furniture, ocr_size
from .limits import (
    DEFAULT_LIMITS,
    Limits,
    check_regular,
    doc_char_limit,
    nonblocking_opener,
    regular_file_size,
)
from .ocr import (
    OcrOptions,
    has_words,
    is_glyph_chart,
    is_plot_marks,
    looks_scanned,
    ocr_available,
    ocr_words,
    text_is_garbage,
)
from .ocr_pool import OcrPool, workers_for
from .paths import safe_resolve
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


def _partial_every() -> float:
    """``$FOOTNOTE_PARTIAL_EVERY`` (tests: it reaches the parse worker process) or the default."""
    return float(os.environ.get("FOOTNOTE_PARTIAL_EVERY", PARTIAL_EVERY))


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


def _os_error(path: Path, e: OSError) -> IngestError:
    if isinstance(e, FileNotFoundError):
        return FileMissingError(f"{path.name}: no such file ({path}).")
    if isinstance(e, IsADirectoryError):
        return NotAPdfError(f"{path.name} is a folder, not a PDF file ({path}).")
    if isinstance(e, PermissionError):
        return PermissionDeniedError(f"{path.name}: permission denied ({path}).")
    return PermissionDeniedError(f"{path.name} cannot be read: {e.strerror or e} ({path}).")


def _read(path: Path, limits: Limits) -> tuple[bytes | None, str, int, float]:
    """(bytes or None, document id, size, mtime), read together.

    Files up to ``limits.in_memory_bytes`` are read once (hash, header check and PyMuPDF
    all see the same bytes); bigger ones are hashed by streaming and opened from disk.
    """
    regular_file_size(path)  # only regular files are ever opened
    try:
        with open(path, "rb", opener=nonblocking_opener) as fh:
            st = os.fstat(fh.fileno())
            size = check_regular(path, st, limits)
            if size <= limits.in_memory_bytes:
                data = fh.read()
                return data, _hash(data), len(data), st.st_mtime
            h = hashlib.sha256()
            while block := fh.read(1 << 20):
                h.update(block)
            return None, h.hexdigest()[:16], size, st.st_mtime
    except OSError as e:
        raise _os_error(path, e) from e


def file_sha(path: Path | str) -> str:
    """The document id of a file (first 16 hex of its SHA-256), streamed, without parsing."""
    path = Path(path)
    regular_file_size(path)
    h = hashlib.sha256()
    try:
        with open(path, "rb", opener=nonblocking_opener) as fh:
            check_regular(path, os.fstat(fh.fileno()))
            while block := fh.read(1 << 20):
                h.update(block)
    except OSError as e:
        raise _os_error(path, e) from e
    return h.hexdigest()[:16]


def _head(path: Path, data: bytes | None) -> bytes:
    if data is not None:
        return data[:1024]
    try:
        with open(path, "rb", opener=nonblocking_opener) as fh:
            return fh.read(1024)
    except OSError as e:
        raise _os_error(path, e) from e


def _open(path: Path, data: bytes | None, limits: Limits = DEFAULT_LIMITS) -> pymupdf.Document:
    name = path.name
    head = _head(path, data)
    if not head:
        raise EmptyFileError(f"{name} is empty (0 bytes).")
    if b"%PDF-" not in head:
        kind = next(
            (v for k, v in _MAGIC.items() if head.lstrip()[: len(k)].lower() == k.lower()), None
        )
        what = f"it looks like {kind}" if kind else "it does not start with a PDF header"
        raise NotAPdfError(f"{name} is not a PDF file: {what}.")
    try:
        if data is None:
            doc = pymupdf.open(str(path), filetype="pdf")
        else:
            doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:
        raise CorruptPdfError(f"{name} is damaged and cannot be opened ({e}).") from e
    try:
        _check_document(name, doc, limits)
    except BaseException:
        doc.close()
        raise
    return doc


def _check_document(name: str, doc: pymupdf.Document, limits: Limits) -> None:
    if doc.needs_pass:
        raise EncryptedPdfError(f"{name} is password-protected.")
    try:
        total = doc.page_count
    except Exception as e:  # a page tree MuPDF cannot count
        raise CorruptPdfError(f"{name} is damaged: its page count is invalid ({e}).") from e
    if total < 0:
        raise CorruptPdfError(f"{name} is damaged: its page count is invalid ({total}).")
    if total == 0:
        count = _claimed_count(doc)
        if count is not None:
            raise CorruptPdfError(f"{name} is damaged: its page count is invalid ({count}).")
        if doc.is_repaired:
            raise CorruptPdfError(f"{name} is damaged: no readable pages were found.")
        raise NoPagesError(f"{name} has no pages.")
    if total > limits.max_pages:
        raise TooLargeError(
            f"{name} claims {total:,} pages; the limit is {limits.max_pages:,} pages per file."
        )


def _claimed_count(doc: pymupdf.Document) -> str | None:
    """The page tree's /Count when MuPDF found no pages but the tree has kids (a count
    that is not a positive integer: "1e300", "(x)", 0 with pages): else None."""
    try:
        pages = doc.xref_get_key(doc.pdf_catalog(), "Pages")
        if pages[0] != "xref":
            return None
        xref = int(pages[1].split()[0])
        kind, kids = doc.xref_get_key(xref, "Kids")
        if kind != "array" or "R" not in kids:
            return None
        return doc.xref_get_key(xref, "Count")[1] or "missing"
    except Exception:  # noqa: BLE001 - no better words than "no pages" then
        return None


def parse_pdf(
    path: Path | str,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    params: ChunkParams | None = None,
    ocr: OcrOptions | None = None,
    on_partial: PartialCallback | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> ParsedDocument:
    """Parse one PDF into a document, its sections and its chunks (with character maps).

    Pages without a usable text layer are read by OCR (``ocr``; default on, English),
    reported as stage "ocr" with per-page progress; ``parsed.ocr_pages`` lists them. While
    OCR runs, ``on_partial`` receives the document as read so far (text pages and the pages
    OCR has finished, at most every few seconds) so a caller can make it searchable early.
    Raises a specific ``IngestError`` for bad input (``TooLargeError`` past ``limits``)
    and ``Cancelled`` when ``cancel`` is set.
    """
    path = safe_resolve(Path(path).expanduser())
    t0 = time.perf_counter()
    data, sha, size, mtime = _read(path, limits)
    with MUPDF_LOCK:
        doc = _open(path, data, limits)
    times = StageTimes({"open": ms_since(t0)})
    try:
        run = _Run(
            path, sha, size, on_progress, cancel, params or ChunkParams(), ocr or OcrOptions()
        )
        run.limits, run.data, run.times = limits, data, times
        parsed = _parse(run, doc, on_partial)
        parsed.document.mtime = mtime
        times.add("parse_other", max(0.0, ms_since(t0) - times.total()))
        parsed.timings_ms = times.report(3)
        _log_speed(parsed, t0)
        return parsed
    except FootnoteError:
        raise
    except Exception as e:  # MuPDF failing deep inside a damaged file
        if _out_of_memory(e):
            raise TooLargeError(
                f"{path.name} needs more memory to read than Footnote allows per file."
            ) from e
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
    sha: str  # the document id
    size: int  # bytes
    on_progress: ProgressCallback | None
    cancel: CancelToken | None
    params: ChunkParams
    ocr: OcrOptions
    meta_title: str = ""
    entries: list = field(default_factory=list)
    pages: list[list[Line]] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)
    limits: Limits = DEFAULT_LIMITS
    chars: int = 0  # extracted so far, for the per-document limits
    data: bytes | None = None  # the file's bytes; None for a big file opened from disk
    times: StageTimes = field(default_factory=StageTimes)  # wall ms per stage

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
    clock = time.perf_counter
    layout_s = check_s = detect_s = 0.0
    for pno in range(total):
        run.check()
        try:
            with MUPDF_LOCK:
                t0 = clock()
                page = doc.load_page(pno)
                t1 = clock()
                _check_page_content(doc, page, name, pno + 1, run.limits)
                t2 = clock()
                lines = extractor.extract(page, pno + 1)
                height = page.cropbox.height
                t3 = clock()
                if _needs_ocr(page, lines):
                    scanned.append(pno)
                t4 = clock()
                layout_s += (t1 - t0) + (t3 - t2)
                check_s += t2 - t1
                detect_s += t4 - t3
        except Exception as e:
            if isinstance(e, TooLargeError):
                raise
            if _out_of_memory(e):
                raise TooLargeError(
                    f"{name}: page {pno + 1} needs more memory to read than Footnote "
                    "allows per file."
                ) from e
            logger.warning("%s: page %d unreadable: %s", name, pno + 1, e)
            broken.append(pno + 1)
            lines, height = [], 842.0
        run.chars += _check_page_chars(name, pno + 1, lines, run.chars, run.limits, run.size)
        run.pages.append(lines)
        run.heights.append(height)
        if run.on_progress is not None and ((pno + 1) % every == 0 or pno + 1 == total):
            run.on_progress(Progress(stage=Stage.PARSE, done=pno + 1, total=total, file=str(path)))
    run.check()
    tables_s = extractor.tables_seconds
    run.times.add("layout", (layout_s - tables_s) * 1000)
    run.times.add("tables", tables_s * 1000)
    run.times.add("content_check", check_s * 1000)
    run.times.add("ocr_detect", detect_s * 1000)
    ocr_done: list[int] = []
    if scanned and run.ocr.enabled and not repaired and run.ocr.defer and ocr_available(run.ocr):
        return _deferred(run, scanned)
    if scanned and run.ocr.enabled and not repaired:
        try:
            with run.times.stage("ocr"):
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
        _raise_if_too_deep(name)
        _raise_no_text(name, total, scanned, run.ocr)
    if repaired:
        logger.warning("%s was damaged and has been repaired; some text may be missing", name)
    empty = sum(1 for lines in run.pages if not lines)
    if empty:
        logger.info("%s: %d of %d pages have no text (blank or scanned)", name, empty, total)
    with run.times.stage("chunk"):
        return _assemble(run, ocr_done)


def _deferred(run: _Run, scanned: list[int]) -> ParsedDocument:
    """The document from its text pages alone, its scanned pages left for OCR (``ocr_pending``);
    a garbage text layer on those pages is not kept meanwhile. With no text page at all it has
    no chunks: nothing is searchable before OCR has read some pages."""
    for pno in scanned:
        run.pages[pno] = []
    with run.times.stage("chunk"):
        try:
            parsed = _assemble(run, [])
        except NoTextLayerError:
            document = Document(
                doc_id=run.sha,
                file=str(run.path),
                title=run.meta_title.strip() or run.path.stem,
                pages=len(run.pages),
                chunks=0,
                size=run.size,
                ingested_at=datetime.now(UTC),
                status="partial",
            )
            parsed = ParsedDocument(document=document)
    parsed.ocr_pending = [p + 1 for p in scanned]
    return parsed


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
    doc_id = run.sha
    chunks = chunk_segments(doc_id, segments(lines, starts, run.params), run.params)
    if not chunks:
        raise NoTextLayerError(
            f"{run.path.name} contains no text besides page headers and numbers."
        )
    if len(chunks) > run.limits.max_chunks:
        raise TooLargeError(
            f"{run.path.name} would make {len(chunks):,} passages; the limit is "
            f"{run.limits.max_chunks:,} per file."
        )
    document = Document(
        doc_id=doc_id,
        file=str(run.path),
        title=title,
        pages=len(run.pages),
        chunks=len(chunks),
        size=run.size,
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
    """No words but a picture covering the page (a scan), or a garbage text layer that is
    not a chart of glyphs or of plot marks (OCR cannot read those better)."""
    if not lines:
        return looks_scanned(page)
    text = " ".join(ln.text for ln in lines)
    return text_is_garbage(text) and not is_glyph_chart(text) and not is_plot_marks(text)


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
        progress(Progress(stage=Stage.OCR, done=0, total=len(todo), file=str(run.path)))
    workers = workers_for(len(todo), run.ocr.max_workers)
    with contextlib.ExitStack() as stack:
        if workers > 1 and run.data is not None:  # big files: OCR here, not copied N times
            reader = stack.enter_context(OcrPool(run.data, workers)).read(todo, run.ocr)
        else:
            reader = (_ocr_here(doc, pno, run.ocr) for pno in todo)
        for i, pno in enumerate(todo):
            run.check()
            lines = extractor.lines(next(reader), pno + 1)
            for ln in lines:
                ln.ocr, ln.size = True, ocr_size(ln.words)
            if lines and has_words(" ".join(ln.text for ln in lines)):
                run.pages[pno] = lines
                done.append(pno)
            else:  # nothing readable: a garbage text layer is not kept either
                run.pages[pno] = []
            if progress is not None:
                progress(Progress(stage=Stage.OCR, done=i + 1, total=len(todo), file=str(run.path)))
            now = time.perf_counter()
            if on_partial and done and i + 1 < len(todo) and now - last >= _partial_every():
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


def _check_page_content(
    doc: pymupdf.Document, page: pymupdf.Page, name: str, pno: int, limits: Limits
) -> None:
    """Refuse a page whose drawing commands are too big, or draw too much text, before
    MuPDF runs them: a 715 KB file can hold gigabytes of text-drawing commands, and
    MuPDF needs ~100 bytes of memory per character it extracts. Flate streams are
    inflated in 1 MB steps and never held whole; text is estimated as the bytes inside
    string operands (``(...)`` and ``<...>``), which is what text operators draw."""
    text_cap = 4 * limits.max_page_chars  # up to 4 bytes per glyph in CID fonts
    content = strings = 0
    # Strings are counted only once the page's commands could hold too many: a real page's
    # (tens of KB) never can, and the count was most of this check's cost.
    held: list[bytes] | None = []
    for xref in page.get_contents():
        for block in _content_blocks(doc, xref):
            content += len(block)
            if content > limits.max_page_content_bytes:
                raise TooLargeError(
                    f"{name}: page {pno} holds over {limits.max_page_content_bytes >> 20} MB "
                    "of drawing commands; that is the limit per page."
                )
            if held is not None and content <= text_cap:
                held.append(block)
                continue
            blocks, held = ([*held, block] if held is not None else [block]), None
            strings += sum(len(m) for b in blocks for m in _STRING.findall(b))
            if strings > text_cap:
                raise TooLargeError(
                    f"{name}: page {pno} draws over {text_cap:,} bytes of text; the limit "
                    f"is {limits.max_page_chars:,} characters per page (real pages hold "
                    "~10,000)."
                )


_STRING = re.compile(rb"\((?:[^()\\]|\\.){0,65536}\)|<[0-9A-Fa-f\s]{1,65536}>")
_STEP = 1 << 20


def _content_blocks(doc: pymupdf.Document, xref: int) -> Iterator[bytes]:
    """A content stream, decoded, in blocks of at most 1 MB (Flate streamed)."""
    if doc.xref_get_key(xref, "Filter")[1] not in ("/FlateDecode", "[/FlateDecode]"):
        yield doc.xref_stream(xref) or b""  # other filters: MuPDF decodes (rare in content)
        return
    inflater = zlib.decompressobj()
    data = doc.xref_stream_raw(xref) or b""
    try:
        while True:
            out = inflater.decompress(data, _STEP)
            data = inflater.unconsumed_tail
            if out:
                yield out
            if not out or (not data and len(out) < _STEP):
                return
    except zlib.error:  # damaged: MuPDF reads what it can, as it will for the page
        return


def _check_page_chars(
    name: str, pno: int, lines: list[Line], so_far: int, limits: Limits, file_size: int
) -> int:
    """Characters on a page, after checking the per-page and per-document limits."""
    n = sum(len(w[4]) + 1 for ln in lines for w in ln.words)
    if n > limits.max_page_chars:
        raise TooLargeError(
            f"{name}: page {pno} holds {n:,} characters; the limit is "
            f"{limits.max_page_chars:,} per page (real pages hold ~10,000)."
        )
    if so_far + n > limits.max_doc_chars:
        raise TooLargeError(
            f"{name} holds more than {limits.max_doc_chars:,} characters of text by page "
            f"{pno}; that is the limit per file."
        )
    if so_far + n > doc_char_limit(limits, file_size):
        raise TooLargeError(
            f"{name} unpacks to more than {doc_char_limit(limits, file_size):,} characters "
            f"by page {pno} from {file_size / 1024:,.0f} KB: its pages repeat compressed "
            "text far beyond what a real document holds (a decompression bomb)."
        )
    return n


def _out_of_memory(e: BaseException) -> bool:
    """Python's MemoryError, or MuPDF's allocation failure (raised as a plain error)."""
    text = str(e).lower()
    return (
        isinstance(e, MemoryError)
        or ("alloc (" in text and "failed" in text)  # "code=2: calloc (4104 x 1 bytes) failed"
        or "out of memory" in text
    )


_TOO_DEEP = ("stack overflow", "nesting", "nested too", "recursion", "too deep")


def _raise_if_too_deep(name: str) -> None:
    """MuPDF gives up on deeply nested objects silently (no text); say so, not "scanned"."""
    messages = pymupdf.TOOLS.mupdf_warnings(reset=False).lower()
    if any(word in messages for word in _TOO_DEEP):
        raise CorruptPdfError(
            f"{name} is damaged: its objects are nested too deeply to be read.",
            hint="The PDF is malformed (or made to crash readers). Re-export it from its source.",
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
