"""Follow-up questions with the real parts: a fact sheet ingested into LanceDB, the real
embedder, the embedded 135M model, the real validator."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.models import Answer
from app.core.protocols import Embedder, Turn
from app.services.ask import AskService
from app.services.conversation import Conversation
from app.services.library import Library
from tests.conversation_factory import make_fact_sheet_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MEN = "Roughly how many men in Australia find out they have breast cancer each year?"
MEN_PAGE = 2


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> Library:
    root = tmp_path_factory.mktemp("conversation")
    library = Library(Settings(library=root / "library"), embedder=shared_embedder)
    results = library.ingest([make_fact_sheet_pdf(root / "facts.pdf")]).results
    assert [r.status for r in results] == ["added"]
    return library


@pytest.fixture(scope="module")
def service(lib: Library) -> AskService:
    return AskService(lib, lib.settings)


def assert_cites_only_retrieved(answer: Answer, lib: Library) -> None:
    retrieved = {s.n: s.chunk_id for s in answer.sources}
    chunks = {c.chunk_id: c for c in lib.chunks([c.chunk_id for c in answer.citations])}
    for c in answer.citations:
        assert retrieved[c.n] == c.chunk_id
        assert chunks[c.chunk_id].text[c.start : c.end] == c.quote
        assert c.rects


def test_a_follow_up_is_searched_and_checked_as_understood(
    service: AskService, lib: Library
) -> None:
    talk = Conversation(service)
    first = talk.ask(MEN)
    assert first.understood_as is None and first.question == MEN
    follow = talk.ask("How old are most of them?")
    assert follow.question == "How old are most of them?"
    assert follow.understood_as is not None
    assert "men in Australia" in follow.understood_as
    # the search ran for the question as understood: the men's page is found
    top5 = {s.page_start for s in follow.sources[:5]}
    assert MEN_PAGE in top5
    assert follow.mode == "answer" and follow.citations
    assert_cites_only_retrieved(follow, lib)
    assert any("over 60 years old" in c.quote for c in follow.citations)
    # the same sources as the question written out in full, searched after the first one
    assert follow.context == MEN
    direct = service.ask(follow.understood_as, context=MEN)
    assert [s.chunk_id for s in direct.sources] == [s.chunk_id for s in follow.sources]


SYMPTOM = "What symptom is usually noticed first?"


def test_a_follow_up_no_rule_recognises_is_searched_with_the_previous_question(
    service: AskService, lib: Library
) -> None:
    """No pronoun, no "and": the rules leave it as typed, but it continues the men's topic,
    and the search with the previous question puts the men's page first."""
    alone = service.ask(SYMPTOM)
    assert alone.sources[0].page_start != MEN_PAGE  # the question alone finds another page
    talk = Conversation(service)
    talk.ask(MEN)
    follow = talk.ask(SYMPTOM)
    assert follow.understood_as is None and follow.question == SYMPTOM
    assert follow.context == MEN
    assert follow.sources[0].page_start == MEN_PAGE
    assert [s.n for s in follow.sources] == list(range(1, len(follow.sources) + 1))
    assert_cites_only_retrieved(follow, lib)


def test_a_question_on_a_new_topic_keeps_its_own_best_page(service: AskService) -> None:
    question = "Who is offered a free screening mammogram?"
    alone = service.ask(question)
    talk = Conversation(service)
    talk.ask(MEN)
    switched = talk.ask(question)
    assert switched.context == MEN and switched.understood_as is None
    assert switched.sources[0].chunk_id == alone.sources[0].chunk_id


def test_a_standalone_question_is_asked_exactly_as_typed(service: AskService) -> None:
    talk = Conversation(service)
    talk.ask(MEN)
    question = "Who is offered a free screening mammogram?"
    answer = talk.ask(question)
    assert answer.understood_as is None
    assert answer.question == question
    assert answer.model_dump(mode="json")["understood_as"] is None


def test_a_chain_of_three_turns_and_a_new_conversation(service: AskService) -> None:
    talk = Conversation(service)
    talk.ask(MEN)
    women = talk.ask("And for women?")
    assert women.understood_as is not None and "women in Australia" in women.understood_as
    assert 1 in {s.page_start for s in women.sources[:5]}
    age = talk.ask("How old are most of them?")
    assert age.understood_as is not None and "women" in age.understood_as
    assert age.context == women.understood_as
    talk.reset()
    alone = talk.ask("How old are most of them?")
    assert alone.understood_as is None and alone.context is None


def test_a_larger_model_may_rewrite_through_the_protocol(service: AskService) -> None:
    class Rewriter:
        def rewrite(self, question: str, history: list[Turn]) -> str | None:
            return "How old are most men diagnosed with breast cancer in Australia?"

    talk = Conversation(service, rewriter=Rewriter())
    talk.ask(MEN)
    answer = talk.ask("How old are most of them?")
    assert answer.understood_as == "How old are most men diagnosed with breast cancer in Australia?"
    assert MEN_PAGE in {s.page_start for s in answer.sources[:5]}


def test_a_conversation_restarted_from_saved_answers_goes_on(
    service: AskService, tmp_path: Path
) -> None:
    first = Conversation(service).ask(MEN)
    saved = Answer.model_validate_json(first.model_dump_json())
    talk = Conversation(service, turns=[saved])
    assert talk.understand("Why?") == (
        "Why do men in Australia find out they have breast cancer each year?"
    )
