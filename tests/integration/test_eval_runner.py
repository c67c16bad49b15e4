"""``make eval`` end to end on the checked-in longtable manual: real ingest, embedder, LanceDB,
and (in the slow test) the real embedded chat model through AskService."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.eval_answers import main
from tests.bench.question_set import QUESTIONS_PATH, load_questions

pytestmark = pytest.mark.integration


def _longtable_questions(tmp_path: Path, n_unanswerable: int = 2) -> Path:
    """The longtable questions of the real set plus a few unanswerable ones, as a JSONL file."""
    qs = load_questions(QUESTIONS_PATH)
    chosen = [q for q in qs if q.doc == "longtable.pdf" and q.answerable]
    # Unanswerable questions name a document only as a topic; point them at the one we have.
    chosen += [q.model_copy(update={"doc": "longtable.pdf"}) for q in qs if not q.answerable][
        :n_unanswerable
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(q.model_dump_json() + "\n" for q in chosen), encoding="utf-8")
    return path


def test_retrieval_only_run_writes_report(
    tmp_path: Path, data_dir: Path, cli_embedder: object, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = _longtable_questions(tmp_path)
    out = tmp_path / "eval.json"
    args = ["--corpus", str(data_dir), "--questions", str(questions), "--out", str(out)]
    assert main([*args, "--retrieval-only", "--library", str(tmp_path / "lib")]) == 0

    report = json.loads(out.read_text(encoding="utf-8"))["sets"]["custom"]
    s = report["summary"]
    n_answerable = sum(1 for q in load_questions(questions) if q.answerable)
    assert s["answerable"] == n_answerable and s["unanswerable"] == 2 and s["asked"] == 0
    assert s["retrieval"]["questions"] == n_answerable
    # Every question is about this one manual; the right page should nearly always be found.
    assert s["retrieval"]["recall@8"] >= 0.8
    assert s["retrieval"]["recall@5"] <= s["retrieval"]["recall@8"]
    first = report["questions"][0]
    assert first["retrieved"] and first["retrieved"][0].startswith("longtable.pdf p")
    assert "recall@5" in capsys.readouterr().out


@pytest.mark.slow
def test_asking_reports_answers_and_no_invalid_citations(
    tmp_path: Path, data_dir: Path, cli_embedder: object
) -> None:
    questions = _longtable_questions(tmp_path, n_unanswerable=1)
    ids = [q.id for q in load_questions(questions)]
    out = tmp_path / "eval.json"
    args = ["--corpus", str(data_dir), "--questions", str(questions), "--out", str(out)]
    code = main([*args, "--ids", f"{ids[0]},{ids[-1]}", "--top-k", "5"])

    report = json.loads(out.read_text(encoding="utf-8"))["sets"]["custom"]
    s = report["summary"]
    assert code == 0 and s["errors"] == 0
    assert s["asked"] == 2 and report["config"]["top_k"] == 5
    assert s["citations"]["invalid_shown"] == 0
    assert sum(v for v in s["kinds"].values() if v) == pytest.approx(1.0)
    assert s["latency_ms"]["total"]["n"] == 2 and s["latency_ms"]["total"]["p50"] > 0
    for q in report["questions"]:
        assert q["kind"] in ("generated", "extractive", "refusal")
        assert all(c["verbatim"] for c in q["citations"])


@pytest.mark.slow
def test_mixed_set_is_generated_and_reported_on_its_own(
    tmp_path: Path, cli_embedder: object, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """``--set mixed`` writes its PDFs, builds its own library and reports under its own name."""
    from tests.bench import question_set

    corpus = tmp_path / "corpus-mixed"
    mixed = question_set.SETS["mixed"]
    monkeypatch.setitem(
        question_set.SETS,
        "mixed",
        question_set.QuestionSet(mixed.name, mixed.questions, corpus, True, mixed.description),
    )
    out = tmp_path / "eval.json"
    lib = tmp_path / "lib"
    args = ["--set", "mixed", "--retrieval-only", "--limit", "8", "--library", str(lib)]
    assert main([*args, "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert list(report["sets"]) == ["mixed"]
    assert (lib / "mixed").is_dir() and len(list(corpus.glob("*.pdf"))) == 5
    s = report["sets"]["mixed"]["summary"]
    assert s["questions"] == 8 and s["retrieval"]["recall@8"] >= 0.8
    assert "=== mixed" in capsys.readouterr().out
