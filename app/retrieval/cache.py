"""Vectors of recent short texts, so each is embedded once per question.

Why: answering a question embeds the question twice (the search, then the answer step that
ranks candidate sentences against it) and often the same candidate sentences again for the
next question about the same pages. On a busy 2-core machine one query embedding costs
10-50 ms. Only small calls are remembered (questions and candidate sentences); ingestion
batches pass straight through.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from app.core.protocols import Embedder

logger = logging.getLogger(__name__)


class CachedEmbedder:
    """An :class:`Embedder` that remembers the vectors of the last ``max_items`` short texts."""

    def __init__(self, inner: Embedder, *, max_items: int = 4096, max_batch: int = 24) -> None:
        self.inner = inner
        self.name = inner.name
        self.max_items = max_items
        self.max_batch = max_batch
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        if len(texts) > self.max_batch:  # an ingestion batch: nothing to reuse
            return self.inner.embed(texts, batch_size=batch_size)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            fresh = self.inner.embed(missing, batch_size=batch_size)
            with self._lock:
                for text, vec in zip(missing, fresh, strict=True):
                    self._vectors[text] = vec
                while len(self._vectors) > self.max_items:
                    self._vectors.popitem(last=False)
        with self._lock:
            self.misses += len(missing)
            self.hits += len(texts) - len(missing)
            out = []
            for t in texts:
                vec = self._vectors.get(t)
                if vec is None:  # evicted between the two locks by a concurrent call
                    vec = self.inner.embed([t])[0]
                else:
                    self._vectors.move_to_end(t)
                out.append(vec)
        return np.stack(out) if out else np.zeros((0, self.dim), dtype=np.float32)
