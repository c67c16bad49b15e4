"""`footnote summarize DOC_ID [--json]` in-process, over a real library of a generated
40-page handbook (keyword-indexed only, so no embedding model loads: word centrality)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.config import Settings
from app.services.library import Library
from tests.fakes import HashEmbedder
from tests.summary_factory import make_long_pdf

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    tmp = tmp_path_factory.mktemp("cli_summary")
    lib = Library(Settings(library=tmp / "lib"), embedder=HashEmbedder())
    [result] = lib.ingest([make_long_pdf(tmp / "handbook.pdf", pages=40)], embed=False).results
    assert result.doc_id is not None
    return str(tmp / "lib"), result.doc_id


def test_summarize_json_carries_the_ask_fields(
    capsys: pytest.CaptureFixture[str], handbook: tuple[str, str]
) -> None:
    lib, doc_id = handbook
    assert main(["summarize", doc_id[:8], "--library", lib, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["kind"] == "summary" and obj["validation"]["status"] == "GREEN"
    assert obj["answer"].startswith("1 Soil and Compost\n")
    assert obj["citations"]
    for c in obj["citations"]:
        assert c["page"] >= 1 and c["quote"] and c["rects"]
        assert all(len(r) == 5 for r in c["rects"])
        assert f"[{c['n']}]" in obj["answer"]


def test_summarize_one_section_and_human_output(
    capsys: pytest.CaptureFixture[str], handbook: tuple[str, str]
) -> None:
    lib, doc_id = handbook
    assert main(["summarize", doc_id, "--library", lib, "--section", "chapter 2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2.1 Basics\n")
    assert "GREEN:" in out and "handbook.pdf, p. " in out


def test_summarize_unknown_document_or_section(
    capsys: pytest.CaptureFixture[str], handbook: tuple[str, str], tmp_path: Path
) -> None:
    lib, doc_id = handbook
    assert main(["summarize", "ffff", "--library", lib, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == "unknown_doc_id"
    assert main(["summarize", doc_id, "--library", lib, "--section", "volcanoes"]) == 1
    assert "Its sections: 1 Soil and Compost" in capsys.readouterr().err
