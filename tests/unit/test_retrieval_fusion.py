"""Pure ranking rules of hybrid search: query sanitising, RRF, de-duplication, boosts."""

from __future__ import annotations

import pytest

from app.retrieval.fusion import (
    Passage,
    dedupe,
    query_terms,
    reciprocal_rank_fusion,
    sanitize_fts_query,
    term_coverage,
    title_overlap,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('How do I use \\newcommand with "optional" arguments?', "newcommand optional arguments"),
        ("longtable: AND OR NOT (caption)", "longtable caption"),
        ("\\@ifpackageloaded{amsmath}", "ifpackageloaded amsmath"),
        ("a*b? c~d^2 [x] {y} 'z'", "b c d 2 x y z"),
        ("what is it", "what is it"),  # all stop words: keep them rather than search nothing
        ("Größe der Schrift", "größe der schrift"),
        ("foo_bar baz-qux", "foo bar baz qux"),
    ],
)
def test_sanitize_keeps_only_plain_words(query: str, expected: str) -> None:
    assert sanitize_fts_query(query) == expected


def test_sanitize_of_punctuation_only_is_empty() -> None:
    assert sanitize_fts_query('"\\:(){}[]*?^~"') == ""
    assert query_terms("   ") == []


def test_query_terms_are_distinct_and_capped() -> None:
    terms = query_terms("table table TABLE " + " ".join(f"w{i}" for i in range(100)))
    assert terms[0] == "table" and terms.count("table") == 1
    assert len(terms) == 32


def test_rrf_rewards_agreement_and_respects_weights() -> None:
    text = ["a", "b", "c"]
    vec = ["c", "d", "a"]
    s = reciprocal_rank_fusion([(text, 1.0), (vec, 1.0)], k=60)
    assert s["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert s["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert s["b"] == pytest.approx(1 / 62)
    assert max(s, key=s.__getitem__) in {"a", "c"}
    assert s["a"] > s["b"] > 0 and s["d"] == pytest.approx(1 / 62)
    heavy_vec = reciprocal_rank_fusion([(text, 0.5), (vec, 2.0)], k=60)
    assert max(heavy_vec, key=heavy_vec.__getitem__) == "c"
    assert heavy_vec["d"] > heavy_vec["b"]


def test_rrf_zero_weight_list_is_ignored() -> None:
    s = reciprocal_rank_fusion([(["a"], 1.0), (["b"], 0.0)])
    assert set(s) == {"a"}


def _p(cid: str, ordinal: int, text: str, doc: str = "d1") -> Passage:
    return Passage(cid, doc, ordinal, text)


WORDS = [f"word{i}" for i in range(200)]


def test_dedupe_drops_overlapping_window_but_keeps_distinct_neighbours() -> None:
    a = _p("d1:00000", 0, " ".join(WORDS[0:100]))
    b = _p("d1:00001", 1, " ".join(WORDS[20:110]))  # 80 of 90 words shared with a
    c = _p("d1:00002", 2, " ".join(WORDS[100:200]))  # shares only a few words with b
    kept = dedupe([a, b, c])
    assert [p.chunk_id for p in kept] == ["d1:00000", "d1:00002"]


def test_dedupe_drops_same_text_in_another_document() -> None:
    text = "The same boilerplate paragraph appears in both manuals word for word here."
    kept = dedupe([_p("d1:00003", 3, text), _p("d2:00007", 7, text, doc="d2")])
    assert [p.chunk_id for p in kept] == ["d1:00003"]


def test_dedupe_adjacent_option_and_limit() -> None:
    ps = [
        _p("d1:00004", 4, "alpha beta gamma delta epsilon"),
        _p("d1:00005", 5, "zeta eta theta iota kappa"),
        _p("d1:00009", 9, "lambda mu nu xi omicron"),
        _p("d2:00005", 5, "pi rho sigma tau upsilon", doc="d2"),
    ]
    assert len(dedupe(ps)) == 4
    assert [p.chunk_id for p in dedupe(ps, adjacent=True)] == ["d1:00004", "d1:00009", "d2:00005"]
    assert [p.chunk_id for p in dedupe(ps, limit=2)] == ["d1:00004", "d1:00005"]


def test_title_overlap_and_term_coverage() -> None:
    terms = query_terms("How do I repeat the longtable caption?")
    assert terms == ["repeat", "longtable", "caption"]
    assert title_overlap(terms, "3 Captions > Longtable caption") == pytest.approx(2 / 3)
    assert title_overlap(terms, "") == 0.0
    assert term_coverage(terms, "Repeat the caption on every page.") == pytest.approx(2 / 3)
    assert term_coverage([], "anything") == 0.0
