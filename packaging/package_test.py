"""End-to-end check of the built bundle, as a user's machine would run it (``make package-test``).

Why: a frozen app fails in ways the test suite cannot see from the venv: a lazily imported module
left out, a shared library not collected, a model file not copied, a path that only exists on the
build machine. So this runs the *bundle's* executable with an empty environment (``env -i``-like:
a minimal PATH with no Python environment, HOME in a temp folder, no network when ``unshare -n``
is available) and goes through what a user does:

1. ``Footnote --version`` (bare start-up time);
2. ``ingest`` a real PDF into a temporary library (the log shows it was parsed in a parse-worker
   child process, the bundle's own executable), then ``docs --json`` lists it;
3. ``search --json`` finds it;
4. ``ask --json`` answers with citations, and every citation's quote occurs in the text of the
   source it cites (the JSON ``sources``): the app's promise, checked from the outside;
5. the desktop window starts offscreen with ``--smoke`` (shown, then exits) and is timed;
6. ``ingest`` a scanned PDF (a picture of text, no text layer: ``tests/data/scanned.pdf``): the
   bundle's own Tesseract language data (``_internal/tessdata``) reads it in-process, and
   ``search --json`` finds a sentence that exists only in the picture.
7. the window imports the PDF as a drop would (``--smoke --smoke-import``) into a new library,
   and the log shows that a separate import process ran it (the path the test suite runs; the
   bundle has no in-thread fallback).

Standard library only, so it runs with any Python (the test suite calls ``run_all``).
Usage: python packaging/package_test.py [--bundle dist/Footnote] [--pdf FILE] [--no-gui]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BUNDLE = ROOT / "dist" / "Footnote"
DEFAULT_PDF = ROOT / "tests" / "data" / "longtable.pdf"
DEFAULT_QUESTION = "What does the longtable package define?"
DEFAULT_QUERY = "longtable environment"
# An image-only page of known sentences (tests/scan_factory.py::make_scan_pdf, 200 dpi).
SCANNED_PDF = ROOT / "tests" / "data" / "scanned.pdf"
SCANNED_QUERY = "lighthouse keeper logbook"
SCANNED_WORDS = ("lighthouse", "logbook", "1887")
OCR_LANGUAGES = ("eng", "deu")  # packaging/footnote.spec copies these into tessdata/
MINIMAL_PATH = "/usr/bin:/bin"


class PackageTestError(AssertionError):
    """A step of the bundle check failed; the message says which and shows the output."""


@dataclass
class Step:
    name: str
    seconds: float
    detail: str = ""


@dataclass
class Report:
    bundle: str
    network_isolated: bool
    steps: list[Step] = field(default_factory=list)

    def seconds(self, name: str) -> float | None:
        return next((s.seconds for s in self.steps if s.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "bundle": self.bundle,
            "network_isolated": self.network_isolated,
            "steps": [s.__dict__ for s in self.steps],
        }


def executable(bundle: Path) -> Path:
    """The bundle's executable (``Footnote``; ``Footnote.exe`` on Windows)."""
    for name in ("Footnote", "Footnote.exe"):
        if (bundle / name).is_file():
            return bundle / name
    raise PackageTestError(f"no Footnote executable in {bundle}: run `make package` first")


def clean_env(home: Path) -> dict[str, str]:
    """What a fresh desktop session has, and nothing from the build machine's Python."""
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    return {
        "PATH": MINIMAL_PATH,
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "XDG_RUNTIME_DIR": str(runtime),
        "QT_QPA_PLATFORM": "offscreen",
        "FOOTNOTE_LOG_DIR": str(home / "logs"),
    }


def network_isolation_prefix() -> list[str]:
    """``unshare -n`` (a new, empty network namespace) when this machine allows it."""
    unshare = shutil.which("unshare", path=MINIMAL_PATH)
    if not unshare:
        return []
    for prefix in ([unshare, "-n"], [unshare, "-r", "-n"]):
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix
    return []


class Runner:
    """Runs the bundle's executable in the clean environment and records timings."""

    def __init__(self, exe: Path, env: dict[str, str], prefix: list[str], report: Report) -> None:
        self.exe, self.env, self.prefix, self.report = exe, env, prefix, report

    def run(
        self, name: str, args: list[str], *, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        cmd = [*self.prefix, str(self.exe), *args]
        logger.info("$ %s", " ".join(cmd))
        started = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                env=self.env,
                cwd=self.env["HOME"],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as exc:
            raise PackageTestError(f"{name}: no result after {timeout:.0f} s") from exc
        elapsed = time.monotonic() - started
        if proc.returncode != 0:
            raise PackageTestError(
                f"{name}: exit code {proc.returncode}\n--- stdout ---\n{proc.stdout[-3000:]}"
                f"\n--- stderr ---\n{proc.stderr[-5000:]}"
            )
        self.report.steps.append(Step(name, round(elapsed, 2)))
        return proc

    def run_json(self, name: str, args: list[str], *, timeout: float) -> Any:
        proc = self.run(name, args, timeout=timeout)
        try:
            return json.loads(proc.stdout)
        except json.JSONDecodeError as exc:
            raise PackageTestError(
                f"{name}: stdout is not JSON ({exc})\n{proc.stdout[:2000]}\n{proc.stderr[-2000:]}"
            ) from exc


def check_citations(answer: dict[str, Any]) -> str:
    """Every citation's quote must occur in the text of the source it cites. Returns a summary."""
    sources = {s["n"]: s for s in answer.get("sources", [])}
    citations = answer.get("citations", [])
    if not citations:
        raise PackageTestError(
            "ask: the answer has no citations, so the citation path was not exercised\n"
            + json.dumps({k: answer.get(k) for k in ("answer", "kind", "validation")}, indent=1)
        )
    for c in citations:
        source = sources.get(c["n"])
        if source is None:
            raise PackageTestError(f"ask: citation [{c['n']}] names no source in 'sources'")
        if c["chunk_id"] != source["chunk_id"]:
            raise PackageTestError(f"ask: citation [{c['n']}] and its source name other chunks")
        if not c["quote"].strip() or c["quote"] not in source["text"]:
            raise PackageTestError(
                f"ask: the quote of citation [{c['n']}] is not in its source's text:\n"
                f"quote: {c['quote']!r}\nsource: {source['text'][:1500]!r}"
            )
    return f"{len(citations)} citation(s) verified against {len(sources)} source(s)"


def check_parse_worker(log: Path, seen: set[str]) -> tuple[str, set[str]]:
    """The log shows a parse worker (the bundle's own executable, memory-capped) that was not
    there before this step: the bundle parses PDFs in a child as the test suite does."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    pids = set(re.findall(r"parse worker (\d+) started", text))
    new = pids - seen
    if not new:
        raise PackageTestError(
            f"the log {log} shows no new parse worker process (seen before: {sorted(seen)})\n"
            + text[-3000:]
        )
    return f"parsed in worker process {min(new)}", pids


def check_ocr_data(bundle: Path) -> None:
    """The bundle carries its own OCR language data. The app looks in ``_internal/tessdata``
    before the system's folders, so with it present the OCR step below reads with it."""
    tessdata = bundle / "_internal" / "tessdata"
    missing = [f for f in OCR_LANGUAGES if not (tessdata / f"{f}.traineddata").is_file()]
    if missing:
        raise PackageTestError(f"ocr: no {missing} language data in {tessdata}")


def check_ocr_ingest(ingest: dict[str, Any]) -> str:
    """The scanned file was added, and (where the CLI reports it) its page was read by OCR."""
    results = ingest.get("results", [])
    if len(results) != 1 or results[0].get("status") != "added" or results[0].get("chunks", 0) < 1:
        raise PackageTestError(f"ocr-ingest: unexpected result {json.dumps(ingest)[:2000]}")
    if "ocr_pages" in results[0] and results[0]["ocr_pages"] < 1:
        raise PackageTestError(f"ocr-ingest: no page was read by OCR {json.dumps(ingest)[:2000]}")
    return f"status=added, {results[0]['chunks']} chunk(s), ocr_pages={results[0].get('ocr_pages')}"


def check_ocr_search(hits: list[dict[str, Any]], doc_id: str) -> str:
    """The top hit is the scanned page and holds words that exist only in its picture."""
    if not hits or hits[0]["doc_id"] != doc_id:
        raise PackageTestError(f"ocr-search: no hit in the scanned PDF for {SCANNED_QUERY!r}")
    text = hits[0]["text"].lower()
    missing = [w for w in SCANNED_WORDS if w not in text]
    if missing:
        raise PackageTestError(f"ocr-search: OCR text lacks {missing}: {hits[0]['text'][:1500]!r}")
    return f"OCR text found on page {hits[0]['page_start']}"


def check_gui_import(shown: dict[str, Any], log: Path) -> str:
    """The window imported the sample, and a separate import process did the work."""
    results = shown.get("results", [])
    if not shown.get("shown") or [r.get("status") for r in results] != ["added"]:
        raise PackageTestError(f"gui-import: unexpected result {json.dumps(shown)[:2000]}")
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    started = set(re.findall(r"import process (\d+) started", text))
    running = set(re.findall(r"import process (\d+) running", text))
    if not started & running:
        raise PackageTestError(
            f"gui-import: the log {log} does not show a child import process at work"
            f" (started: {sorted(started)}, running: {sorted(running)})\n{text[-3000:]}"
        )
    pid = sorted(started & running)[0]
    return f"added through import process {pid}"


def run_all(
    bundle: Path = DEFAULT_BUNDLE,
    pdf: Path = DEFAULT_PDF,
    *,
    question: str = DEFAULT_QUESTION,
    query: str = DEFAULT_QUERY,
    gui: bool = True,
    ocr: bool = True,
    workdir: Path | None = None,
) -> Report:
    """Run every check against ``bundle``; raises PackageTestError on the first failure."""
    exe = executable(bundle)
    if not pdf.is_file():
        raise PackageTestError(f"sample PDF {pdf} not found")
    owned = workdir is None
    work = Path(tempfile.mkdtemp(prefix="footnote-pkgtest-")) if workdir is None else workdir
    try:
        home = work / "home"
        (home / "tmp").mkdir(parents=True, exist_ok=True)
        sample = home / "Documents" / pdf.name  # a user's file, outside the bundle and repo
        sample.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(pdf, sample)
        library = home / "library"
        prefix = network_isolation_prefix()
        report = Report(bundle=str(bundle), network_isolated=bool(prefix))
        r = Runner(exe, clean_env(home), prefix, report)

        version = r.run("version", ["--version"], timeout=120).stdout.strip()
        report.steps[-1].detail = version

        lib = ["--library", str(library)]
        ingest = r.run_json("ingest", ["ingest", str(sample), *lib, "--json"], timeout=900)
        results = ingest.get("results", [])
        if len(results) != 1 or results[0].get("status") not in ("indexed", "ready", "added"):
            raise PackageTestError(f"ingest: unexpected result {json.dumps(ingest)[:2000]}")
        log = home / "logs" / "footnote.log"
        worker, workers = check_parse_worker(log, set())
        report.steps[-1].detail = f"status={results[0].get('status')}, {worker}"

        docs = r.run_json("docs", ["docs", *lib, "--json"], timeout=120)["documents"]
        if [d["file"] for d in docs] != [str(sample)] or docs[0]["chunks"] < 1:
            raise PackageTestError(f"docs: expected the sample, got {json.dumps(docs)[:2000]}")
        report.steps[-1].detail = f"{docs[0]['pages']} pages, {docs[0]['chunks']} chunks"

        hits = r.run_json("search", ["search", query, *lib, "--json"], timeout=300)["hits"]
        if not hits or hits[0]["doc_id"] != docs[0]["doc_id"]:
            raise PackageTestError(f"search: no hit in the sample for {query!r}")
        report.steps[-1].detail = f"{len(hits)} hits"

        answer = r.run_json("ask", ["ask", question, *lib, "--json"], timeout=900)
        report.steps[-1].detail = check_citations(answer)

        if gui:
            r.run("gui-smoke", ["--smoke"], timeout=300)
            report.steps[-1].detail = "main window shown offscreen, exited"
            gui_lib = ["--library", str(home / "gui-library")]
            smoke = ["--smoke", "--smoke-import", str(sample), *gui_lib]
            shown = r.run_json("gui-import", smoke, timeout=600)
            report.steps[-1].detail = check_gui_import(shown, log)

        if ocr:
            check_ocr_data(bundle)
            scanned = home / "Documents" / SCANNED_PDF.name
            shutil.copy2(SCANNED_PDF, scanned)
            ocr_lib = ["--library", str(home / "ocr-library")]
            ingest = r.run_json("ocr-ingest", ["ingest", str(scanned), *ocr_lib, "--json"],
                                timeout=900)  # fmt: skip
            worker, workers = check_parse_worker(log, workers)
            report.steps[-1].detail = f"{check_ocr_ingest(ingest)}, {worker}"
            doc_id = ingest["results"][0]["doc_id"]
            search = ["search", SCANNED_QUERY, *ocr_lib, "--json"]
            hits = r.run_json("ocr-search", search, timeout=300)["hits"]
            report.steps[-1].detail = check_ocr_search(hits, doc_id)
        return report
    finally:
        if owned:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the built Footnote bundle end to end.")
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    parser.add_argument("--question", default=DEFAULT_QUESTION)
    parser.add_argument("--no-gui", action="store_true", help="Skip the offscreen window check.")
    parser.add_argument("--no-ocr", action="store_true", help="Skip the scanned-PDF check.")
    parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        report = run_all(
            args.bundle, args.pdf, question=args.question, gui=not args.no_gui, ocr=not args.no_ocr
        )
    except PackageTestError as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        iso = "yes (unshare -n)" if report.network_isolated else "no (unshare unavailable)"
        print(f"bundle: {report.bundle}\nnetwork isolated: {iso}")
        for s in report.steps:
            print(f"  ok  {s.name:<10} {s.seconds:7.2f} s  {s.detail}")
        print(f"{len(report.steps)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
