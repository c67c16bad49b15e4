"""Claim checks: content words with Snowball stemming, and numbers in canonical form."""

from __future__ import annotations

import pytest

from app.core.textkit import stem
from app.validation.claims import (
    canonical_number,
    claim_numbers,
    content_stems,
    missing_numbers,
    word_count,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("page", "pages"),
        ("base", "based"),
        ("configure", "configuration"),
        ("library", "libraries"),
        ("class", "classes"),
        ("box", "boxes"),
        ("hyphenation", "hyphenate"),
        ("Geometry", "geometry"),
    ],
)
def test_stem_conflates_word_forms(a: str, b: str) -> None:
    assert stem(a) == stem(b)


@pytest.mark.parametrize(("a", "b"), [("margin", "table"), ("font", "page"), ("class", "clash")])
def test_stem_keeps_different_words_apart(a: str, b: str) -> None:
    assert stem(a) != stem(b)


def test_content_stems_ignore_stopwords_and_source_talk() -> None:
    assert content_stems("According to the source, it is what it says.") == set()
    assert content_stems("The \u201cGeometry\u201d package sets Margins of 10pt") == {
        "geometri",
        "packag",
        "set",
        "margin",
        "10pt",
    }


def test_word_count() -> None:
    assert word_count("In short: yes.") == 3
    assert word_count("It is the 10pt font.") == 5


@pytest.mark.parametrize(
    ("raw", "canon"),
    [
        ("1,000", "1000"),
        ("1,000,000", "1000000"),
        ("007", "7"),
        ("2.3.1", "2.3.1"),
        ("10.50", "10.50"),
        ("3.04", "3.04"),
        ("0.5", "0.5"),
        ("2.03.1", "2.3.1"),
    ],
)
def test_canonical_number(raw: str, canon: str) -> None:
    assert canonical_number(raw) == canon


@pytest.mark.parametrize(
    ("sentence", "numbers"),
    [
        ("Version 2.3.1 added 1,000 glyphs.", ["2.3.1", "1000"]),
        ("Use 10pt or 10 pt fonts.", ["10"]),
        ("Released on 2021-05-05.", ["2021", "5"]),
        ("1. Install it in 3 steps.", ["3"]),
        ("- Use LaTeX2e and utf8 with v2.1 here.", ["2.1"]),
        ("Values 1,2,3 and 50% work.", ["1", "2", "3", "50"]),
        ("No numbers at all.", []),
    ],
)
def test_claim_numbers(sentence: str, numbers: list[str]) -> None:
    assert claim_numbers(sentence) == numbers


@pytest.mark.parametrize(
    ("sentence", "evidence", "missing"),
    [
        ("It added 1000 glyphs.", "It added 1,000 glyphs.", []),
        ("It added 1,000 glyphs.", "It added 1000 glyphs.", []),
        ("The size is 10 pt.", "The size is 10pt.", []),
        ("The size is 12pt.", "The size is 10pt.", ["12"]),
        ("Version 2.3 is out.", "Version 2.3.1 is out.", ["2.3"]),
        ("Version 2.3.1 is out.", "Version 2.3.1, then 2.4.", []),
        ("Version 2.1 is out.", "Version 2.10 is out.", ["2.1"]),
        ("Added in V3.04.", "added in v3.04.", []),
        ("It uses LaTeX2e.", "It uses LaTeX.", []),
        ("Printed on 5 May 2021.", "Printed 2021-05-05.", []),
        ("Pages 10\u201312 explain it.", "See pages 10-12.", []),
    ],
)
def test_missing_numbers(sentence: str, evidence: str, missing: list[str]) -> None:
    assert missing_numbers(sentence, evidence) == missing


def test_possessive_is_the_word_itself() -> None:
    assert content_stems("Geometry's margins") == content_stems("geometry margins")
