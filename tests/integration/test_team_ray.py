"""`footnote ingest --ray` on a real local Ray cluster (2 CPUs), into a local and an S3 library.

One cluster is started for the module (``ray start --head --num-cpus 2``: Ray's start-up is
the heavy part on this 2-core machine) and every CLI run joins it with ``--ray HOST:PORT``. The
folder holds real PDFs plus one corrupt file, which must fail alone; the result must equal
a plain `footnote ingest` of the same files: same documents, chunks and search results. The
user's parse settings reach the workers too: with ``--no-ocr`` a scan fails as it does locally.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.services.library import Library
from tests import pdf_factory as pf
from tests.integration.test_crash import make_big_pdf
from tests.s3_server import S3Library
from tests.scan_factory import make_scan_pdf

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
QUERIES = [
    pf.MANUAL_FACTS["calibration"].question,
    "Reference code R7-1 battery voltage",
    "left column text",
]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[dict[str, str]]:
    """A local Ray head with 2 CPUs, in its own process group (stopped by killing that group)."""
    pytest.importorskip("ray")
    tmp = tempfile.mkdtemp(prefix="ray-")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "disabled",  # a throwaway loopback cluster: no token to hand around
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    head = subprocess.Popen(
        [
            sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
            "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
            "--port", "0", "--temp-dir", tmp, "--node-ip-address", "127.0.0.1",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )  # fmt: skip
    address = ""
    assert head.stdout is not None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not address:
        line = head.stdout.readline()
        assert line, f"ray start ended early (rc={head.poll()})"
        if "ray.init(address=" in line or "--address=" in line:
            address = line.split("address=")[1].strip().strip("'\")")
    assert address, "ray start printed no address"
    try:
        yield {"address": address, "PYTHONPATH": str(REPO)}
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def pdf_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pdfs")
    pf.make_manual_pdf(folder / "manual.pdf")
    pf.make_two_column_pdf(folder / "two-column.pdf")
    make_big_pdf(folder / "report7.pdf", seed=7, pages=2)
    pf.make_corrupt_pdf(folder / "broken.pdf")
    return folder


def ray_ingest(
    folder: Path, library: str, cluster: dict[str, str], env: dict[str, str], *options: str
) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "ingest", str(folder), "--library", library,
         "--ray", cluster["address"], "--json", *options],
        cwd=REPO,
        env={**env, "PYTHONPATH": cluster["PYTHONPATH"], "RAY_AUTH_MODE": "disabled"},
        capture_output=True,
        text=True,
        timeout=900,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # 1: the broken file failed, the others did not
    return json.loads(proc.stdout)


def snapshot(lib: Library) -> dict:
    """Documents, chunks, vectors and search results of a library, for comparison."""
    docs = {d.doc_id: (d.title, d.pages, d.chunks, d.status, d.file) for d in lib.documents()}
    chunks = {
        doc_id: [
            (c.chunk_id, c.text, c.page_start, c.page_end) for c in lib.store.chunks_of(doc_id)
        ]
        for doc_id in docs
    }
    searches = {q: [h.chunk_id for h in lib.search(q, top_k=5)[0]] for q in QUERIES}
    return {"docs": docs, "chunks": chunks, "search": searches}


def check_results(data: dict, folder: Path) -> None:
    by_name = {Path(r["file"]).name: r for r in data["results"]}
    assert set(by_name) == {p.name for p in folder.iterdir()}
    assert by_name["broken.pdf"]["status"] == "failed"
    assert by_name["broken.pdf"]["error_code"] == "corrupt_pdf"
    assert all(r["status"] == "added" for n, r in by_name.items() if n != "broken.pdf")
    assert data["cluster"]["workers"] == 2


def test_ray_ingest_equals_plain_ingest_local_and_s3(
    ray_cluster: dict[str, str],
    pdf_folder: Path,
    s3_library: S3Library,
    tmp_path: Path,
    shared_embedder: Embedder,
) -> None:
    plain = Library(Settings(library=tmp_path / "plain"), embedder=shared_embedder)
    results = plain.ingest([pdf_folder]).results
    assert sorted(r.status for r in results) == ["added", "added", "added", "failed"]
    expected = snapshot(plain)

    local = tmp_path / "ray-local"
    data = ray_ingest(pdf_folder, str(local), ray_cluster, dict(os.environ))
    check_results(data, pdf_folder)
    got = snapshot(Library(Settings(library=local), embedder=shared_embedder))
    assert got == expected

    data = ray_ingest(pdf_folder, s3_library.uri, ray_cluster, s3_library.env)
    check_results(data, pdf_folder)
    remote = Library(Settings(library=s3_library.uri, read_only=True), embedder=shared_embedder)
    assert snapshot(remote) == expected
    # The workers' vectors are the plain ingest's (same model and text, other batches).
    for doc_id in expected["docs"]:
        ids = [c[0] for c in expected["chunks"][doc_id]]
        a = _vectors(plain, ids)
        b = _vectors(remote, ids)
        assert np.allclose(a, b, atol=1e-4)


def test_ray_ingest_with_ocr_off_refuses_a_scan_as_plain_ingest_does(
    ray_cluster: dict[str, str], tmp_path: Path
) -> None:
    """``--no-ocr`` reaches the workers: they refuse the scan instead of reading it by OCR,
    with the plain ingest's result (same words, same code). Parsing fails before anything is
    embedded, so the worker never loads the embedder: a cheap run."""
    folder = tmp_path / "scans"
    folder.mkdir()
    make_scan_pdf(folder / "letter.pdf", pages=1, dpi=150, per_page=3)
    plain = Library(Settings(library=tmp_path / "plain", ocr=False))
    (expected,) = plain.ingest([folder], embed=False).results
    assert (expected.status, expected.error_code) == ("failed", "no_text")
    assert "turned off" in (expected.error or "")

    data = ray_ingest(folder, str(tmp_path / "ray"), ray_cluster, dict(os.environ), "--no-ocr")
    assert data["results"] == [expected.model_dump(mode="json")]


def _vectors(lib: Library, chunk_ids: list[str]) -> np.ndarray:
    table = lib.store._vectors
    assert table is not None
    rows = table.search().select(["chunk_id", "vector"]).limit(None).to_arrow().to_pylist()
    by_id = {r["chunk_id"]: r["vector"] for r in rows}
    return np.array([by_id[c] for c in chunk_ids], dtype=np.float32)


def test_ray_without_ray_installed_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from app.cli.main import main\n"
        f"raise SystemExit(main(['ingest', {str(tmp_path)!r}, '--library', "
        f"{str(tmp_path / 'lib')!r}, '--ray']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1
    assert "pip install 'footnote[cluster]'" in proc.stderr
