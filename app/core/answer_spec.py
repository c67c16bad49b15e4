"""What a model's answer may say: the sources it can cite, the sentences it can quote, its bounds.

The ask service builds a :class:`GrammarSpec` for each question and hands it to the chat
model (:meth:`app.core.protocols.ChatModel.answer`); the generation layer turns it into a
GBNF grammar or a phase-by-phase decoder (``app.generation.grammar`` / ``decoder``). It
lives in core because it is the contract between those layers, not a detail of either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core.models import RawAnswer

# Order of RawAnswer fields in the generated JSON. Citations before the answer: the model
# first copies its evidence, then writes an answer conditioned on it (better grounded
# answers from small models; see the report in app/generation/README or the eval).
CITATIONS_FIRST: tuple[str, ...] = ("mode", "citations", "answer")
ANSWER_FIRST: tuple[str, ...] = ("mode", "answer", "citations")


@dataclass(frozen=True)
class GrammarSpec:
    """What the grammar admits.

    ``quotes`` maps each shown source number to the sentences shown for it; with
    ``free_quotes`` any bounded string is admitted as a quote but the source number is
    still limited to the keys of ``quotes``. With ``evidence`` (citations chosen by the
    ranker) the mode and citations are fixed and the model only writes the answer text.
    """

    quotes: Mapping[int, Sequence[str]]
    free_quotes: bool = False
    order: tuple[str, ...] = CITATIONS_FIRST
    max_citations: int = 3
    answer_segments: int = 3
    segment_chars: int = 160
    quote_chars: int = 400
    refusal_chars: int = 160
    max_markers: int = 2
    evidence: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        if set(self.order) != set(RawAnswer.model_fields):
            raise ValueError(f"order {self.order} must name exactly {list(RawAnswer.model_fields)}")
        if not self.quotes:
            raise ValueError("a grammar needs at least one source")
        for n, sentences in self.quotes.items():
            if n < 1:
                raise ValueError(f"source numbers start at 1, got {n}")
            if not self.free_quotes and not [s for s in sentences if s.strip()]:
                raise ValueError(f"source [{n}] has no sentences to quote")
        if not 1 <= self.max_citations <= 10:
            raise ValueError("max_citations must be 1..10")
        for n, quote in self.evidence:
            if n not in self.quotes or not quote.strip():
                raise ValueError(f"evidence must cite a shown source with a quote, got [{n}]")
