"""The one text toolkit: words, stop words, Snowball stems and language detection."""

from __future__ import annotations

import pytest

from app.core import textkit
from app.core.textkit import (
    QUESTION_FILLER,
    SOURCE_TALK,
    content_stems,
    content_words,
    detect_language,
    inflected_forms,
    languages_in,
    own_stop_words,
    stem,
    stop_words,
    tokens,
    words,
)
from tests.bench.corpus_gen import book as corpus_book
from tests.bench.corpus_gen import german as corpus_german

pytestmark = pytest.mark.unit


def test_tokens_are_letters_and_digits_only() -> None:
    assert tokens(r"\newcommand{foo}: a_b @x don't 2.3") == [
        "newcommand", "foo", "a", "b", "x", "don", "t", "2", "3"
    ]  # fmt: skip
    assert words("LaTeX Über") == ["latex", "über"]


def test_stop_words_are_function_words_per_language() -> None:
    en, de = stop_words("en"), stop_words("de")
    assert {"the", "of", "which", "don"} <= en  # "don't" is split like TOKEN splits it
    assert {"der", "die", "und", "nicht"} <= de
    # content words a question may be about are never stop words
    assert not {"computer", "date", "area", "information", "number"} & en
    assert stop_words("xx") == en  # unknown language: English


def test_domain_word_sets_are_not_in_the_library_lists() -> None:
    assert "according" in SOURCE_TALK and "explain" in QUESTION_FILLER
    assert not (SOURCE_TALK | QUESTION_FILLER) & {"option", "class", "page"}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("page", "pages"),
        ("configure", "configuration"),
        ("declare", "declaration"),
        ("library", "libraries"),
        ("hyphenation", "hyphenate"),
    ],
)
def test_english_stems_conflate_word_forms(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_german_stems() -> None:
    assert stem("Mitarbeiter", "de") == stem("Mitarbeitern", "de")
    assert stem("Häuser", "de") == stem("Hauses", "de")


@pytest.mark.parametrize(
    ("a", "b"),
    [("anzumelden", "Anmeldung"), ("auszurichten", "Ausrichtung"), ("einzuspeisen", "einspeisen")],
)
def test_german_zu_infinitive_stems_like_the_verb(a: str, b: str) -> None:
    assert stem(a, "de") == stem(b, "de")


def test_zu_inside_other_german_words_stays() -> None:
    assert stem("Anzug", "de") == "anzug"  # no verb ending after "zu"
    assert stem("vorzugsweise", "de").startswith("vorzug")


def test_numbers_and_mixed_words_are_kept() -> None:
    assert stem("2020") == "2020" and stem("10PT") == "10pt"


def test_content_words_and_stems() -> None:
    assert content_words("How do I declare an option in a class?") == [
        "declare", "option", "class"
    ]  # fmt: skip
    assert content_words("Please explain the option", extra=QUESTION_FILLER) == ["option"]
    assert content_stems("Wie viele Mitarbeiter hat die Firma?", "de") == [
        "viel", "mitarbeit", "firma"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("How many employees does the company have?", "en"),
        ("Wie viele Mitarbeiter hat die Firma im Jahr 2020?", "de"),
        ("Quelle est la capitale de la France et où se trouve le musée ?", "fr"),
        ("\\DeclareOption", "en"),  # nothing to go on: the default
        ("", "en"),
    ],
)
def test_detect_language(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def _chapters_text(chapters: list[tuple[str, list[object]]]) -> str:
    return " ".join(p for _, paras in chapters for p in paras if isinstance(p, str))


def test_languages_in_a_library_vocabulary() -> None:
    """A three-page German brochure is German (its words hold 29% of the stop words only
    German lists), an English book English, the two together both, and no language whose
    stop words share forms with German ("die", "man" in Danish and Dutch) is taken for one."""
    german = set(words(_chapters_text(corpus_german.CHAPTERS)))
    english = set(words(_chapters_text(corpus_book.CHAPTERS)))
    assert languages_in(german) == ["de"]
    assert languages_in(english) == ["en"]
    assert languages_in(german | english) == ["de", "en"]
    assert languages_in(set(words("the cat sat on the mat"))) == [], "too few words to tell"


def test_own_stop_words_belong_to_one_language_each() -> None:
    own = own_stop_words()
    assert "und" in own["de"] and "the" in own["en"]
    assert "die" not in own["de"], "Dutch lists it too"
    for lang, mine in own.items():
        for other, theirs in own.items():
            assert other == lang or not mine & theirs


@pytest.mark.parametrize(
    ("word", "form"),
    [
        ("Bild", "bilder"),  # -er plural
        ("Kennwort", "kennwörter"),  # with umlaut
        ("Zeilenumbrüche", "zeilenumbrüchen"),  # dative plural
        ("Etappe", "etappen"),
        ("weglasse", "weglassen"),  # the verb's infinitive
    ],
)
def test_inflected_forms_of_a_german_word(word: str, form: str) -> None:
    assert form in inflected_forms(word, "de")


def test_inflected_forms_only_for_languages_that_inflect_by_endings() -> None:
    assert inflected_forms("picture", "en") == []
    assert inflected_forms("2020", "de") == [] and inflected_forms("zu", "de") == []


def test_everyday_words_of_every_stemmed_language() -> None:
    """Each language the library stems has its list of most common words (a resource the
    bundle ships); a language without one has none, and nothing is taken for common."""
    for lang in textkit.LANGUAGES:
        every = textkit.everyday_words(lang)
        assert len(every) == textkit.EVERYDAY_WORDS_COUNT, lang
        assert all(w == w.lower() and w.isalpha() for w in every), lang
    assert {"top", "left", "pay"} <= textkit.everyday_words("en")
    assert {"platz", "geld"} <= textkit.everyday_words("de")
    assert "walnut" not in textkit.everyday_words("en")
    assert textkit.everyday_words("xx") == frozenset()


def test_written_in_the_scripts_of_the_languages() -> None:
    assert textkit.written_in("Versicherung", {"en"})
    assert not textkit.written_in("삼성", {"en"})
    assert not textkit.written_in("및kfreebsd", {"en"})  # one Hangul letter is enough
    assert textkit.written_in("삼성", {"en", "ko"})
    assert textkit.written_in("삼성", None)
    assert textkit.written_in("2015", {"en"})  # no letters: no script to misread
