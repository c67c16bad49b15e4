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
import glob
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
SYSTEM_TESSDATA = "/usr/share/tesseract-ocr/*/tessdata"  # Debian's tesseract-ocr-eng/-deu
MINIMAL_PATH = "/usr/bin:/bin"


def _glob(pattern: str) -> list[str]:
    return glob.glob(pattern)


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
    # what the bundle's processes imported and mapped (FOOTNOTE_IMPORT_LOG), merged
    imports: dict[str, Any] = field(default_factory=dict)

    def seconds(self, name: str) -> float | None:
        return next((s.seconds for s in self.steps if s.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "bundle": self.bundle,
            "network_isolated": self.network_isolated,
            "steps": [s.__dict__ for s in self.steps],
        }


def merge_import_logs(folder: Path) -> dict[str, Any]:
    """The processes' ``imports-<pid>.json`` (app/core/importlog.py) as one record: every
    module imported and every shared library mapped by any of them, and what ran."""
    modules: set[str] = set()
    libraries: set[str] = set()
    runs = []
    for f in sorted(folder.glob("imports-*.json")) if folder.is_dir() else []:
        rec = json.loads(f.read_text(encoding="utf-8"))
        modules |= set(rec["modules"])
        libraries |= set(rec["libraries"])
        runs.append([Path(rec["argv"][0]).name, *rec["argv"][1:3]])
    return {"processes": runs, "modules": sorted(modules), "libraries": sorted(libraries)}


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
        "FOOTNOTE_IMPORT_LOG": str(home / "imports"),  # app/core/importlog.py
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


def check_ocr_data(bundle: Path, system: str = SYSTEM_TESSDATA) -> str:
    """OCR language data the app will find: the bundle's ``_internal/tessdata`` (read first),
    or, where the .deb left it out for Debian's tesseract-ocr-eng/-deu, the system's."""
    folders = [bundle / "_internal" / "tessdata", *map(Path, sorted(_glob(system)))]
    for tessdata in folders:
        if all((tessdata / f"{lang}.traineddata").is_file() for lang in OCR_LANGUAGES):
            return str(tessdata)
    raise PackageTestError(f"ocr: no {list(OCR_LANGUAGES)} language data in {folders}")


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


# Imported by the window's warm-up (embedder, chat model, viewer): a first answer that imports
# one of these paid for what the window should have loaded already.
HEAVY_MODULES = ("torch", "sentence_transformers", "transformers", "llama_cpp", "pymupdf",
                 "lancedb", "numpy", "pyarrow", "app.retrieval", "app.generation")  # fmt: skip


def check_first_answer(shown: dict[str, Any]) -> str:
    """The window answered its first question (asked once it had warmed up) with citations,
    and neither the answer nor opening its first citation imported a heavy module."""
    ask = shown.get("ask") or {}
    if not shown.get("shown") or "answered_s" not in ask:
        raise PackageTestError(f"first-answer: no answer {json.dumps(shown)[:2000]}")
    if ask.get("kind") != "generated" or not ask.get("citations"):
        raise PackageTestError(f"first-answer: not an answer with citations: {ask}")
    paid = [
        m
        for m in [*ask.get("answer_imports", []), *ask.get("citation_imports", [])]
        if m.split(".")[0] in HEAVY_MODULES or m.startswith(HEAVY_MODULES)
    ]
    if paid:
        raise PackageTestError(f"first-answer: imported during the answer: {paid[:20]}")
    return (
        f"warm {ask.get('warm_s')} s after shown; answer {ask['answered_s']} s"
        f" ({len(ask.get('answer_imports', []))} small modules imported),"
        f" first citation opened {ask.get('citation_s')} s"
        f" ({len(ask.get('citation_imports', []))} imported)"
    )


def window_times(r: Runner, runs: int) -> tuple[list[float], list[float], str]:
    """Start the window ``runs`` times (``--smoke``): the seconds from launch until its event
    loop ran with the window shown and the CPU seconds used by then, as the app measures them,
    and the load average at the end (on a shared machine the wall time depends on it)."""
    times, cpu = [], []
    for i in range(runs):
        shown = r.run_json(f"window-{i + 1}", ["--smoke"], timeout=300)
        r.report.steps.pop()  # one step for all runs, below
        if not shown.get("shown") or shown.get("shown_after_s") is None:
            raise PackageTestError(f"window: not shown, or not timed: {shown}")
        times.append(float(shown["shown_after_s"]))
        cpu.append(float(shown.get("cpu_s") or 0.0))
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if runs else ""
    return times, cpu, load


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def run_all(
    bundle: Path = DEFAULT_BUNDLE,
    pdf: Path = DEFAULT_PDF,
    *,
    question: str = DEFAULT_QUESTION,
    query: str = DEFAULT_QUERY,
    gui: bool = True,
    ocr: bool = True,
    workdir: Path | None = None,
    exe: Path | None = None,
    window_runs: int = 0,
    quick: bool = False,
) -> Report:
    """Run every check against ``bundle``; raises PackageTestError on the first failure.

    ``exe``: the command to run (default: the bundle's executable; for the installed .deb,
    /usr/bin/footnote). ``window_runs``: also time that many window start-ups. ``quick``:
    only ``--version`` and the window (the tarball's copy of a bundle the .deb run tested).
    """
    exe = exe or executable(bundle)
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
        if quick:
            shown = r.run_json("gui-smoke", ["--smoke"], timeout=300)
            report.steps[-1].detail = f"window shown after {shown.get('shown_after_s')} s"
            report.imports = merge_import_logs(home / "imports")
            return report

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
            shown = r.run_json("gui-smoke", ["--smoke"], timeout=300)
            report.steps[
                -1
            ].detail = f"main window shown offscreen after {shown.get('shown_after_s')} s, exited"
            gui_lib = ["--library", str(home / "gui-library")]
            smoke = ["--smoke", "--smoke-import", str(sample), *gui_lib]
            shown = r.run_json("gui-import", smoke, timeout=600)
            report.steps[-1].detail = check_gui_import(shown, log)
            ask = ["--smoke", "--smoke-ask", question, *gui_lib, "--smoke-timeout", "840"]
            shown = r.run_json("first-answer", ask, timeout=900)
            report.steps[-1].detail = check_first_answer(shown)

        if ocr:
            tessdata = check_ocr_data(bundle)
            scanned = home / "Documents" / SCANNED_PDF.name
            shutil.copy2(SCANNED_PDF, scanned)
            ocr_lib = ["--library", str(home / "ocr-library")]
            ingest = r.run_json("ocr-ingest", ["ingest", str(scanned), *ocr_lib, "--json"],
                                timeout=900)  # fmt: skip
            worker, workers = check_parse_worker(log, workers)
            report.steps[-1].detail = f"{check_ocr_ingest(ingest)}, {worker}, data in {tessdata}"
            doc_id = ingest["results"][0]["doc_id"]
            search = ["search", SCANNED_QUERY, *ocr_lib, "--json"]
            hits = r.run_json("ocr-search", search, timeout=300)["hits"]
            report.steps[-1].detail = check_ocr_search(hits, doc_id)

        if window_runs:
            started = time.monotonic()
            times, cpu, load = window_times(r, window_runs)
            report.steps.append(
                Step(
                    "window",
                    round(time.monotonic() - started, 2),
                    f"shown after {median(times):.2f} s (median of {len(times)};"
                    f" {min(times):.2f}-{max(times):.2f} s), {median(cpu):.2f} s of CPU;"
                    f" load average {load}",
                )
            )
        report.imports = merge_import_logs(home / "imports")
        return report
    finally:
        if owned:
            shutil.rmtree(work, ignore_errors=True)


# --- the Debian package: install, run, remove, purge, nothing left -----------------------------

DEB_PACKAGE = "footnote"
DEB_PREFIX = Path("/opt/footnote")
DEB_COMMAND = Path("/usr/bin/footnote")
DEB_DESKTOP = Path("/usr/share/applications/footnote.desktop")
MIME_CACHE = Path("/usr/share/applications/mimeinfo.cache")  # desktop-file-utils' trigger


def open_with(mime: str = "application/pdf") -> bool | None:
    """Whether the system's "Open with" cache offers Footnote for ``mime`` (None: no cache,
    desktop-file-utils not installed)."""
    if not MIME_CACHE.is_file():
        return None
    for line in MIME_CACHE.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(mime + "="):
            return DEB_DESKTOP.name in line.split("=", 1)[1].split(";")
    return False


def _apt_env() -> dict[str, str]:
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
            "LANG": "C.UTF-8"}  # fmt: skip


def _sh(name: str, cmd: list[str], *, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    logger.info("$ %s", " ".join(cmd))
    proc = subprocess.run(
        cmd, env=_apt_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise PackageTestError(
            f"{name}: exit code {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc


def deb_status(package: str = DEB_PACKAGE) -> str:
    """dpkg's status of ``package`` ("install ok installed", "deinstall ok config-files"),
    or "" when dpkg does not know it (never installed, or purged)."""
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package],
        env=_apt_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else ""


def deb_contents(deb: Path) -> list[str]:
    """Absolute paths the package installs (``dpkg-deb -c``), folders included."""
    out = _sh("contents", ["dpkg-deb", "-c", str(deb)]).stdout
    paths = []
    for line in out.splitlines():
        name = line.split(None, 5)[5].split(" -> ")[0]
        paths.append("/" + name.removeprefix("./").rstrip("/"))
    return [p for p in paths if p != "/"]


def check_desktop_file(path: Path) -> str:
    """The installed menu entry runs the command and offers exactly the MIME types Footnote
    reads (app/core/formats.py, through packaging/desktop_entry.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from desktop_entry import mime_types

    entry = dict(
        line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line
    )
    if entry.get("Exec") != f"{DEB_COMMAND} %F" or entry.get("Icon") != "footnote":
        raise PackageTestError(f"desktop entry: unexpected Exec/Icon in {path}: {entry}")
    listed = [m for m in entry.get("MimeType", "").split(";") if m]
    if listed != mime_types():
        raise PackageTestError(f"desktop entry: MimeType {listed} != {mime_types()}")
    validator = shutil.which("desktop-file-validate")
    if validator:
        check = subprocess.run([validator, str(path)], capture_output=True, text=True)
        if check.returncode != 0:
            raise PackageTestError(f"desktop-file-validate: {check.stdout}{check.stderr}")
    return f"{len(listed)} MIME types" + (", valid" if validator else "")


def run_deb(deb: Path, *, window_runs: int = 5, **flows: Any) -> Report:
    """Install ``deb`` with apt-get, run the flows through /usr/bin/footnote, remove, purge,
    and require that nothing the package installed is left. Needs root."""
    if os.geteuid() != 0:
        raise PackageTestError("the .deb test installs a package: run it as root")
    for tool in ("apt-get", "dpkg-query", "dpkg-deb"):
        if not shutil.which(tool, path=_apt_env()["PATH"]):
            raise PackageTestError(f"the .deb test needs {tool} (Debian or Ubuntu)")
    deb = deb.resolve()
    if deb_status():
        logger.info("footnote is installed already: purging it first")
        _sh("purge-old", ["apt-get", "purge", "-y", DEB_PACKAGE])
    contents = deb_contents(deb)
    existed = {p for p in contents if os.path.lexists(p)}  # shared folders (/usr/share/...)

    started = time.monotonic()
    _sh("install", ["apt-get", "install", "-y", str(deb)])
    install_s = time.monotonic() - started
    status = deb_status()
    if status != "install ok installed":
        raise PackageTestError(f"install: dpkg says {status!r}")
    missing = [p for p in contents if not os.path.lexists(p)]
    if missing:
        raise PackageTestError(f"install: not installed: {missing[:20]}")
    if not DEB_COMMAND.is_symlink() or DEB_COMMAND.resolve() != DEB_PREFIX / "Footnote":
        raise PackageTestError(f"install: {DEB_COMMAND} does not lead to {DEB_PREFIX}/Footnote")
    desktop = check_desktop_file(DEB_DESKTOP)
    if open_with() is False:
        raise PackageTestError(f"install: {MIME_CACHE} does not offer Footnote for PDF files")
    if open_with():
        desktop += ", offered by Open with (mimeinfo.cache)"
    for icon in ("scalable/apps/footnote.svg", "256x256/apps/footnote.png"):
        if not (Path("/usr/share/icons/hicolor") / icon).is_file():
            raise PackageTestError(f"install: icon {icon} missing")
    version = deb_status() and subprocess.run(
        ["dpkg-query", "-W", "-f=${Version} ${Installed-Size}", DEB_PACKAGE],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip

    report = run_all(DEB_PREFIX, exe=DEB_COMMAND, window_runs=window_runs, **flows)
    report.bundle = f"{deb} (installed)"
    report.steps.insert(
        0,
        Step(
            "install",
            round(install_s, 2),
            f"apt-get install: {DEB_PACKAGE} {version[0]}, {int(version[1]) / 1024:.0f} MiB,"
            f" desktop entry {desktop}",
        ),
    )

    started = time.monotonic()
    _sh("remove", ["apt-get", "remove", "-y", DEB_PACKAGE])
    status = deb_status()
    if status not in ("", "deinstall ok config-files"):
        raise PackageTestError(f"remove: dpkg says {status!r}")
    left = [p for p in (DEB_PREFIX, DEB_COMMAND, DEB_DESKTOP) if os.path.lexists(p)]
    if open_with():
        left.append(f"{MIME_CACHE} entry")
    if left:
        raise PackageTestError(f"remove: left behind {left}")
    report.steps.append(Step("remove", round(time.monotonic() - started, 2), status or "gone"))

    started = time.monotonic()
    if deb_status():  # configuration left (there is none: remove usually forgets it already)
        _sh("purge", ["apt-get", "purge", "-y", DEB_PACKAGE])
    else:  # apt-get purge fails on a package dpkg no longer knows; dpkg --purge says so
        _sh("purge", ["dpkg", "--purge", DEB_PACKAGE])
    if deb_status():
        raise PackageTestError(f"purge: dpkg still knows {DEB_PACKAGE}: {deb_status()!r}")
    left = [p for p in contents if p not in existed and os.path.lexists(p)]
    if left:
        raise PackageTestError(f"purge: left behind {left[:20]}")
    report.steps.append(
        Step(
            "purge",
            round(time.monotonic() - started, 2),
            f"dpkg knows no {DEB_PACKAGE}; none of its {len(contents)} paths is left",
        )
    )
    return report


def _print(report: Report) -> None:
    iso = "yes (unshare -n)" if report.network_isolated else "no (unshare unavailable)"
    print(f"bundle: {report.bundle}\nnetwork isolated: {iso}")
    for s in report.steps:
        print(f"  ok  {s.name:<10} {s.seconds:7.2f} s  {s.detail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the built Footnote bundle end to end.")
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument(
        "--deb",
        type=Path,
        default=None,
        help="Install this .deb with apt-get, run every check through /usr/bin/footnote, "
        "remove and purge it (root); then start the bundle (--bundle) itself.",
    )
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    parser.add_argument("--question", default=DEFAULT_QUESTION)
    parser.add_argument("--no-gui", action="store_true", help="Skip the offscreen window check.")
    parser.add_argument("--no-ocr", action="store_true", help="Skip the scanned-PDF check.")
    parser.add_argument("--window-runs", type=int, default=5, help="Window start-ups to time.")
    parser.add_argument(
        "--import-log", type=Path, default=None, help="Write what the processes loaded here."
    )
    parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    flows = {"question": args.question, "gui": not args.no_gui, "ocr": not args.no_ocr}
    reports = []
    try:
        if args.deb is not None:
            reports.append(run_deb(args.deb, pdf=args.pdf, window_runs=args.window_runs, **flows))
            # The tarball's bundle: the same build, with the system files the .deb left out.
            reports.append(run_all(args.bundle, args.pdf, quick=True))
        else:
            window_runs = args.window_runs if flows["gui"] else 0
            reports.append(run_all(args.bundle, args.pdf, window_runs=window_runs, **flows))
    except PackageTestError as exc:
        for report in reports:
            _print(report)
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    if args.import_log:
        args.import_log.parent.mkdir(parents=True, exist_ok=True)
        args.import_log.write_text(json.dumps(reports[0].imports, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps([r.as_dict() for r in reports], indent=2))
    else:
        for report in reports:
            _print(report)
        print(f"{sum(len(r.steps) for r in reports)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
