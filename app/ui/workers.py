"""Run synchronous, Qt-free service calls on worker threads and report back on the GUI thread.

Why: the services (ingestion, embedding, model loading, generation) block for seconds to
minutes. A ``Job`` wraps one call in a ``QRunnable``; its ``JobSignals`` object lives on the
GUI thread, so every signal emitted from the worker arrives there as a queued call.
Tokens are not emitted one by one: they collect in a locked buffer that the GUI drains on a
timer, so a fast model cannot flood the event loop with thousands of tiny updates.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

from app.core.errors import Cancelled
from app.core.progress import CancelToken, Progress

logger = logging.getLogger(__name__)


class JobSignals(QObject):
    """Signals of one job. Created on the GUI thread, emitted from the worker (queued)."""

    progress = Signal(object)  # Progress
    finished = Signal(object)  # the function's return value
    failed = Signal(object)  # the exception
    cancelled = Signal()
    done = Signal()  # always last, whatever the outcome


class JobRelay(JobSignals):
    """Re-emits a job's signals on the GUI thread.

    The worker emits on a private ``JobSignals``; its connections to these slots are queued
    (the relay lives on the GUI thread), so the public signals below fire on the GUI thread
    and may safely be connected to plain Python callables and lambdas.
    """

    def __init__(self, source: JobSignals) -> None:
        super().__init__()
        source.progress.connect(self._progress, Qt.ConnectionType.QueuedConnection)
        source.finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)
        source.failed.connect(self._failed, Qt.ConnectionType.QueuedConnection)
        source.cancelled.connect(self._cancelled, Qt.ConnectionType.QueuedConnection)
        source.done.connect(self._done, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _progress(self, p: object) -> None:
        self.progress.emit(p)

    @Slot(object)
    def _finished(self, r: object) -> None:
        self.finished.emit(r)

    @Slot(object)
    def _failed(self, e: object) -> None:
        self.failed.emit(e)

    @Slot()
    def _cancelled(self) -> None:
        self.cancelled.emit()

    @Slot()
    def _done(self) -> None:
        self.done.emit()


class Job(QRunnable):
    """One unit of background work: ``fn(job)`` runs on a pool thread.

    ``fn`` receives the job and uses ``job.cancel``, ``job.report`` (progress) and
    ``job.push_token`` (streamed text) as the service callbacks.
    """

    def __init__(self, fn: Callable[[Job], Any], *, name: str = "job") -> None:
        super().__init__()
        self.setAutoDelete(False)  # the owner keeps the Python object alive until ``done``
        self.fn = fn
        self.name = name
        self._out = JobSignals()  # emitted on the worker thread
        self.signals = JobRelay(self._out)  # re-emitted on the GUI thread
        self.cancel = CancelToken()
        self._lock = threading.Lock()
        self._tokens: list[str] = []
        self.running = False
        self.finished_ok = False

    # --- callbacks handed to services (called on the worker thread) -------------------
    def report(self, progress: Progress) -> None:
        self._out.progress.emit(progress)

    def push_token(self, token: str) -> None:
        with self._lock:
            self._tokens.append(token)

    # --- GUI side ---------------------------------------------------------------------
    def take_tokens(self) -> str:
        """Everything streamed since the last call (GUI thread, on a timer)."""
        with self._lock:
            text = "".join(self._tokens)
            self._tokens.clear()
        return text

    def run(self) -> None:  # worker thread
        self.running = True
        _lower_thread_priority()
        try:
            result = self.fn(self)
        except Cancelled:
            logger.info("%s cancelled", self.name)
            self._out.cancelled.emit()
        except BaseException as exc:  # reported to the GUI, never crashes it
            if self.cancel.cancelled:
                logger.info("%s stopped after cancel: %r", self.name, exc)
                self._out.cancelled.emit()
            else:
                logger.exception("%s failed", self.name)
                self._out.failed.emit(exc)
        else:
            self.finished_ok = True
            self._out.finished.emit(result)
        finally:
            self.running = False
            self._out.done.emit()


def _lower_thread_priority() -> None:
    """Nice this worker thread (and the threads it spawns: torch, llama.cpp) by 10 on Linux.

    Under CPU contention the GUI thread then wins the CPU, so heavy work cannot starve the
    event loop; without contention the work runs at full speed. No-op elsewhere.
    """
    if not sys.platform.startswith("linux") or getattr(_tls, "niced", False):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
        _tls.niced = True
    except (OSError, AttributeError):
        logger.debug("could not lower the worker thread priority", exc_info=True)


_tls = threading.local()


def _spent(job: Job) -> None:
    raise RuntimeError(f"{job.name} has already run")


class JobRunner(QObject):
    """Named single-thread pools: one for model work, one for ingestion, one for quick queries.

    A single thread per pool serialises access to each heavy resource (the llama.cpp model
    is not re-entrant) while keeping the kinds of work independent of each other.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, QThreadPool] = {}
        self._live: set[Job] = set()

    def pool(self, name: str) -> QThreadPool:
        if name not in self._pools:
            pool = QThreadPool(self)
            pool.setMaxThreadCount(1)
            pool.setObjectName(f"pool-{name}")
            self._pools[name] = pool
        return self._pools[name]

    def start(self, pool: str, job: Job) -> Job:
        self._live.add(job)
        # A weak reference: through a lambda holding it, the job would refer to itself.
        job.signals.done.connect(partial(self._job_ended, weakref.ref(job)))
        self.pool(pool).start(job)
        return job

    def _job_ended(self, ref: weakref.ref[Job]) -> None:
        """A job's ``done`` arrived (GUI thread): it leaves the live jobs and lets go of its
        function. The pool keeps the ``QRunnable`` itself (PySide holds every runnable a
        pool started while the pool lives), so what the function held (a library, a
        conversation) is let go here, on the GUI thread, not kept until the window goes."""
        job = ref()
        if job is None:
            return
        self._live.discard(job)
        job.fn = _spent

    def submit(
        self,
        pool: str,
        fn: Callable[[Job], Any],
        *,
        name: str = "job",
        on_finished: Callable[[Any], None] | None = None,
        on_failed: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
        on_done: Callable[[], None] | None = None,
    ) -> Job:
        job = Job(fn, name=name)
        if on_finished:
            job.signals.finished.connect(on_finished)
        if on_failed:
            job.signals.failed.connect(on_failed)
        if on_progress:
            job.signals.progress.connect(on_progress)
        if on_cancelled:
            job.signals.cancelled.connect(on_cancelled)
        if on_done:
            job.signals.done.connect(on_done)
        return self.start(pool, job)

    def busy(self) -> bool:
        return bool(self._live)

    def cancel_all(self) -> None:
        for job in list(self._live):
            job.cancel.cancel()

    def wait(self, msecs: int = 30000) -> bool:
        """Cancel nothing, just wait for every pool to drain (used when closing)."""
        ok = True
        for pool in self._pools.values():
            ok = pool.waitForDone(msecs) and ok
        return ok
