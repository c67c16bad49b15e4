"""OCR of many pages on several cores: worker processes, each with its own copy of the PDF.

Why processes: MuPDF (and the Tesseract inside it) must not run on two threads at once in
one process, and one page keeps a core busy for one to three seconds. Workers are
spawned (never forked: the GUI's threads must not be copied), receive the file's bytes
once, and return plain word tuples; results come back in page order so the caller
reports progress and builds partial documents exactly as when reading in-process.
Frozen bundles read in-process (no ``multiprocessing`` bootstrap needed there).
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from .ocr import OcrOptions, ocr_words

logger = logging.getLogger(__name__)

_MIN_PAGES = 3  # starting workers costs about a second; not worth it for one or two pages
_DOC = None  # the worker's open document


def workers_for(pages: int, cap: int | None = None) -> int:
    """How many worker processes to read ``pages`` pages with (1 = in-process), at most
    ``cap`` (``OcrOptions.max_workers``)."""
    env = os.environ.get("FOOTNOTE_OCR_WORKERS")
    want = int(env) if env and env.isdigit() else min(os.cpu_count() or 1, 4)
    if cap is not None:
        want = min(want, cap)
    if getattr(sys, "frozen", False) or pages < _MIN_PAGES:
        return 1
    if mp.current_process().daemon:  # e.g. the desktop app's import process: no children
        return 1
    return max(1, min(want, pages))


def _init(data: bytes) -> None:  # in the worker
    global _DOC
    from ._mupdf import pymupdf

    threading.Thread(
        target=_exit_with_parent, args=(os.getppid(),), name="ocr-parent-watch", daemon=True
    ).start()
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    _DOC = pymupdf.open(stream=data, filetype="pdf")


def _exit_with_parent(parent: int, every_s: float = 1.0) -> None:  # in the worker
    """Leave as soon as the process that started the pool is gone. A pool's worker holds both
    ends of its task queue, so it never sees end-of-input: when its parent was killed (the
    parse worker's watchdog, kill -9, the out-of-memory killer) it would wait forever, holding
    the parent's inherited output pipes open."""
    while True:
        time.sleep(every_s)
        if os.getppid() != parent:
            os._exit(0)


def _read(pno: int, options: OcrOptions) -> list[tuple]:  # in the worker
    assert _DOC is not None
    return ocr_words(_DOC.load_page(pno), options)


class OcrPool:
    """Worker processes reading pages of one PDF; use as a context manager."""

    def __init__(self, data: bytes, workers: int) -> None:
        self._ex = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=mp.get_context("spawn"),
            initializer=_init,
            initargs=(data,),
        )
        logger.info("OCR on %d worker processes", workers)

    def read(self, pages: list[int], options: OcrOptions) -> Iterator[list[tuple]]:
        """Words of each page of ``pages`` (0-based), in that order."""
        futures: list[Future[list[tuple]]] = [self._ex.submit(_read, p, options) for p in pages]
        for f in futures:
            yield f.result()

    def __enter__(self) -> OcrPool:
        return self

    def __exit__(self, *exc: object) -> None:
        # Pages not started are dropped; a page being read finishes in the background.
        self._ex.shutdown(wait=False, cancel_futures=True)
