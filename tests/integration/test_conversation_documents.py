"""A follow-up prefers the documents the previous answer cited, with the real parts: two
guides ingested into LanceDB, the real embedder, the search the ask service runs
(``ask_steps.search``) and a conversation over the real ask service."""

from __future__ import annotations

import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.services import ask_steps
from app.services.ask import AskService
from app.services.conversation import Conversation
from app.services.library import Library
from tests.conversation_factory import make_sectioned_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TOMATO = [
    ("1 Planting", ["Plant tomato seedlings in spring, 60 cm apart, in full sun."]),
    ("2 Watering", ["Water tomatoes deeply every two days; in a heat wave, every day."]),
]
LAWN = [
    ("1 Sowing", ["Sow lawn seed in early autumn on raked, firm soil."]),
    ("2 Watering", ["Water the lawn once a week, deeply, so the roots grow down."]),
]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> Library:
    root = tmp_path_factory.mktemp("two-guides")
    library = Library(Settings(library=root / "library"), embedder=shared_embedder)
    files = [
        make_sectioned_pdf(root / "tomatoes.pdf", "Growing tomatoes", TOMATO),
        make_sectioned_pdf(root / "lawn.pdf", "A green lawn", LAWN),
    ]
    assert [r.status for r in library.ingest(files).results] == ["added", "added"]
    return library


def _doc(lib: Library, file: str) -> str:
    return next(d.doc_id for d in lib.documents() if d.file.endswith(file))


def test_the_search_prefers_the_conversations_documents_and_keeps_the_others(
    lib: Library,
) -> None:
    tomato, lawn = _doc(lib, "tomatoes.pdf"), _doc(lib, "lawn.pdf")
    question = "How often should I water the lawn?"
    plain, _ = ask_steps.search(lib, question, top_k=4)
    assert plain[0].doc_id == lawn  # on its own the question is about the lawn guide
    hits, timings = ask_steps.search(lib, question, top_k=4, about=[tomato])
    assert hits[0].doc_id == tomato and [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert lawn in {h.doc_id for h in hits}  # preferred, not required
    assert timings["total"] > 0
    # documents ticked in the library panel win over any preference
    ticked, _ = ask_steps.search(lib, question, top_k=4, doc_ids=[lawn], about=[tomato])
    assert {h.doc_id for h in ticked} == {lawn}


def test_a_follow_up_is_searched_in_the_previous_answers_document_first(lib: Library) -> None:
    tomato = _doc(lib, "tomatoes.pdf")
    talk = Conversation(AskService(lib, lib.settings))
    first = talk.ask("How far apart should tomato seedlings be planted?")
    assert {c.doc_id for c in first.citations} <= {tomato}
    follow = talk.ask("And how often should I water them?")
    assert follow.understood_as is not None
    assert follow.sources[0].doc_id == tomato
    assert any("every two days" in s.text for s in follow.sources[:3])
