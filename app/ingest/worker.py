"""Parse PDFs in a child process, so one hostile file cannot take the machine or the batch down.

Why a process: MuPDF's memory use is set by what a file *asks for*, not by its size (a
715 KB file of compressed text-drawing commands asked for 12 GB), a damaged file can make
native code spin or crash, and a blocking native call cannot be interrupted by Ctrl-C.
In a child with a memory ceiling (``RLIMIT_DATA`` on Linux) and a per-page watchdog, such a
file fails alone with a ``too_large`` / ``corrupt_pdf`` message, the parent stays small,
and cancelling kills the child at once. The child lives for a whole batch (starting it
costs ~0.5 s) and is restarted after a failure that killed it.

Protocol over the child's stdin/stdout: length-prefixed pickles. The child says
``("ready",)`` once its imports are done (the start-up the parent reports as
``worker_start``). Parent -> child: ``(path, params, ocr, partials?, limits)``; child ->
parent: ``("progress", stage, done, total)`` and ``("partial", ParsedDocument)`` (OCR, see
``parse_pdf``) ... then ``("ok", ParsedDocument)`` or ``("error", code, message, hint)``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from app.core import errors
from app.core.errors import Cancelled, CorruptPdfError, IngestError, TooLargeError
from app.core.models import ParsedDocument
from app.core.progress import CancelToken, Progress, ProgressCallback
from app.core.timing import StageTimes

from .chunker import ChunkParams
from .limits import DEFAULT_LIMITS, Limits
from .ocr import OcrOptions

logger = logging.getLogger(__name__)

_HEADER = struct.Struct("<Q")


def _send(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _recv(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)  # our own child's output


# A frozen bundle has no ``python -m``: its own executable starts the child when given this
# first argument (``app.launch.run`` routes it to :func:`child_main`).
WORKER_ARG = "--footnote-parse-worker"


def worker_command(max_bytes: int) -> list[str]:
    """The child's command line: ``python -m app.ingest.worker`` from source, the bundle's
    executable with :data:`WORKER_ARG` when frozen, so the bundle parses in the same
    memory-capped child as the tests do."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_ARG, str(max_bytes)]
    return [sys.executable, "-m", "app.ingest.worker", str(max_bytes)]


def child_main(args: list[str]) -> int:
    """Entry of the child process: ``args`` is what follows the module or :data:`WORKER_ARG`."""
    return _child(int(args[0]))


class ParseWorker:
    """One child process that parses PDFs one at a time; use as a context manager."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._proc: subprocess.Popen[bytes] | None = None
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._in_process = False  # set when the child cannot be started at all
        self._started_at: float | None = None  # when the running child was started
        self.times = StageTimes()  # worker_start and transfer, over every file parsed

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # the child exits at end of input
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        proc = subprocess.Popen(
            worker_command(self.limits.worker_memory_bytes),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._inbox = queue.Queue()
        threading.Thread(
            target=self._pump, args=(proc, self._inbox), name="parse-worker-reader", daemon=True
        ).start()
        self._proc = proc
        self._started_at = time.perf_counter()
        logger.info("parse worker %d started", proc.pid)
        return proc

    def start(self) -> None:
        """Start the child now (its imports then overlap the caller's own work); ``parse``
        starts it otherwise. Never raises: a child that cannot start is reported by ``parse``."""
        if self._in_process:
            return
        try:
            self._start()
        except OSError as exc:
            logger.warning("cannot start the parse worker (%s); parsing in-process", exc)
            self._in_process = True

    @staticmethod
    def _pump(proc: subprocess.Popen[bytes], inbox: queue.Queue[Any]) -> None:
        assert proc.stdout is not None
        try:
            while True:
                msg = _recv(proc.stdout)
                if msg[0] == "ready":  # when it came, not when the parent got round to it
                    msg = ("ready", time.perf_counter())
                inbox.put(msg)
        except (EOFError, OSError, pickle.UnpicklingError):
            inbox.put(("eof",))

    def parse(
        self,
        path: Path,
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        params: ChunkParams | None = None,
        ocr: OcrOptions | None = None,
        on_partial: Callable[[ParsedDocument], None] | None = None,
    ) -> ParsedDocument:
        """Like ``parse_pdf``, in the child. Raises IngestError subclasses or Cancelled.

        If no child can be started (no permission to run the interpreter, no resources),
        parses in this process: the per-file limits still apply, the memory ceiling not.
        """
        if not self._in_process:
            try:
                proc = self._start()
            except OSError as exc:
                logger.warning("cannot start the parse worker (%s); parsing in-process", exc)
                self._in_process = True
        if self._in_process:
            from .pdf import parse_pdf

            return parse_pdf(
                path,
                on_progress=on_progress,
                cancel=cancel,
                params=params,
                ocr=ocr,
                on_partial=on_partial,
                limits=self.limits,
            )
        job = (str(path), params or ChunkParams(), ocr, on_partial is not None, self.limits)
        assert proc.stdin is not None
        try:
            _send(proc.stdin, job)
        except OSError:  # died between files: start again once
            self._kill()
            proc = self._start()
            assert proc.stdin is not None
            _send(proc.stdin, job)
        last = time.monotonic()
        sent = time.perf_counter()
        while True:
            if cancel is not None and cancel.cancelled:
                self._kill()
                raise Cancelled()
            try:
                msg = self._inbox.get(timeout=0.1)
            except queue.Empty:
                if time.monotonic() - last > self.limits.page_timeout_s:
                    self._kill()
                    raise TooLargeError(
                        f"{path.name}: reading one page took over "
                        f"{self.limits.page_timeout_s:.0f} s; gave up on the file."
                    ) from None
                continue
            last = time.monotonic()
            kind = msg[0]
            if kind == "ready":
                if self._started_at is not None:
                    self.times.add("worker_start", (msg[1] - self._started_at) * 1000)
                    self._started_at = None
                sent = max(sent, msg[1])  # waiting for the start is not the file's transfer
            elif kind == "progress":
                if on_progress is not None:
                    on_progress(Progress(msg[1], msg[2], msg[3], file=str(path)))
            elif kind == "partial":
                if on_partial is not None:
                    on_partial(msg[1])
            elif kind == "ok":
                parsed: ParsedDocument = msg[1]
                waited = (time.perf_counter() - sent) * 1000
                transfer = max(0.0, waited - sum(parsed.timings_ms.values()))
                parsed.timings_ms["transfer"] = round(transfer, 3)
                self.times.add("transfer", transfer)
                return parsed
            elif kind == "error":
                raise _error(*msg[1:])
            else:  # "eof": the child died
                raise self._died(path)

    def _died(self, path: Path) -> IngestError:
        proc, self._proc = self._proc, None
        code = proc.wait() if proc is not None else None
        logger.warning("parse worker died on %s (exit code %s)", path, code)
        if code == -9:  # SIGKILL: on Linux usually the kernel's out-of-memory killer
            return TooLargeError(f"{path.name} needs more memory to read than is available.")
        return CorruptPdfError(
            f"{path.name} is damaged: it crashed the PDF reader (exit code {code})."
        )


def _error(code: str, message: str, hint: str) -> IngestError:
    """Rebuild the child's IngestError (same class, message and hint)."""
    for name in dir(errors):
        cls = getattr(errors, name)
        if isinstance(cls, type) and issubclass(cls, IngestError) and cls.code == code:
            return cls(message, hint=hint)
    return CorruptPdfError(message, hint=hint)


# --- the child -------------------------------------------------------------------------------


def _limit_memory(max_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # Windows: no rlimits; the in-process limits still apply
        return
    for which in ("RLIMIT_DATA", "RLIMIT_AS"):
        limit = getattr(resource, which, None)
        if limit is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(limit, (max_bytes, max_bytes))
            return


def _child(max_bytes: int) -> int:
    from app.core.logs import setup_logging

    setup_logging(console=False)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames may reach the pipe
    from .pdf import parse_pdf

    _limit_memory(max_bytes)
    _send(stdout, ("ready",))
    while True:
        try:
            path, params, ocr, partials, limits = _recv(stdin)
        except EOFError:
            return 0

        def progress(p: Progress) -> None:
            _send(stdout, ("progress", p.stage, p.done, p.total))

        def partial(doc: ParsedDocument) -> None:
            _send(stdout, ("partial", doc))

        try:
            parsed = parse_pdf(
                path,
                on_progress=progress,
                params=params,
                ocr=ocr,
                on_partial=partial if partials else None,
                limits=limits,
            )
            reply: tuple[Any, ...] = ("ok", parsed)
        except IngestError as exc:
            reply = ("error", exc.code, exc.message, exc.hint)
        except MemoryError:
            reply = (
                "error",
                TooLargeError.code,
                _too_much_memory(path),
                TooLargeError.default_hint,
            )
        except Exception as exc:  # reported as this file's failure (logged)
            logger.exception("parsing %s failed", path)
            reply = ("error", "internal_error", f"Unexpected error reading {path}: {exc}", "")
        try:
            _send(stdout, reply)
        except MemoryError:
            _send(stdout, ("error", TooLargeError.code, _too_much_memory(path), ""))


def _too_much_memory(path: str) -> str:
    return f"{Path(path).name} needs more memory to read than Footnote allows per file."


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
