"""Whether a question leans on the turns before it (app.core.leaning): the ways a follow-up
points back, and the questions that name their own subject and stand alone."""

from __future__ import annotations

import pytest

from app.core.leaning import leaning, names_in, own_words, pointing_back


@pytest.mark.parametrize(
    ("question", "kind", "word"),
    [
        ("Does it work offline?", "pronoun", "it"),
        ("What is its default?", "pronoun", "its"),
        ("How do I reset it to factory settings?", "pronoun", "it"),
        ("Can I use it to edit PDF files?", "pronoun", "it"),
        ("How long does it take?", "pronoun", "it"),
        ("Is it possible?", "pronoun", "it"),
        ("Are they free?", "pronoun", "they"),
        ("How old are most of them?", "pronoun", "them"),
        ("When was he born?", "pronoun", "he"),
        ("Who pays for it?", "pronoun", "it"),
        ("Is that free?", "demonstrative", "that"),
        ("What does that mean?", "demonstrative", "that"),
        ("Does the warranty cover that?", "demonstrative", "that"),
        ("How do I fix this?", "demonstrative", "this"),
        ("Which of these options is fastest?", "demonstrative", "these"),
        ("Does this apply to renters too?", "demonstrative", "this"),
        ("How do I get there?", "there", "there"),
        ("Which one is cheaper?", "one", "one"),
        ("Is the cheapest one available online?", "one", "one"),
        ("Wie viel kostet es?", "pronoun", "es"),
        ("Ist das kostenlos?", "pronoun", "das"),
        ("Wo bekomme ich sie?", "pronoun", "sie"),
    ],
)
def test_a_word_that_points_back_with_nothing_to_point_at_leans(
    question: str, kind: str, word: str
) -> None:
    lean = leaning(question)
    assert lean is not None
    assert (lean.kind, lean.word.lower()) == (kind, word)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("And for women over 50?", "leading"),
        ("What about the second option?", "leading"),
        ("How about students?", "leading"),
        ("What if I miss the deadline?", "leading"),
        ("und für Männer?", "leading"),
        ("Was ist mit Kindern?", "leading"),
        ("Do children also need a ticket?", "adding"),
        ("Can I do the same on Windows?", "adding"),
        ("Is it cheaper as well?", "pronoun"),
        ("Gibt es sonst noch Rabatte?", "adding"),
        ("Where do I apply?", "few-words"),
        ("What are the requirements?", "few-words"),
        ("Why?", "few-words"),
        ("Warum?", "few-words"),
        ("How often?", "few-words"),
        ("What's the difference?", "few-words"),
        ("Which is better?", "few-words"),
        ("Is there a deadline?", "few-words"),
        ("Can you give an example?", "few-words"),
        ("What are the side effects?", "definite"),
        ("How long does the process take?", "definite"),
        ("What's the minimum age?", "definite"),
    ],
)
def test_a_question_with_few_words_of_its_own_and_a_cue_leans(question: str, kind: str) -> None:
    lean = leaning(question)
    assert lean is not None and lean.kind == kind


STANDALONE = [
    "What is the survival rate for breast cancer?",
    "Is it possible to screen men?",
    "How do I install packages and update them?",
    "What is LaTeX and who wrote it?",
    "How much does a ticket cost for children?",
    "What is this document about?",
    "What does this report say about screening?",
    "Does it take long to compile a document with biber and makeindex?",
    "How long does it take to install Debian on a laptop?",
    "What does it cost to renew a passport?",
    "Is it safe to drink tap water in the park?",
    "How do I know if it is time to replace the filter?",
    "Does it matter which browser I use?",
    "I have a dog. Can I bring it?",
    "Does the app store its data locally?",
    "How do students get their tickets?",
    "What do they charge for parking at the airport?",
    "Is it true that the bus runs at night?",
    "Does the manual say that backups are encrypted?",
    "What is the name of the file that stores the settings?",
    "What changed this year in the tax rules?",
    "Are there any discounts for students?",
    "When was the hall built?",
    "What is a kernel?",
    "What is GoldenDict?",
    "Who founded Debian?",
    "Which package provides the lsb_release command?",
    "What does the \\newcommand macro do?",
    "How many people died of breast cancer in 2020?",
    "And how many women in Australia find out they have breast cancer each year?",
    "Can I also pay by card at the museum shop?",
    "What other payment methods does the museum shop accept?",
    "Wie viel kostet die Miete für den Saal?",
    "Gibt es einen Rabatt für Studenten?",
    "Ist es möglich, den Vertrag online zu kündigen?",
    "Können Sie mir sagen, wann das Museum öffnet?",
]


@pytest.mark.parametrize("question", STANDALONE)
def test_a_question_that_names_its_own_subject_stands_alone(question: str) -> None:
    assert leaning(question) is None


def test_own_words_leave_out_the_asking_and_the_words_that_point_back() -> None:
    assert own_words("How long does it take?") == ["take"]
    assert own_words("Where do I apply for the parental leave payment?") == [
        "apply",
        "parental",
        "leave",
        "payment",
    ]
    assert own_words("Why?") == []
    # what the asker tells counts
    assert own_words("I have a dog. Can I bring it?") == ["dog", "bring"]


def test_names_are_capitalised_words_inside_a_sentence_acronyms_numbers_and_terms() -> None:
    assert names_in("Does GoldenDict run on Android?") == ["GoldenDict", "Android"]
    assert names_in("What does lsb_release print in 2020?") == ["lsb_release", "2020"]
    assert names_in("Is the USB stick bootable?") == ["USB"]
    assert names_in("Where do I apply?") == []
    # German nouns are capitalised: no names
    assert names_in("Was kostet eine Tageskarte für Erwachsene?") == []


def test_a_pronoun_after_a_clause_that_names_a_thing_points_inside() -> None:
    assert pointing_back("What is LaTeX and who wrote it?") is None
    assert pointing_back("If the battery is low, does it charge faster?") is None
    lean = pointing_back("How do I turn it off?")
    assert lean is not None and lean.index == 4


def test_the_generic_they_of_a_question_with_words_of_its_own_does_not_point_back() -> None:
    assert pointing_back("What do they charge for parking at the airport?") is None
    assert pointing_back("Where do they charge?") is not None


def test_a_german_question_too_short_to_tell_takes_the_language_of_the_previous_one() -> None:
    lean = leaning("Und sie?", "Wie viele Frauen in Australien erkranken jährlich an Brustkrebs?")
    assert lean is not None and lean.word == "sie"
    assert leaning("Wie viel kostet die Miete für den Saal?", "How much is it?") is None


@pytest.mark.parametrize(
    "question",
    [
        "I want my invoice numbers to start at 1001 instead of 1 - how do I set that?",
        "random q while reading about gdbm - who actually wrote it?",
        "Before I upgrade this, which database format version does the backup tool write?",
        "Quick check before I port this - at what granularity does the lock manager take locks?",
    ],
)
def test_a_pointing_word_in_a_question_with_many_words_of_its_own_points_inside(
    question: str,
) -> None:
    assert pointing_back(question) is not None  # the word alone would point back ...
    assert leaning(question) is None  # ... but the question names its own subject


def test_a_german_determiner_before_any_capitalised_noun_does_not_point_back() -> None:
    assert leaning("In welchem Jahr startete das Debian-Projekt?") is None
    assert leaning("Wie groß ist das PDF?") is None
    assert leaning("Wie viel kostet das?") is not None
