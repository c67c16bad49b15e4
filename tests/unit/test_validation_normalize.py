"""normalize() with its offset map, and locate() with its three matching tiers."""

from __future__ import annotations

import pytest

from app.validation.locate import FUZZY_THRESHOLD, ChunkIndex, find_elsewhere, locate
from app.validation.normalize import loose, normalize, tokens

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("  Two\t\tspaces \n here  ", "two spaces here"),
        ("\u201cCurly\u201d and \u2018single\u2019", "\"curly\" and 'single'"),
        ("en\u2013dash em\u2014dash minus\u2212sign", "en-dash em-dash minus-sign"),
        ("ﬁle ﬂow eﬀect oﬃce", "file flow effect office"),
        ("para\u00admeter zero\u200bwidth", "parameter zerowidth"),
        ("hyphen-\nation", "hyphenation"),
        ("hyphen- ation", "hyphenation"),
        ("hyphen\u00ad\nation", "hyphenation"),
        ("Smith-\nJones", "smith- jones"),  # a capital after the break: not hyphenation
        ("non\u00a0breaking\u2009thin", "non breaking thin"),
        ("ellipsis\u2026", "ellipsis..."),
        ("", ""),
        ("   ", ""),
    ],
)
def test_normalize_rules(raw: str, norm: str) -> None:
    assert normalize(raw).text == norm


@pytest.mark.parametrize(
    "raw",
    [
        "The \u201cﬁle\u201d has  hyphen-\nation and para\u00admeters \u2014 ok.",
        "  lead and trail  ",
        "a \u200b b\u00a0 c",
        "ÀÉÎ İstanbul ﬃ",
    ],
)
def test_offset_map_is_monotonic_and_points_at_the_source_characters(raw: str) -> None:
    n = normalize(raw)
    assert len(n.starts) == len(n.ends) == len(n.text)
    for i in range(len(n.text)):
        s, e = n.starts[i], n.ends[i]
        assert 0 <= s < e <= len(raw)
        if i:
            assert s >= n.starts[i - 1] and e >= n.ends[i - 1]
        if n.text[i] != " ":
            assert not raw[s:e].isspace()


def test_to_original_maps_a_span_back_exactly() -> None:
    raw = "See the \u201cﬁle  hyphen-\nation\u201d rule."
    n = normalize(raw)
    i = n.text.index("file hyphenation")
    s, e = n.to_original(i, i + len("file hyphenation"))
    assert raw[s:e] == "ﬁle  hyphen-\nation"
    with pytest.raises(ValueError):
        n.to_original(3, 3)


def test_tokens_drop_punctuation_and_keep_original_spans() -> None:
    raw = "A well-known, \u201cﬁne\u201d package."
    t = tokens(normalize(raw))
    assert t.joined == "a well known fine package"
    assert [raw[s:e] for s, e in t.original] == ["A", "well", "known", "ﬁne", "package"]
    assert loose(raw) == "a well known fine package"


# --- locate ------------------------------------------------------------------------------

CHUNK = (
    "The geometry package provides an easy and flexible user interface to customize page "
    "layout, implementing auto-centering and auto-balancing mechanisms so that users have "
    "only to give the least description for the page layout."
)


def test_locate_prefers_exact() -> None:
    m = locate("an easy and flexible user interface", ChunkIndex(CHUNK))
    assert m is not None and m.kind == "exact" and m.score == 100.0
    assert CHUNK[m.start : m.end] == "an easy and flexible user interface"


def test_locate_strips_the_quote_before_matching() -> None:
    m = locate("  the least description  ", ChunkIndex(CHUNK))
    assert m is not None and m.kind == "exact"
    assert CHUNK[m.start : m.end] == "the least description"


def test_locate_normalized_span_excludes_surrounding_whitespace() -> None:
    text = "x  \n Geometry   Package \n y"
    m = locate("geometry package", ChunkIndex(text))
    assert m is not None and m.kind == "normalized"
    assert text[m.start : m.end] == "Geometry   Package"


def test_locate_fuzzy_tolerates_a_small_change() -> None:
    quote = "implementing auto centring and auto balancing mechanisms so users have only to give"
    m = locate(quote, ChunkIndex(CHUNK))
    assert m is not None and m.kind == "fuzzy"
    assert FUZZY_THRESHOLD <= m.score < 100.0
    assert CHUNK[m.start : m.end] == (
        "implementing auto-centering and auto-balancing mechanisms so that users have only to give"
    )


@pytest.mark.parametrize(
    "quote",
    [
        "the package draws crop marks and registration marks on every page",
        "geometry provides a hard and rigid interface to destroy page layout",
        "flexible page",  # too short to be matched fuzzily
        "fluxible",
        "",
        " \n ",
        "!!!",
    ],
)
def test_locate_rejects_what_is_not_there(quote: str) -> None:
    assert locate(quote, ChunkIndex(CHUNK)) is None


def test_locate_rejects_a_quote_longer_than_the_chunk() -> None:
    assert locate(CHUNK + " And then a lot more text follows here.", ChunkIndex("geometry")) is None


def test_find_elsewhere_names_the_source_that_has_the_quote() -> None:
    others = {2: ChunkIndex("Nothing here."), 3: ChunkIndex(CHUNK)}
    assert find_elsewhere("The  GEOMETRY package provides", others) == 3
    assert find_elsewhere("absent words", others) is None
    assert find_elsewhere("  ", others) is None


# --- seeded randomised round trips (hypothesis is not installed) -------------------------

_VOCAB = [
    "the", "package", "sets", "margins", "\ufb01le", "\ufb02ow", "\u201cquoted\u201d",
    "it\u2019s", "en\u2013dash", "10pt", "1,000", "v2.3.1", "para\u00admeter", "hyphen-\nation",
    "long", "tables", "break", "across", "pages", "caf\u00e9", "(brackets)", "end.",
]  # fmt: skip
_SEPS = [" ", " ", " ", "\n", "  ", " \n ", "\t", "\u00a0"]


def _model_typing(text: str) -> str:
    """How a model retypes a passage: plain quotes, no ligatures, hyphens joined, one space."""
    for a, b in {
        "\ufb01": "fi", "\ufb02": "fl", "\u201c": '"', "\u201d": '"', "\u2019": "'",
        "\u2013": "-", "\u00ad": "", "\u00a0": " ", "-\n": "",
    }.items():  # fmt: skip
        text = text.replace(a, b)
    return " ".join(text.split())


@pytest.mark.parametrize("seed", range(60))
def test_retyped_quotes_are_found_at_their_own_span(seed: int) -> None:
    import random

    rng = random.Random(seed)
    words = [rng.choice(_VOCAB) for _ in range(rng.randint(20, 60))]
    parts: list[str] = []
    starts: list[int] = []
    at = 0
    for w in words:
        sep = rng.choice(_SEPS) if parts else ""
        at += len(sep)
        starts.append(at)
        parts.append(sep + w)
        at += len(w)
    text = "".join(parts)
    i = rng.randrange(0, len(words) - 4)
    j = rng.randrange(i + 3, min(len(words), i + 12))
    span = text[starts[i] : starts[j] + len(words[j])]
    typed = _model_typing(span)
    if rng.random() < 0.5:
        typed = typed.upper() if rng.random() < 0.3 else typed.lower()
    m = locate(typed, ChunkIndex(text))
    assert m is not None, (typed, text)
    assert m.kind in ("exact", "normalized")
    # The words found are the words quoted (the first occurrence may be an earlier repeat).
    assert loose(text[m.start : m.end]) == loose(span)
    assert not text[m.start].isspace() and not text[m.end - 1].isspace()
