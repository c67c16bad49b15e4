"""An exact vector scan in memory, for a library small enough to have no ANN index.

Why: below ``ANN_THRESHOLD`` vectors the store answers a vector query by LanceDB's exact
(flat) scan, which measured 9.3 ms p50 / 13.1 ms p95 at 10,000 chunks of 384 dimensions on the
2-core development machine: a fifth of a search's time, on its critical path. The same scan
over a matrix held in memory is one matrix-vector product, ~0.2-0.3 ms. The matrix is read
once per version of the vectors table (:meth:`app.store.Store.vector_search` keys it so), so a
write in this process or another is seen by the next search exactly as LanceDB would see it.

The scores are LanceDB's: cosine similarity (1 - its cosine distance), so the order is the same
but for ties between equal scores and float rounding in the last bits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

MAX_ROWS = 40_000
"""Above this many vectors the matrix is not kept (40,000 × 384 float32 is 61 MB); a library
that large has, or will have at its next optimize, an ANN index (``ANN_THRESHOLD``)."""


class FlatVectors:
    """Every vector of a library, normalised, with its chunk and document ids."""

    def __init__(
        self, chunk_ids: Sequence[str], doc_ids: Sequence[str], matrix: np.ndarray
    ) -> None:
        if matrix.ndim != 2 or matrix.shape[0] != len(chunk_ids) or len(chunk_ids) != len(doc_ids):
            raise ValueError("one vector per chunk id and document id")
        self.chunk_ids = list(chunk_ids)
        self._doc_names, self._doc_of = np.unique(
            np.asarray(doc_ids, dtype=object), return_inverse=True
        )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self._unit = np.divide(
            matrix, norms, out=np.zeros_like(matrix, dtype=np.float32), where=norms > 0
        ).astype(np.float32, copy=False)

    @classmethod
    def from_arrow(cls, table: pa.Table) -> FlatVectors:
        """From the vectors table's ``chunk_id``, ``doc_id`` and ``vector`` columns."""
        vectors = table.column("vector").combine_chunks()
        dim = vectors.type.list_size
        flat = vectors.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
        return cls(
            table.column("chunk_id").to_pylist(),
            table.column("doc_id").to_pylist(),
            flat.reshape(len(table), dim),
        )

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @property
    def nbytes(self) -> int:
        return int(self._unit.nbytes)

    def search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` most similar chunks [(chunk_id, cosine)], best first; only those of
        ``doc_ids`` when given."""
        if k <= 0 or not len(self.chunk_ids):
            return []
        q = np.asarray(vec, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return []
        scores = self._unit @ (q / norm)
        rows = np.arange(len(scores))
        if doc_ids is not None:
            wanted = np.isin(self._doc_names, np.asarray(list(doc_ids), dtype=object))
            rows = rows[wanted[self._doc_of]]
            if not len(rows):
                return []
        part = rows[np.argpartition(-scores[rows], k - 1)[:k]] if k < len(rows) else rows
        best = part[np.lexsort((part, -scores[part]))]  # by score, then by row: stable ties
        return [(self.chunk_ids[i], float(scores[i])) for i in best]
