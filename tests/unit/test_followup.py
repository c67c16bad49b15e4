"""Follow-up questions rewritten by rules (app.core.followup): what leans on the previous turn
is made to stand alone; what stands alone is left untouched."""

from __future__ import annotations

import pytest

from app.core.followup import RuleRewriter, _gerund, carry, context, rewrite_followup
from app.core.protocols import QuestionRewriter, Turn

MEN = "Roughly how many men in Australia find out they have breast cancer each year?"
OPTIONS = "What are the options for installing Debian?"
DECLARE = "How do I declare an option in a class?"
COMMAND = "What does the \\DeclareOption command do?"
TICKET = "How much does a ticket cost for adults?"
HOUSEHOLDS = "How many households got deliveries in 2020?"
HALL = "Is the hall wheelchair accessible?"


@pytest.mark.parametrize(
    ("previous", "question", "understood"),
    [
        (
            MEN,
            "How old are most of them?",
            "How old are most of the men in Australia who find out they have breast cancer"
            " each year?",
        ),
        (
            MEN,
            "And for women?",
            "How many women in Australia find out they have breast cancer each year?",
        ),
        (MEN, "why?", "Why do men in Australia find out they have breast cancer each year?"),
        (
            MEN,
            "What is their average age?",
            "What is the average age of the men in Australia who find out they have breast"
            " cancer each year?",
        ),
        (
            OPTIONS,
            "What about the second option?",
            "What is the second option for installing Debian?",
        ),
        (
            OPTIONS,
            "Which of them is fastest?",
            "Which of the options for installing Debian is fastest?",
        ),
        (DECLARE, "And in a package?", "How do I declare an option in a package?"),
        (DECLARE, "Why?", "Why do I declare an option in a class?"),
        (COMMAND, "Where is it defined?", "Where is the \\DeclareOption command defined?"),
        (TICKET, "and for children?", "How much does a ticket cost for children?"),
        (TICKET, "what about students?", "How much does a ticket cost for students?"),
        (HOUSEHOLDS, "and in 2021?", "How many households got deliveries in 2021?"),
        (HALL, "why not?", "Why is the hall not wheelchair accessible?"),
        (HALL, "Does it have parking?", "Does the hall have parking?"),
        (HALL, "How much is that?", "How much is the hall?"),
    ],
)
def test_a_follow_up_is_rewritten_from_the_previous_turn(
    previous: str, question: str, understood: str
) -> None:
    assert rewrite_followup(question, [Turn(previous)]) == understood


@pytest.mark.parametrize(
    "question",
    [
        "What is the survival rate for breast cancer?",
        "Is it possible to screen men?",
        "How do I install packages and update them?",
        "What is LaTeX and who wrote it?",
        "How much does a ticket cost for children?",
        "What is this document about?",
        "Which fonts does the memoir class load by default?",
        "Where is the configuration file stored?",
        "Does it take long to compile a document with biber and makeindex?",
        "How long does it take to charge the battery?",
        "Why does the kernel need a initial ramdisk image?",
        "When was the hall built?",
        "What are the opening hours of the museum on Sundays?",
        "Can I bring a dog to the park?",
        "Is it true that the bus runs at night?",
        "How do I cite a paper in the bibliography?",
        "Who wrote the Debian New Maintainers' Guide?",
        "Which package provides the lsb_release command?",
        "What does the \\newcommand macro do?",
        "Wie viel kostet die Miete für den Saal?",
    ],
)
def test_a_question_that_stands_alone_is_left_untouched(question: str) -> None:
    for previous in (MEN, OPTIONS, DECLARE, TICKET, HALL):
        assert rewrite_followup(question, [Turn(previous)]) is None, previous


def test_the_first_question_of_a_conversation_is_never_rewritten() -> None:
    assert rewrite_followup("How old are most of them?", []) is None


def test_a_chain_of_follow_ups_rewrites_from_the_question_as_understood() -> None:
    first = Turn(MEN)
    understood = rewrite_followup("And for women?", [first])
    assert understood is not None
    second = Turn("And for women?", understood)
    third = rewrite_followup("How old are most of them?", [first, second])
    assert third == (
        "How old are most of the women in Australia who find out they have breast cancer each year?"
    )


def test_the_rule_rewriter_is_a_question_rewriter() -> None:
    rewriter = RuleRewriter()
    assert isinstance(rewriter, QuestionRewriter)
    assert rewriter.rewrite("why?", [Turn(DECLARE)]) == "Why do I declare an option in a class?"


# --- follow-ups no rule rewrites into a sentence: the previous subject carried over --------
CLAIM = "How do I claim the parental leave payment?"
INSTALL_USB = "Can I install Debian from a USB stick?"
PLATFORMS = "Which platforms does GoldenDict run on?"
REBATE = "Who can apply for the home energy rebate?"


@pytest.mark.parametrize(
    ("previous", "question", "understood"),
    [
        (CLAIM, "Where do I apply?", "Where do I apply (about the parental leave payment)?"),
        (
            CLAIM,
            "What are the requirements?",
            "What are the requirements (about the parental leave payment)?",
        ),
        (HALL, "Is that free?", "Is that free (about the hall)?"),
        (HALL, "How do I get there?", "How do I get there (about the hall)?"),
        (
            OPTIONS,
            "Which one is fastest?",
            "Which one is fastest (about the options for installing Debian)?",
        ),
        (
            OPTIONS,
            "Does this option need a network?",
            "Does this option need a network (about the options for installing Debian)?",
        ),
        (
            INSTALL_USB,
            "How long does it take?",
            "How long does it take (about installing Debian from a USB stick)?",
        ),
        (
            REBATE,
            "Do renters also qualify?",
            "Do renters also qualify (about applying for the home energy rebate)?",
        ),
        (
            "What should I do if the printer shows error E3?",
            "Why?",
            "Why (about the printer shows error E3)?",
        ),
        (OPTIONS, "why?", "Why (about the options for installing Debian)?"),
    ],
)
def test_a_follow_up_no_rule_rewrites_carries_the_previous_subject_over(
    previous: str, question: str, understood: str
) -> None:
    assert rewrite_followup(question, [Turn(previous)]) == understood


def test_what_is_carried_over_names_what_the_focus_leaves_out() -> None:
    assert context(PLATFORMS) == "the platforms, GoldenDict"
    assert context(CLAIM) == "the parental leave payment"
    assert context(INSTALL_USB) == "installing Debian from a USB stick"
    # a question that carried a subject over passes it on
    assert context("Where do I apply", "the parental leave payment") == (
        "the parental leave payment"
    )


def test_nothing_is_carried_over_that_the_question_names_already() -> None:
    assert carry("Where do I claim the parental leave payment?", CLAIM) is None or (
        carry("Where do I claim the parental leave payment?", CLAIM)
        == "Where do I claim the parental leave payment?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "understood"),
    [
        # "it" wants a thing, not the plural focus: the thing of it, or the name
        (
            "What are the symptoms of breast cancer in men?",
            "How is it treated?",
            "How is breast cancer in men treated?",
        ),
        (PLATFORMS, "Does it work offline?", "Does GoldenDict work offline?"),
        # "their" wants a plural: the plural thing the question named
        (
            "What does the memoir class do with section titles?",
            "How do I change their font?",
            "How do I change the font of section titles?",
        ),
        ("What does the memoir class do with chapter titles?", "Can I change them?",
         "Can I change chapter titles?"),
        # a plural pronoun for a singular focus: the focus made plural ("And" goes)
        ("How do I declare an option in a class file?", "And how are they processed?",
         "How are options in a class file processed?"),
        ("Which battery does the e-bike use?", "How long do they last?",
         "How long do the batteries last?"),
        ("Which box should I buy?", "Are they recyclable?", "Are the boxes recyclable?"),
    ],
)  # fmt: skip
def test_a_pronoun_is_replaced_by_a_noun_phrase_that_agrees_with_it(
    previous: str, question: str, understood: str
) -> None:
    assert rewrite_followup(question, [Turn(previous)]) == understood


def test_an_ellipsis_replaces_the_thing_it_stands_for_in_place() -> None:
    assert (
        rewrite_followup(
            "What about section titles?",
            [Turn("What does the memoir class do with chapter titles?")],
        )
        == "What does the memoir class do with section titles?"
    )
    assert (
        rewrite_followup(
            "What about public holidays?", [Turn("When does the museum open on Sundays?")]
        )
        == "When does the museum open on Sundays, and what about public holidays?"
    )


def test_the_subject_of_a_conversation_survives_a_chain_of_short_follow_ups() -> None:
    history = [Turn(CLAIM)]
    second = rewrite_followup("Where do I apply?", history)
    history.append(Turn("Where do I apply?", second))
    third = rewrite_followup("Is there a deadline?", history)
    assert third == "Is there a deadline (about the parental leave payment)?"
    history.append(Turn("Is there a deadline?", third))
    assert rewrite_followup("Can I do it online?", history) == (
        "Can I do the parental leave payment online?"
    )


def test_a_follow_up_after_a_bare_one_is_understood_with_the_question_before() -> None:
    first = Turn("What should I do if the printer shows error E3?")
    why = Turn("Why?", rewrite_followup("Why?", [first]))
    assert rewrite_followup("And error E4?", [first, why]) == (
        "What should I do if the printer shows error E3, error E4?"
    )


WOMEN_DE = "Wie viele Frauen in Australien erkranken jährlich an Brustkrebs?"
TICKET_DE = "Was kostet eine Tageskarte für Erwachsene?"


@pytest.mark.parametrize(
    ("previous", "question", "understood"),
    [
        (
            WOMEN_DE,
            "Und für Männer?",
            "Wie viele Männer in Australien erkranken jährlich an Brustkrebs?",
        ),
        (WOMEN_DE, "Warum?", "Warum (Frauen in Australien erkranken jährlich an Brustkrebs)?"),
        (
            TICKET_DE,
            "Gilt das auch für Kinder?",
            "Gilt das auch für Kinder (eine Tageskarte für Erwachsene)?",
        ),
        (TICKET_DE, "Wo bekomme ich sie?", "Wo bekomme ich sie (eine Tageskarte für Erwachsene)?"),
        (
            "Wie viele Haushalte wurden 2020 beliefert?",
            "Und 2021?",
            "Wie viele Haushalte wurden 2021 beliefert?",
        ),
    ],
)
def test_a_german_follow_up_is_understood_with_the_previous_question(
    previous: str, question: str, understood: str
) -> None:
    assert rewrite_followup(question, [Turn(previous)]) == understood


@pytest.mark.parametrize(
    "question",
    [
        "Gibt es einen Rabatt für Studenten?",
        "Ist es möglich, den Vertrag online zu kündigen?",
        "Wann hat das Bürgeramt am Samstag geöffnet?",
        "Welche Unterlagen brauche ich für die Anmeldung?",
    ],
)
def test_a_german_question_that_stands_alone_is_left_untouched(question: str) -> None:
    assert rewrite_followup(question, [Turn(WOMEN_DE)]) is None
    assert rewrite_followup(question, [Turn(TICKET_DE)]) is None


@pytest.mark.parametrize(
    ("verb", "gerund"),
    [
        ("install", "installing"),
        ("use", "using"),
        ("set", "setting"),
        ("apply", "applying"),
        ("see", "seeing"),
        ("die", "dying"),
        ("open", "opening"),
        ("fix", "fixing"),
    ],
)
def test_an_activity_is_named_by_its_gerund(verb: str, gerund: str) -> None:
    assert _gerund(verb) == gerund
