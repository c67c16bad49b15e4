"""Progress reports and cooperative cancellation, shared by every long-running service.

Services are synchronous and Qt-free; they call ``on_progress`` now and then and
check ``cancel`` between units of work. The UI wraps them in worker threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from app.core.errors import Cancelled


@dataclass(frozen=True)
class Progress:
    """One progress report. ``done``/``total`` count units of ``stage`` (pages, chunks, files)."""

    stage: str  # "parse" | "index" | "embed" | "file" | "load_model" | ...
    done: int
    total: int
    file: str | None = None
    message: str = ""

    @property
    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else min(1.0, self.done / self.total)


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
