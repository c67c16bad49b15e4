"""Run an import (parse, index, embed) in a child process.

Why: PDF parsing is long runs of native PyMuPDF calls that hold Python's GIL; on a thread
they would stall the GUI thread for 100+ ms at a time on a busy machine. A child process has
its own GIL, so the window stays fluid whatever the PDF. Embedding goes there too: reading
hundreds of chunks back from the store is long Arrow-to-Python conversions under the GIL.
The store is built for this: one writer at a time across processes (file lock) and readers
that always see the latest version.

Protocol on the queue: ("progress", Progress fields) ... then ("done", [IngestResult dumps])
or ("error", message). Cancellation: an Event the child polls through a CancelToken.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.errors import Cancelled, FootnoteError
from app.core.models import IngestResult
from app.core.progress import CancelToken, Progress

logger = logging.getLogger(__name__)


def subprocess_supported() -> bool:
    """Frozen bundles need ``multiprocessing.freeze_support()`` wiring; use a thread there."""
    return not getattr(sys, "frozen", False)


def _child(settings_json: str, paths: list[str], q: Any, stop: Any) -> None:  # child process
    from app.core.logs import setup_logging

    setup_logging(console=False)
    token = CancelToken()

    def watch() -> None:
        stop.wait()
        token.cancel()

    threading.Thread(target=watch, daemon=True).start()
    try:
        from app.services.library import Library

        lib = Library(Settings.model_validate_json(settings_json))

        def report(p: Progress) -> None:
            q.put(("progress", (p.stage, p.done, p.total, p.file, p.message)))

        results = lib.ingest(paths, on_progress=report, cancel=token, embed=False)
        embed_error = None
        if not token.cancelled:
            q.put(("progress", ("indexed", 1, 1, None, "indexed")))
            try:
                lib.embed_pending(on_progress=report, cancel=token)
            except Cancelled:
                pass
            except FootnoteError as exc:
                embed_error = exc.user_text()
            except Exception as exc:  # documents stay keyword-searchable
                logging.getLogger(__name__).exception("embedding failed")
                embed_error = f"{type(exc).__name__}: {exc}"
        q.put(("done", ([r.model_dump(mode="json") for r in results], embed_error)))
    except FootnoteError as exc:
        q.put(("error", exc.user_text()))
    except BaseException as exc:  # reported to the parent, never silent
        logging.getLogger(__name__).exception("import process failed")
        q.put(("error", f"{type(exc).__name__}: {exc}"))


def ingest_in_subprocess(
    settings: Settings,
    paths: Sequence[Path],
    *,
    on_progress: Callable[[Progress], None],
    cancel: CancelToken,
) -> tuple[list[IngestResult], str | None]:
    """Blocking (call on a worker thread): parse, index, then embed, all in the child.

    Returns the per-file results and the embedding error, if any (documents then stay
    keyword-searchable). A progress ("indexed") marks the end of the first phase.
    """
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    stop = ctx.Event()
    proc = ctx.Process(
        target=_child,
        args=(settings.model_dump_json(), [str(p) for p in paths], q, stop),
        name="footnote-import",
        daemon=True,
    )
    proc.start()
    logger.info("import process %s started for %d path(s)", proc.pid, len(paths))
    try:
        while True:
            if cancel.cancelled and not stop.is_set():
                stop.set()
            try:
                kind, payload = q.get(timeout=0.1)
            except queue.Empty:
                if not proc.is_alive():
                    try:  # the last message may have landed just before exit
                        kind, payload = q.get(timeout=0.5)
                    except queue.Empty:
                        raise RuntimeError(
                            f"The import process stopped unexpectedly (exit code {proc.exitcode})."
                        ) from None
                else:
                    continue
            if kind == "progress":
                on_progress(Progress(*payload))
            elif kind == "done":
                dumps, embed_error = payload
                return [IngestResult.model_validate(r) for r in dumps], embed_error
            elif kind == "error":
                if cancel.cancelled:
                    raise Cancelled()
                raise RuntimeError(str(payload))
    finally:
        proc.join(timeout=10)
        if proc.is_alive():
            logger.warning("import process %s did not exit; terminating", proc.pid)
            proc.terminate()
            proc.join(timeout=5)
        q.close()
