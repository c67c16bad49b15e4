"""The `footnote` CLI contract: names, exit codes and JSON shapes (real PDFs, LanceDB, embedder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import main
from tests import pdf_factory as pf

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
HIT_KEYS = {
    "rank",
    "chunk_id",
    "doc_id",
    "file",
    "title",
    "page_start",
    "page_end",
    "section",
    "score",
    "text",
    "keyword_rank",
    "vector_rank",
}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def lib_dir(tmp_path: Path) -> str:
    return str(tmp_path / "lib")


@pytest.fixture
def manual(tmp_path: Path) -> Path:
    return pf.make_manual_pdf(tmp_path / "manual.pdf")


def test_ingest_json_exit_codes_and_statuses(
    capsys: pytest.CaptureFixture[str], cli_embedder: object, lib_dir: str, manual: Path
) -> None:
    code, out, _ = run_cli(capsys, "ingest", str(manual), "--library", lib_dir, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"results", "timings_ms"}
    [r] = data["results"]
    assert set(r) >= {"file", "status", "doc_id", "pages", "chunks", "error"}
    assert (r["status"], r["pages"], r["error"]) == ("added", 5, None)
    assert r["file"] == str(manual.resolve()) and r["chunks"] > 0

    bad = pf.make_encrypted_pdf(manual.parent / "locked.pdf")
    code, out, _ = run_cli(capsys, "ingest", str(manual), str(bad), "--library", lib_dir, "--json")
    assert code == 1
    statuses = {Path(x["file"]).name: x for x in json.loads(out)["results"]}
    assert statuses["manual.pdf"]["status"] == "unchanged"
    assert statuses["locked.pdf"]["status"] == "failed"
    assert "password" in statuses["locked.pdf"]["error"]

    pf.make_manual_pdf(manual, title="Revised manual")
    code, out, _ = run_cli(capsys, "ingest", str(manual), "--library", lib_dir, "--json")
    assert code == 0 and json.loads(out)["results"][0]["status"] == "updated"


def test_ingest_human_summary_names_failures(
    capsys: pytest.CaptureFixture[str], cli_embedder: object, lib_dir: str, manual: Path
) -> None:
    scan = pf.make_photo_pdf(manual.parent / "scan.pdf")
    code, out, err = run_cli(capsys, "ingest", str(manual), str(scan), "--library", lib_dir)
    assert code == 1
    assert "1 added, 1 failed" in out
    assert "scan.pdf" in out and "OCR" in out
    assert "manual.pdf" in err  # progress on stderr


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], lib_dir: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["ingest", "--library", lib_dir])
    assert exc.value.code == 2
    code, _, err = run_cli(capsys, "search", "--library", lib_dir)
    assert code == 2 and "QUERY" in err
    code, _, _ = run_cli(capsys, "search", "x", "--top-k", "0", "--library", lib_dir)
    assert code == 2


def test_docs_remove_and_search(
    capsys: pytest.CaptureFixture[str], cli_embedder: object, lib_dir: str, manual: Path
) -> None:
    code, out, _ = run_cli(capsys, "docs", "--library", lib_dir, "--json")
    assert code == 0 and json.loads(out) == {"documents": []}
    run_cli(capsys, "ingest", str(manual), "--library", lib_dir, "--json")

    code, out, _ = run_cli(capsys, "docs", "--library", lib_dir, "--json")
    [doc] = json.loads(out)["documents"]
    assert set(doc) >= {"doc_id", "file", "title", "pages", "chunks", "ingested_at"}
    assert doc["title"] == pf.MANUAL_TITLE and doc["status"] == "ready"
    code, out, _ = run_cli(capsys, "docs", "--library", lib_dir)
    assert code == 0 and doc["doc_id"] in out and pf.MANUAL_TITLE in out

    fact = pf.MANUAL_FACTS["e17"]
    code, out, _ = run_cli(
        capsys, "search", fact.question, "--library", lib_dir, "--top-k", "3", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["query"] == fact.question
    assert set(data["timings_ms"]) == {"embed", "search", "total"}
    assert 0 < len(data["hits"]) <= 3
    assert all(set(h) == HIT_KEYS for h in data["hits"])
    assert any(fact.answer in h["text"] for h in data["hits"])
    code, out, _ = run_cli(capsys, "search", fact.question, "--library", lib_dir)
    assert code == 0 and "[1]" in out and pf.MANUAL_TITLE in out

    code, _, err = run_cli(capsys, "remove", "0000000000000000", "--library", lib_dir)
    assert code == 1 and "No document with id" in err
    code, out, _ = run_cli(capsys, "remove", doc["doc_id"], "--library", lib_dir)
    assert code == 0 and "Removed" in out
    code, out, _ = run_cli(capsys, "docs", "--library", lib_dir, "--json")
    assert json.loads(out) == {"documents": []}


def test_search_batch_prints_json_lines(
    capsys: pytest.CaptureFixture[str],
    cli_embedder: object,
    lib_dir: str,
    manual: Path,
    tmp_path: Path,
) -> None:
    run_cli(capsys, "ingest", str(manual), "--library", lib_dir, "--json")
    keys = ["channels", "burst", "temperature"]
    batch = tmp_path / "queries.txt"
    batch.write_text("\n".join(pf.MANUAL_FACTS[k].question for k in keys) + "\n\n")
    code, out, _ = run_cli(capsys, "search", "--batch", str(batch), "--library", lib_dir)
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 3
    for key, line in zip(keys, lines, strict=True):
        obj = json.loads(line)
        assert obj["query"] == pf.MANUAL_FACTS[key].question
        assert any(pf.MANUAL_FACTS[key].answer in h["text"] for h in obj["hits"])


def test_python_dash_m_app_works_the_same(tmp_path: Path, manual: Path) -> None:
    """Real subprocesses: `python -m app ingest` (keyword index only) then `docs`."""
    env = {**os.environ, "FOOTNOTE_LIBRARY": str(tmp_path / "envlib")}
    proc = subprocess.run(
        [sys.executable, "-m", "app", "ingest", str(manual), "--json", "--no-embed"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    [r] = json.loads(proc.stdout)["results"]
    assert r["status"] == "added"
    proc = subprocess.run(
        [sys.executable, "-m", "app", "docs", "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0
    [doc] = json.loads(proc.stdout)["documents"]
    assert (doc["doc_id"], doc["status"]) == (r["doc_id"], "indexed")
    missing = subprocess.run(
        [sys.executable, "-m", "app", "ingest", str(tmp_path / "nope.pdf"), "--no-embed"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode == 1 and "nope.pdf" in missing.stdout


def test_ctrl_c_cancels_politely_and_keeps_finished_files(tmp_path: Path) -> None:
    """SIGINT during `python -m app ingest`: the current file finishes, the rest are skipped,
    the summary says so, and the library stays consistent and resumable."""
    import signal

    from app.store import Store
    from tests.integration.test_crash import make_big_pdf, wait_for_line

    folder = tmp_path / "reports"
    folder.mkdir()
    for i in range(8):
        make_big_pdf(folder / f"r{i}.pdf", seed=100 + i)
    lib = tmp_path / "lib"
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ingest", str(folder), "--library", str(lib), "--no-embed"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_line(proc, "2/")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "Cancelled" in out
    docs = Store(lib).documents()
    assert 1 <= len(docs) < 8
    assert all(d.chunks > 0 for d in docs)
