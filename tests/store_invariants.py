"""The library's all-or-nothing invariants, checked the same way by every crash and writer test."""

from __future__ import annotations

from app.store import Store


def assert_store_consistent(store: Store) -> None:
    """Every committed document has all its chunks and, once ready, one vector per chunk (before
    that, never more); no chunk or vector belongs to a document that was not committed."""
    docs = {d.doc_id: d for d in store.documents()}
    chunk_docs = store.doc_id_column("chunks")
    vector_docs = store.doc_id_column("vectors")
    assert set(chunk_docs) <= set(docs), "chunks without a committed document"
    assert set(vector_docs) <= set(docs), "vectors without a committed document"
    for doc_id, doc in docs.items():
        assert chunk_docs.count(doc_id) == doc.chunks > 0, f"{doc_id} lost chunks"
        assert len(store.chunks_of(doc_id)) == doc.chunks
        if doc.status == "ready":
            assert vector_docs.count(doc_id) == doc.chunks
        else:
            assert vector_docs.count(doc_id) <= doc.chunks
