"""CachedEmbedder: a question embedded by the search is not embedded again by the answer step."""

from __future__ import annotations

import numpy as np
import pytest

from app.retrieval.cache import CachedEmbedder
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.unit


def test_each_short_text_is_embedded_once_and_vectors_are_unchanged() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner)
    q = "How hot may the logger get?"
    first = cached.embed([q])
    both = cached.embed([q, "The maximum temperature is 55 degrees.", q])
    assert inner.calls == [[q], ["The maximum temperature is 55 degrees."]]
    assert np.allclose(both[0], first[0]) and np.allclose(both[2], first[0])
    assert np.allclose(both, HashEmbedder().embed([q, "The maximum temperature is 55 degrees.", q]))
    assert cached.name == inner.name and cached.dim == inner.dim


def test_ingestion_batches_pass_through_and_old_texts_are_evicted() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, max_items=2, max_batch=3)
    batch = [f"chunk {i}" for i in range(10)]
    cached.embed(batch)
    cached.embed(batch)
    assert len(inner.calls) == 2  # never cached
    for t in ("a b", "c d", "e f"):
        cached.embed([t])
    cached.embed(["a b"])  # evicted: the oldest of three with room for two
    assert inner.calls[-1] == ["a b"]
    assert cached.embed([]).shape == (0, inner.dim)
