"""The conversation asks a follow-up as understood (app.services.conversation): the ask service
searches, prompts with and checks the question as understood, so the answer's citations can
only name what was retrieved for it; the answer keeps both forms. A recording asker stands in
for the ask service (the integration tests run the real one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.models import Answer, Citation, Source, Validation
from app.services.conversation import Conversation


class RecordingAsker:
    def __init__(self, cited: Sequence[str] = (), shown: Sequence[str] = ()) -> None:
        self.asked: list[str] = []
        self.about: list[list[str]] = []
        self.cited = cited  # the documents each answer cites
        self.shown = shown  # and those of the passages it shows

    def ask(self, question: str, *, about: Sequence[str] = (), **_: Any) -> Answer:
        self.asked.append(question)
        self.about.append(list(about))
        return Answer(
            question=question,
            mode="answer" if self.cited else "refuse",
            kind="generated" if self.cited else "refusal",
            answer="Apply online [1]." if self.cited else "The documents do not say.",
            citations=[citation(d) for d in self.cited],
            sources=[source(i, d) for i, d in enumerate(self.shown, start=1)],
            validation=Validation(status="GREEN" if self.cited else "RED"),
        )


def source(n: int, doc_id: str) -> Source:
    return Source(
        n=n, rank=n, chunk_id=f"{doc_id}-{n}", doc_id=doc_id, file=f"{doc_id}.pdf",
        title=doc_id, page_start=1, page_end=1, section="", score=0.2, text="Apply online.",
    )  # fmt: skip


def citation(doc_id: str) -> Citation:
    return Citation(
        n=1, chunk_id=f"{doc_id}-1", doc_id=doc_id, file=f"{doc_id}.pdf", page=1, section="",
        quote="Apply online.", match="exact", score=100.0, start=0, end=13,
    )  # fmt: skip


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


def test_a_follow_up_prefers_the_documents_the_previous_answer_cited() -> None:
    asker = RecordingAsker(cited=["leave", "forms", "leave", "extra"], shown=["other"])
    talk = Conversation(asker)
    talk.ask(CLAIM)
    talk.ask("Where do I apply?")
    talk.ask("Which documents do I need to claim the parental leave payment?")  # standalone
    assert asker.about == [[], ["leave", "forms"], []]


def test_a_follow_up_to_a_refusal_prefers_the_document_of_its_closest_passage() -> None:
    asker = RecordingAsker(shown=["near", "far"])
    talk = Conversation(asker)
    talk.ask(CLAIM)
    talk.ask("Where do I apply?")
    assert asker.about == [[], ["near"]]
