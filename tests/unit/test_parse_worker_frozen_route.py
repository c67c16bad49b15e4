"""The frozen bundle starts its parse worker through its own executable (no ``python -m``).

``app.ingest.worker.worker_command`` gives ``[sys.executable, WORKER_ARG, max_bytes]`` when
frozen, and ``app.launch.run`` routes that argument to the worker. Here the same route runs
from source (``python -m app --footnote-parse-worker``, which is what the bundle's executable
runs): a real PDF is parsed in that child. ``make package-test`` checks it in the bundle.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app import launch
from app.ingest import worker
from app.ingest.worker import ParseWorker
from tests.pdf_factory import make_manual_pdf

pytestmark = pytest.mark.unit


def test_frozen_command_runs_the_bundle_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert worker.worker_command(1 << 30) == [sys.executable, worker.WORKER_ARG, str(1 << 30)]
    assert launch.PARSE_WORKER_ARG == worker.WORKER_ARG


def test_launcher_route_parses_a_pdf_in_a_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = make_manual_pdf(tmp_path / "manual.pdf")
    # what the bundle's executable does with the worker argument, from source
    monkeypatch.setattr(
        worker,
        "worker_command",
        lambda max_bytes: [sys.executable, "-m", "app", worker.WORKER_ARG, str(max_bytes)],
    )
    with ParseWorker() as pw:
        parsed = pw.parse(pdf)
        assert pw._proc is not None and pw._proc.poll() is None  # a live child did it
    assert parsed.chunks and parsed.document.pages >= 1
