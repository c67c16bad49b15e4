"""parse_raw_answer, the streaming answer extractor and loop detection."""

from __future__ import annotations

import json

import pytest

from app.core.errors import GenerationError
from app.core.models import RawAnswer, RawCitation
from app.generation.grammar import ANSWER_FIRST, CITATIONS_FIRST, answer_json
from app.generation.parsing import AnswerStreamer, is_degenerate, is_looping, parse_raw_answer

pytestmark = pytest.mark.unit

RAW = RawAnswer(
    mode="answer",
    answer='It takes "12 V" \\ DC, caf\u00e9 \U0001f600 [1].',
    citations=[
        RawCitation(source=1, quote='The "answer": "no" key \\ inside a quote.'),
        RawCitation(source=2, quote="Second."),
    ],
)


def test_parse_roundtrip() -> None:
    for order in (CITATIONS_FIRST, ANSWER_FIRST):
        assert parse_raw_answer(answer_json(RAW, order)) == RAW


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "nothing"),
        ("   ", "nothing"),
        ('{"mode": "answer", "citations": [], "answer": "cut', "not valid JSON"),
        ("not json at all", "not valid JSON"),
        ('{"mode": "maybe", "answer": "x", "citations": []}', "mode"),
        (
            '{"mode": "answer", "citations": [{"source": "one", "quote": "q"}], "answer": "a"}',
            "citations.0.source",
        ),
        ('{"mode": "answer"}', "answer"),
        ("[1, 2]", "schema"),
    ],
)
def test_parse_bad_json_gives_readable_error(text: str, needle: str) -> None:
    with pytest.raises(GenerationError) as err:
        parse_raw_answer(text)
    assert needle in str(err.value)


def _stream(text: str, sizes: list[int]) -> tuple[str, AnswerStreamer]:
    s = AnswerStreamer()
    out, i, k = [], 0, 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        out.append(s.feed(text[i : i + n]))
        i += n
        k += 1
    return "".join(out), s


@pytest.mark.parametrize("sizes", [[1], [2], [3, 1, 7], [5], [1000]])
@pytest.mark.parametrize("order", [CITATIONS_FIRST, ANSWER_FIRST])
def test_streamer_emits_exactly_the_answer(sizes: list[int], order: tuple[str, ...]) -> None:
    text = answer_json(RAW, order)
    streamed, s = _stream(text, sizes)
    assert streamed == RAW.answer
    assert s.done


def test_streamer_handles_unicode_escapes_split_across_pieces() -> None:
    text = json.dumps(RAW.model_dump(), ensure_ascii=True)  # \u00e9 and a surrogate pair
    streamed, _ = _stream(text, [1])
    assert streamed == RAW.answer


def test_streamer_ignores_nested_answer_keys_and_partial_output() -> None:
    text = '{"mode": "answer", "citations": [{"answer": "nested", "quote": "q"}], "answer": "Top'
    streamed, s = _stream(text, [4])
    assert streamed == "Top"
    assert not s.done


def test_looping_and_degenerate() -> None:
    loop = "The widget needs power. " + "The power is the power of the widget. " * 4
    assert is_looping(loop)
    assert is_degenerate(loop)
    good = "The Zephyr 3000 records up to 64 channels at 200 samples per second [1]."
    assert not is_looping(good)
    assert not is_degenerate(good)
    for bad in ("", "[1]", "... [1] [2]", "1 2 3 4 5 6 7 8 9 [1]", "1.5.1.1.1.1.1.1 [1]", "x [1]"):
        assert is_degenerate(bad), bad
    for fine in ("18 months [1].", "Type K and type J [2].", "It costs 1000000 dollars [1]."):
        assert not is_degenerate(fine), fine
