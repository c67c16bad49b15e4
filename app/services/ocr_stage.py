"""Scanned pages read by OCR beside the rest of an ingest, not in its way.

Why: OCR costs one to three seconds a page. Read in line, a scan held up every file after it,
and the embedding of every page that has text waited for it too. So the first phase of an
ingest reads a file's text layer only (``OcrOptions.defer``), stores the pages that have text at
once (status "partial": keyword-searchable) and hands the file here. A thread parses it again,
with OCR, in a parse worker of its own (the text layer again costs milliseconds a page; OCR runs
on that worker's OCR processes), while the first phase goes on with the next files and the
embedding phase embeds what has text.

Everything the thread finds comes back as events on queues: progress, partial versions (as
OCR reads on, see ``parse_pdf``'s ``on_partial``), the final document, or the file's failure.
The ingest's own thread applies them between documents (``Library``), so every write to the
store stays on one thread and a document is never replaced while its passages are being
embedded. A cancel reaches the parse through the shared token (its worker is killed); the
partial document stays, and the next ingest reads the file again.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import Cancelled, FootnoteError, IngestError
from app.core.progress import CancelToken

logger = logging.getLogger(__name__)

Parse = Callable[..., Any]


@dataclass
class OcrJob:
    """One file whose scanned pages are still to be read."""

    index: int  # position of the file in the run (its result, its progress rows)
    count: int  # files in the run
    path: Path  # the file the user added
    source: Path  # what is parsed: the file, or the PDF it was converted to
    sha: str  # the document id
    stored: bool = False  # a partial version of it is in the library
    replaced: bool = False  # storing it replaced an older document at the same path
    timings_ms: dict[str, float] = field(default_factory=dict)


Event = tuple[str, OcrJob, Any]
"""("progress", job, Progress), ("partial", job, ParsedDocument), ("done", job,
ParsedDocument), ("failed", job, FootnoteError) or ("cancelled", job, None)."""


class OcrStage:
    """A thread reading the scanned pages of the files submitted to it, one file at a time."""

    def __init__(
        self,
        make_parser: Callable[[], tuple[Parse, Callable[[], None]]],
        options: Any,
        cancel: CancelToken | None,
    ) -> None:
        """``make_parser()`` gives (parse, close): a parse worker's ``parse`` and ``close`` (or
        ``parse_pdf`` and a no-op), made on the thread when the first file comes.
        ``options`` are the run's ``ParseOptions`` (read without ``defer``)."""
        self._make_parser = make_parser
        self._options = options
        self._cancel = cancel
        self._jobs: queue.Queue[OcrJob | None] = queue.Queue()
        self._progress: queue.Queue[Event] = queue.Queue()
        self._results: queue.Queue[Event] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.open = 0  # jobs submitted whose result was not yet taken
        self.reading: set[str] = set()  # ids of the documents being read
        self.cancelled: set[int] = set()  # files (their run index) a cancel cut short

    # --- the ingest's thread ------------------------------------------------------------------

    def submit(self, job: OcrJob) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ocr-stage", daemon=True)
            self._thread.start()
        self.open += 1
        self.reading.add(job.sha)
        self._jobs.put(job)

    @property
    def active(self) -> bool:
        """Files are still being read (or their results not yet taken)."""
        return self.open > 0

    def progress_events(self) -> list[Event]:
        """Progress reported since the last call (never blocks)."""
        out: list[Event] = []
        while True:
            try:
                out.append(self._progress.get_nowait())
            except queue.Empty:
                return out

    def has_results(self) -> bool:
        return not self._results.empty()

    def next_result(self, timeout: float | None = None) -> Event | None:
        """The next partial version, final document or failure; None if none came in
        ``timeout`` seconds (0: never waits)."""
        try:
            if timeout == 0:
                event = self._results.get_nowait()
            else:
                event = self._results.get(timeout=timeout)
        except queue.Empty:
            return None
        if event[0] in ("done", "failed", "cancelled"):
            self.open -= 1
            self.reading.discard(event[1].sha)
        return event

    def close(self) -> None:
        """No more files will come; the thread ends after the last one."""
        if self._thread is not None:
            self._jobs.put(None)

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # --- the thread -------------------------------------------------------------------------------

    def _run(self) -> None:
        parse, close = self._make_parser()
        try:
            while (job := self._jobs.get()) is not None:
                self._read(job, parse)
        finally:
            close()

    def _read(self, job: OcrJob, parse: Parse) -> None:
        if self._cancel is not None and self._cancel.cancelled:
            self._results.put(("cancelled", job, None))
            return
        try:
            parsed = parse(
                job.source,
                on_progress=lambda p: self._progress.put(("progress", job, p)),
                cancel=self._cancel,
                params=self._options.params,
                ocr=self._options.ocr,
                on_partial=lambda d: self._results.put(("partial", job, d)),
            )
        except Cancelled:
            self._results.put(("cancelled", job, None))
        except FootnoteError as exc:
            self._results.put(("failed", job, exc))
        except Exception as exc:  # the file fails alone, as in the first phase (logged)
            logger.exception("unexpected error reading the scanned pages of %s", job.path)
            error = IngestError(f"Unexpected error while adding {job.path.name}: {exc}")
            error.code = "internal_error"
            self._results.put(("failed", job, error))
        else:
            self._results.put(("done", job, parsed))
