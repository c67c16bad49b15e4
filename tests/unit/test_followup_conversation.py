"""The conversation asks a follow-up as understood (app.services.conversation): the ask service
searches, prompts with and checks the question as understood, so the answer's citations can
only name what was retrieved for it; the answer keeps both forms. A recording asker stands in
for the ask service (the integration tests run the real one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.models import Answer, Validation
from app.services.conversation import Conversation


class RecordingAsker:
    def __init__(self) -> None:
        self.asked: list[str] = []
        self.contexts: list[str | None] = []

    def ask(self, question: str, *, context: str | None = None, **_: Any) -> Answer:
        self.asked.append(question)
        self.contexts.append(context)
        return Answer(
            question=question,
            mode="refuse",
            kind="refusal",
            answer="The documents do not say.",
            validation=Validation(status="RED"),
        )


CLAIM = "How do I claim the parental leave payment?"


def _talk(questions: Sequence[str]) -> tuple[Conversation, RecordingAsker, list[Answer]]:
    asker = RecordingAsker()
    talk = Conversation(asker)
    return talk, asker, [talk.ask(q) for q in questions]


def test_a_follow_up_is_asked_as_understood_and_keeps_what_was_typed() -> None:
    _, asker, answers = _talk([CLAIM, "Where do I apply?"])
    assert asker.asked == [CLAIM, "Where do I apply (about the parental leave payment)?"]
    assert answers[1].question == "Where do I apply?"
    assert answers[1].understood_as == asker.asked[1]
    assert answers[0].understood_as is None


def test_a_standalone_question_is_asked_exactly_as_typed() -> None:
    question = "Which documents do I need to claim the parental leave payment?"
    _, asker, answers = _talk([CLAIM, question])
    assert asker.asked[1] == question and answers[1].understood_as is None


def test_the_subject_carries_through_a_three_turn_conversation() -> None:
    _, asker, _ = _talk([CLAIM, "Where do I apply?", "Is there a deadline?"])
    assert asker.asked[2] == "Is there a deadline (about the parental leave payment)?"


def test_a_new_conversation_leans_on_nothing() -> None:
    talk, asker, _ = _talk([CLAIM])
    talk.reset()
    talk.ask("Where do I apply?")
    assert asker.asked[-1] == "Where do I apply?"


def test_a_summary_request_is_never_rewritten() -> None:
    talk, _, _ = _talk([CLAIM])
    assert talk.understand("Summarise it") is None


def test_every_question_after_the_first_is_searched_with_the_previous_one_as_understood() -> None:
    standalone = "Which documents do I need to claim the parental leave payment?"
    talk, asker, answers = _talk([CLAIM, "Where do I apply?", standalone])
    assert asker.contexts == [None, CLAIM, "Where do I apply (about the parental leave payment)?"]
    assert [a.context for a in answers] == asker.contexts
    talk.reset()
    talk.ask(standalone)
    assert asker.contexts[-1] is None


def test_a_summary_request_is_searched_alone() -> None:
    talk, asker, _ = _talk([CLAIM])
    assert talk.context("Summarise it") is None
    assert talk.context("Where do I apply?") == CLAIM
