"""Every question after the first of a conversation is searched alone and together with the
previous one, and the two rankings fused (app.services.ask_steps.conversation_search). A
scripted library stands in for the real one here; tests/integration/test_conversation.py runs
the real search."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from app.core.models import SearchHit
from app.services.ask_steps import conversation_search
from tests.fakes import FakeLibrary


def _hit(cid: str, rank: int, lists: int = 0) -> SearchHit:
    return SearchHit(
        keyword_rank=lists + rank,
        vector_rank=lists + rank + 1,
        rank=rank,
        chunk_id=cid,
        doc_id=cid.split(":")[0],
        file=f"/docs/{cid.split(':')[0]}.pdf",
        title="",
        page_start=1,
        page_end=1,
        section="",
        score=1.0 / rank,
        text=cid,
    )


class ScriptedLibrary(FakeLibrary):
    """Returns a scripted ranking for each query it knows (and records the scopes asked)."""

    def __init__(self, rankings: dict[str, list[str]], tmp: Path) -> None:
        super().__init__([], tmp)
        self.rankings = rankings
        self.scopes: list[Sequence[str] | None] = []

    def search(
        self, query: str, *, top_k: int | None = None, doc_ids: Sequence[str] | None = None
    ) -> tuple[list[SearchHit], dict[str, float]]:
        self.searches.append(query)
        self.scopes.append(doc_ids)
        ids = self.rankings[query][: top_k or 5]
        lists = 100 * list(self.rankings).index(query)  # each query's list ranks told apart
        hits = [_hit(c, i, lists) for i, c in enumerate(ids, start=1)]
        return hits, {"embed": 2.0, "total": 5.0}


PREVIOUS = "How many men get breast cancer?"
QUESTION = "What symptom is noticed first?"
JOINT = f"{PREVIOUS} {QUESTION}"


def test_a_first_question_is_searched_alone(tmp_path: Path) -> None:
    lib = ScriptedLibrary({QUESTION: ["a:1", "a:2"]}, tmp_path)
    hits, timings = conversation_search(lib, QUESTION, context=None, top_k=5)
    assert [h.chunk_id for h in hits] == ["a:1", "a:2"] and lib.searches == [QUESTION]
    assert timings == {"embed": 2.0, "total": 5.0}
    conversation_search(lib, QUESTION, context=QUESTION, top_k=5)  # nothing to add
    assert lib.searches == [QUESTION, QUESTION]


def test_the_two_rankings_are_fused_by_reciprocal_rank(tmp_path: Path) -> None:
    lib = ScriptedLibrary(
        {QUESTION: ["a:1", "a:2", "b:1", "a:3"], JOINT: ["b:1", "b:2", "a:2", "c:1"]}, tmp_path
    )
    hits, timings = conversation_search(
        lib, QUESTION, context=PREVIOUS, top_k=4, doc_ids=["a", "b", "c"]
    )
    # b:1 (3rd and 1st) and a:2 (2nd and 3rd) are in both lists; then the single-list
    # passages by rank, the question's own list first where ranks tie
    assert [h.chunk_id for h in hits] == ["b:1", "a:2", "a:1", "b:2"]
    assert [h.rank for h in hits] == [1, 2, 3, 4]
    assert lib.searches == [QUESTION, JOINT]
    assert lib.scopes == [["a", "b", "c"], ["a", "b", "c"]]  # the scope holds for both
    assert timings == {"embed": 4.0, "total": 10.0}
    # list ranks (a signal of the status model) are the question's own search's where it
    # found the passage, else the joint search's
    assert [(h.keyword_rank, h.vector_rank) for h in hits] == [(3, 4), (2, 3), (1, 2), (102, 103)]


@pytest.mark.parametrize("context", ["", "   "])
def test_an_empty_context_is_no_context(tmp_path: Path, context: str) -> None:
    lib = ScriptedLibrary({QUESTION: ["a:1"]}, tmp_path)
    conversation_search(lib, QUESTION, context=context, top_k=5)
    assert lib.searches == [QUESTION]
