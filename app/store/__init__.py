"""Persistent library storage (LanceDB): documents, chunks with BM25, embedding vectors."""

from app.store.schema import SCHEMA_VERSION
from app.store.store import ANN_THRESHOLD, Store

__all__ = ["ANN_THRESHOLD", "SCHEMA_VERSION", "Store"]
