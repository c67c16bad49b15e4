"""Entry point of the frozen Footnote executable.

One executable serves both faces of the app (see ``app.launch``): with a command it is the
``footnote`` command line; with no arguments, desktop-app options or PDF files it opens the
window. ``freeze_support`` must run first so that a worker process spawned by a library
(multiprocessing, joblib) re-enters here as a worker instead of opening a second window.
"""

from __future__ import annotations

import multiprocessing

from app.launch import entry, wants_gui

__all__ = ["wants_gui"]

if __name__ == "__main__":
    multiprocessing.freeze_support()
    entry()
