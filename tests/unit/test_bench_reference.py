"""The kept per-question summaries of the last reference eval run match their question sets,
and the comparison tool finds exactly the questions whose status or cited pages changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench import compare_runs
from tests.bench.question_set import SETS as QUESTION_SETS
from tests.bench.question_set import load_questions

pytestmark = pytest.mark.unit

REFERENCE = Path(compare_runs.__file__).with_name("reference")
SETS = {name: qs.questions for name, qs in QUESTION_SETS.items()}  # every set has one


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
    after["m067"]["status"] = "GREEN" if before["m067"]["status"] != "GREEN" else "YELLOW"
    path = tmp_path / "after.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in after.values()), encoding="utf-8")
    lines = compare_runs.differences(before, compare_runs.load(path))
    assert [line.split()[0] for line in lines] == ["m001", "m067"]
    assert compare_runs.differences(before, before) == []
