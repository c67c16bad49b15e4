"""Markers: parsing every form models write, rewriting with clean spacing, sentences."""

from __future__ import annotations

import pytest

from app.validation.markers import find_markers, rewrite
from app.validation.sentences import answer_sentences

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("a [1] b", [(1,)]),
        ("a [1][3] b", [(1,), (3,)]),
        ("a [1, 3] b", [(1, 3)]),
        ("a [1,3] b", [(1, 3)]),
        ("a [ 2 ; 1 ] b", [(2, 1)]),
        ("a [1-3] b", [(1, 2, 3)]),
        ("a [2\u20134] b", [(2, 3, 4)]),
        ("a [3-1] b", [(3, 1)]),
        ("a [0] [-2] b", [(0,), (-2,)]),
        ("a [Source 2] [sources 1, 3] [src 4] b", [(2,), (1, 3), (4,)]),
        ("a [12pt] b [x] c [] d", []),
        (r"\newcommand{\x}[1]{#1} and `a[2]` code", []),
    ],
)
def test_find_markers(text: str, numbers: list[tuple[int, ...]]) -> None:
    found = find_markers(text)
    assert [m.ns for m in found] == numbers
    for m in found:
        assert text[m.start] == "[" and text[m.end - 1] == "]"


def test_rewrite_keeps_removes_and_merges() -> None:
    text = "A [1, 2] b [3] c [1] [2]."
    markers = find_markers(text)
    assert rewrite(text, markers, [[2, 1], [], [1], [2, 2]]) == "A [2][1] b c [1][2]."


def test_rewrite_requires_one_keep_list_per_marker() -> None:
    text = "A [1]."
    with pytest.raises(ValueError):
        rewrite(text, find_markers(text), [])


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("Foo [9].", "Foo."),
        ("Foo [9], bar.", "Foo, bar."),
        ("Foo [9]; bar [9]: baz [9]!", "Foo; bar: baz!"),
        ("Foo ([9]) bar.", "Foo bar."),
        ("Foo ( [9] ).", "Foo."),
        ("[9] Foo.", "Foo."),
        ("Foo.[9] Bar.", "Foo. Bar."),
        ("Foo.[9]Bar.", "Foo. Bar."),
        ("Foo [9] bar.", "Foo bar."),
        ("Foo [9][9] [9] bar.", "Foo bar."),
        ("Line one [9]\nLine two.", "Line one\nLine two."),
        ("Foo [9]", "Foo"),
    ],
)
def test_rewrite_cleans_spacing_where_markers_disappear(text: str, clean: str) -> None:
    markers = find_markers(text)
    assert rewrite(text, markers, [[] for _ in markers]) == clean


def test_sentences_own_their_markers() -> None:
    text = "[2] First claim here [1]. Second claim.[3] Third claim [4]\n- item five [5]"
    markers = find_markers(text)
    sents = answer_sentences(text, markers)
    assert [s.plain for s in sents] == [
        "First claim here.",
        "Second claim.",
        "Third claim",
        "- item five",
    ]
    owned = [[markers[i].ns[0] for i in s.markers] for s in sents]
    assert owned == [[2, 1], [3], [4], [5]]


def test_glued_segments_are_split_into_sentences_and_spaced() -> None:
    text = "First claim here[1].Second claim[2].third"
    markers = find_markers(text)
    sents = answer_sentences(text, markers)
    assert [s.plain for s in sents] == ["First claim here.", "Second claim.third"]
    assert [s.markers for s in sents] == [(0,), (1,)]
    assert rewrite(text, markers, [[1], [2]]) == "First claim here[1]. Second claim[2]. third"


def test_a_quotation_is_one_claim_under_its_marker() -> None:
    """An extractive answer quotes a lead-in with the list it introduces: one claim, [1]."""
    quote = (
        "you can ask them interactively:\n"
        "\u2022 debian-mentors@lists.debian.org mailing list. (This list is for the novice.)\n"
        "\u2022 debian-devel@lists.debian.org mailing list. (This list is for the expert.)"
    )
    text = f"\u201c{quote}\u201d [1] \u201cA second quote. It has two sentences.\u201d [2]"
    markers = find_markers(text)
    sents = answer_sentences(text, markers)
    assert len(sents) == 2
    assert [[markers[i].ns[0] for i in s.markers] for s in sents] == [[1], [2]]
    assert sents[0].plain.startswith("\u201cyou can ask") and "expert.)\u201d" in sents[0].plain
    # outside a quotation, sentences are still split
    plain = answer_sentences(
        "One claim [1]. Another claim [2].", find_markers("One claim [1]. Another claim [2].")
    )
    assert len(plain) == 2
