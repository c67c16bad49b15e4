"""Pages of a scanned PDF made keyword-searchable while OCR is still reading the rest.

``parse_pdf`` hands over the document as read so far now and then (``on_partial``); each
version replaces the previous one in the store with status "partial". When parsing ends,
the final document replaces the last partial one. A run cancelled during OCR keeps the
partial document (its pages stay searchable); because its status says "partial", the next
import of the same file reads it again instead of calling it unchanged. A crash leaves the
same state, so nothing is lost or half-written either way.
"""

from __future__ import annotations

import logging
import threading

from app.core.models import ParsedDocument
from app.store import Store

logger = logging.getLogger(__name__)


class PartialWriter:
    """Stores successive partial versions of one document under ``lock``."""

    def __init__(self, store: Store, lock: threading.RLock, file: str) -> None:
        self.store, self.lock, self.file = store, lock, file
        self.doc_id: str | None = None
        self.replaced = False  # a partial write replaced an older document at this path

    def __call__(self, partial: ParsedDocument) -> None:
        doc = partial.document.model_copy(update={"file": self.file, "status": "partial"})
        with self.lock:
            self._drop()
            self.replaced |= bool(
                self.store.add_document(partial.model_copy(update={"document": doc}))
            )
            self.doc_id = doc.doc_id
        logger.info("%s: %d OCR'd pages searchable so far", self.file, len(partial.ocr_pages))

    def _drop(self) -> None:
        if self.doc_id is not None:
            self.store.remove(self.doc_id)

    def discard(self) -> None:
        """Remove the last partial version (the final document is about to replace it, or
        the file failed)."""
        with self.lock:
            self._drop()
            self.doc_id = None
