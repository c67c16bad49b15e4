"""PyMuPDF, imported without its optional ONNX layout analyser and pymupdf4llm.

Why: PyMuPDF 2.0 imports ``pymupdf.layout`` (and ``pymupdf4llm``) when installed, which
loads ONNX models at import time: about 3 s and a few hundred MB before any PDF is
opened. Footnote uses neither, so they are marked unavailable before the first import
(PyMuPDF treats them as optional and falls back cleanly). Import PyMuPDF through this
module (``from app.ingest._mupdf import pymupdf``) so this happens first.
"""

from __future__ import annotations

import sys

if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    sys.modules.setdefault("pymupdf4llm", None)  # type: ignore[arg-type]

import pymupdf  # noqa: E402

__all__ = ["pymupdf"]
