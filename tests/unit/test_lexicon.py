"""The word lists the search translates questions with (``app.core.lexicon``)."""

from __future__ import annotations

import gzip

import pytest

from app.core import lexicon
from app.core.lexicon import WordList, translate, translations
from app.core.resources import resources_dir

pytestmark = pytest.mark.unit


def _list(rows: dict[str, str]) -> WordList:
    text = "".join(f"{k}\t{v}\n" for k, v in sorted(rows.items()))
    return WordList(text.encode("utf-8"))


def test_word_list_finds_every_key_and_nothing_else() -> None:
    rows = {
        "a": "x",
        "akku": "battery|accumulator",
        "ärger": "anger",
        "zebra": "zebra",
        "~druck": "print",
        "über": "over|above",
        "straße": "street",
    }
    wl = _list(rows)
    assert len(wl) == len(rows)
    for key, value in rows.items():
        assert wl.get(key) == tuple(value.split("|")), key
    for absent in ("", "b", "akk", "akkus", "zzz", "~", "ü", "strasse"):
        assert wl.get(absent) == (), absent
    assert len(WordList(b"")) == 0 and WordList(b"").get("a") == ()


@pytest.mark.parametrize("pair", ["de-en", "en-de", "fr-en", "en-fr"])
def test_shipped_lists_are_sorted_as_bisection_needs(pair: str) -> None:
    data = gzip.decompress((resources_dir() / "lexicon" / f"{pair}.tsv.gz").read_bytes())
    keys = [line.split(b"\t", 1)[0] for line in data.splitlines()]
    assert len(keys) > 5000
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all(b"\t" in line and line.split(b"\t", 1)[1] for line in data.splitlines())


def test_words_found_as_listed_by_stem_and_as_german_compounds() -> None:
    assert "print" in translations("drucken", "de", "en")
    assert "battery" in translations("Akku", "de", "en")  # the list's keys are lower case
    assert "print" in translations("imprimées", "fr", "en")  # by the stem "imprim"
    # Not listed whole: the longest listed head, then the tail.
    assert translations("akkuladezeit", "de", "en") == ("accumulator", "charging time")
    assert "Fußzeile" in translations("footer", "en", "de")
    assert translations("fancyhdr", "de", "en") == ()
    assert translations("drucken", "de", "ko") == ()  # no such list
    assert len(translations("reinigen", "de", "en")) <= lexicon.MAX_TRANSLATIONS


def test_translate_keeps_names_and_drops_function_words() -> None:
    out = translate("Wie drucke ich mit fancyhdr die Seitenzahlen in der Fußzeile?", "de")
    words = out.split()
    assert {"page", "numbers", "footer", "fancyhdr"} <= set(words)
    assert not {"wie", "ich", "die", "der", "in", "the"} & set(words)
    assert len(words) == len(set(words))
    # Into the languages asked for only; none for a language without lists.
    assert translate("Where is the footer?", "en", ["de"]).split() == ["fußzeile"]
    assert translate("Where is the footer?", "en", ["en"]) == ""
    assert translate("Hvor er sidefoden?", "da") == ""


def test_warm_reads_the_lists_into_and_from_a_librarys_languages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[tuple[str, str]] = []
    monkeypatch.setattr(lexicon, "table", lambda s, t: read.append((s, t)))
    lexicon.warm(["de"])
    assert sorted(read) == [("de", "en"), ("en", "de")]
    read.clear()
    lexicon.warm(["en", "ko"])
    assert sorted(read) == [("de", "en"), ("en", "de"), ("en", "fr"), ("fr", "en")]
    read.clear()
    lexicon.warm(["ko"])
    assert read == []
