"""A Ray worker reads a file as the local ingest does: same parse options, same result.

The options come from one place (``Library.parse_options``, built by
``ParseOptions.from_settings``); ``RayIngest.worker_args`` is what each actor is built with.
These tests run the actor body (``IngestWorker``) in this process, without Ray; the real
cluster is exercised by tests/integration/test_team_ray.py.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from app.core.config import Settings
from app.ingest import ChunkParams, ParseOptions
from app.ingest.ocr import OcrOptions, available_languages
from app.ingest.ocr_pool import workers_for
from app.services.cluster import IngestWorker, RayIngest
from app.services.library import Library
from tests.fakes import HashEmbedder
from tests.scan_factory import SCAN_SENTENCES, make_scan_pdf

pytestmark = pytest.mark.unit

MISSING_LANGUAGE = "xyz"  # no Tesseract language has this name


def test_parse_options_follow_the_settings_and_pickle(tmp_path: Path) -> None:
    library = Library(Settings(library=tmp_path / "lib", ocr=False, ocr_languages="eng+deu"))
    options = library.parse_options
    assert options == ParseOptions(ChunkParams(), OcrOptions(enabled=False, languages="eng+deu"))
    assert pickle.loads(pickle.dumps(options)) == options  # Ray pickles actor arguments


def test_ray_workers_are_built_with_the_local_ingests_options(tmp_path: Path) -> None:
    library = Library(Settings(library=tmp_path / "lib", ocr_languages="deu"))
    job = RayIngest(library, threads_per_worker=2)
    # `footnote ingest --ray --no-ocr` changes the settings after the library is opened.
    library.settings = library.settings.model_copy(update={"ocr": False})
    embedder, threads, options = pickle.loads(pickle.dumps(job.worker_args()))
    assert (embedder, threads) == (None, 2)
    assert options == library.parse_options
    assert options.ocr == OcrOptions(enabled=False, languages="deu")


@pytest.mark.parametrize(
    ("update", "code"),
    [({"ocr": False}, "no_text"), ({"ocr_languages": MISSING_LANGUAGE}, "ocr_unavailable")],
)
def test_a_scan_fails_in_a_ray_worker_as_in_a_local_ingest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update: dict[str, object], code: str
) -> None:
    assert MISSING_LANGUAGE not in available_languages()
    monkeypatch.setattr("app.core.logs._configured", True)  # the actor sets up its own logging
    path, _ = make_scan_pdf(tmp_path / "scan.pdf", dpi=100, sentences=SCAN_SENTENCES[:3])
    library = Library(Settings(library=tmp_path / "lib", **update))
    (local,) = library.ingest([path], embed=False).results
    assert (local.status, local.error_code) == ("failed", code)

    worker = IngestWorker(*RayIngest(library).worker_args())
    prepared = worker.prepare(0, path.name, path.read_bytes())
    assert prepared.parsed is None
    assert (prepared.error, prepared.error_code) == (local.error, local.error_code)


def test_a_scan_read_by_ocr_on_a_ray_worker_gives_the_local_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.retrieval

    monkeypatch.setattr("app.core.logs._configured", True)
    monkeypatch.setattr(
        app.retrieval, "SentenceTransformerEmbedder", lambda *a, **k: HashEmbedder()
    )
    path, _ = make_scan_pdf(tmp_path / "scan.pdf", dpi=150, sentences=SCAN_SENTENCES[:3])
    local = Library(Settings(library=tmp_path / "local"), embedder=HashEmbedder())
    (expected,) = local.ingest([path], embed=False).results
    assert (expected.status, expected.ocr_pages) == ("added", 1)

    job = RayIngest(Library(Settings(library=tmp_path / "ray")))
    prepared = IngestWorker(*job.worker_args()).prepare(0, path.name, path.read_bytes())
    got = job._commit(path.resolve(), prepared)
    # the same result but for the stage timings, which each run measures for itself
    assert got.model_copy(update={"timings_ms": {}}) == expected.model_copy(
        update={"timings_ms": {}}
    )


def test_a_ray_worker_reads_scans_with_no_more_processes_than_its_cpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """OCR would start min(cores, 4) processes per actor; an actor gets ``threads`` CPUs."""
    monkeypatch.setenv("FOOTNOTE_OCR_WORKERS", "4")  # restored after the test
    one = IngestWorker(None, 1, ParseOptions())
    assert workers_for(40, one.options.ocr.max_workers) == 1
    two = IngestWorker(None, 2, ParseOptions())
    assert workers_for(40, two.options.ocr.max_workers) == 2
    assert os.environ["FOOTNOTE_OCR_WORKERS"] == "4", "the process environment is left alone"
