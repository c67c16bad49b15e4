"""Ingestion: PDF files -> documents, sections and chunks with character maps.

Public API (see docs/CONTRACTS.md): :func:`parse_pdf`, :func:`file_sha`,
:func:`iter_pdf_paths`.
"""

from __future__ import annotations

from .chunker import ChunkParams
from .paths import iter_pdf_paths
from .pdf import file_sha, parse_pdf

__all__ = ["ChunkParams", "file_sha", "iter_pdf_paths", "parse_pdf"]
