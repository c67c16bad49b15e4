"""The verdict service: statuses that mean what they say, refusals that say why and show passages."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest

from app.core.models import Answer, Chunk, Citation, Source, Validation
from app.core.textkit import word_languages
from app.generation.prompt import build_prompt
from app.services import verdict
from app.services.answers import FAR_TEXT, REFUSAL_TEXT
from app.validation import answer_checks
from app.validation.status_model import FEATURES, StatusModel, features
from app.validation.support import assess
from tests.answer_factory import citation

pytestmark = pytest.mark.unit

TEXTS = [
    "Annual report 2020. The company paid a dividend of 1.20 euros per share in 2020. "
    "Revenue grew by 4 percent.",
    "The company employs a staff of 250 people in three countries. Its head office is in Hamburg.",
]


def pairs(texts: Iterable[str] = TEXTS) -> list[tuple[Source, Chunk]]:
    out = []
    for i, text in enumerate(texts):
        chunk = Chunk(
            chunk_id=f"doc:{i:05d}",
            doc_id="doc",
            ordinal=i,
            page_start=i + 1,
            page_end=i + 1,
            section=f"{i + 1} Results",
            text=text,
        )
        src = Source(
            n=i + 1,
            rank=i + 1,
            chunk_id=chunk.chunk_id,
            doc_id="doc",
            file="/docs/report.pdf",
            title="Report",
            page_start=i + 1,
            page_end=i + 1,
            section=chunk.section,
            score=1.0,
            text=text,
            keyword_rank=i + 1,  # found by both of the question's lists, in this order
            vector_rank=i + 1,
        )
        out.append((src, chunk))
    return out


def counts(words: Iterable[str]) -> tuple[dict[str, int], int]:
    """A full-text index over TEXTS: how many chunks contain each word."""
    return {w: sum(w.lower() in t.lower() for t in TEXTS) for w in words}, len(TEXTS)


def fake_embed(synonyms: dict[str, str]) -> verdict.Embed:
    """Words map to one-hot vectors; a synonym shares its partner's vector."""
    vocab: dict[str, int] = {}

    def embed(texts: list[str]) -> np.ndarray:
        rows = []
        for t in texts:
            key = synonyms.get(t.lower(), t.lower())
            rows.append(vocab.setdefault(key, len(vocab)))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        out[np.arange(len(texts)), rows] = 1.0
        return out

    return embed


def recording_embed(calls: list[list[str]]) -> verdict.Embed:
    """An embedder that gives every text the same vector and records what it was asked."""

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.ones((len(texts), 2)) / np.sqrt(2)

    return embed


def cite(n: int, quote: str) -> Citation:
    return citation(
        n=n,
        doc_id="doc",
        chunk_id=f"doc:{n - 1:05d}",
        file="/docs/report.pdf",
        page=n,
        section=f"{n} Results",
        quote=quote,
        rects=[],
    )


def answer(text: str, quotes: list[tuple[int, str]], kind: str = "generated") -> Answer:
    return Answer(
        question="",
        mode="answer",
        kind=kind,  # type: ignore[arg-type]
        answer=text,
        citations=[cite(n, q) for n, q in quotes],
        validation=Validation(status="GREEN"),
    )


def test_concept_absent_from_the_library_is_found_before_generation() -> None:
    q = "How large was the watermark on the dividend?"
    c = verdict.question_concepts(q, counts, pairs())
    assert [x.text for x in c.absent] == ["watermark"]
    refused = verdict.absent_refusal(q, c, pairs())
    assert refused.kind == "refusal"
    assert refused.answer == "No passage in your library mentions \u2018watermark\u2019."
    support = refused.validation.support
    assert support is not None and support.absent == ["watermark"]
    assert [p.page for p in support.closest] == [1, 2]
    assert "dividend" in support.closest[0].quote


def test_a_word_of_the_situation_told_is_not_absent_only_what_is_asked() -> None:
    """People tell their situation before they ask; 'my broker' is no concept the library
    must have. 'watermark' in the asking sentence still is."""
    told = "My broker keeps nagging me about it. How large was the dividend per share?"
    assert verdict.question_concepts(told, counts, pairs()).absent == []
    asked = "My broker keeps nagging me about it. How large was the watermark on the dividend?"
    assert [x.text for x in verdict.question_concepts(asked, counts, pairs()).absent] == [
        "watermark"
    ]
    # one sentence, or only questions: every concept counts, as before
    plain = "How large was the broker's dividend?"
    assert [x.text for x in verdict.question_concepts(plain, counts, pairs()).absent] == ["broker"]


def test_in_german_only_an_absent_noun_refuses_before_generation() -> None:
    """A lower-case word is no noun in German: the verb form "kaputtgeht" may be one the
    stemmer missed, so it is absent but does not refuse at once; a noun the library lacks
    does, and the refusal names it."""
    german = pairs(["Der Wechselrichter hält meist 12 bis 15 Jahre."])
    q = "Wie lange hält ein Wechselrichter, bis er kaputtgeht?"
    c = verdict.question_concepts(q, counts, german)
    assert [x.text for x in c.absent] == ["kaputtgeht"] and c.telling == []
    q = "Wie lange hält ein Wechselrichter bei Hagelschäden, bis er kaputtgeht?"
    c = verdict.question_concepts(q, counts, german)
    assert {x.text for x in c.absent} == {"Hagelschäden", "kaputtgeht"}
    assert [x.text for x in c.telling] == ["Hagelschäden"]
    refused = verdict.absent_refusal(q, c, german)
    assert refused.answer == "No passage in your library mentions \u2018Hagelschäden\u2019."
    assert refused.validation.support is not None
    assert set(refused.validation.support.absent) == {"Hagelschäden", "kaputtgeht"}


def test_in_a_language_the_vectors_do_not_know_absent_nouns_refuse_when_they_weigh_half() -> None:
    """A close passage (cosine 0.72) holds off the refusal in English; in German, with an
    English embedder, the cosine comes from shared word pieces, so nouns the library lacks
    refuse when they are half of what is asked, and only then."""
    german = pairs(["Photovoltaikmodule liefern auch bei Bewölkung etwas Strom."])
    english = {"en"}
    q = "Übernimmt die Gebäudeversicherung eigentlich Hagelschäden an den Photovoltaikmodulen?"
    c = verdict.question_concepts(q, counts, german)
    assert {x.text for x in c.refusing(0.72, english)} == {"Gebäudeversicherung", "Hagelschäden"}
    assert c.refusing(0.72, None) == [], "a multilingual embedder's cosine is trusted"
    assert c.refusing(0.3, None), "nothing close: refused as before"
    one = "Wie viel Strom liefern Photovoltaikmodule bei Bewölkung im Gebäude?"
    c = verdict.question_concepts(one, counts, german)
    assert [x.text for x in c.absent] == ["Gebäude"]
    assert c.refusing(0.72, english) == [], "one noun of four: answered, and named"
    q = "How large was the watermark on the dividend?"
    assert verdict.question_concepts(q, counts, pairs()).refusing(0.72, english) == []


def test_a_german_word_the_library_has_only_inflected_is_not_absent() -> None:
    """The keyword index stems as English does: it counts no chunk for "Bild" when a German
    library has only "Bilder". Its longer forms are counted too, so neither a refusal nor
    a reason says the library lacks it; a word it truly lacks still is absent."""
    library = ["Die Kamera speichert Bilder im Ordner mit Zeilenumbrüchen."]

    def exact(words: Iterable[str]) -> tuple[dict[str, int], int]:  # whole words only
        have = {w.lower() for t in library for w in t.replace(".", " ").split()}
        return {w: int(w.lower() in have) for w in words}, 1

    q = "Wo speichert die Kamera ein Bild und einen Zeilenumbruch?"
    c = verdict.question_concepts(q, exact, [])
    assert [x.text for x in c.absent] == []
    q = "Wo speichert die Kamera ein Video?"
    assert [x.text for x in verdict.question_concepts(q, exact, []).absent] == ["Video"]


def test_a_concept_the_library_holds_in_another_language_is_not_absent() -> None:
    """German lecture notes say "Topologie": an English question about "topology" is no
    question about something the library lacks, by the shipped word lists. A word no
    translation of which the library holds ("printed") stays absent, and so does a name no
    list has."""
    library = ["Sei X ein topologischer Raum. Die Topologie auf X ist offen.", "Geometrie"]

    def exact(words: Iterable[str]) -> tuple[dict[str, int], int]:  # whole words only
        have = {w.lower() for t in library for w in t.replace(".", " ").split()}
        return {w: int(w.lower() in have) for w in words}, 2

    q = "Can I get a printed copy of these geometry and topology notes?"
    absent = {x.text for x in verdict.question_concepts(q, exact, []).absent}
    assert "topology" not in absent and "geometry" not in absent
    assert "printed" in absent
    q = "Is there a Samsung edition of these topology notes?"
    absent = {x.text for x in verdict.question_concepts(q, exact, []).absent}
    assert "Samsung" in absent and "topology" not in absent


def test_a_german_refusal_names_the_nouns_it_misses() -> None:
    names = ["Versicherung", "kommt", "Hagelschäden"]
    q = "Welche Versicherung kommt für Hagelschäden an den Modulen auf?"
    assert verdict.said_names(q, names) == ["Versicherung", "Hagelschäden"]
    assert verdict.said_names(q, ["kommt"]) == ["kommt"]  # no noun: name what there is
    assert verdict.said_names("Who painted the Mona Lisa?", ["painted", "Mona"]) == [
        "painted",
        "Mona",
    ]


def test_a_paraphrase_is_not_absent() -> None:
    q = "How many employees does the company have?"
    c = verdict.question_concepts(q, counts, pairs())
    assert [x.text for x in c.absent] == ["employees"]
    c = verdict.question_concepts(q, counts, pairs(), embed=fake_embed({"employees": "staff"}))
    assert c.absent == []


def test_an_english_embedder_finds_no_neighbours_for_german_words() -> None:
    """With the English default embedder a German concept is absent unless a form of it is
    in the retrieved passages; a multilingual embedder's neighbours count as in English."""
    q = "Welche Versicherung kommt für Hagelschäden auf?"
    german = pairs(["Die Module verlieren kaum Leistung, wenn der Regen sie reinigt."])
    embed = fake_embed({"versicherung": "verlieren"})
    languages = word_languages("all-MiniLM-L6-v2 (embedded)")
    assert languages == {"en"}
    c = verdict.question_concepts(q, counts, german, embed=embed, languages=languages)
    assert {x.text for x in c.absent} >= {"Versicherung", "Hagelschäden"}
    multi = word_languages("paraphrase-multilingual-MiniLM-L12-v2")
    assert multi is None
    c = verdict.question_concepts(q, counts, german, embed=embed, languages=multi)
    assert "Versicherung" not in {x.text for x in c.absent}


def test_green_needs_evidence_that_covers_the_question() -> None:
    q = "What was the dividend of the company in 2020?"
    concepts = verdict.question_concepts(q, counts, pairs())
    quote = "The company paid a dividend of 1.20 euros per share in 2020."
    good = answer("It paid 1.20 euros per share in 2020 [1].", [(1, quote)])
    good.question = q
    result = verdict.check(q, good, concepts=concepts)
    judged = verdict.apply(good, result, pairs())
    assert judged.validation.status == "GREEN"
    assert judged.validation.support is not None and judged.validation.support.missing == []


def judge_quoted(q: str, n: int, quote: str) -> Answer:
    """The verdict on an extractive answer that quotes ``quote`` from source ``n``."""
    quoted = answer(f"\u201c{quote}\u201d [{n}]", [(n, quote)], kind="extractive")
    quoted.question = q
    concepts = verdict.question_concepts(q, counts, pairs())
    return verdict.apply(quoted, verdict.check(q, quoted, concepts=concepts), pairs())


def _p(judged: Answer) -> float:
    support = judged.validation.support
    assert support is not None and support.probability is not None
    return support.probability


def test_partial_evidence_weighs_less_and_says_what_is_missing() -> None:
    whole = judge_quoted(
        "What dividend did the company pay in 2020?",
        1,
        "The company paid a dividend of 1.20 euros per share in 2020.",
    )
    q = "What dividend did the company pay to its shareholders and staff in 2020?"
    judged = judge_quoted(q, 1, "The company paid a dividend of 1.20 euros per share in 2020.")
    support = judged.validation.support
    assert support is not None and "staff" in support.missing
    assert _p(judged) <= _p(whole)
    if judged.validation.status != "GREEN":
        assert any("\u2018staff\u2019" in f for f in judged.validation.flags)


def test_evidence_without_the_key_concept_is_never_green_and_says_so() -> None:
    q = "What dividend did the company pay to its staff in 2020?"
    right = judge_quoted(q, 1, "The company paid a dividend of 1.20 euros per share in 2020.")
    judged = judge_quoted(q, 2, "The company employs a staff of 250 people in three countries.")
    assert judged.validation.status != "GREEN"
    assert _p(judged) < _p(right)
    said = judged.answer if judged.kind == "refusal" else " ".join(judged.validation.flags)
    assert "\u2018dividend\u2019" in said


def test_a_verdict_says_when_the_whole_library_lacks_a_concept() -> None:
    """'pay' occurs in no chunk (the report says 'paid'): the reason says the library lacks
    it, not only the cited passage, and names what that passage lacks besides."""
    q = "What dividend did the company pay to its staff in 2020?"
    judged = judge_quoted(q, 2, "The company employs a staff of 250 people in three countries.")
    support = judged.validation.support
    assert support is not None and support.absent == ["pay"]
    assert support.reasons[0] == (
        "No passage in your library mentions \u2018pay\u2019; the cited passages don't "
        "mention \u20182020\u2019, \u2018dividend\u2019."
    )


REFUSING = StatusModel(
    features=FEATURES,
    mean=(0.0,) * len(FEATURES),
    scale=(1.0,) * len(FEATURES),
    coef=tuple(8.0 if n == "coverage" else 0.0 for n in FEATURES),
    intercept=-4.0,
    green_at=0.9,
    refuse_below=0.3,
)
"""A status model that refuses evidence covering less than about 40% of the question."""


def test_an_answer_the_model_refuses_becomes_a_refusal_with_closest_passages() -> None:
    q = "Where is the company's head office?"
    quoted = answer(
        "\u201cRevenue grew by 4 percent.\u201d [1]", [(1, "Revenue grew by 4 percent.")]
    )
    quoted.kind = "extractive"
    quoted.question = q
    result = verdict.check(q, quoted, concepts=verdict.question_concepts(q, counts, pairs()))
    judged = verdict.apply(quoted, result, pairs(), model=REFUSING)
    assert judged.kind == "refusal" and judged.citations == []
    # the model's answer failed: that says what it wrote, not that the documents lack it,
    # and the citations it names are no longer shown, so the reason says whose they were
    assert judged.answer.startswith("No answer could be verified: ")
    support = judged.validation.support
    assert support is not None and support.closest and support.judged
    assert any("passages the model cited" in r for r in support.reasons)
    assert any("head office" in p.quote for p in support.closest)
    # the shipped model weighs the same evidence low too
    shipped_p = _p(judge_quoted(q, 1, "Revenue grew by 4 percent."))
    assert shipped_p < _p(judge_quoted(q, 2, "Its head office is in Hamburg."))


def test_a_quoted_table_row_is_read_under_its_header() -> None:
    q = "Which positions of the record hold the broadband allowance?"
    row = "FLD23 231-240 Amount of the broadband allowance claimed in pence"
    quoted = answer(f"\u201c{row}\u201d [1]", [(1, row)], kind="extractive")
    alone = verdict.check(q, quoted, concepts=None)
    assert "positions" in alone.missing
    header = ("Record layout of the annual return", "Field Positions Description")
    under = verdict.check(q, quoted, concepts=None, quote_context={row: header})
    assert "positions" in under.covered and "positions" not in under.missing
    assert under.score > alone.score and not under.restated


def test_contradiction_is_never_green() -> None:
    q = "In which city is the head office?"
    quote = "Its head office is in Hamburg."
    wrong = answer("The head office is in Berlin [2].", [(2, quote)])
    wrong.question = q
    judged = verdict.apply(wrong, verdict.check(q, wrong, concepts=None), pairs())
    assert judged.validation.status != "GREEN"
    said = judged.answer if judged.kind == "refusal" else " ".join(judged.validation.flags)
    assert "Berlin" in said and "Hamburg" in said


def test_a_sentence_that_says_the_opposite_of_its_quote_is_never_green() -> None:
    """Seen in the desktop app over a breast-cancer booklet."""
    q = "What does LCIS mean and is it cancer?"
    quote = (
        "Lobular carcinoma in situ (LCIS) means abnormal cells in the lobules. This is not cancer."
    )
    said = (
        "Lobular carcinoma in situ (LCIS) is a type of cancer that develops in breast tissue [1]."
    )
    why = verdict.adds_nothing(q, said, [quote])
    assert why is not None and "\u2018type\u2019" in why  # the quote is shown instead
    wrong = answer(said, [(1, quote)])
    wrong.question = q
    judged = verdict.apply(wrong, verdict.check(q, wrong, concepts=None), pairs())
    assert judged.validation.status != "GREEN"


def test_a_refusal_gets_its_closest_passages() -> None:
    refused = Answer(
        question="What was the revenue growth?",
        mode="refuse",
        kind="refusal",
        answer="The documents don't contain enough to answer this.",
        validation=Validation(status="YELLOW"),
    )
    result = verdict.check(refused.question, refused, pairs(), concepts=None)
    judged = verdict.apply(refused, result, pairs())
    assert judged.validation.support is not None
    assert "Revenue grew by 4 percent." in [p.quote for p in judged.validation.support.closest]
    assert "revenue" in judged.validation.support.covered


def test_a_refusal_shows_the_closest_passages_its_check_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check of a refusal judges its closest passages; the verdict shows those same
    passages and does not look for them again."""
    looked: list[str] = []
    near = verdict.passages_near

    def counted(question: str, found: object, **kw: object) -> list[Citation]:
        looked.append(question)
        return near(question, found, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(verdict, "passages_near", counted)
    refused = _refused("What was the revenue growth?", FAR_TEXT)
    result = verdict.check(refused.question, refused, pairs(), concepts=None)
    judged = verdict.apply(refused, result, pairs())
    assert looked == [refused.question]
    assert judged.validation.support is not None
    assert judged.validation.support.closest == result.closest != []


def test_a_refusal_says_what_its_closest_passages_lack() -> None:
    refused = Answer(
        question="What was the dividend yield?",
        mode="refuse",
        kind="refusal",
        answer="The documents don't contain enough to answer this.",
        validation=Validation(status="YELLOW"),
    )
    result = verdict.check(refused.question, refused, pairs(), concepts=None)
    assert result.reasons == ["The closest passages don't mention \u2018yield\u2019."]


def test_a_refusal_shows_its_passages_without_the_headings_run_into_them() -> None:
    """The closest passage is chosen as before, by the words it shares with the question,
    but shown from its first sentence on: not the page's title or section heading."""
    standard = (
        "Requirements\nNo binaries may be located under /etc.\n"
        "2 To be clear, /etc may contain executable scripts."
    )
    manual = (
        "Velora Trail E5: Owner's Manual\n1 Before your first ride\n"
        "Thank you for choosing the Velora Trail E5 bike."
    )
    refused = _refused("Can I put an executable from the Velora manual in /etc?", FAR_TEXT)
    both = pairs([standard, manual])
    result = verdict.check(refused.question, refused, both, concepts=None)
    judged = verdict.apply(refused, result, both)
    assert judged.validation.support is not None
    quotes = [p.quote for p in judged.validation.support.closest]
    assert quotes == [
        "No binaries may be located under /etc.\n2 To be clear, /etc may contain executable "
        "scripts.",
        "Thank you for choosing the Velora Trail E5 bike.",
    ]


def test_model_sentences_that_add_nothing_give_way_to_the_evidence() -> None:
    q = "How do I declare an option?"
    quote = "Options are declared with \\DeclareOption."
    why = verdict.adds_nothing(q, "You can simply declare an option like this [1].", [quote])
    assert why == "only restates the question"
    assert verdict.adds_nothing(q, "Use \\DeclareOption [1].", [quote]) is None
    why = verdict.adds_nothing(q, "Options can never be declared [1].", [quote])
    assert why is not None and "negates" in why


def test_a_sentence_that_loops_over_its_quote_gives_way_to_it() -> None:
    """Seen with the embedded model on the fixture manual, shown GREEN before."""
    q = "How often must calibration be repeated?"
    quote = "Calibration must be repeated every 12 months by an accredited laboratory."
    garbled = "12 months must be repeated every 12 months by an accredited laboratory. [1]"
    assert verdict.adds_nothing(q, garbled, [quote]) == "repeats itself where its quote does not"
    trimmed = "Calibration must be repeated every 12 months [1]."
    reordered = "An accredited laboratory must repeat the calibration every 12 months [1]."
    for written_well in (trimmed, reordered):
        assert verdict.adds_nothing(q, written_well, [quote]) is None, written_well
    # words of its own that the quote does not carry: the quote is shown instead
    own = "The logger is recalibrated yearly by a lab, every 12 months, 12 months apart [1]."
    why = verdict.adds_nothing(q, own, [quote])
    assert why is not None and "\u2018logger\u2019" in why and "which its quotes don't" in why
    # a pair the quote itself says twice may be said twice
    twice = "Every 12 months a check; after 12 months a report."
    assert verdict.adds_nothing("When?", "Every 12 months, then 12 months [1].", [twice]) is None


def test_a_sentence_cut_off_inside_a_bracket_gives_way_to_its_quotes() -> None:
    """Seen with the embedded model over the Bash manual: copying "(see Section 3.7.5 [Exit
    Status], page 44)", the grammar ended the text at the bracket and the fragment was GREEN."""
    q = "What is the exit status of a command terminated by a fatal signal?"
    quote = (
        "The return status (see Section 3.7.5 [Exit Status], page 44) of a simple command is "
        "its exit status, or 128+n if the command was terminated by signal n."
    )
    why = verdict.adds_nothing(q, "The return status (see Section 3.7.5 [2][3]", [quote])
    assert why is not None and "cut off" in why
    for fragment in (
        "A file name must not include any period or plus characters (. [1]",
        "The manual calls it \u201cthe return status [1].",
        "Im Handbuch hei\u00dft es \u201edie R\u00fcckgabe [1].",
    ):
        assert answer_checks.cut_off(fragment), fragment
    for whole in (
        "It is 128+n (n being the signal's number) [1].",
        "Bash calls it \u201cthe exit status\u201d [1].",
        "Im Handbuch hei\u00dft es \u201edie R\u00fcckgabe\u201c [1].",
        "1) Open the file; 2) save it [1].",
    ):
        assert not answer_checks.cut_off(whole), whole
        assert "cut off" not in (verdict.adds_nothing(q, whole, [quote]) or "")


def test_a_section_number_is_not_evidence_of_a_number() -> None:
    assert verdict.section_title("2 Writing classes > 2.7 General style") == "General style"
    assert verdict.section_title("A.1 Appendix") == "Appendix"
    assert verdict.section_title("2025 report") == "2025 report"
    assert verdict.section_title("3D printing") == "3D printing"


def test_a_quotes_own_heading_number_is_no_amount() -> None:
    """A chunk begins with its heading: "5" in "5 Troubleshooting" answers no "how long"."""
    q = "How long is the sensor cable?"
    quote = "5 Troubleshooting\nError code E42 means that the sensor cable is broken."
    assert verdict.without_numbering(quote, "5 Troubleshooting").startswith("Troubleshooting\n")
    assert verdict.without_numbering(quote, "4 Care") == quote  # not its heading: kept
    refused = Answer(
        question=q,
        mode="refuse",
        kind="refusal",
        answer=REFUSAL_TEXT,
        validation=Validation(status="YELLOW"),
    )
    chunk_pairs = pairs([quote])
    for src, chunk in chunk_pairs:
        src.section = chunk.section = "5 Troubleshooting"
    result = verdict.check(q, refused, chunk_pairs, concepts=None)
    assert not result.type_found
    assert (
        result.reasons[0] == "The question asks for a number, and the closest passages have none."
    )
    # a number in the text itself still counts, heading or not
    longer = verdict.check_quotes(
        q,
        [quote + " The cable is 3 m long."],
        ["5 Troubleshooting"],
        similarity=None,
        concepts=None,
    )
    assert longer.type_found


def test_cached_embed_embeds_each_word_once_and_forgets_the_oldest() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.array([[float(len(t)), float(ord(t[0]))] for t in texts])

    cached = verdict.CachedEmbed(embed, max_words=3)
    first = cached(["staff", "people", "a whole question?"])
    assert first.tolist() == embed(["staff", "people", "a whole question?"]).tolist()
    calls.clear()
    again = cached(["people", "staff", "a whole question?", "head"])
    assert again.tolist() == embed(["people", "staff", "a whole question?", "head"]).tolist()
    # only what was new went to the embedder: a sentence is never kept, words are
    assert calls[0] == ["a whole question?", "head"]
    calls.clear()
    cached(["office"])  # a fourth word pushes out the least recently used ("people")
    cached(["people", "head"])
    assert calls == [["office"], ["people"]]


def test_a_quote_spanning_lines_finds_the_similarity_its_sentence_had() -> None:
    """The prompt scored the sentence with its line breaks collapsed; the validator's quote
    keeps the document's own ("are:\\n\\\\mathrm roman"). No second embedding for it."""
    q = "Which math alphabets are predefined?"
    quote = "The predefined math alphabets are:\n\\mathrm roman\n\\mathbf bold"
    calls: list[list[str]] = []
    embed = recording_embed(calls)

    quoted = answer(f"\u201c{quote}\u201d [1]", [(1, quote)], kind="extractive")
    shown = "The predefined math alphabets are: \\mathrm roman \\mathbf bold"
    result = verdict.check(q, quoted, concepts=None, known_similarity={shown: 0.77}, embed=embed)
    assert result.similarity == pytest.approx(0.77)
    assert all(quote not in texts for texts in calls)


def test_an_unscored_quote_is_embedded_as_the_prompt_embedded_its_sentences() -> None:
    """A refusal's closest passages keep the document's line breaks; the prompt's selection
    embedded the same sentences with them collapsed, and the embedder remembers those."""
    q = "How heavy is the bike?"
    quote = "Technical data\nWeight 23.4 kg without pedals"
    calls: list[list[str]] = []
    embed = recording_embed(calls)

    quoted = answer(f"\u201c{quote}\u201d [1]", [(1, quote)], kind="extractive")
    result = verdict.check(q, quoted, concepts=None, known_similarity={}, embed=embed)
    assert result.similarity == pytest.approx(1.0)
    assert [q, "Technical data Weight 23.4 kg without pedals"] in calls
    assert all(quote not in texts for texts in calls)


def _refused(question: str, text: str) -> Answer:
    return Answer(
        question=question,
        mode="refuse",
        kind="refusal",
        answer=text,
        validation=Validation(status="YELLOW"),
    )


def test_every_refusal_says_why_in_words() -> None:
    """A refusal made before the check looked (the model declined; nothing was close) takes
    the check's reason about the closest passages, else says which of the two it was."""
    q = "What was the dividend yield?"  # the passages lack "yield"
    refused = _refused(q, FAR_TEXT)
    result = verdict.check(q, refused, pairs(), concepts=None)
    judged = verdict.apply(refused, result, pairs())
    assert judged.answer == (
        "The documents don't answer this: the closest passages don't mention \u2018yield\u2019."
    )
    q = "In how many countries does the company employ staff?"  # every concept is there
    for placeholder, says in [
        # the model declining says no more than that (a small model declines answerable ones)
        (REFUSAL_TEXT, "The model found no answer in the closest passages."),
        (
            FAR_TEXT,
            "The documents don't answer this: no passage is close enough to the question "
            "to answer it.",
        ),
    ]:
        refused = _refused(q, placeholder)
        result = verdict.check(q, refused, pairs(), concepts=None)
        assert not result.reasons
        judged = verdict.apply(refused, result, pairs())
        assert judged.answer == says
        assert judged.validation.support is not None and judged.validation.support.closest
    # a refusal that already says why keeps its words
    said = _refused(q, "No passage in your library mentions \u2018watermark\u2019.")
    judged = verdict.apply(said, verdict.check(q, said, pairs(), concepts=None), pairs())
    assert judged.answer == "No passage in your library mentions \u2018watermark\u2019."


SPECS = [
    "Technical data. Weight of the bike: 23.4 kg. Frame aluminium, size M.",
    "The motor assists up to 25 km/h. The battery holds 625 Wh.",
]


def _bundle(question: str) -> tuple[object, list[tuple[Source, Chunk]]]:
    """The ranked evidence for ``question`` over SPECS, every sentence only loosely similar
    to it (below the relevance floor), the one with the weight the least loosely."""
    ps = pairs(SPECS)
    bundle = build_prompt(
        question,
        [s for s, _ in ps],
        ranked_evidence=True,
        similarity=lambda _q, texts: [0.36 if "Weight" in t else 0.2 for t in texts],
    )
    return bundle, ps


def test_loosely_similar_evidence_that_covers_the_question_goes_on() -> None:
    """Below the relevance floor the support check of the ranked evidence decides: a table
    row that holds the weight answers "how heavy", whatever the cosine says."""
    q = "How heavy is the bike?"
    bundle, ps = _bundle(q)
    concepts = verdict.question_concepts(q, lambda w: ({x: 1 for x in w}, 2), ps)
    pre = verdict.before_generation(
        q, bundle, ps, concepts=concepts, embed=fake_embed({"heavy": "weight"})
    )
    assert pre is not None and not pre.reasons, pre  # nothing lacking: answered
    assert pre.answer_type == "number" and pre.type_found
    assert set(pre.covered) == {"heavy", "bike"}
    # the same evidence for a question it does not cover: refused, and the check says why
    q = "What colour is the bike?"
    bundle, ps = _bundle(q)
    concepts = verdict.question_concepts(q, lambda w: ({x: 1 for x in w} | {"colour": 0}, 2), ps)
    pre = verdict.before_generation(q, bundle, ps, concepts=concepts, embed=fake_embed({}))
    assert pre is not None and pre.reasons  # refused before generation, saying why
    assert "colour" in pre.missing


# --- a kind of answer no retrieved passage holds ----------------------------------------------
def test_a_price_no_retrieved_passage_gives_refuses_before_generation() -> None:
    """The report states a dividend in euros; a staff page states none. Asked for a price,
    passages without any sum of money cannot answer, whatever words they share."""
    staff = pairs([TEXTS[1], "The company runs three plants and a head office in Hamburg."])
    q = "What fee does the company charge for a plant visit?"
    assert verdict.kind_missing(q, staff) == "price"
    assert verdict.kind_missing(q, pairs()) is None  # "1.20 euros" is a sum of money
    assert verdict.kind_missing("How many people does the company employ?", staff) is None
    assert verdict.kind_missing(q, []) is None  # nothing retrieved: other refusals say so

    c = verdict.question_concepts(q, counts, staff)
    refused = verdict.kind_refusal(q, "price", c, staff)
    assert refused.kind == "refusal" and refused.mode == "refuse"
    assert refused.answer == (
        "The documents don't answer this: the question asks for a price or sum of money, and "
        "none of the closest passages gives one."
    )
    support = refused.validation.support
    assert support is not None and support.answer_type == "price" and support.score == 0.0
    assert support.reasons[0].startswith("The question asks for a price")
    assert [p.page for p in support.closest]  # the closest passages, to check for oneself


def test_a_price_refusal_also_names_a_concept_the_library_lacks() -> None:
    q = "What fare does the company charge for the shuttle to its head office?"
    c = verdict.question_concepts(q, counts, pairs([TEXTS[1]]))
    assert "fare" in [x.text for x in c.absent]
    refused = verdict.kind_refusal(q, "price", c, pairs([TEXTS[1]]))
    support = refused.validation.support
    assert support is not None and "fare" in support.absent
    assert support.reasons[1].startswith("No passage in your library mentions \u2018fare\u2019")


# --- a year asked that the library never prints -------------------------------------------------
def test_a_year_the_library_never_prints_refuses_before_generation() -> None:
    """The report is for 2020. Asked for 2023, every other word is close and the passage is
    about the dividend, but for another year: refused at once, naming the year."""
    q = "What dividend did the company pay per share in 2023?"
    c = verdict.question_concepts(q, counts, pairs())
    assert [y.text for y in c.years] == ["2023"]
    assert [x.text for x in c.refusing(0.9, None)] == ["2023"]  # whatever the cosine
    refused = verdict.absent_refusal(q, c, pairs())
    assert refused.kind == "refusal" and refused.answer == (
        "No passage in your library mentions \u20182023\u2019."
    )
    support = refused.validation.support
    assert support is not None and support.closest  # where to look instead

    # the year the report covers, one a passage prints as a financial year, one only told
    for asked in (
        "What dividend did the company pay per share in 2020?",
        "What dividend did the company pay per share in 2021?",
        "We bought shares in 2023. What dividend did the company pay per share?",
    ):
        fy = pairs([*TEXTS, "Outlook FY2021/22: a dividend of 1.30 euros is planned."])
        c = verdict.question_concepts(asked, counts, fy)
        assert c.years == [] and c.refusing(0.9, None) == [], asked


def test_a_year_counted_in_the_library_is_not_missing_though_no_passage_prints_it() -> None:
    q = "What dividend did the company pay per share in 2023?"
    c = verdict.question_concepts(q, lambda w: ({x: int(x == "fy2023") for x in w}, 2), pairs())
    assert c.years == []


def test_list_ranks_are_those_of_the_best_ranked_cited_passage_and_of_the_top_one() -> None:
    ps = pairs()
    ps[0][0].keyword_rank, ps[0][0].vector_rank = 1, 4
    ps[1][0].keyword_rank, ps[1][0].vector_rank = 0, 2
    second = ps[1][0]
    cite = Citation(
        n=2,
        doc_id="doc",
        chunk_id=second.chunk_id,
        file=second.file,
        page=2,
        section=second.section,
        quote="The company employs a staff of 250 people",
        match="exact",
        score=100.0,
    )
    assert verdict.list_ranks([cite], ps) == ((0, 2), (1, 4))
    assert verdict.list_ranks([], ps) == ((0, 0), (1, 4))
    assert verdict.list_ranks([], []) == ((0, 0), (0, 0))
    x = features(
        assess("How many people?", [cite.quote]),
        generated=False,
        verified=True,
        cited_list_ranks=(0, 2),
        top_list_ranks=(1, 4),
    )
    assert (x["cited_keyword_rank"], x["cited_vector_rank"]) == (0.0, 0.5)
    assert (x["top_keyword_rank"], x["top_vector_rank"]) == (1.0, 0.25)
