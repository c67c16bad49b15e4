"""The kept per-question summaries of the last reference eval run match their question sets,
and the comparison tool finds exactly the questions whose status or cited pages changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench import compare_runs
from tests.bench.question_set import (
    CHATTY_QUESTIONS_PATH,
    EBIKE_QUESTIONS_PATH,
    FHS_QUESTIONS_PATH,
    HELDOUT_QUESTIONS_PATH,
    MAINT_QUESTIONS_PATH,
    MIXED_QUESTIONS_PATH,
    QUESTIONS_PATH,
    load_questions,
)

pytestmark = pytest.mark.unit

REFERENCE = Path(compare_runs.__file__).with_name("reference")
SETS = {
    "manuals": QUESTIONS_PATH,
    "mixed": MIXED_QUESTIONS_PATH,
    "chatty": CHATTY_QUESTIONS_PATH,
    "heldout": HELDOUT_QUESTIONS_PATH,
    "fhs": FHS_QUESTIONS_PATH,
    "ebike": EBIKE_QUESTIONS_PATH,
    "maint": MAINT_QUESTIONS_PATH,
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_each_reference_summary_covers_its_question_set(name: str) -> None:
    rows = compare_runs.load(REFERENCE / f"{name}.jsonl")
    questions = {q.id: q for q in load_questions(SETS[name])}
    assert set(rows) == set(questions)
    for qid, row in rows.items():
        assert row["answerable"] == questions[qid].answerable
        assert row["status"] in ("GREEN", "YELLOW", "RED", "REFUSED")
        assert (row["status"] == "REFUSED") == (row["kind"] == "refusal")


def test_compare_runs_names_exactly_the_changed_questions(tmp_path: Path) -> None:
    before = compare_runs.load(REFERENCE / "mixed.jsonl")
    after = {k: dict(v) for k, v in before.items()}
    after["m001"]["pages"] = [*after["m001"]["pages"], 99]
    after["m067"]["status"] = "REFUSED"
    path = tmp_path / "after.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in after.values()), encoding="utf-8")
    lines = compare_runs.differences(before, compare_runs.load(path))
    assert [line.split()[0] for line in lines] == ["m001", "m067"]
    assert compare_runs.differences(before, before) == []
