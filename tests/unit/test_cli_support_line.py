"""The CLI's support line under an answer's status: it never contradicts the status."""

from __future__ import annotations

import pytest

from app.cli.cmd_ask import support_line
from app.core.models import Support, Validation
from tests import answer_factory as af

pytestmark = pytest.mark.unit


def _support(**overrides: object) -> Support:
    fields: dict[str, object] = {
        "score": 0.62,
        "covered": ["prompt", "string"],
        "missing": ["default"],
        "probability": 0.931,
    }
    fields.update(overrides)
    return Support(**fields)  # type: ignore[arg-type]


def test_a_green_answer_lists_nothing_missing() -> None:
    answer = af.answer(validation=Validation(status="GREEN", support=_support()))
    line = support_line(answer)
    assert line == (
        "Support 0.62, estimated 93% likely to answer the question: covers prompt, string"
    )


def test_a_yellow_answer_says_what_its_quotes_lack() -> None:
    answer = af.answer(validation=Validation(status="YELLOW", support=_support(probability=0.41)))
    line = support_line(answer)
    assert line is not None
    assert "estimated 41% likely" in line and line.endswith("; missing default")


def test_a_refusal_shows_no_estimate() -> None:
    refused = af.answer(
        kind="refusal",
        mode="refuse",
        answer="The documents don't answer this.",
        citations=[],
        validation=Validation(status="REFUSED", support=_support(probability=0.2)),
    )
    line = support_line(refused)
    assert line == "Support 0.62: covers prompt, string; missing default"
    assert support_line(af.answer()) is None  # no support check: no line
