"""How an answer's text cites its sources, read the same way by the window (``app.ui.render``)
and by the conversation export (``app.services.export``). Pure functions of the contract models."""

from __future__ import annotations

import re
from collections.abc import Collection

from app.core.models import Answer, Citation

MARKER = re.compile(r"\[(\d{1,3})\]")
"""A citation marker in an answer's text: ``[3]`` cites source 3."""


def is_refusal(answer: Answer) -> bool:
    """Whether the answer declines (no claim of its own; its chips are closest passages)."""
    return answer.kind == "refusal" or answer.mode == "refuse"


def closest_passages(answer: Answer) -> list[Citation]:
    """For a refusal: the passages nearest to the question (to check by hand)."""
    support = answer.validation.support
    return list(support.closest) if support is not None and is_refusal(answer) else []


def cited_order(answer: Answer, cited: Collection[int]) -> list[int]:
    """The source numbers of ``cited`` in the order the answer's text first cites them, then
    any it cites without a marker, by number."""
    order: list[int] = []
    for m in MARKER.finditer(answer.answer):
        n = int(m.group(1))
        if n in cited and n not in order:
            order.append(n)
    return order + [n for n in sorted(cited) if n not in order]
