"""The exact vector scan held in memory (app.store.flat) answers as LanceDB's own flat scan
does, and follows every write to the vectors table (a real LanceDB in tmp_path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.store import Store
from app.store import store as store_mod
from app.store.flat import FlatVectors
from tests.unit.test_store import DIM, make_doc

pytestmark = pytest.mark.unit

DOCS = ["a" * 16, "b" * 16, "c" * 16]


def _fill(store: Store, rng: np.random.Generator, per_doc: int = 60) -> None:
    store.set_embedder("fake", DIM)
    for doc_id in DOCS:
        parsed = make_doc(doc_id, f"/{doc_id[0]}.pdf", [f"text {i}" for i in range(per_doc)])
        store.add_document(parsed)
        vecs = rng.standard_normal((per_doc, DIM)).astype(np.float32)
        store.add_vectors(doc_id, [c.chunk_id for c in parsed.chunks], vecs)
        store.mark_ready(doc_id)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "lib")
    _fill(s, np.random.default_rng(3))
    return s


@pytest.mark.parametrize("scope", [None, DOCS[:1], DOCS[1:], ["missing" * 2]])
def test_the_scan_in_memory_answers_as_lancedb_does(store: Store, scope: list[str] | None) -> None:
    rng = np.random.default_rng(11)
    assert not store.has_vector_index()
    for _ in range(20):
        q = rng.standard_normal(DIM).astype(np.float32)
        for k in (1, 8, 48, 500):
            mine = store.vector_search(q, k, scope)
            lance = store._lance_vector_search(q, k, scope, indexed=False)
            assert [c for c, _ in mine] == [c for c, _ in lance]
            assert [s for _, s in mine] == pytest.approx([s for _, s in lance], abs=1e-5)
    assert store._flat is not None and store._flat[2] is not None  # it was the memory's answer


def test_a_write_is_seen_by_the_next_search(store: Store) -> None:
    target = np.zeros(DIM, dtype=np.float32)
    target[0] = 1.0
    before = store.vector_search(target, 3)
    parsed = make_doc("d" * 16, "/d.pdf", ["the new one"])
    store.add_document(parsed)
    store.add_vectors("d" * 16, [parsed.chunks[0].chunk_id], target[None] * 5)
    after = store.vector_search(target, 3)
    assert after[0][0] == parsed.chunks[0].chunk_id and after[0][1] == pytest.approx(1.0)
    assert [c for c, _ in after[1:]] == [c for c, _ in before[:2]]
    assert store.remove("d" * 16)
    assert store.vector_search(target, 3) == pytest.approx(before)
    reopened = Store(store.location)  # another process's view: read afresh
    assert [c for c, _ in reopened.vector_search(target, 3)] == [c for c, _ in before]


def test_a_library_above_the_bound_is_searched_by_lancedb(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_mod, "FLAT_MAX_ROWS", 10)
    store._flat = None
    q = np.ones(DIM, dtype=np.float32)
    assert store.vector_search(q, 5) == store._lance_vector_search(q, 5, None, indexed=False)
    assert store._flat is not None and store._flat[2] is None


def test_flat_vectors_edge_cases() -> None:
    m = np.array([[1, 0], [1, 0], [0, 1], [0, 0]], dtype=np.float32)
    flat = FlatVectors(["x:0", "x:1", "y:0", "y:1"], ["x", "x", "y", "y"], m)
    assert flat.search(np.zeros(2), 3) == []  # no direction: nothing is similar
    assert flat.search(np.array([1.0, 0.0]), 0) == []
    # equal scores keep the table's order; a zero vector scores 0; k above the rows is all
    assert flat.search(np.array([2.0, 0.0]), 10) == [
        ("x:0", 1.0),
        ("x:1", 1.0),
        ("y:0", 0.0),
        ("y:1", 0.0),
    ]
    assert flat.search(np.array([0.0, 1.0]), 1, ["x"]) == [("x:0", 0.0)]
    assert flat.search(np.array([0.0, 1.0]), 1, ["z"]) == []
    with pytest.raises(ValueError):
        FlatVectors(["x:0"], ["x", "y"], m[:1])
