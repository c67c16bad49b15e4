"""Leaving a process without interpreter teardown, with its multiprocessing objects released.

Why: LanceDB's runtime threads can hang or crash in interpreter teardown, so Footnote's
processes (the app, the CLI, the import child) end with ``os._exit`` once LanceDB is loaded.
``os._exit`` skips ``atexit`` and with it multiprocessing's finalizers, so every named
semaphore the process created stayed registered with multiprocessing's resource tracker,
which then printed "resource_tracker: There appear to be N leaked semaphore objects to clean
up at shutdown" at every quit. The one seen was tqdm's: sentence-transformers opens a tqdm
range for each ``encode`` (bar disabled), and tqdm creates a multiprocessing ``RLock`` for
its class the first time. Running multiprocessing's own exit finalizers first unlinks such
semaphores and tells the tracker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from typing import NoReturn

from app.core import importlog


def release_multiprocessing() -> None:
    """Run the finalizers multiprocessing registers for exit (semaphores, queues' pipes):
    what ``atexit`` would have run first. Nothing to do if multiprocessing was never used."""
    util = sys.modules.get("multiprocessing.util")
    run = getattr(util, "_run_finalizers", None)
    if run is None:
        return
    try:
        run(0)  # exit priority >= 0: never the ones that join threads or processes
    except Exception:  # leaving must not fail
        logging.getLogger(__name__).debug("multiprocessing finalizers failed", exc_info=True)


def leave(code: int) -> NoReturn:
    """Flush output, close the logs, release multiprocessing objects, then ``os._exit``."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    release_multiprocessing()
    importlog.write()  # FOOTNOTE_IMPORT_LOG: os._exit skips the atexit that would write it
    logging.shutdown()
    os._exit(code)
