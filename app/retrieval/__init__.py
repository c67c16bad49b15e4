"""Retrieval: the local embedder and hybrid (BM25 + vector) search over the store.

Importing this package is cheap: torch and sentence-transformers load on the
embedder's first use.
"""

from app.retrieval.embedder import SentenceTransformerEmbedder
from app.retrieval.fusion import query_terms, reciprocal_rank_fusion, sanitize_fts_query
from app.retrieval.hybrid import FusionParams, HybridRetriever, SearchStore

__all__ = [
    "FusionParams",
    "HybridRetriever",
    "SearchStore",
    "SentenceTransformerEmbedder",
    "query_terms",
    "reciprocal_rank_fusion",
    "sanitize_fts_query",
]
