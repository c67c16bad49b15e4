"""Interfaces between layers. Real implementations live in their layers; tests may fake them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from app.core.progress import CancelToken, TokenCallback


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray: ...


@dataclass
class GenerationResult:
    text: str
    finish_reason: str  # "stop" | "length" | "cancelled"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_token_ms: float = 0.0
    total_ms: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that can be constrained by a GBNF grammar and streams tokens."""

    name: str

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        grammar: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> GenerationResult: ...
