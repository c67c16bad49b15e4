"""Interfaces between layers. Real implementations live in their layers; tests may fake them.

Each protocol says everything a service uses of the thing behind it, so services never
probe with ``isinstance`` / ``getattr``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from app.core.answer_spec import GrammarSpec
from app.core.config import Settings
from app.core.models import Chunk, Document, SearchHit
from app.core.progress import CancelToken, TokenCallback


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray: ...


FinishReason = Literal["stop", "length", "cancelled", "loop"]
"""Why generation ended: the model stopped, hit ``max_tokens``, was cancelled, or (set by
the ask service, never by a model) was stopped because its answer was looping."""


def finish_reason(value: str | None) -> FinishReason:
    """A server's or llama.cpp's finish reason as a :data:`FinishReason` (unknown: "stop")."""
    if value == "length":
        return "length"
    if value == "cancelled":
        return "cancelled"
    return "stop"


@dataclass
class GenerationResult:
    text: str
    finish_reason: FinishReason
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_token_ms: float = 0.0
    total_ms: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that writes grammar-constrained answers and streams them.

    Construction is light (Haystack's contract): nothing heavy happens until
    :meth:`warm_up`, which the first :meth:`answer` calls itself if nobody did.
    """

    name: str

    @property
    def chooses_evidence(self) -> bool:
        """Whether the model picks its own citations well enough to be asked to.

        False for the embedded 135M model: the ranker picks the evidence and the model
        only words the answer. True for any model a user brings (GGUF or server).
        """
        ...

    def warm_up(self) -> None:
        """Load what is heavy now (idempotent). Raises ``ModelLoadError`` for a bad model."""
        ...

    def cache_prefix(self, messages: list[dict[str, str]]) -> None:
        """Evaluate the constant leading ``messages`` (the system prompt) ahead of time, so
        later prompts that start with them skip that work. A no-op where nothing is cached
        or the prefix already is. Raises ``GenerationError`` on failure."""
        ...

    def answer(
        self,
        messages: list[dict[str, str]],
        spec: GrammarSpec,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> GenerationResult:
        """Write the answer JSON that ``spec`` admits, streaming each piece to ``on_token``.

        ``max_tokens`` bounds the tokens the model chooses; a model that must also decode
        the text ``spec`` fixes (e.g. ranked evidence) allows for it. Stops early, with
        finish reason "cancelled", once ``cancel`` is set.
        """
        ...

    def judge(self, messages: list[dict[str, str]], reply: str | None, query: str) -> float | None:
        """The model's own judgement: the probability it gives to "yes" (against "no") as
        the first word of its answer to ``query`` ("Do the passages answer the question?")
        asked after ``messages`` and, unless None, its ``reply`` to them; read from its
        logits, the prompt it has already processed reused from its cache. None where the
        logits are out of reach (a server). Raises ``GenerationError`` on failure."""
        ...


class SummaryLibrary(Protocol):
    """What a document summary uses of a library (:class:`app.services.library.Library`):
    a document's stored chunks and their stored vectors, read back rather than embedded
    again."""

    @property
    def embedder(self) -> Embedder | None:
        """The library's embedder (None: no embedder; relevance is judged by word overlap)."""
        ...

    def documents(self) -> list[Document]: ...

    def chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks with their character maps (for a citation's rectangles), in the order asked."""
        ...

    def chunks_of(self, doc_id: str, *, charmap: bool = True) -> list[Chunk]:
        """Every chunk of a document in document order (``charmap=False``: without maps)."""
        ...

    def chunk_vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        """The stored vectors of a document's embedded chunks: (chunk ids, ``(n, dim)``
        float32 array, L2-normalised), in chunk order; none yet: ``([], empty array)``."""
        ...


class AskLibrary(SummaryLibrary, Protocol):
    """What the ask service uses of a library (:class:`app.services.library.Library`)."""

    settings: Settings

    def search(
        self, query: str, *, top_k: int | None = None, doc_ids: Sequence[str] | None = None
    ) -> tuple[list[SearchHit], dict[str, float]]:
        """Ranked hits and timings_ms (at least "total")."""
        ...

    def term_counts(self, words: Iterable[str]) -> tuple[dict[str, int], int]:
        """How many chunks of the whole library contain each word (full-text index), and
        how many chunks there are: a question's concepts are weighed by rarity."""
        ...

    def common_words(self, limit: int) -> list[str]:
        """Up to ``limit`` words of the library (lower case), those in the most chunks first;
        may be empty (nothing counted yet). The ask service embeds them ahead of questions."""
        ...

    def stored_sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[int, np.ndarray]:
        """The vectors stored at ingestion for the sentences of ``chunk_ids``, by the CRC-32
        of each sentence's text as the answer step scores it; empty when the library has
        none (made before they were stored): the answer step then embeds its candidates."""
        ...


@dataclass(frozen=True)
class Turn:
    """One earlier question of a conversation: as typed, and as understood (None: as typed)."""

    question: str
    understood_as: str | None = None

    @property
    def meant(self) -> str:
        """The question this turn answered."""
        return self.understood_as or self.question


@runtime_checkable
class QuestionRewriter(Protocol):
    """Turns a follow-up question into one that stands alone, from the turns before it.

    The embedded model is too small to do this: ``app.core.followup.RuleRewriter`` does it by
    rules; a larger model may rewrite through the same protocol. Citations stay bound to what
    is retrieved for the question as rewritten, whoever rewrites it.
    """

    def rewrite(self, question: str, history: Sequence[Turn]) -> str | None:
        """The standalone question ``question`` means after ``history`` (oldest first), or
        None when it already stands alone (it is then asked exactly as typed)."""
        ...
