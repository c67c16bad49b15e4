"""Entry point of the desktop app: ``footnote`` without arguments, or ``footnote-gui``.

Why the care here: errors must be logged to a rotating file and shown in the window rather
than crash it, and ``--smoke`` lets packaging tests prove the app starts and shows a window.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

from app import __version__
from app.core.logs import setup_logging
from app.core.timing import process_age_s

logger = logging.getLogger(__name__)

SMOKE_TIMEOUT_S = 540.0  # --smoke-import / --smoke-ask give up (exit 1) after this long


def qt_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split Qt's own options (``-platform offscreen``) from Footnote's."""
    ours: list[str] = []
    qt: list[str] = []
    it = iter(argv)
    for a in it:
        if a.startswith("-platform"):
            qt.append(a)
            if a == "-platform":
                qt.append(next(it, ""))
        else:
            ours.append(a)
    return ours, qt


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="footnote-gui", description="Footnote desktop app.")
    p.add_argument("files", nargs="*", type=Path, help="PDF files or folders to add.")
    p.add_argument("--library", type=Path, default=None, help="Library folder to open.")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="Exit with status 0 as soon as the main window is shown.",
    )
    p.add_argument(
        "--smoke-import",
        type=Path,
        action="append",
        default=[],
        metavar="PDF",
        help="With --smoke: first import PDF as a drop would (through the import process) "
        "and print the results as JSON.",
    )
    p.add_argument(
        "--smoke-ask",
        default=None,
        metavar="QUESTION",
        help="With --smoke: once the window has warmed up, ask QUESTION as the Ask box does, "
        "open its first citation, and report how long each took and what each imported.",
    )
    p.add_argument(
        "--smoke-timeout",
        type=float,
        default=SMOKE_TIMEOUT_S,
        metavar="SECONDS",
        help="With --smoke-import / --smoke-ask: give up (exit 1) after this long.",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="Debug logging.")
    p.add_argument("--version", action="version", version=f"footnote {__version__}")
    args, _unknown = p.parse_known_intermixed_args(qt_options(argv)[0])
    return args


def install_excepthook(report: object) -> None:
    """Unexpected exceptions are logged and shown in the window; the app keeps running."""

    def hook(
        exc_type: type[BaseException], exc: BaseException, tb: types.TracebackType | None
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        logger.error("unexpected error", exc_info=(exc_type, exc, tb))
        try:
            report(exc)  # type: ignore[operator]
        except Exception:  # never recurse from the hook
            logger.exception("could not display the error")

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            logger.error(
                "unexpected error in thread %s",
                args.thread,
                exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
            )

    sys.excepthook = hook
    threading.excepthook = thread_hook


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    log_path = setup_logging(verbose=args.verbose)
    qt_argv = qt_options(argv)[1]

    from app.ui.qt_deps import problem

    why_not = problem(qt_argv)
    if why_not:  # Qt would abort with a misleading message; say what is wrong instead
        logger.info("cannot open the window: %s", why_not)
        print(why_not, file=sys.stderr)
        return 3

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.ui.fonts import ensure_script_fonts
    from app.ui.main_window import MainWindow
    from app.ui.prefs import APP, ORG, appearance, load_settings
    from app.ui.single_instance import InstanceServer, hand_over, server_name
    from app.ui.theme import apply_appearance, icon, stylesheet

    app = QApplication.instance() or QApplication(
        [sys.argv[0] if sys.argv else "footnote", *qt_argv]
    )
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    app.setApplicationDisplayName("Footnote")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("footnote")
    if appearance() != "system":  # View → Appearance: light or dark whatever the system says
        apply_appearance(appearance())
    app.setStyleSheet(stylesheet())  # type: ignore[attr-defined]
    ensure_script_fonts()  # Korean, Chinese, Japanese titles drawn, not boxes
    app.setWindowIcon(icon("logo", "#0969da"))  # type: ignore[attr-defined]

    settings = load_settings(args.library)
    files = [f.expanduser() for f in args.files]
    name = server_name(settings.library)
    if not args.smoke and hand_over(name, files):
        logger.info("handed %d file(s) to the running Footnote", len(files))
        print("Footnote is already open; the files were handed to its window.")
        return 0
    logger.info("Footnote %s starting; library %s; log %s", __version__, settings.library, log_path)
    window = MainWindow(settings)
    server = InstanceServer(name, window)
    if not args.smoke:
        server.listen()
        server.files_received.connect(window.open_files)
    install_excepthook(
        lambda exc: window.messages.show_message(
            "error",
            "Something went wrong; Footnote keeps running.",
            f"{type(exc).__name__}: {exc}" + (f" (details in {log_path})" if log_path else ""),
        )
    )
    window.show()
    if args.smoke:
        return _smoke(app, window, args.smoke_import, args.smoke_ask, args.smoke_timeout)
    QTimer.singleShot(0, window.start)
    if files:
        QTimer.singleShot(0, lambda: window.open_files(files))
    code = int(app.exec())
    server.close()
    return code


def _smoke(
    app: Any,
    window: Any,
    pdfs: list[Path],
    question: str | None = None,
    timeout: float = SMOKE_TIMEOUT_S,
) -> int:
    """Show the window, optionally import ``pdfs`` as a drop would and ask ``question``, quit.

    Prints one JSON line: ``shown``, ``shown_after_s`` (seconds from process start until the
    event loop ran with the window shown; None off Linux), ``cpu_s`` (the CPU time the process
    had used by then: on a busy machine the wall time says more about the others), with
    ``pdfs`` ``results``, and with ``question`` ``ask``: how long the window took to warm up
    after it was shown, how long the first answer and opening its first citation took, and
    the modules each imported (what the start-up had not already imported: ideally none).

    The import goes through the same child process as a real drop (packaging/package_test.py
    runs this in the frozen bundle and reads the log for the import process).
    """
    from PySide6.QtCore import QTimer

    seen: list[bool] = []
    started: list[bool] = []
    shown_after: list[float | None] = []
    cpu: list[float] = []
    asked: dict[str, Any] = {}
    deadline = time.monotonic() + timeout

    def ask_step() -> bool:
        """Drive the question; True when there is nothing (more) to wait for."""
        if question is None:
            return True
        if "asked_at" not in asked:
            if not window.session.search_ready or not window.library.documents:
                return False  # still warming up (embedder, chat model, the library's words)
            asked["warm_s"] = round(time.monotonic() - asked["shown_at"], 2)
            asked["before"] = set(sys.modules)
            asked["asked_at"] = time.monotonic()
            window.ask(question)
            return False
        if "answered_s" not in asked:
            if window.conversation.job is not None:
                return False
            answers = window.conversation.answers()
            asked["answered_s"] = round(time.monotonic() - asked["asked_at"], 2)
            answer_imports = sorted(set(sys.modules) - asked["before"])
            asked["answer_imports"] = answer_imports
            asked["kind"] = answers[-1].kind if answers else None
            asked["citations"] = len(answers[-1].citations) if answers else 0
            before = set(sys.modules)
            t0 = time.monotonic()
            if answers and answers[-1].citations:
                window.open_citation(answers[-1], answers[-1].citations[0].n)
            asked["citation_s"] = round(time.monotonic() - t0, 2)
            asked["citation_imports"] = sorted(set(sys.modules) - before)
        return True

    def check_and_quit() -> None:
        seen.append(window.isVisible() and window.windowHandle() is not None)
        if not shown_after:  # the event loop runs with the window shown: what a user sees
            age = process_age_s()
            shown_after.append(None if age is None else round(age, 2))
            cpu.append(round(time.process_time(), 2))  # this process's CPU time so far
            asked["shown_at"] = time.monotonic()
            logger.info(
                "smoke: window shown %s s after the process started (%s s of CPU)",
                shown_after[0],
                cpu[0],
            )
        if window.ingest_job is not None:
            started.append(True)
        imported = not pdfs or (bool(started) and window.ingest_job is None)
        done = imported and ask_step()
        if not done and time.monotonic() < deadline:
            QTimer.singleShot(200, check_and_quit)
            return
        app.quit()

    if pdfs or question:
        window.start()
    if pdfs:
        window.ingest(pdfs)  # queued until the library is open
    QTimer.singleShot(0, check_and_quit)
    code = app.exec()
    shown = bool(seen and seen[0])
    window.session.shutdown()
    logger.info("smoke: exec=%s shown=%s", code, shown)
    report: dict[str, Any] = {
        "shown": shown,
        "shown_after_s": next(iter(shown_after), None),
        "cpu_s": next(iter(cpu), None),
    }
    ok = shown
    if pdfs:
        report["results"] = [r.model_dump(mode="json") for r in window.imports.results]
        ok = ok and len(report["results"]) == len(pdfs)
    if question is not None:
        asked.pop("before", None)
        report["ask"] = {k: v for k, v in asked.items() if not k.endswith("_at")}
        ok = ok and "answered_s" in asked
        logger.info("smoke: first answer %s", report["ask"])
    print(json.dumps(report), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
