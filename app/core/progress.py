"""Progress reports and cooperative cancellation, shared by every long-running service.

Services are synchronous and Qt-free; they call ``on_progress`` now and then and
check ``cancel`` between units of work. The UI wraps them in worker threads.

Two kinds of report: ``Progress`` for a whole run (files started so far, chunks embedded
of all pending), and ``FileProgress`` for one file of a batch, which also says which file
it is (``index`` of ``count``) so a view can show honest per-file counts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from app.core.errors import Cancelled


class Stage(StrEnum):
    """What a long-running service is doing. Members equal their string values."""

    FILE = "file"  # ingest: file ``done`` of ``total`` is starting (done == total: all done)
    CONVERT = "convert"  # ingest: a document that is not a PDF is being turned into one
    PARSE = "parse"  # ingest: pages of one file read
    OCR = "ocr"  # ingest: scanned pages of one file read by OCR
    INDEX = "index"  # ingest: one file's chunks written with their keyword index
    DONE = "done"  # ingest: one file's first phase is over (a FileDone says how it went)
    INDEXED = "indexed"  # ingest: first phase over, every file keyword-searchable
    EMBED = "embed"  # ingest: chunks embedded (of one file, or of everything pending)
    RETRIEVE = "retrieve"  # ask: searching the library
    LOAD_MODEL = "load_model"  # ask: loading the chat model
    GENERATE = "generate"  # ask: the model writes the answer
    SUMMARIZE = "summarize"  # summary: sections of a document read (done of total)


@dataclass(frozen=True)
class Progress:
    """One progress report. ``done``/``total`` count units of ``stage`` (pages, chunks, files)."""

    stage: Stage
    done: int
    total: int
    file: str | None = None
    message: str = ""

    def __post_init__(self) -> None:
        # Accept the plain value ("embed") too; an unknown stage is a bug, caught here.
        object.__setattr__(self, "stage", Stage(self.stage))

    @property
    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else min(1.0, self.done / self.total)


@dataclass(frozen=True, kw_only=True)
class FileProgress(Progress):
    """Progress of one file of a batch: the ``index``-th (from 0) of ``count`` files.

    ``done``/``total`` count this file's units only (its pages for ``parse``, its chunks
    for ``embed``), never the batch's.
    """

    file: str
    index: int
    count: int


@dataclass(frozen=True, kw_only=True)
class FileDone(FileProgress):
    """File ``index`` of ``count`` is through the first phase: added, updated, unchanged or
    failed (with the user-facing ``error``), so a window can say so at once, not at the end."""

    status: str
    error: str | None = None


ProgressCallback = Callable[[Progress], None]
TokenCallback = Callable[[str], None]


def no_progress(_: Progress) -> None:
    """Default progress callback: ignore."""


class CancelToken:
    """A thread-safe flag a caller sets and a worker polls (``raise_if_cancelled``).

    A token made with parents (``CancelToken(outer)`` or :meth:`any_of`) is also
    cancelled when any parent is, but cancelling it leaves the parents alone: the ask
    service stops a looping generation with its own token without cancelling the
    caller's question.
    """

    def __init__(self, *parents: CancelToken) -> None:
        self._event = threading.Event()
        self._parents = parents

    @classmethod
    def any_of(cls, *tokens: CancelToken | None) -> CancelToken:
        """A new token, cancelled when it is cancelled itself or any of ``tokens`` is."""
        return cls(*(t for t in tokens if t is not None))

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set() or any(p.cancelled for p in self._parents)

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise Cancelled()


DRAFT_NOTE = "Writing the answer (a draft until every quote is checked)…"
"""What the desktop and the CLI say while the model's words stream: the checked answer, which
may replace them, and its status come after."""
