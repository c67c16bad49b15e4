"""Presentation of answers: chips in HTML, Markdown footnotes, status words, streaming text."""

from __future__ import annotations

import pytest

from app.core.models import Answer, DroppedCitation, Source, Support, Validation
from app.ui import render
from app.validation.status_model import for_models
from tests import answer_factory

pytestmark = pytest.mark.unit


def _answer(**kw: object) -> Answer:
    base: dict[str, object] = dict(
        question="How often?",
        kind="generated",
        answer="Clean it every 90 days [2]. Also see [7].",
        citations=[answer_factory.citation(n=2, file="/docs/usrguide.pdf", section="2 Setup")],
    )
    base.update(kw)
    return answer_factory.answer(**base)


def test_html_turns_valid_markers_into_cite_anchors_and_drops_unbacked_ones() -> None:
    html = render.answer_html(_answer(), chip_bg="#eee", chip_fg="#123")
    assert "href='cite:2'" in html
    # No title attribute: its plain tooltip would cover the rich hover preview (issue 12).
    assert "title=" not in html
    assert "[7]" not in html and "cite:7" not in html and "[2]" not in html


def test_markdown_has_footnotes_with_file_page_quote() -> None:
    md = render.answer_markdown(_answer())
    # The only citation is shown as 1, whatever the source number behind it (2).
    assert "Clean it every 90 days [^1]." in md
    assert "[^1]: usrguide.pdf, page 3: “Clean the filter every 90 days.”" in md
    assert "[7]" not in md


def test_status_words_for_each_outcome() -> None:
    assert render.status_text(_answer())[0] == "GREEN"
    level, words = render.status_text(
        _answer(
            validation=Validation(
                status="RED", dropped=[DroppedCitation(n=4, reason="quote_not_found")] * 2
            )
        )
    )
    assert level == "RED" and "2 citations removed" in words and "not found" in words
    level, words = render.status_text(_answer(mode="refuse", kind="refusal", citations=[]))
    assert level == "REFUSAL" and words.startswith("Not answered")
    level, words = render.status_text(_answer(kind="extractive"))
    assert level == "GREEN" and "in their own words" in words
    level, words = render.status_text(
        _answer(kind="extractive", validation=Validation(status="YELLOW", support=_support()))
    )
    assert level == "YELLOW" and "don\u2019t mention \u2018dividend\u2019" in words
    # GREEN withheld over another embedder's library: nothing is said to be lacking
    withheld = for_models(None, "bge-small-en-v1.5").withheld
    level, words = render.status_text(
        _answer(
            validation=Validation(
                status="YELLOW", flags=[withheld], support=_support(missing=[], reasons=[])
            )
        )
    )
    assert level == "YELLOW" and words.startswith(withheld) and "Partly" not in words


def _support(**kw: object) -> Support:
    base: dict[str, object] = dict(
        score=0.5,
        covered=["company"],
        missing=["dividend"],
        reasons=["The cited passages don\u2019t mention \u2018dividend\u2019."],
    )
    base.update(kw)
    return Support(**base)  # type: ignore[arg-type]


def _refusal_with_closest() -> Answer:
    closest = _answer().citations[0].model_copy(update={"n": 3})
    text = "No passage in your library mentions \u2018watermark\u2019."
    support = _support(score=0.0, missing=["watermark"], reasons=[text], closest=[closest])
    return _answer(
        mode="refuse",
        kind="refusal",
        answer=text,
        citations=[],
        validation=Validation(status="REFUSED", flags=[text], support=support),
    )


def test_refusal_says_why_and_offers_its_closest_passages() -> None:
    answer = _refusal_with_closest()
    level, words = render.status_text(answer)
    assert level == "REFUSAL"
    # The card shows the reason as the answer text; the status line does not repeat it.
    assert words.startswith("Not answered.") and "watermark" not in words
    assert "closest passages" in words
    assert list(render.citations_by_n(answer)) == [3]  # chips open them like citations
    md = render.answer_markdown(answer)
    assert md.count("No passage in your library mentions \u2018watermark\u2019") == 1
    assert "Closest passages:" in md
    assert "- usrguide.pdf, page 3, 2 Setup: \u201cClean the filter every 90 days.\u201d" in md


def test_markdown_carries_the_status_words() -> None:
    assert "_GREEN: Answered from your documents" in render.answer_markdown(_answer())


def test_timings_summary() -> None:
    t = {
        "retrieve": 80.0,
        "first_token": 1500.0,
        "generate": 4000.0,
        "prompt_tokens": 900.0,
        "total": 4300.0,
    }
    assert render.timings_text(t) == "4.3 s · first words after 1.5 s"
    assert "prompt tokens: 900" in render.timings_tooltip(t)


def test_sources_are_sources() -> None:
    src = Source(
        n=1,
        rank=1,
        chunk_id="d:1",
        doc_id="d",
        file="/a.pdf",
        title="A",
        page_start=1,
        page_end=2,
        section="",
        score=1.0,
        text="t",
    )
    assert render.citations_by_n(_answer(sources=[src])) == {2: _answer().citations}


def test_readable_draft_hides_junk_until_the_answer_reads_as_prose() -> None:
    assert render.readable_draft("1") == ""
    assert render.readable_draft("128, 128, 128, 128,") == ""
    assert render.readable_draft("The sensor") == ""
    assert render.readable_draft("The sensor must be") == "The sensor must be"
    assert render.readable_draft("12 34 56 78 ab cd ef") == ""


def _src(n: int) -> Source:
    return Source(
        rank=n, chunk_id=f"d:{n:05d}", doc_id="d", file="/docs/usrguide.pdf", title="Guide",
        page_start=n, page_end=n, section="", score=1.0, text=f"passage {n}", n=n,
    )  # fmt: skip


def test_citations_are_shown_numbered_from_one_in_reading_order() -> None:
    base = _answer().citations[0]
    cits = [base.model_copy(update={"n": 4}), base.model_copy(update={"n": 2})]
    a = _answer(
        answer="First [4]. Then [2]. Again [4].",
        citations=cits,
        sources=[_src(k) for k in (1, 2, 3, 4)],
    )
    assert render.display_numbers(a) == {4: 1, 2: 2, 1: 3, 3: 4}
    html = render.answer_html(a, chip_bg="#eee", chip_fg="#123")
    assert html.index("href='cite:4'") < html.index("href='cite:2'")
    assert "&nbsp;1&nbsp;</a>" in html and "&nbsp;4&nbsp;" not in html
    md = render.answer_markdown(a)
    assert "First [^1]. Then [^2]." in md and md.index("[^1]:") < md.index("[^2]:")


def test_the_status_line_s_hover_text_says_what_each_status_rests_on() -> None:
    green = render.status_tooltip(_answer())
    assert "estimate, not proof" in green and "word for word" in green
    yellow = render.status_tooltip(
        _answer(validation=Validation(status="YELLOW", support=_support()))
    )
    assert "cannot vouch" in yellow and yellow != green
    refused = render.status_tooltip(_answer(mode="refuse", kind="refusal", citations=[]))
    assert "closest passages" in refused
    red = render.status_tooltip(_answer(validation=Validation(status="RED")))
    assert "could not be found" in red
    summary = render.status_tooltip(_answer(kind="summary"))
    assert "summary" in summary and "question" not in summary
