"""Ingestion: PDF files -> documents, sections and chunks with character maps.

Public API (see docs/CONTRACTS.md):

- :func:`parse_pdf` ``(path, *, on_progress=None, cancel=None) -> ParsedDocument``;
  raises a specific ``IngestError`` subclass (never a raw PyMuPDF error) or ``Cancelled``.
- :func:`file_sha` ``(path) -> str``: the document id (16 hex of SHA-256), streamed.
- :func:`iter_pdf_paths` ``(paths) -> list[Path]``: folders expanded to the files Footnote
  reads (PDFs and :data:`SUPPORTED_SUFFIXES`).
- :func:`convert_to_pdf` ``(path, out_dir) -> Path``: EPUB, XPS, FB2, MOBI, CBZ, text and
  Markdown through MuPDF, Office documents through LibreOffice, written as one PDF that
  ingestion and the viewer both read (see ``convert``).
- :class:`ParseOptions`: chunk sizes and OCR, built from Settings in one place and passed
  whole by every ingest path (in-process, parse worker, Ray actor).

What a chunk holds: ``text`` is clean (ligatures expanded, line-end hyphens joined, soft
hyphens and running headers/footers/page numbers removed; lines of a paragraph joined by
spaces, blocks by newlines); ``section`` is the outline path in force at its first
character ("2 Graphics > 2.3 Drawing"); ``charmap.rects(s, e)`` gives the boxes of any
character span, one per physical line, in PyMuPDF page coordinates (top-left origin,
unrotated page space, like ``page.search_for``; apply ``page.rotation_matrix`` to draw on a
rotated page). Anyone else using PyMuPDF in-process should import it from
:mod:`app.ingest._mupdf` and hold ``MUPDF_LOCK`` while calling it.

``python -m app.ingest FILE_OR_FOLDER ...`` prints parse speed (pages/s) per file.
"""

from __future__ import annotations

from ._mupdf import MUPDF_LOCK
from .chunker import ChunkParams
from .convert import (
    SUPPORTED_SUFFIXES,
    convert_to_pdf,
    is_supported_name,
    needs_conversion,
)
from .limits import DEFAULT_LIMITS, Limits
from .options import ParseOptions
from .paths import iter_pdf_paths, safe_resolve
from .pdf import file_sha, parse_pdf

__all__ = [
    "DEFAULT_LIMITS",
    "SUPPORTED_SUFFIXES",
    "MUPDF_LOCK",
    "ChunkParams",
    "Limits",
    "ParseOptions",
    "convert_to_pdf",
    "file_sha",
    "is_supported_name",
    "iter_pdf_paths",
    "needs_conversion",
    "parse_pdf",
    "safe_resolve",
]
