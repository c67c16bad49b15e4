"""The query-side adapter bench (tests/bench/query_adapter.py): its fit learns a mapping that
exists and its recall counts what it says, on synthetic vectors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bench.query_adapter import AdaptedEmbedder, Examples, dense_recall, fit

pytestmark = pytest.mark.unit


def _unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _examples(seed: int, n: int = 60, d: int = 16) -> Examples:
    """Questions that are their gold chunk's vector seen through a fixed distortion: the
    distortion is the same for every library, so an adapter fitted on one undoes it on another."""
    rng = np.random.default_rng(seed)
    chunks = _unit(rng.normal(size=(n, d)))
    twist = np.eye(d) + 3.0 * np.random.default_rng(0).normal(size=(d, d)) / np.sqrt(d)
    queries = _unit(chunks @ twist + 0.05 * rng.normal(size=(n, d)))
    return Examples(f"lib{seed}", queries, chunks, [[i] for i in range(n)], [0] * n, set())


def test_a_fitted_adapter_undoes_a_distortion_on_a_library_it_never_saw() -> None:
    train, held = _examples(1), _examples(2)
    w = fit([(train, list(range(60)))], rank=0, l2=1e-4, steps=300)
    idx = list(range(60))
    assert dense_recall(held, w, idx, k=1) > dense_recall(held, None, idx, k=1) + 0.2


def test_dense_recall_counts_a_question_whose_gold_chunk_is_in_the_top_k() -> None:
    chunks = np.eye(3, dtype=np.float32)
    queries = _unit(np.array([[1.0, 0.1, 0.0], [1.0, 0.2, 0.0]]))
    ex = Examples("x", queries, chunks, [[0], [1]], [0, 0], set())
    assert dense_recall(ex, None, [0, 1], k=1) == 0.5
    assert dense_recall(ex, None, [0, 1], k=2) == 1.0


def test_the_adapted_embedder_returns_unit_vectors_moved_by_w() -> None:
    class Plain:
        name = "plain"

        def embed(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), 2), dtype=np.float32)

    moved = AdaptedEmbedder(Plain(), np.array([[1.0, 0.0], [0.0, 0.0]], dtype=np.float32))
    v = moved.embed(["a"])
    assert np.allclose(v, _unit(np.array([[2.0, 1.0]])))
    assert moved.name == "plain"
