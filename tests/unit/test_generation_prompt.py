"""Prompt building: compact sentence selection, stable source numbers, constant system prompt."""

from __future__ import annotations

import re

import pytest

from app.core.models import Source
from app.generation.prompt import build_prompt, select_sentences, system_prompt, terms

pytestmark = pytest.mark.unit

FILLER = (
    "The committee met on a rainy Tuesday. Lunch was served late. Nobody mentioned "
    "the garden. Several chairs were moved to the hall. The meeting ended at noon. "
)


def _source(n: int, text: str, page: int = 1, section: str = "") -> Source:
    return Source(
        n=n,
        rank=n,
        chunk_id=f"d{n}:{n:05d}",
        doc_id=f"d{n}",
        file=f"/tmp/docs/file{n}.pdf",
        title=f"File {n}",
        page_start=page,
        page_end=page,
        section=section,
        score=1.0 / n,
        text=text,
    )


SOURCES = [
    _source(
        1,
        FILLER * 3 + "The pump delivers 40 litres per minute at full speed. " + FILLER,
        page=3,
        section="2 Pumps > 2.1 Flow",
    ),
    _source(2, FILLER * 4, page=7),
    _source(3, FILLER + "Pump speed is limited to 3000 rpm by the controller. " + FILLER, page=9),
]


def test_terms_are_stemmed_content_words() -> None:
    assert terms("How many pages does the pump need?") == terms("how MANY page does pumps need")
    assert "the" not in terms("the the the")
    assert "42" in terms("error 42")


def test_selection_prefers_question_words_and_keeps_numbers() -> None:
    shown = select_sentences("How many litres per minute does the pump deliver?", SOURCES)
    numbers = [s.source.n for s in shown]
    assert numbers[0] == 1 and numbers == sorted(numbers)
    texts = [x.text for s in shown for x in s.sentences]
    assert "The pump delivers 40 litres per minute at full speed." in texts
    assert any("3000 rpm" in t for t in texts)  # source 3 shares "pump"
    assert 2 not in numbers  # source 2 shares no word with the question


def test_selection_respects_budget_and_exact_text() -> None:
    for budget in (200, 600, 1500):
        shown = select_sentences("pump speed litres minute", SOURCES, budget_chars=budget)
        total = sum(len(x.text) + 8 for s in shown for x in s.sentences)
        assert total <= budget or sum(len(s.sentences) for s in shown) == 1
        for s in shown:
            for x in s.sentences:
                assert s.source.text[x.start : x.end] == x.text  # quotable verbatim


def test_first_source_always_shown_even_without_overlap() -> None:
    shown = select_sentences("zzzz qqqq", SOURCES)
    assert [s.source.n for s in shown] == [1]


def test_build_prompt_messages_and_grammar_agree() -> None:
    q = "How many litres per minute does the pump deliver?"
    bundle = build_prompt(q, SOURCES)
    messages, grammar, sentences = bundle.messages, bundle.grammar, bundle.source_sentences
    assert messages[0] == {"role": "system", "content": system_prompt()}
    user = messages[1]["content"]
    assert user.startswith("Sources:\n[1] file1.pdf, p. 3, 2 Pumps > 2.1 Flow\n")
    assert user.endswith("Question: " + q)
    shown_numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", user, flags=re.M)]
    assert shown_numbers == sorted(sentences)
    numbers_rule = re.search(r"^source-number ::= (.*)$", grammar, flags=re.M)
    assert numbers_rule is not None
    assert numbers_rule.group(1) == " | ".join(f'"{n}"' for n in sorted(sentences))
    for xs in sentences.values():
        for x in xs:
            assert x.text in user


def test_system_prompt_is_constant_across_questions() -> None:
    a = build_prompt("pump speed?", SOURCES).messages[0]
    b = build_prompt("litres per minute?", SOURCES[::-1]).messages[0]
    assert a == b


def test_build_prompt_without_text_raises() -> None:
    with pytest.raises(ValueError):
        build_prompt("anything", [_source(1, "   ")])


def test_semantic_selection_uses_similarity_and_reports_relevance() -> None:
    def similarity(question: str, texts: list[str]) -> list[float]:
        return [0.9 if "3000 rpm" in t else 0.1 for t in texts]

    q = "How fast may the pump turn?"
    bundle = build_prompt(q, SOURCES, ranked_evidence=True, budget_chars=300, similarity=similarity)
    assert bundle.semantic and bundle.relevance == pytest.approx(0.9)
    assert bundle.spec.evidence == ((3, "Pump speed is limited to 3000 rpm by the controller."),)
    shown = [x.text for xs in bundle.source_sentences.values() for x in xs]
    assert sum(len(t) + 8 for t in shown) <= 300
    lexical = build_prompt(q, SOURCES, ranked_evidence=True)
    assert not lexical.semantic and lexical.relevance == lexical.coverage


def test_support_share_counts_words_from_the_evidence() -> None:
    from app.generation.prompt import support_share

    ev = ["If the display shows E17, the memory card is full and must be replaced."]
    assert support_share("The memory card is full [1].", ev) == 1.0
    assert support_share("A warning symbol blinks in percent [1].", ev) == 0.0
    assert 0.0 < support_share("The display shows a warning [1].", ev) < 1.0
    assert support_share("[1]", ev) == 0.0


REPORT_PAGE = (
    "3 Our treatment works\n"
    "We treat water at six works. River water is screened and filtered.\n"
    "Table 2: Treatment works, capacity and output\n"
    "Treatment works Source Capacity (Ml/d) Commissioned\n"
    "Kingsmere River Lodden 41.0 1974\n"
    "Fellside Boreholes 12.5 1988\n"
    "Ashgrove River Test 22.0 1969\n"
    "Whitley Bridge, our newest works, was built in 2021."
)


def test_table_rows_are_candidates_scored_under_their_header() -> None:
    """A row is a short line without a full stop, like a heading, but a run of such lines with
    figures is a table: each row can be quoted, and is scored with the caption and header."""
    seen: list[str] = []

    def similarity(question: str, texts: list[str]) -> list[float]:
        seen.extend(texts)
        return [0.8 if "Capacity" in t and "Kingsmere" in t else 0.1 for t in texts]

    q = "What is the daily capacity of the Kingsmere works?"
    bundle = build_prompt(q, [_source(1, REPORT_PAGE)], ranked_evidence=True, similarity=similarity)
    assert bundle.spec.evidence == ((1, "Kingsmere River Lodden 41.0 1974"),)
    row = next(x for x in bundle.source_sentences[1] if x.text.startswith("Kingsmere"))
    assert row.context == (
        "Table 2: Treatment works, capacity and output",
        "Treatment works Source Capacity (Ml/d) Commissioned",
    )
    assert row.scored_text in seen
    # the model reads the caption and header once (as a note it cannot quote, unless shown)
    user = bundle.messages[-1]["content"]
    assert user.count("Table 2: Treatment works") == 1 and user.count("Capacity (Ml/d)") == 1
    assert "(table:" not in "".join(t for xs in bundle.spec.quotes.values() for t in xs)
    # the section heading before the prose is still no candidate
    assert all(x.text != "3 Our treatment works" for x in bundle.source_sentences[1])


TITLE_BLOCK = (
    "Solarstrom vom eigenen Dach\nEin Leitfaden für Hausbesitzer\n"
    "1 Warum sich eine Solaranlage lohnt\n"
    "Eine Photovoltaikanlage wandelt Sonnenlicht direkt in elektrischen Strom um."
)
FORMULA = (  # a continued fraction as MuPDF reads it
    "Continued fractions\nThe continued fraction\n(4.6) 1 \u221a\n2 + 1 \u221a\n2 + 1 \u221a\n"
    "\\cfrac{1}{\\sqrt{2}+\n"
    "Left or right placement of any of the numerators is accomplished by using \\cfrac[l]."
)


@pytest.mark.parametrize(
    ("text", "question"),
    [
        (TITLE_BLOCK, "Was macht eine Photovoltaikanlage?"),
        (FORMULA, "How do I place numerators flush left?"),
    ],
    ids=["title-block", "displayed-formula"],
)
def test_short_lines_that_are_no_table_stay_out(text: str, question: str) -> None:
    """Short lines with a figure or two that are no table rows are no candidates either."""
    bundle = build_prompt(question, [_source(1, text)])
    shown = [x.text for xs in bundle.source_sentences.values() for x in xs]
    assert shown == [text.rsplit("\n", 1)[1]]


def test_a_sentence_ending_in_a_colon_keeps_what_it_introduces() -> None:
    from app.validation.locate import ChunkIndex, locate

    text = (
        "3.1 Math font attributes\nThe predefined math alphabets are:\n"
        "\\mathnormal default\n\\mathrm roman\n\\mathbf bold\n\nThey affect only letters.\n"
    )
    src = _source(1, text)
    shown = select_sentences("Which math alphabets are predefined?", [src])
    (lead,) = [x for s in shown for x in s.sentences if x.text.startswith("The predefined")]
    assert lead.text.endswith("\\mathbf bold")  # the list, up to the blank line
    assert src.text[lead.start : lead.end].split() == lead.text.split()
    found = locate(lead.text, ChunkIndex(text))
    assert found is not None and (found.start, found.end) == (lead.start, lead.end)


def test_a_sentence_about_the_syntax_line_before_it_is_quoted_with_it() -> None:
    """A manual's syntax line is short and unpunctuated like a heading; "This makes ..."
    after it is about that command, and quoted alone it never names it."""
    from app.validation.locate import ChunkIndex, locate

    text = (
        "4.3 Option declaration\nThe following commands deal with options.\n"
        "\\DeclareOption {<option-name>} {<code>}\n"
        "This makes <option-name> a declared option of the class in which it is put.\n"
        "4.4 Commands within option code\nThis section lists them.\n"
    )
    src = _source(1, text)
    shown = select_sentences("How do I declare an option in a class file?", [src])
    quotes = [x for s in shown for x in s.sentences]
    (it,) = [x for x in quotes if "This makes" in x.text]
    assert it.text.startswith("\\DeclareOption {<option-name>} {<code>} This makes")
    found = locate(it.text, ChunkIndex(text))
    assert found is not None and (found.start, found.end) == (it.start, it.end)
    # a heading before "This ..." stays out: a quote never starts with a glued-on heading
    assert all(not x.text.startswith("4.") for x in quotes)


def test_a_sentence_that_only_restates_the_question_is_no_evidence() -> None:
    restating = "Thus, for several reasons, using \\input to load packages is not a good idea."
    answering = "A package loaded with \\input can be loaded more than once, wasting time."
    src = _source(1, FILLER + restating + " " + answering + " " + FILLER)

    def similarity(question: str, texts: list[str]) -> list[float]:
        # the embedder finds the restatement closest, as MiniLM does
        return [0.82 if "good idea" in t else 0.6 if "more than once" in t else 0.1 for t in texts]

    q = "Why is it a bad idea to load another package with the primitive \\input command?"
    bundle = build_prompt(q, [src], ranked_evidence=True, budget_chars=300, similarity=similarity)
    assert bundle.spec.evidence[0] == (1, answering)
    assert bundle.relevance == pytest.approx(0.6)  # the best sentence shown: the answering one
