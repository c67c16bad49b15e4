"""`footnote chat`: one question per line on stdin, the window's conversation logic, one
JSON object per answer, and the conversation exported (real PDF, LanceDB, embedder, model)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.cli.main import main
from tests.conversation_factory import make_fact_sheet_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MEN = "Roughly how many men in Australia find out they have breast cancer each year?"


def test_chat_understands_follow_ups_and_exports(
    capsys: pytest.CaptureFixture[str],
    cli_embedder: object,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lib = str(tmp_path / "lib")
    assert main(["ingest", "--library", lib, str(make_fact_sheet_pdf(tmp_path / "f.pdf"))]) == 0
    capsys.readouterr()
    lines = f"{MEN}\n\nHow old are most of them?\n/new\nHow old are most of them?\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    export = tmp_path / "talk.md"
    code = main(["chat", "--library", lib, "--json", "--export", str(export)])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 3
    ask_keys = {"question", "mode", "kind", "answer", "citations", "sources", "validation"}
    assert all(ask_keys | {"understood_as"} <= set(r) for r in rows)
    assert rows[0]["understood_as"] is None
    assert "men in Australia" in rows[1]["understood_as"]
    assert rows[1]["question"] == "How old are most of them?"
    cited = {s["n"]: s["chunk_id"] for s in rows[1]["sources"]}
    assert all(cited[c["n"]] == c["chunk_id"] and c["rects"] for c in rows[1]["citations"])
    assert rows[2]["understood_as"] is None  # /new started afresh
    # what each answer was searched with besides itself: the previous question, as understood
    assert [r["context"] for r in rows] == [None, MEN, None]
    md = export.read_text(encoding="utf-8")
    assert "Understood as: " in md and "[^1]: f.pdf, page 2" in md

    monkeypatch.setattr("sys.stdin", io.StringIO(f"{MEN}\nwhy?\n"))
    assert main(["chat", "--library", lib, "--export", str(tmp_path / "talk.html")]) == 0
    text, _ = capsys.readouterr()
    assert "Understood as: Why do men in Australia" in text
    assert "<li id='fn1'>" in (tmp_path / "talk.html").read_text(encoding="utf-8")


def test_chat_refuses_an_export_it_cannot_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["chat", "--library", str(tmp_path), "--export", str(tmp_path / "x.pdf")]) == 2
    assert "must end in .md or .html" in capsys.readouterr().err
