"""Follow-up questions rewritten by rules (app.core.followup): what leans on the previous turn
is made to stand alone; what stands alone is left untouched."""

from __future__ import annotations

import pytest

from app.core.followup import RuleRewriter, rewrite_followup
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
