"""A conversation: questions asked one after another, each follow-up understood with the
turns before it. The desktop window and ``footnote chat`` both ask through this.

A follow-up ("How old are most of them?") is rewritten into a standalone question by a
:class:`~app.core.protocols.QuestionRewriter` (by rules for the embedded model), and *that*
question is what the ask service searches, prompts with and checks: the answer's citations
can only name passages retrieved for the question as understood. Every question after the
first is also searched together with the previous one (``context``: see
:func:`~app.services.ask_steps.conversation_search`), since rules cannot tell every
follow-up from a new question; the answer records it in ``context``. The answer keeps the
question as typed in ``question`` and the rewritten one in ``understood_as`` (None when the
question stood alone and was asked exactly as typed).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from app.core.followup import RuleRewriter
from app.core.models import Answer
from app.core.progress import CancelToken, ProgressCallback, TokenCallback
from app.core.protocols import QuestionRewriter, Turn
from app.services.summary import summary_request

logger = logging.getLogger(__name__)

HISTORY_TURNS = 3
"""Turns a rewriter is shown (the last one matters most to the rules)."""


class Asker(Protocol):
    """What a conversation uses of :class:`~app.services.ask.AskService`."""

    def ask(
        self,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        top_k: int | None = None,
        on_token: TokenCallback | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        context: str | None = None,
    ) -> Answer: ...


class Conversation:
    """The turns so far (completed answers, oldest first) and how to ask the next one."""

    def __init__(
        self,
        asker: Asker,
        *,
        rewriter: QuestionRewriter | None = None,
        turns: Sequence[Answer] = (),
    ) -> None:
        self.asker = asker
        self.rewriter: QuestionRewriter = rewriter or RuleRewriter()
        self.turns: list[Answer] = list(turns)

    def reset(self) -> None:
        """A new conversation: nothing asked before is leaned on any more."""
        self.turns.clear()

    def understand(self, question: str) -> str | None:
        """The standalone question ``question`` means here, or None when it stands alone."""
        if summary_request(question) is not None:  # "Summarise it": a document, not a turn
            return None
        history = [Turn(a.question, a.understood_as) for a in self.turns[-HISTORY_TURNS:]]
        understood = self.rewriter.rewrite(question.strip(), history)
        if understood is None or not understood.strip():
            return None
        understood = understood.strip()
        return None if understood == question.strip() else understood

    def context(self, question: str) -> str | None:
        """The previous question as understood, which ``question`` is searched with too
        (None: the first question, or a request for a summary, which names its document)."""
        if not self.turns or summary_request(question) is not None:
            return None
        last = self.turns[-1]
        return last.understood_as or last.question

    def ask(
        self,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        top_k: int | None = None,
        on_token: TokenCallback | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Answer:
        """Ask ``question`` as understood; the answer joins the conversation."""
        typed = question.strip()
        understood = self.understand(typed) if typed else None
        if understood is not None:
            logger.info("follow-up understood as %r", understood)
        context = self.context(typed) if typed else None
        answer = self.asker.ask(
            understood or typed,
            doc_ids=doc_ids,
            top_k=top_k,
            on_token=on_token,
            on_progress=on_progress,
            cancel=cancel,
            context=context,
        )
        answer.question = typed
        answer.understood_as = understood
        answer.context = context
        self.turns.append(answer)
        return answer
