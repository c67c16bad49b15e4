"""What the ask service answers when the model's own answer cannot be shown, and when to say so.

Two honest alternatives to a generated answer: an *extractive* answer made of the source
sentences themselves (each cited and validated like any answer), and a *refusal* that
says why there is nothing to answer from. Also the test of whether a generated answer
is usable at all. Kept apart from ask.py so the service reads as one flow.
"""

from __future__ import annotations

import logging

from app.core.models import Answer, RawAnswer, RawCitation, Source, Support, Validation
from app.core.protocols import GenerationResult
from app.generation.parsing import is_degenerate
from app.generation.prompt import PromptBundle
from app.validation import ValidatedAnswer

logger = logging.getLogger(__name__)

REFUSAL_TEXT = "The documents don't contain enough to answer this."
FAR_TEXT = "No passage is close enough to the question to answer it."
EMPTY_LIBRARY_TEXT = "Your library is empty. Add PDF documents first, then ask again."
NO_HITS_TEXT = (
    "Nothing in your documents matches this question. Add documents that cover it, "
    "or rephrase the question."
)
EMPTY_QUESTION_TEXT = "Type a question first."
EXTRACTIVE_FLAG = (
    "The model's own answer could not be verified; these are the most relevant "
    "sentences from the sources, quoted."
)
EXTRACTIVE_SENTENCES = 3


def usable(raw: RawAnswer | None, checked: ValidatedAnswer | None, gen: GenerationResult) -> bool:
    """A generated answer worth showing: parsed, complete, not RED, not degenerate."""
    if raw is None or checked is None:
        return False
    if checked.validation.status == "RED":
        return False
    if gen.finish_reason in ("length", "loop"):
        return False
    return not is_degenerate(checked.answer)


def why(raw: RawAnswer | None, checked: ValidatedAnswer | None, gen: GenerationResult) -> str:
    """A short reason for the log when an answer is not usable."""
    if raw is None:
        return f"unparseable output, finish={gen.finish_reason}"
    if checked is not None and checked.validation.status == "RED":
        return "validation RED"
    return f"degenerate answer, finish={gen.finish_reason}"


def extractive_picks(
    bundle: PromptBundle, checked: ValidatedAnswer | None
) -> list[tuple[int, str]]:
    """Sentences for an extractive answer: the model's surviving citations if any, else the
    ranker's evidence, else the best-scoring shown sentences (only those close to the best)."""
    if checked is not None and checked.citations:
        return [(c.n, c.quote) for c in checked.citations][:EXTRACTIVE_SENTENCES]
    if bundle.spec.evidence:
        return list(bundle.spec.evidence)
    ranked = bundle.ranked_sentences()
    top = ranked[0].score if ranked else 0.0
    return [(x.source, x.text) for x in ranked[:EXTRACTIVE_SENTENCES] if x.score >= 0.6 * top]


def extractive_raw(picks: list[tuple[int, str]]) -> RawAnswer:
    """The picked sentences as an answer: each quoted and followed by its marker."""
    seen: set[str] = set()
    parts: list[str] = []
    cites: list[RawCitation] = []
    for n, text in picks:
        body = text.strip()
        if body in seen:
            continue
        seen.add(body)
        parts.append(f"\u201c{body}\u201d [{n}]")
        cites.append(RawCitation(source=n, quote=body))
    return RawAnswer(mode="answer", answer=" ".join(parts), citations=cites)


def extractive_answer(
    question: str,
    sources: list[Source],
    result: ValidatedAnswer,
    checked: ValidatedAnswer | None,
    model_name: str,
    *,
    retried: bool,
) -> Answer:
    """The validated extractive answer, flagged as not the model's words. Its status is the
    validator's: the verdict (app/services/verdict.py) decides whether the quoted evidence
    answers the question (GREEN) or only in part (YELLOW)."""
    flags = [EXTRACTIVE_FLAG, *result.validation.flags]
    dropped = (checked.validation.dropped if checked else []) + result.validation.dropped
    status = result.validation.status
    return Answer(
        question=question,
        mode="answer",
        kind="extractive",
        answer=result.answer,
        citations=result.citations,
        sources=sources,
        validation=Validation(status=status, dropped=dropped, repaired=retried, flags=flags),
        model=model_name,
    )


def refusal(
    question: str,
    text: str,
    sources: list[Source],
    *,
    model: str = "",
    repaired: bool = False,
    support: Support | None = None,
) -> Answer:
    """A refusal: no citations, the reason as the answer text (and, from the verdict, why)."""
    return Answer(
        question=question,
        mode="refuse",
        kind="refusal",
        answer=text,
        sources=sources,
        validation=Validation(status="REFUSED", repaired=repaired, flags=[text], support=support),
        model=model,
    )
