"""PyMuPDF, imported without its optional ONNX layout analyser, and the lock around it.

Why: PyMuPDF 2.0 imports ``pymupdf.layout`` (and ``pymupdf4llm``) when installed, which
loads ONNX models at import time: about 3 s and a few hundred MB before any PDF is
opened. Footnote uses neither, so they are marked unavailable before the first import
(PyMuPDF treats them as optional and falls back cleanly). Import PyMuPDF through this
module (``from app.ingest._mupdf import pymupdf``) so this happens first.

PyMuPDF must not be used from two threads at once (MuPDF's context is shared; doing so
can crash the process). Ingestion runs on a worker thread while the viewer may render
pages, so every PyMuPDF call is made holding ``MUPDF_LOCK``. Ingestion takes it per page,
so a viewer holding it too waits milliseconds, not for a whole file.
"""

from __future__ import annotations

import sys
import threading

if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    sys.modules.setdefault("pymupdf4llm", None)  # type: ignore[arg-type]

import pymupdf

MUPDF_LOCK = threading.RLock()

__all__ = ["MUPDF_LOCK", "pymupdf"]
