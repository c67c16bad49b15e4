"""The conversation exported as Markdown and HTML: every citation a footnote with file,
page, section and quote, numbered through the whole conversation."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from app.core.models import Answer, Citation, Source, Support, Validation
from app.services.export import conversation_html, conversation_markdown, export_conversation


def _cite(n: int, quote: str, page: int, section: str = "2 Breast cancer in men") -> Citation:
    return Citation(
        n=n,
        doc_id="d1",
        chunk_id=f"d1:{n:05d}",
        file="/tmp/docs/facts.pdf",
        page=page,
        section=section,
        quote=quote,
        match="exact",
        score=100.0,
    )


def _source(n: int) -> Source:
    return Source(
        n=n,
        rank=n,
        chunk_id=f"d1:{n:05d}",
        doc_id="d1",
        file="/tmp/docs/facts.pdf",
        title="Facts",
        page_start=2,
        page_end=2,
        section="",
        score=1.0,
        text="",
    )


FIRST = Answer(
    question="Roughly how many men in Australia find out they have breast cancer each year?",
    mode="answer",
    answer="About 200 men a year [2].",
    citations=[
        _cite(2, "Roughly 200 men in Australia are diagnosed with breast cancer each year.", 2)
    ],
    sources=[_source(1), _source(2)],
    validation=Validation(status="GREEN"),
)
SECOND = Answer(
    question="How old are most of them?",
    understood_as="How old are most of the men in Australia who find out they have breast cancer"
    " each year?",
    mode="answer",
    answer="Most are over 60 [3], and <many> wait [1].",
    citations=[
        _cite(3, "Most men diagnosed with breast cancer are over 60 years old.", 2),
        _cite(1, "many wait before they see a doctor", 2),
    ],
    sources=[_source(1), _source(3)],
    validation=Validation(status="YELLOW", support=Support(score=0.5, reasons=["Check it."])),
)
REFUSED = Answer(
    question="What does it cost?",
    understood_as="What does screening cost?",
    mode="refuse",
    kind="refusal",
    answer="The documents don't answer this.",
    validation=Validation(
        status="REFUSED",
        support=Support(
            score=0.0,
            reasons=["No passage in your library mentions 'cost'."],
            closest=[_cite(1, "Screening is free.", 3, "3 Screening")],
        ),
    ),
)


def test_markdown_has_every_citation_as_a_footnote_numbered_through_the_conversation() -> None:
    md = conversation_markdown([FIRST, SECOND, REFUSED])
    assert "## 1. Roughly how many men" in md
    assert "About 200 men a year [^1]." in md
    assert "Most are over 60 [^2], and <many> wait [^3]." in md
    assert "_Understood as: How old are most of the men in Australia" in md
    assert (
        "[^1]: facts.pdf, page 2, 2 Breast cancer in men: “Roughly 200 men in Australia are"
        " diagnosed with breast cancer each year.”" in md
    )
    assert "[^2]: facts.pdf, page 2, 2 Breast cancer in men: “Most men diagnosed" in md
    assert "[^3]: facts.pdf, page 2" in md
    assert "_Partly answered: Check it._" in md
    assert "- facts.pdf, page 3, 3 Screening: “Screening is free.”" in md
    assert "Not answered: No passage in your library mentions 'cost'." in md
    assert "[^4]" not in md  # a refusal's closest passages are listed, not cited


def test_html_is_escaped_and_links_each_marker_to_its_footnote(tmp_path: Path) -> None:
    page = conversation_html([FIRST, SECOND])
    assert "&lt;many&gt;" in page and "<many>" not in page
    for k in (1, 2, 3):
        assert f"<a href='#fn{k}'>{k}</a>" in page
        assert f"<li id='fn{k}'>" in page
    assert "Understood as: How old are most of the men" in page

    class Check(HTMLParser):
        ids: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.ids.update(v for k, v in attrs if k == "id" and v)

    checker = Check()
    checker.feed(page)
    assert {"fn1", "fn2", "fn3", "ref1", "ref2", "ref3"} <= checker.ids

    export_conversation([FIRST], tmp_path / "c.html")
    export_conversation([FIRST], tmp_path / "c.md")
    assert (tmp_path / "c.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (tmp_path / "c.md").read_text(encoding="utf-8").startswith("# Conversation")
