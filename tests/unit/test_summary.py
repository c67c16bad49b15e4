"""Summaries with citations: which questions ask for one, and the outline itself over a real
generated 100-page PDF in a real LanceDB library (hash embedder, so it stays fast): it covers
the document's top-level sections, and every sentence is a verified citation with rectangles.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import Cancelled
from app.core.progress import CancelToken, Progress
from app.services.ask import AskService
from app.services.library import Library
from app.services.summary import (
    WHICH_DOCUMENT_TEXT,
    Summarizer,
    SummaryRequest,
    match_section,
    section_path,
    summary_request,
    top_sections,
)
from tests.fakes import FakeLibrary, HashEmbedder, ScriptedModel
from tests.summary_factory import CHAPTERS, TOPICS, make_long_pdf

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "target"),
    [
        ("What is this document about?", ""),
        ("what's the paper about", ""),
        ("Summarise this document", ""),
        ("Summarize it please.", ""),
        ("Can you summarise the report?", ""),
        ("Give me a short summary", ""),
        ("Give me an overview of this document", ""),
        ("Summary", ""),
        ("tl;dr", ""),
        ("Summarise chapter 3", "chapter 3"),
        ("What is chapter 3 about?", "chapter 3"),
        ("Summarize the installation section", "installation section"),
        ("Give me a summary of Fruit Trees", "Fruit Trees"),
        ("What does section 2 cover?", "section 2"),
    ],
)
def test_summary_questions_are_recognised(question: str, target: str) -> None:
    assert summary_request(question) == SummaryRequest(target=target)


@pytest.mark.parametrize(
    "question",
    [
        "How often must the air filter be cleaned?",
        "What is the warranty about?",  # "about" alone asks nothing of a document
        "What does the fare cost?",
        "Which summary statistics are reported?",
        "Why?",
    ],
)
def test_other_questions_are_not_summaries(question: str) -> None:
    assert summary_request(question) is None


def test_match_section_by_number_order_or_words() -> None:
    sections = ["1 Soil and Compost", "2 Watering Systems", "3 Fruit Trees"]
    assert match_section("chapter 3", sections) == "3 Fruit Trees"
    assert match_section("2", sections) == "2 Watering Systems"
    assert match_section("fruit trees", sections) == "3 Fruit Trees"
    assert match_section("chapter 9", sections) is None
    assert match_section("volcanoes", sections) is None
    assert match_section("chapter 2", ["Introduction", "Methods", "Results"]) == "Methods"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    tmp = tmp_path_factory.mktemp("summary")
    lib = Library(Settings(library=tmp / "lib"), embedder=HashEmbedder())
    [result] = lib.ingest([make_long_pdf(tmp / "handbook.pdf", pages=100)]).results
    assert result.status == "added"
    return lib


def _assert_verified(answer, lib: Library) -> None:  # type: ignore[no-untyped-def]
    """Every citation is the chunk's own text at its span, with rectangles, on its page."""
    assert answer.citations and answer.validation.status == "GREEN"
    assert answer.validation.dropped == []
    chunks = {c.chunk_id: c for c in lib.chunks([c.chunk_id for c in answer.citations])}
    for c in answer.citations:
        chunk = chunks[c.chunk_id]
        assert chunk.text[c.start : c.end] == c.quote and c.match == "exact"
        assert c.rects and all(r[0] == c.page or r[0] == c.page + 1 for r in c.rects)
        assert f"[{c.n}]" in answer.answer
    assert {s.n for s in answer.sources} == {c.n for c in answer.citations}


def test_summary_of_a_100_page_document_covers_its_sections_with_verified_citations(
    library: Library,
) -> None:
    doc = library.documents()[0]
    seen: list[Progress] = []
    answer = Summarizer(library).summarize(doc.doc_id, on_progress=seen.append)
    assert answer.kind == "summary" and answer.mode == "answer"
    _assert_verified(answer, library)
    sections = top_sections(library.chunks_of(doc.doc_id, charmap=False))
    assert len(sections) == CHAPTERS
    covered = {section_path_of(c.section) for c in answer.citations}
    assert len(covered & set(sections)) / len(sections) >= 0.8
    for s in sections:  # the outline names each covered section, in document order
        if s in covered:
            assert f"{s}\n" in answer.answer
    per_section = {
        s: sum(section_path_of(c.section) == s for c in answer.citations) for s in covered
    }
    assert all(1 <= k <= 3 for k in per_section.values())
    assert seen and seen[-1].done == seen[-1].total


def section_path_of(section: str) -> str:
    return section.split(">")[0].strip()


def test_a_sections_sentences_are_its_own(library: Library) -> None:
    doc = library.documents()[0]
    answer = Summarizer(library).summarize(doc.doc_id)
    for c in answer.citations:
        chapter = int(section_path_of(c.section).split()[0])
        words = TOPICS[chapter - 1][1]
        assert any(w in c.quote for w in words), (c.section, c.quote)


def test_summary_of_one_chapter_outlines_its_subsections(library: Library) -> None:
    doc = library.documents()[0]
    answer = Summarizer(library).summarize(doc.doc_id, section="3 Fruit Trees")
    _assert_verified(answer, library)
    assert {section_path_of(c.section) for c in answer.citations} == {"3 Fruit Trees"}
    subs = {section_path(_chunk(library, c.chunk_id))[1] for c in answer.citations}
    assert len(subs) >= 2 and all(s.startswith("3.") for s in subs)


def _chunk(lib: Library, chunk_id: str):  # type: ignore[no-untyped-def]
    return lib.chunks([chunk_id])[0]


def test_asking_for_a_summary_is_answered_by_the_summarizer(library: Library) -> None:
    model = ScriptedModel([])
    service = AskService(library, chat_model=model)
    answer = service.ask("What is this document about?")
    assert answer.kind == "summary" and answer.question == "What is this document about?"
    _assert_verified(answer, library)
    chapter = service.ask("Summarise chapter 3")
    assert chapter.kind == "summary"
    assert {section_path_of(c.section) for c in chapter.citations} == {"3 Fruit Trees"}
    assert model.calls == []  # no generation


def test_summary_is_cancelled_between_sections(library: Library) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        Summarizer(library).summarize(library.documents()[0].doc_id, cancel=token)


def test_without_vectors_word_centrality_still_gives_verified_sentences(tmp_path: Path) -> None:
    lib = FakeLibrary(
        [
            "Clean the air filter every 90 days with a soft brush. The filter sits behind "
            "the front grille of the unit.",
            "The Zephyr 3000 records up to 64 channels at once. Each channel is stored in "
            "its own file on the card.",
        ],
        tmp_path,
    )
    answer = Summarizer(lib).summarize("doc")
    assert answer.kind == "summary" and answer.validation.status == "GREEN"
    assert {c.section for c in answer.citations} == {"Section 1", "Section 2"}


def test_which_document_when_several_and_none_ticked(tmp_path: Path, library: Library) -> None:
    lib = FakeLibrary(["One sentence that is long enough to quote here."], tmp_path)
    docs = [*lib.documents(), library.documents()[0]]
    lib.documents = lambda: docs  # type: ignore[method-assign]
    doc, section, why = Summarizer(lib).resolve(SummaryRequest())
    assert doc is None and section is None and why == WHICH_DOCUMENT_TEXT
    doc, _, _ = Summarizer(lib).resolve(SummaryRequest(), doc_ids=["doc"])
    assert doc is not None and doc.doc_id == "doc"


def test_a_summary_question_in_a_conversation_is_never_rewritten(library: Library) -> None:
    from app.services.conversation import Conversation

    conversation = Conversation(AskService(library, chat_model=ScriptedModel([])))
    conversation.turns.append(
        conversation.asker.ask("What is this document about?")  # type: ignore[attr-defined]
    )
    assert conversation.understand("Summarize it") is None
    answer = conversation.ask("What is it about?")
    assert answer.kind == "summary" and answer.understood_as is None
