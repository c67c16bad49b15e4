"""Consistency sweep run when a library is opened (under the writer lock).

After a crash (kill -9, power loss) the tables can hold chunks or vectors of a
document whose commit marker (its ``documents`` row) was never written, or was
already deleted. This removes them, removes a committed document whose chunks are
incomplete (the next ingest redoes it), keeps one vector per chunk where two writers both
embedded one, and demotes a "ready" document lacking vectors to "indexed" while keeping
the vectors it has (the next embedding run adds the missing ones). Vectors of a committed
document are never all deleted.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from typing import Literal, Protocol

from app.core.models import DocStatus, Document

logger = logging.getLogger(__name__)


class Sweepable(Protocol):
    """What the sweep needs of a store (``app.store.store.Store`` provides it).

    Declared here, not imported, so that ``store`` depends on ``recovery`` and never the
    other way round. Every write here takes the store's writer lock itself.
    """

    def documents(self) -> list[Document]: ...

    def doc_id_column(self, table: Literal["chunks", "vectors", "sentences"]) -> list[str]: ...

    def delete_orphans(self, doc_ids: Iterable[str]) -> None: ...

    def remove(self, doc_id: str) -> bool: ...

    def delete_vectors(self, doc_id: str) -> None: ...

    def dedupe_vectors(self, doc_id: str) -> int: ...

    def embedded_chunk_ids(self, doc_id: str) -> set[str]: ...

    def set_status(self, doc_id: str, status: DocStatus) -> None: ...


def sweep(store: Sweepable) -> dict[str, int]:
    """Make the library consistent; returns counts of what was repaired (for logs/tests)."""
    docs = {d.doc_id: d for d in store.documents()}
    chunk_counts = Counter(store.doc_id_column("chunks"))
    vector_counts = Counter(store.doc_id_column("vectors"))
    sentence_docs = set(store.doc_id_column("sentences"))
    report = {"orphan_docs": 0, "incomplete_docs": 0, "demoted_docs": 0, "deduped_docs": 0}

    orphans = (set(chunk_counts) | set(vector_counts) | sentence_docs) - set(docs)
    if orphans:
        logger.warning("removing chunks/vectors of %d uncommitted documents", len(orphans))
        store.delete_orphans(orphans)
        report["orphan_docs"] = len(orphans)

    for doc_id, doc in docs.items():
        if chunk_counts.get(doc_id, 0) != doc.chunks:
            # Cannot happen with chunks-before-commit, but if a table was damaged the
            # safe answer is to forget the document so the next ingest redoes it.
            logger.warning(
                "document %s has %d of %d chunks; removing it",
                doc_id,
                chunk_counts.get(doc_id, 0),
                doc.chunks,
            )
            store.remove(doc_id)
            report["incomplete_docs"] += 1
        elif vector_counts.get(doc_id, 0) > doc.chunks:
            # Two writers both embedded it (before add_vectors became idempotent): keep one
            # vector per chunk; never delete them all.
            removed = store.dedupe_vectors(doc_id)
            logger.warning("document %s had %d duplicate vectors; removed", doc_id, removed)
            report["deduped_docs"] += 1
            if doc.status == "ready" and len(store.embedded_chunk_ids(doc_id)) < doc.chunks:
                store.set_status(doc_id, "indexed")  # the rest is embedded by the next run
        elif doc.status == "ready" and vector_counts.get(doc_id, 0) < doc.chunks:
            # Keep the vectors it has; the next embedding run adds the missing ones.
            logger.warning("document %s lacks vectors; the missing ones will be embedded", doc_id)
            store.set_status(doc_id, "indexed")
            report["demoted_docs"] += 1
    return report
