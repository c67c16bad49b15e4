"""How many chunks of the library contain a word: rarity, and absence, from the full-text index.

The support check weighs a question's concepts by rarity (a word in every chunk tells
nothing) and refuses at once when a key concept occurs nowhere in the library. The
full-text index already knows both; one capped query per word asks it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Protocol

from app.core.textkit import TOKEN

logger = logging.getLogger(__name__)

DF_CAP = 1000
"""Counts stop at this many chunks: beyond it a word is common anyway."""


class TextIndex(Protocol):
    """What counting needs of a store: its BM25 search."""

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]: ...


def document_frequencies(
    index: TextIndex,
    words: Iterable[str],
    *,
    doc_ids: Sequence[str] | None = None,
    cap: int = DF_CAP,
) -> dict[str, int]:
    """Lower-cased word -> number of chunks (up to ``cap``) whose text contains it.

    The index matches by its own stemmer, so "watermarks" counts chunks with "watermark".
    Only plain words are asked (letters and digits); anything else counts as 0.
    """
    out: dict[str, int] = {}
    for w in dict.fromkeys(x.lower() for x in words):
        if not TOKEN.fullmatch(w):
            out[w] = 0
            continue
        out[w] = len(index.text_search(w, cap, doc_ids))
    return out
