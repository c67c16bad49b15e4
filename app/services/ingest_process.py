"""Run ``Library.ingest`` (parse, keyword index, embed) in a child process.

Why: PDF parsing is long runs of native PyMuPDF calls that hold Python's GIL; on a thread
they would stall a GUI thread for 100+ ms at a time on a busy machine. A child process has
its own GIL, so the window stays fluid whatever the PDF. Embedding goes there too: reading
hundreds of chunks back from the store is long Arrow-to-Python conversions under the GIL.
The store is built for this: one writer at a time across processes (file lock) and readers
that always see the latest version.

The child runs exactly the use case the CLI runs in-process; this module only carries its
events across. The frozen bundle uses it too: its launcher calls
``multiprocessing.freeze_support()`` first, so a spawned child re-enters the executable as a
worker (``packaging/package_test.py`` checks an import through it).

Protocol on the queue: ("progress", Progress) ... then ("done", IngestOutcome dump) or
("error", FootnoteError). Cancellation: an Event the child polls through a CancelToken.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import queue
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.errors import Cancelled, FootnoteError, ImportProcessError
from app.core.exiting import leave
from app.core.models import IngestOutcome
from app.core.progress import CancelToken, Progress, ProgressCallback, no_progress

logger = logging.getLogger(__name__)

POLL_S = 0.1  # how often the parent checks for cancel and a dead child
JOIN_S = 10.0  # how long the parent waits for the child to exit before terminating it


def ingest_in_child(
    settings: Settings,
    paths: Sequence[Path | str],
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    embed: bool = True,
) -> IngestOutcome:
    """``Library(settings).ingest(paths, ...)`` in a child process; blocks until it ends.

    Progress events arrive through ``on_progress`` on the calling thread. ``cancel`` is
    forwarded to the child, which stops after its current step (the outcome then says
    ``cancelled``). A failure of the library itself raises the child's FootnoteError; a
    child that dies without a word raises ImportProcessError.
    """
    progress = on_progress or no_progress
    token = cancel or CancelToken()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    stop = ctx.Event()
    proc = ctx.Process(
        target=_child,
        args=(settings.model_dump_json(), [str(p) for p in paths], embed, q, stop),
        name="footnote-import",
        daemon=True,
    )
    proc.start()
    logger.info("import process %s started for %d path(s)", proc.pid, len(paths))
    try:
        while True:
            if token.cancelled and not stop.is_set():
                stop.set()
            kind, payload = _next_message(q, proc)
            if kind == "progress":
                progress(payload)
            elif kind == "done":
                outcome = IngestOutcome.model_validate(payload)
                logger.info("import process %s finished", proc.pid)
                return outcome
            else:
                if token.cancelled:
                    raise Cancelled()
                raise payload
    finally:
        proc.join(timeout=JOIN_S)
        if proc.is_alive():
            logger.warning("import process %s did not exit; terminating", proc.pid)
            proc.terminate()
            proc.join(timeout=5)
        q.close()


def _next_message(q: Any, proc: Any) -> tuple[str, Any]:
    while True:
        try:
            return q.get(timeout=POLL_S)
        except queue.Empty:
            if proc.is_alive():
                continue
        try:  # the last message may have landed just before exit
            return q.get(timeout=0.5)
        except queue.Empty:
            raise ImportProcessError(
                f"The import process stopped unexpectedly (exit code {proc.exitcode})."
            ) from None


def _child(settings_json: str, paths: list[str], embed: bool, q: Any, stop: Any) -> None:
    """The child process: run the use case, send its events and outcome to the parent."""
    from app.core.logs import setup_logging

    setup_logging(console=False)
    logger.info("import process %s running (%d path(s))", os.getpid(), len(paths))
    token = CancelToken()

    def watch() -> None:
        stop.wait()
        token.cancel()

    threading.Thread(target=watch, daemon=True).start()
    try:
        from app.services.library import Library

        lib = Library(Settings.model_validate_json(settings_json))

        def report(p: Progress) -> None:
            q.put(("progress", p))

        outcome = lib.ingest(paths, on_progress=report, cancel=token, embed=embed)
        q.put(("done", outcome.model_dump(mode="json")))
    except FootnoteError as exc:
        q.put(("error", exc))
    except BaseException as exc:  # reported to the parent, never silent (logged)
        logger.exception("import process failed")
        q.put(("error", ImportProcessError(f"The import failed: {type(exc).__name__}: {exc}")))
    # Leave without interpreter teardown, as app.launch.entry does: LanceDB's runtime threads
    # can hang or crash there, and everything is committed and sent by now.
    q.close()
    q.join_thread()
    leave(0)  # releases this process's multiprocessing semaphores (tqdm's lock) first
