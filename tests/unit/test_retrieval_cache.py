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


def test_texts_ride_along_with_the_next_call_that_runs_the_model() -> None:
    inner = HashEmbedder()
    cache = CachedEmbedder(inner, max_batch=4)
    cache.embed(["warm"])
    cache.embed_with_next(["warm", "filter", "rentals", "filter"])  # "warm" is remembered
    assert inner.calls == [["warm"]]
    cache.embed(["warm"])  # remembered: runs no model, takes none along
    assert inner.calls == [["warm"]]
    out = cache.embed(["How often is the filter cleaned?"])
    assert inner.calls[-1] == ["How often is the filter cleaned?", "filter", "rentals"]
    words = cache.embed(["filter", "rentals"])  # remembered: no call of their own
    assert len(inner.calls) == 2
    expected = HashEmbedder().embed(["filter", "rentals", "How often is the filter cleaned?"])
    assert np.allclose(words, expected[:2]) and np.allclose(out[0], expected[2])
    cache.embed(["next question"])  # the queue was emptied
    assert inner.calls[-1] == ["next question"]
    cache.embed_with_next([f"w{i}" for i in range(10)])  # at most max_batch wait
    cache.embed(["q"])
    assert inner.calls[-1] == ["q", "w0", "w1", "w2", "w3"]
    cache.embed_with_next(["late"])
    cache.embed([f"t{i}" for i in range(5)])  # an ingestion batch passes straight through
    assert inner.calls[-1] == [f"t{i}" for i in range(5)]
    cache.embed(["q2"])
    assert inner.calls[-1] == ["q2", "late"]
