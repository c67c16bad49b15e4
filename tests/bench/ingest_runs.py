"""Whole-process ingestion runs for ``bench_ingest --real``: measured, side by side with a ref.

Each run is a fresh process (``python -m app ingest ... --json`` or the yardstick), timed from
outside: wall seconds, CPU seconds (user + system, the process and the children it waited for:
the parse worker, OCR workers) and peak resident memory (``wait4``: the largest of the process
and those children). A git ref (``--compare-ref``) runs from a temporary ``git worktree`` of that
ref with the same interpreter and the same files, its runs interleaved with this checkout's, so
both see the same minute of a shared machine's load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Measured:
    """One process: what it printed (parsed JSON) and what it cost."""

    label: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    load: tuple[float, float]  # 1-minute load average before and after
    rc: int
    out: dict[str, Any] = field(default_factory=dict)
    stderr_tail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "wall_s": self.wall_s,
            "cpu_s": self.cpu_s,
            "peak_rss_mb": self.peak_rss_mb,
            "load": self.load,
            "rc": self.rc,
            "out": self.out,
        }


def measure(label: str, cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Measured:
    """Run ``cmd`` to its end; its stdout is parsed as JSON when it is JSON."""
    load0 = os.getloadavg()[0]
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    full_env.pop("PYTHONPATH", None)  # the checkout's own ``app`` (cwd) must win
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        # Files, not pipes: a stray grandchild holding an inherited pipe cannot block the bench.
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out_f.seek(0)
        err_f.seek(0)
        text = out_f.read().decode("utf-8", "replace")
        err = err_f.read().decode("utf-8", "replace")
    try:
        out = json.loads(text) if text.strip() else {}
    except ValueError:
        out = {"stdout": text[-2000:]}
    return Measured(
        label=label,
        wall_s=round(wall, 2),
        cpu_s=round(usage.ru_utime + usage.ru_stime, 2),
        peak_rss_mb=round(usage.ru_maxrss / 1024, 1),
        load=(round(load0, 2), round(os.getloadavg()[0], 2)),
        rc=proc.returncode,
        out=out,
        stderr_tail=err[-2000:],
    )


def ingest_cmd(files: list[Path], library: Path, *, embed: bool = True) -> list[str]:
    cmd = [sys.executable, "-m", "app", "ingest", *map(str, files), "--library", str(library)]
    return [*cmd, "--json"] + ([] if embed else ["--no-embed"])


def yardstick_cmd(files: list[Path]) -> list[str]:
    return [sys.executable, "-m", "tests.bench.yardstick", *map(str, files)]


def add_worktree(ref: str, parent: Path) -> Path:
    """A detached checkout of ``ref`` under ``parent`` (removed by :func:`remove_worktree`)."""
    path = parent / f"ref-{ref.replace('/', '_')}"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(path), ref],
        cwd=ROOT,
        check=True,
    )
    return path


def remove_worktree(path: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=False)


def describe(ref: str, cwd: Path = ROOT) -> str:
    """``ref`` as a short commit id (and the ref's name when it is not one already)."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", ref],
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ref
    return sha if ref in ("HEAD", sha) else f"{ref} {sha}"


def make_scan(path: Path, pages: int, dpi: int) -> Path:
    """A scanned PDF of ``pages`` pages of known prose (tests/scan_factory.py)."""
    from tests.scan_factory import make_scan_pdf

    make_scan_pdf(path, pages=pages, dpi=dpi, per_page=14)
    return path


def tmpdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="footnote-bench-real-"))
