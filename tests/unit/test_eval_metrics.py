"""Scoring used by ``make eval`` (tests/bench/eval_metrics.py), on hand-built core models."""

from __future__ import annotations

import pytest

from app.core.models import Answer, Citation, DroppedCitation, SearchHit, Validation
from tests.answer_factory import answer as make_answer
from tests.answer_factory import citation
from tests.bench.eval_answers import select
from tests.bench.eval_metrics import (
    Outcome,
    evidence_rank,
    format_table,
    gold_rank,
    outcome_from_answer,
    percentile,
    summarize,
)
from tests.bench.question_set import Question

pytestmark = pytest.mark.unit


def _hit(rank: int, doc_id: str, pages: tuple[int, int], text: str = "") -> SearchHit:
    return SearchHit(
        rank=rank,
        chunk_id=f"{doc_id}:{rank:05d}",
        doc_id=doc_id,
        file=f"/c/{doc_id}.pdf",
        title=doc_id,
        page_start=pages[0],
        page_end=pages[1],
        section="",
        score=1.0 / rank,
        text=text,
    )


def _cite(n: int, doc_id: str, page: int, quote: str, rect_pages: tuple[int, ...] = ()) -> Citation:
    return citation(
        n=n,
        doc_id=doc_id,
        chunk_id=f"{doc_id}:{n:05d}",
        file=f"/c/{doc_id}.pdf",
        page=page,
        section="",
        quote=quote,
        rects=[(p, 0.0, 0.0, 1.0, 1.0) for p in rect_pages],
    )


def test_gold_rank_needs_the_right_document_and_page_range() -> None:
    hits = [_hit(1, "b", (7, 7)), _hit(2, "a", (3, 4)), _hit(3, "a", (7, 8))]
    assert gold_rank(hits, "a", 7) == 3
    assert gold_rank(hits, "a", 4) == 2
    assert gold_rank(hits, "a", 9) is None
    assert gold_rank(hits, None, 7) is None


def test_evidence_rank_tolerates_reflowed_and_hyphen_split_text() -> None:
    hits = [
        _hit(1, "a", (1, 1), "nothing relevant"),
        _hit(2, "a", (2, 2), "By default longtable\nuses 20 rows per chunk, but"),
        _hit(3, "a", (3, 3), "the value of \\bfdefault to b since only a few fam- ilies"),
    ]
    assert evidence_rank(hits, "By default longtable uses 20 rows per chunk") == 2
    assert evidence_rank(hits, "since only a few families") == 3
    assert evidence_rank(hits, "not there at all") is None


def test_evidence_rank_reads_ligatures_as_their_letters() -> None:
    # Evidence copied from a PDF's raw page text keeps its ligature glyphs; ingestion stores
    # the letters ("ﬁle" -> "file"), so the same sentence must still be found.
    hits = [_hit(1, "a", (1, 1), "nothing"), _hit(2, "a", (2, 2), "the fidelity of the file")]
    assert evidence_rank(hits, "the \ufb01delity of the \ufb01le") == 2
    assert evidence_rank([_hit(1, "a", (1, 1), "80% of all e\ufb00ects")], "of all effects") == 1


def test_evidence_rank_reads_a_symbol_with_or_without_the_space_after_it() -> None:
    # MuPDF's raw page text has no space after "▶" or "→", which ingestion puts back.
    hits = [_hit(1, "a", (1, 1), "nothing"), _hit(2, "a", (2, 2), "\u25b6 Bitte melden → die")]
    assert evidence_rank(hits, "\u25b6Bitte melden \u2192die") == 2
    assert evidence_rank(hits, "\u25b6Bitte melden sich") is None


def test_percentile_interpolates() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile(list(range(101)), 95) == 95


def _answered(answerable: bool, gold_page: int | None, answer: Answer, texts: dict) -> Outcome:
    o = Outcome(id="q001", doc="a.pdf", question="?", answerable=answerable, gold_page=gold_page)
    return outcome_from_answer(o, answer, gold_doc_id="a", chunk_texts=texts)


def test_a_citation_on_a_page_stating_the_same_cites_the_evidence() -> None:
    """A question's 'also' pages count as the evidence page; the named page alone is the
    stricter figure, reported beside it."""
    answer = make_answer(
        question="q",
        answer="x [1]",
        citations=[_cite(1, "a", 22, "Since Version 4.01 it does nothing")],
        validation=Validation(status="GREEN"),  # what GREEN precision counts
    )
    o = Outcome(id="q051", doc="a.pdf", question="?", answerable=True, gold_page=4, also_pages=[22])
    o = outcome_from_answer(o, answer, gold_doc_id="a", chunk_texts={})
    assert o.citations[0]["on_gold_page"] and not o.citations[0]["on_named_page"]
    v = summarize([o], ks=(5,))["verdicts"]
    assert v["green_precision"] == 1.0 and v["green_precision_named"] == 0.0
    strict = _answered(True, 4, answer, {})  # no 'also' pages: only page 4 counts
    assert not strict.citations[0]["on_gold_page"]
    assert "GREEN precision named" in format_table(summarize([o], ks=(5,)))


def test_summary_counts_citations_refusals_and_invalid_quotes() -> None:
    good = Answer(
        question="q",
        mode="answer",
        kind="generated",
        answer="x [1][2]",
        citations=[_cite(1, "a", 6, "on page seven", rect_pages=(6, 7)), _cite(2, "b", 7, "zzz")],
        validation=Validation(
            status="YELLOW",
            dropped=[DroppedCitation(n=3, reason="quote_not_found")],
        ),
        timings_ms={"retrieve": 10, "generate": 100, "total": 130, "prompt_tokens": 900},
    )
    wrong_page = Answer(
        question="q",
        mode="answer",
        kind="extractive",
        answer="y [1]",
        citations=[_cite(1, "a", 2, "not in the chunk")],
        validation=Validation(status="GREEN"),
        timings_ms={"retrieve": 30, "generate": 300, "total": 350},
    )
    refusal = Answer(
        question="q",
        mode="refuse",
        kind="refusal",
        answer="The documents do not say.",
        validation=Validation(status="RED", dropped=[DroppedCitation(n=1, reason="no_overlap")]),
        timings_ms={"retrieve": 20, "generate": 0.0, "total": 40},
    )
    texts = {"a:00001": "text with on page seven in it", "b:00002": "zzz"}
    outcomes = [
        _answered(True, 7, good, texts),
        _answered(True, 7, wrong_page, {"a:00001": "other text"}),
        _answered(True, 7, refusal, {}),
        _answered(False, None, refusal, {}),
        _answered(False, None, good, texts),
        Outcome(id="q9", doc="a.pdf", question="?", answerable=True, gold_page=1, error="Boom: x"),
    ]
    outcomes[0].gold_rank, outcomes[1].gold_rank, outcomes[2].gold_rank = 1, 6, None
    for o in outcomes[:3]:
        o.retrieved = ["a.pdf p1-1"]
    s = summarize(outcomes, ks=(5, 8))

    assert s["retrieval"]["recall@5"] == pytest.approx(1 / 3, abs=1e-4)
    assert s["retrieval"]["recall@8"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["retrieval"]["mrr"] == pytest.approx((1 + 1 / 6) / 3, abs=1e-4)
    c = s["citations"]
    assert c["answered_answerable"] == 2
    assert c["right_page"] == 0.5  # the rectangle on page 7 counts; page 2 does not
    assert c["citation_precision"] == pytest.approx(1 / 3, abs=1e-4)
    assert c["invalid_shown"] == 1  # "not in the chunk" is absent from its chunk text
    assert s["refusal_rate"] == {"unanswerable": 0.5, "answerable": pytest.approx(1 / 3, 1e-3)}
    assert s["dropped"] == {"no_overlap": 2, "quote_not_found": 2}
    assert s["kinds"]["refusal"] == 0.4 and s["kinds"]["extractive"] == 0.2
    assert s["validation"] == {"GREEN": 0.2, "YELLOW": 0.4, "RED": 0.4, "REFUSED": 0.0}
    assert s["errors"] == 1 and s["asked"] == 5
    assert s["latency_ms"]["total"] == {"n": 5, "p50": 130.0, "p95": 306.0}
    assert s["latency_ms"]["first_token"]["n"] == 0
    assert s["latency_ms"]["generate"] == {"n": 3, "p50": 100.0, "p95": 280.0}  # 0.0 = not run
    assert "prompt_tokens" not in s["latency_ms"]
    assert s["tokens_mean"] == {"prompt_tokens": 900.0}
    table = format_table(s)
    assert "invalid citations shown after validation: 1" in table
    assert "recall@8" in table and "quote_not_found 2" in table


def test_retrieval_only_summary_has_no_answer_section() -> None:
    o = Outcome(id="q001", doc="a.pdf", question="?", answerable=True, gold_page=3)
    o.retrieved, o.gold_rank = ["a.pdf p3-3"], 1
    s = summarize([o], ks=(5,))
    assert s["retrieval"]["recall@5"] == 1.0 and s["asked"] == 0
    assert "answers" not in format_table(s)


def test_limit_spreads_questions_and_ids_select_exactly() -> None:
    qs = [
        Question(
            id=f"q{i:03d}",
            doc="a.pdf",
            question=f"question number {i}",
            page=None,
            evidence=None,
            answerable=False,
        )
        for i in range(1, 11)
    ]
    assert [q.id for q in select(qs, 3, None)] == ["q001", "q004", "q007"]
    assert select(qs, None, None) == qs
    assert [q.id for q in select(qs, None, "q010, q002")] == ["q010", "q002"]
    with pytest.raises(SystemExit):
        select(qs, None, "q999")


def _outcome(
    qid: str, answerable: bool, status: str, on_gold: bool, kind: str = "generated"
) -> Outcome:
    o = Outcome(id=qid, doc="a.pdf", question="?", answerable=answerable, gold_page=3)
    o.mode = "refuse" if kind == "refusal" else "answer"
    o.kind, o.status = kind, status
    o.citations = [] if kind == "refusal" else [{"on_gold_page": on_gold, "verbatim": True}]
    return o


def test_verdict_figures_green_precision_and_coverage() -> None:
    outcomes = [
        _outcome("q1", True, "GREEN", True),
        _outcome("q2", True, "GREEN", False),
        _outcome("q3", True, "YELLOW", True),
        _outcome("q4", True, "REFUSED", False, kind="refusal"),
        _outcome("q5", False, "GREEN", False),  # GREEN on an unanswerable question: wrong
        _outcome("q6", False, "REFUSED", False, kind="refusal"),
    ]
    v = summarize(outcomes, ks=(5,))["verdicts"]
    assert v["green"] == 3 and v["green_unanswerable"] == 1
    assert v["green_precision"] == round(1 / 3, 4)
    assert v["green_coverage"] == 0.25  # 1 GREEN on the evidence page of 4 answerable
    assert v["right_page_all"] == 0.5  # refusals count as misses
    assert "GREEN precision" in format_table(summarize(outcomes, ks=(5,)))


def test_refusals_pointing_counts_closest_passages_on_the_evidence_page() -> None:
    """A refused answerable question whose closest passages include the evidence page lets
    the person find the answer the check could not confirm."""
    from app.core.models import Support

    def refused(qid: str, pages: list[int]) -> Outcome:
        answer = make_answer(question="q", answer="The documents don't answer this.")
        answer.kind, answer.mode, answer.citations = "refusal", "refuse", []
        answer.validation = Validation(
            status="REFUSED",
            support=Support(score=0.1, closest=[_cite(1, "a", p, "a passage") for p in pages]),
        )
        o = Outcome(id=qid, doc="a.pdf", question="?", answerable=True, gold_page=4)
        return outcome_from_answer(o, answer, gold_doc_id="a", chunk_texts={})

    outcomes = [refused("q1", [4, 7]), refused("q2", [7, 9])]
    assert [c["on_gold_page"] for c in outcomes[0].closest] == [True, False]
    v = summarize(outcomes, ks=(5,))["verdicts"]
    assert v["refused_answerable"] == 2 and v["refused_pointing"] == 0.5
    assert "refusals pointing" in format_table(summarize(outcomes, ks=(5,)))


def test_split_figures_hold_out_the_even_ids() -> None:
    outcomes = [
        _outcome("q1", True, "GREEN", True),
        _outcome("q3", False, "GREEN", False),
        _outcome("q2", True, "GREEN", True),
        _outcome("q4", False, "REFUSED", False, kind="refusal"),
    ]
    split = summarize(outcomes, ks=(5,))["split"]
    assert split["tune"]["green_precision"] == 0.5 and split["tune"]["refused_unanswerable"] == 0
    assert split["held_out"]["green_precision"] == 1.0
    assert split["held_out"]["refused_unanswerable"] == 1.0
    assert "held out (even ids)" in format_table(summarize(outcomes, ks=(5,)))


def test_wilson_interval_of_a_precision() -> None:
    from tests.bench.eval_metrics import interval_text, wilson

    low, high = wilson(39 / 41, 41) or (0.0, 0.0)
    assert (round(100 * low, 1), round(100 * high, 1)) == (83.9, 98.7)
    assert wilson(None, 0) is None and wilson(1.0, 0) is None
    low, high = wilson(1.0, 4) or (0.0, 0.0)
    assert high == 1.0 and 0.4 < low < 0.6  # four of four: anywhere from half up
    assert interval_text(14 / 15, 15) == "[70.2-98.8%]" and interval_text(None, 0) == ""
