"""The library on disk: documents, chunks (BM25-indexed) and embedding vectors in LanceDB.

Crash safety rests on one rule: a document exists when, and only when, its row in
``documents`` exists. Everything else (chunks, vectors) is written before that row
(the commit marker) and deleted after it; on open, rows without a committed document
are swept away, so a kill -9 at any moment leaves either the old state or the new one,
and the next ingest simply redoes an interrupted document.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa
from lancedb.index import FTS, BTree, HnswSq

from app.core.errors import StoreError
from app.core.location import is_remote, parse_location, redact
from app.core.models import Chunk, DocStatus, Document, ParsedDocument, Section
from app.core.scripts import cjk_terms
from app.core.timing import StageTimes
from app.store import recovery, sql
from app.store.flat import MAX_ROWS as FLAT_MAX_ROWS
from app.store.flat import FlatVectors
from app.store.lease import Lease
from app.store.lock import ReadOnlyLock, WriterLock
from app.store.objectstore import connect
from app.store.rows import (
    CHUNK_COLUMNS,
    chunk_table,
    document_table,
    row_to_chunk,
    row_to_document,
)
from app.store.schema import (
    CHUNKS,
    CHUNKS_SCHEMA,
    DOC_COLUMNS,
    DOCUMENTS,
    DOCUMENTS_SCHEMA,
    META,
    META_FILE,
    SENTENCES,
    VECTORS,
    Meta,
    check_version,
    read_meta,
    sentences_schema,
    vectors_schema,
    write_meta,
)

logger = logging.getLogger(__name__)

# Below this many vectors an exact (flat) scan is both fast (a few ms) and exact;
# above it an IVF-HNSW-SQ index keeps vector search flat in time.
ANN_THRESHOLD = 20_000
# Old table versions are kept this long after an optimize, so a reader in another process
# that is mid-query on a just-replaced version keeps its files (a query takes well under a
# second; readers re-read the latest version before each one). Every ingest and remove
# optimizes, so a library stays within a few times its PDFs' size (it grew ~50x with a
# 10-minute window: each optimize writes a new BM25 index, and every write new fragments).
KEEP_VERSIONS = timedelta(seconds=5)
# Merge new chunks into the BM25 index once this many are waiting (see maybe_optimize).
OPTIMIZE_EVERY = 3_000
# ... or once the documents table has this many small fragments. Every document written is a
# fragment of its own (in each table) until an optimize compacts them, and every lookup by id
# or path opens them all: a burst of 1,000 one-page PDFs (few chunks, so never 3,000 waiting)
# slowed from 63 ms a file at the start to 350 ms at the 500th (2 cores). Compacting every
# 100 documents keeps a lookup flat; an optimize costs well under a second at that size.
COMPACT_AT_FRAGMENTS = 100
# Ids per ``IN (...)`` filter when deleting or fetching many rows: keeps each SQL text short.
FILTER_BATCH = 500


class Store:
    """LanceDB-backed library at a folder or a URI. Thread-safe: writes serialise on a writer
    lock (a file lock locally, a lease on object storage; none allowed when read-only)."""

    def __init__(self, location: Path | str, *, read_only: bool = False) -> None:
        self.location = parse_location(location)
        self.remote = is_remote(self.location)
        self.read_only = read_only
        self._open = False
        # Wall ms this store spent merging the BM25 index and compacting ("bm25",
        # "compaction"): the ingestion profile reads it (app.core.timing).
        self.times = StageTimes()
        self._optimized: dict[str, int] = {}  # table -> its version after our last optimize
        self.where = redact(self.location)  # for messages and logs: never credentials
        # The local folder, or None on object storage (nothing may assume a local path).
        self.path: Path | None = None if self.remote else Path(self.location)
        if self.path is not None and not read_only:
            try:
                self.path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"Cannot create the library folder {self.path} ({exc.strerror}).",
                    hint="Choose a folder you can write to (--library or FOOTNOTE_LIBRARY).",
                ) from exc
        self._db = connect(self.location)
        self.lock: WriterLock | Lease | ReadOnlyLock
        if read_only:
            self.lock = ReadOnlyLock(self.where)
        elif self.remote:
            self.lock = Lease(str(self.location), self.where, on_acquire=self._sweep_if_open)
        else:
            assert self.path is not None
            self.lock = WriterLock(self.path)
        meta = read_meta(self._db, self.where, legacy_dir=self.path)
        if meta is None and not read_only:
            # A new library, or one another writer is creating this instant: only the writer
            # holding the lock may decide which, so two first ingests never both create it.
            with self.lock.hold():
                meta = read_meta(self._db, self.where, legacy_dir=self.path)
                if meta is None:
                    self._refuse_foreign_tables()
                    meta = Meta()
                    write_meta(self._db, meta)
        names = self._table_names()
        if meta is None:
            self._refuse_foreign_tables()
            raise StoreError(
                f"There is no Footnote library at {self.where} yet.",
                hint="A writer creates it: footnote ingest PDF... --library " + self.where,
            )
        if META not in names and not read_only:
            with self.lock.hold():
                write_meta(self._db, meta)  # a meta.json from before: move it into the store
            assert self.path is not None
            (self.path / META_FILE).unlink(missing_ok=True)
        self.meta = check_version(self._db, self.where, meta, writable=not read_only)
        self._documents = self._open_or_create(DOCUMENTS, DOCUMENTS_SCHEMA)
        self._chunks = self._open_or_create(CHUNKS, CHUNKS_SCHEMA)
        if not read_only and not self._has_fts():
            with self.lock.hold():
                self._chunks = self._db.open_table(CHUNKS)  # another writer may have made it
                if not self._has_fts():
                    self._chunks.create_index("fts_text", config=FTS(), replace=True)
        self._docs_cache: tuple[int, list[Document]] | None = None
        # (the vectors table object, its version, its vectors in memory or None: too many)
        self._flat: tuple[Any, int, FlatVectors | None] | None = None
        self._flat_lock = threading.Lock()
        self._vectors = None
        self._sentences = None
        if self.meta.dim and VECTORS in self._table_names():
            self._vectors = self._db.open_table(VECTORS)
            if SENTENCES in self._table_names():
                self._sentences = self._db.open_table(SENTENCES)
        self._open = True
        if self.remote or read_only:
            return  # on object storage the sweep runs when a writer takes the lease
        with self.lock.try_hold() as got:
            if got:
                recovery.sweep(self)
                self._ensure_id_index()
            else:
                logger.info("another process is writing to %s; skipping recovery", self.where)

    def claim_writer(self) -> None:
        """Become this library's writer now (a team library's lease; a no-op locally), so a
        command that will write refuses at once, before any work, if another writer runs."""
        if isinstance(self.lock, Lease):
            with self.lock.hold():
                pass

    def _sweep_if_open(self) -> None:
        if self._open:
            recovery.sweep(self)

    def close(self) -> None:
        """Give back the writer lease of a team library at once (else it goes at exit)."""
        if isinstance(self.lock, Lease):
            self.lock.release()

    # --- setup -------------------------------------------------------------------------

    def _table_names(self) -> list[str]:
        return list(self._db.list_tables().tables)

    def _has_fts(self) -> bool:
        return any(ix.index_type == "FTS" for ix in self._chunks.list_indices())

    def _refuse_foreign_tables(self) -> None:
        names = self._table_names()
        if DOCUMENTS in names or CHUNKS in names:
            raise StoreError(
                f"{self.where} holds LanceDB tables but no Footnote meta table.",
                hint="Choose an empty folder or an existing Footnote library.",
            )

    def _open_or_create(self, name: str, schema: pa.Schema) -> Any:
        if name in self._table_names():
            try:
                return self._db.open_table(name)
            except ValueError:  # listed before its first version: another writer creating it
                pass
        if self.read_only:
            raise StoreError(f"The library at {self.where} has no {name} table.")
        with self.lock.hold():
            return self._db.create_table(name, schema=schema, exist_ok=True)

    def _ensure_id_index(self) -> None:
        """A scalar index on ``chunks.chunk_id``, so fetching a search's ~24 chunks by id reads
        those rows instead of scanning the table. Libraries made before it get it on open (a
        second or two at 100k chunks); new rows are merged into it by ``optimize``."""
        if any(ix.columns == ["chunk_id"] for ix in self._chunks.list_indices()):
            return
        if self._chunks.count_rows() == 0:
            return  # created by the first optimize after rows arrive
        try:
            self._chunks.create_index("chunk_id", config=BTree(), replace=True)
        except Exception:  # an optimisation only: searching works without it
            logger.exception("could not create the chunk_id index")

    def set_embedder(self, name: str, dim: int) -> bool:
        """Record which embedder made the vectors; a different one invalidates them all.

        Returns True when stored vectors were dropped (every document then goes back to
        ``indexed`` and is re-embedded by the next ``embed_pending``).
        """
        if self.meta.embedder == name and self.meta.dim == dim and self._vectors is not None:
            return False
        if self.read_only:
            if self.meta.embedder not in (None, name) or self.meta.dim not in (None, dim):
                raise StoreError(
                    f"The library at {self.where} was embedded with {self.meta.embedder}; "
                    f"this Footnote uses {name}.",
                    hint="Use the same embedder as the library's writer (--embedder).",
                )
            return False
        with self.lock.hold():
            dropped = self.meta.embedder is not None and (
                self.meta.embedder != name or self.meta.dim != dim
            )
            if dropped:
                logger.warning(
                    "embedder changed (%s -> %s): re-embedding", self.meta.embedder, name
                )
                self._vectors = None
                self._sentences = None
                self._db.drop_table(VECTORS, ignore_missing=True)
                self._db.drop_table(SENTENCES, ignore_missing=True)
                self._documents.update(
                    where=sql.equals("status", "ready"), values={"status": "indexed"}
                )
            if VECTORS not in self._table_names():
                self._db.create_table(VECTORS, schema=vectors_schema(dim), exist_ok=True)
            self._vectors = self._db.open_table(VECTORS)
            if SENTENCES not in self._table_names():
                self._db.create_table(SENTENCES, schema=sentences_schema(), exist_ok=True)
            self._sentences = self._db.open_table(SENTENCES)
            self.meta = Meta(schema_version=self.meta.schema_version, embedder=name, dim=dim)
            write_meta(self._db, self.meta)
            return dropped

    # --- writes --------------------------------------------------------------------------

    def add_document(self, parsed: ParsedDocument, vectors: np.ndarray | None = None) -> list[str]:
        """Store a parsed document all-or-nothing; returns ids of documents it replaced.

        ``vectors`` (one per chunk, in order; set_embedder first): the document is stored
        already embedded ("ready"), as a cluster job does; else it is "indexed" and
        ``embed_pending`` embeds it later.

        Chunks (and vectors) go in first, then one ``merge_insert`` keyed on the file path swaps the
        documents row (old document out, new one in, in a single commit). The old
        document's chunks and vectors are orphans from that instant and are deleted
        right after (or by the next open's sweep, if we die first).
        """
        doc = parsed.document
        with self.lock.hold():
            if self.get_document(doc.doc_id) is not None:
                raise StoreError(f"Document {doc.doc_id} is already in the library.")
            self._delete_rows(doc.doc_id)  # leftovers of an earlier failed attempt
            if parsed.chunks:
                self._chunks.add(chunk_table(doc.title, parsed.chunks))
            if vectors is not None:
                self.add_vectors(doc.doc_id, [c.chunk_id for c in parsed.chunks], vectors)
            replaced = [d.doc_id for d in self.find_by_path(doc.file)]
            row = _stored_row(doc, len(parsed.chunks), embedded=vectors is not None)
            self._upsert_documents(document_table([row], [parsed.sections]))
            for old in replaced:
                self._delete_rows(old)
            return replaced

    def add_documents(
        self, items: Sequence[tuple[ParsedDocument, np.ndarray | None]]
    ) -> list[list[str]]:
        """Store several parsed documents in one commit (a group commit); returns, per
        document, the ids of the documents it replaced.

        The same all-or-nothing rule as :meth:`add_document`, for the whole group: every
        document's chunks (and vectors) go in first, in one write per table, then a single
        ``merge_insert`` of all their ``documents`` rows is the commit marker, then the rows of
        the documents they replaced are deleted. A crash before the marker leaves none of them
        (the next open sweeps their rows), after it all of them. A document already in the
        library, or two documents for one file path, make the whole call fail before anything
        is written: callers then store the documents one by one, so one cannot sink the rest.
        """
        if not items:
            return []
        docs = [parsed.document for parsed, _ in items]
        ids = [d.doc_id for d in docs]
        if len(set(ids)) != len(ids) or len({d.file for d in docs}) != len(docs):
            raise StoreError("A group commit holds one document per id and per file.")
        with self.lock.hold():
            present = self.existing_documents(ids)
            if present:
                raise StoreError(f"Document {sorted(present)[0]} is already in the library.")
            self._delete_docs_rows(ids)  # leftovers of an earlier failed attempt
            chunk_tables = [chunk_table(p.document.title, p.chunks) for p, _ in items if p.chunks]
            if chunk_tables:
                self._chunks.add(pa.concat_tables(chunk_tables))
            embedded = [
                (p.document.doc_id, [c.chunk_id for c in p.chunks], v)
                for p, v in items
                if v is not None
            ]
            if embedded:
                self.add_vector_groups(embedded, committed_only=False)
            by_file: dict[str, list[str]] = {}
            for where in sql.in_batches("file", sorted({d.file for d in docs}), FILTER_BATCH):
                for row in self._query_docs(where):
                    by_file.setdefault(row["file"], []).append(row["doc_id"])
            rows = [
                _stored_row(d, len(p.chunks), embedded=v is not None)
                for d, (p, v) in zip(docs, items, strict=True)
            ]
            self._upsert_documents(document_table(rows, [p.sections for p, _ in items]))
            replaced = [by_file.get(d.file, []) for d in docs]
            self._delete_docs_rows(sorted({doc_id for ids_ in replaced for doc_id in ids_}))
            return replaced

    def _upsert_documents(self, table: pa.Table) -> None:
        """Write documents rows, keyed by file: the commit marker of an ingest."""
        (
            self._documents.merge_insert("file")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(table)
        )

    def _delete_docs_rows(self, doc_ids: Sequence[str]) -> None:
        """Chunks and vectors of ``doc_ids``, deleted where there are any (a delete that
        matches nothing would still write a version)."""
        for where in sql.in_batches("doc_id", list(doc_ids), FILTER_BATCH):
            if self._chunks.count_rows(where):
                self._chunks.delete(where)
            if self._vectors is not None and self._vectors.count_rows(where):
                self._vectors.delete(where)

    def add_vectors(self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
        """Append embedding vectors of some chunks of ``doc_id`` (call set_embedder first).

        Idempotent per chunk: chunks that already have a vector (another process embedded
        them meanwhile) are skipped under the writer lock, so two writers never double a
        document's vectors.
        """
        if self._vectors is None or self.meta.dim is None:
            raise StoreError("No embedder recorded for this library; call set_embedder first.")
        vecs = np.asarray(vectors, dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape != (len(chunk_ids), self.meta.dim):
            raise StoreError(
                f"Expected {len(chunk_ids)} vectors of dimension {self.meta.dim}, got {vecs.shape}."
            )
        if not chunk_ids:
            return
        with self.lock.hold():
            have = self.vector_ids(chunk_ids)
            keep = [i for i, c in enumerate(chunk_ids) if c not in have]
            if len(set(chunk_ids)) != len(chunk_ids):  # the same chunk twice in one call
                first = {c: i for i, c in reversed(list(enumerate(chunk_ids)))}
                keep = [i for i in keep if first[chunk_ids[i]] == i]
            if not keep:
                return
            self._vectors.add(self._vector_table(doc_id, [chunk_ids[i] for i in keep], vecs[keep]))

    def add_vector_groups(
        self,
        groups: Sequence[tuple[str, Sequence[str], np.ndarray]],
        *,
        committed_only: bool = True,
    ) -> int:
        """Append the vectors of several documents in one write (a group commit): each group is
        ``(doc_id, chunk_ids, vectors)`` as for :meth:`add_vectors`, and is skipped whole when
        its document is no longer in the library (removed meanwhile; ``committed_only=False``
        for documents whose commit marker is written after their vectors). Idempotent per chunk
        like ``add_vectors``. One write instead of one per batch keeps the vectors table in
        few fragments; a crash before it loses only vectors, which the next run embeds again.
        Returns how many vectors were written."""
        if self._vectors is None or self.meta.dim is None:
            raise StoreError("No embedder recorded for this library; call set_embedder first.")
        checked: list[tuple[str, list[str], np.ndarray]] = []
        for doc_id, chunk_ids, vectors in groups:
            vecs = np.asarray(vectors, dtype=np.float32)
            if vecs.ndim != 2 or vecs.shape != (len(chunk_ids), self.meta.dim):
                raise StoreError(
                    f"Expected {len(chunk_ids)} vectors of dimension {self.meta.dim}, "
                    f"got {vecs.shape}."
                )
            if chunk_ids:
                checked.append((doc_id, list(chunk_ids), vecs))
        if not checked:
            return 0
        with self.lock.hold():
            ids = [d for d, _, _ in checked]
            present = self.existing_documents(ids) if committed_only else set(ids)
            have = self.vector_ids([c for d, ids, _ in checked if d in present for c in ids])
            tables = []
            seen: set[str] = set()
            for doc_id, ids, vecs in checked:
                if doc_id not in present:
                    continue
                keep = []
                for i, c in enumerate(ids):
                    if c not in have and c not in seen:
                        seen.add(c)
                        keep.append(i)
                if keep:
                    tables.append(self._vector_table(doc_id, [ids[i] for i in keep], vecs[keep]))
            if not tables:
                return 0
            table = pa.concat_tables(tables)
            self._vectors.add(table)
            return int(table.num_rows)

    def existing_documents(self, doc_ids: Sequence[str]) -> set[str]:
        """Which of ``doc_ids`` are in the library now."""
        found: set[str] = set()
        ids = sorted(set(doc_ids))
        for where in sql.in_batches("doc_id", ids, FILTER_BATCH):
            q = self._documents.search().where(where).select(["doc_id"]).limit(None)
            found.update(q.to_arrow().column("doc_id").to_pylist())
        return found

    def _vector_table(self, doc_id: str, chunk_ids: Sequence[str], vecs: np.ndarray) -> Any:
        assert self.meta.dim is not None
        flat = pa.array(np.asarray(vecs, dtype=np.float32).ravel(), type=pa.float32())
        return pa.table(
            {
                "chunk_id": pa.array(list(chunk_ids), pa.string()),
                "doc_id": pa.array([doc_id] * len(chunk_ids), pa.string()),
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.meta.dim),
            },
            schema=vectors_schema(self.meta.dim),
        )

    def add_sentence_vectors(
        self,
        doc_id: str,
        rows: Sequence[tuple[str, Sequence[int], np.ndarray]],
    ) -> None:
        """Store the sentence vectors of some chunks of ``doc_id``: per chunk its id, the
        CRC-32 keys of its sentences and their vectors (``(len(keys), dim)``). Chunks that
        already have them are skipped, under the writer lock (idempotent, as add_vectors)."""
        if not rows:
            return
        dim = self.meta.dim
        if dim is None:
            raise StoreError("No embedder recorded for this library; call set_embedder first.")
        for chunk_id, keys, vecs in rows:
            if np.asarray(vecs).shape != (len(keys), dim):
                raise StoreError(
                    f"Expected {len(keys)} sentence vectors of dimension {dim} for {chunk_id}."
                )
        with self.lock.hold():
            if self._sentences is None:
                if SENTENCES not in self._table_names():
                    self._db.create_table(SENTENCES, schema=sentences_schema(), exist_ok=True)
                self._sentences = self._db.open_table(SENTENCES)
            have = self.sentence_chunk_ids([r[0] for r in rows])
            fresh = {r[0]: r for r in rows if r[0] not in have}  # the last of a repeated id
            if not fresh:
                return
            self._sentences.add(
                pa.table(
                    {
                        "chunk_id": list(fresh),
                        "doc_id": [doc_id] * len(fresh),
                        "keys": [[int(k) for k in r[1]] for r in fresh.values()],
                        "vectors": [
                            np.asarray(r[2], dtype=np.float32).ravel() for r in fresh.values()
                        ],
                    },
                    schema=sentences_schema(),
                )
            )

    def sentence_chunk_ids(self, chunk_ids: Sequence[str]) -> set[str]:
        """Which of ``chunk_ids`` have their sentence vectors stored."""
        if self._sentences is None or not chunk_ids:
            return set()
        found: set[str] = set()
        for where in sql.in_batches("chunk_id", sorted(set(chunk_ids)), FILTER_BATCH):
            q = self._sentences.search().where(where).select(["chunk_id"]).limit(None)
            found.update(q.to_arrow().column("chunk_id").to_pylist())
        return found

    def has_sentence_vectors(self) -> bool:
        """Whether this library stores sentence vectors at all (one made before they were
        stored has none until its documents are embedded again; search works without)."""
        return self._sentences is not None and self._sentences.count_rows() > 0

    def vector_ids(self, chunk_ids: Sequence[str]) -> set[str]:
        """Which of ``chunk_ids`` already have a vector."""
        if self._vectors is None or not chunk_ids:
            return set()
        found: set[str] = set()
        ids = sorted(set(chunk_ids))
        for where in sql.in_batches("chunk_id", ids, FILTER_BATCH):
            q = self._vectors.search().where(where)
            found.update(
                q.select(["chunk_id"]).limit(None).to_arrow().column("chunk_id").to_pylist()
            )
        return found

    def dedupe_vectors(self, doc_id: str) -> int:
        """Keep one vector per chunk of ``doc_id`` (two writers of an older version could
        both embed a document); returns how many duplicate rows were removed."""
        if self._vectors is None:
            return 0
        with self.lock.hold():
            rows = (
                self._vectors.search()
                .where(sql.equals("doc_id", doc_id))
                .select(["chunk_id", "vector"])
                .limit(None)
                .to_arrow()
            )
            ids = rows.column("chunk_id").to_pylist()
            seen: dict[str, int] = {}
            for i, c in enumerate(ids):
                seen.setdefault(c, i)
            if len(seen) == len(ids):
                return 0
            dup = sorted(c for c, n in Counter(ids).items() if n > 1)
            keep = [seen[c] for c in dup]
            vecs = np.asarray(rows.column("vector").to_pylist(), dtype=np.float32)[keep]
            table = self._vector_table(doc_id, dup, vecs)
            for where in sql.in_batches("chunk_id", dup, FILTER_BATCH):
                self._vectors.delete(where)
            self._vectors.add(table)  # a crash in between leaves chunks without a vector:
            return len(ids) - len(seen)  # they are embedded again, never lost for good

    def mark_ready(self, doc_id: str) -> None:
        """Flag a document as fully embedded (after all its vectors were added)."""
        self.set_status(doc_id, "ready")

    def mark_ready_many(self, doc_ids: Sequence[str]) -> None:
        """Flag documents as fully embedded in one write per ``FILTER_BATCH`` of them. Only
        documents still "indexed" change: a document replaced meanwhile by a partial one
        (OCR reading its scanned pages) is not made ready by its old vectors."""
        ids = sorted(set(doc_ids))
        if not ids:
            return
        with self.lock.hold():
            for where in sql.in_batches("doc_id", ids, FILTER_BATCH):
                self._documents.update(
                    where=f"{where} AND {sql.equals('status', 'indexed')}",
                    values={"status": "ready"},
                )

    def set_file(self, doc_id: str, file: str) -> None:
        """Record a new location for a document whose file moved (same content)."""
        with self.lock.hold():
            self._documents.update(where=sql.equals("doc_id", doc_id), values={"file": file})

    def set_status(self, doc_id: str, status: DocStatus) -> None:
        with self.lock.hold():
            self._documents.update(where=sql.equals("doc_id", doc_id), values={"status": status})

    def remove(self, doc_id: str) -> bool:
        """Delete a document: its row first (so it is gone at once), then its chunks/vectors."""
        with self.lock.hold():
            if self.get_document(doc_id) is None:
                return False
            self._documents.delete(sql.equals("doc_id", doc_id))
            self._delete_rows(doc_id)
            return True

    def delete_orphans(self, doc_ids: Iterable[str]) -> None:
        """Delete chunks and vectors of the given (uncommitted) document ids."""
        ids = sorted(set(doc_ids))
        with self.lock.hold():
            for where in sql.in_batches("doc_id", ids, FILTER_BATCH):
                self._chunks.delete(where)
                if self._vectors is not None:
                    self._vectors.delete(where)
                if self._sentences is not None:
                    self._sentences.delete(where)

    def delete_vectors(self, doc_id: str) -> None:
        with self.lock.hold():
            if self._vectors is not None:
                self._vectors.delete(sql.equals("doc_id", doc_id))
            if self._sentences is not None:
                self._sentences.delete(sql.equals("doc_id", doc_id))

    def _delete_rows(self, doc_id: str) -> None:
        where = sql.equals("doc_id", doc_id)
        if self._chunks.count_rows(where):
            self._chunks.delete(where)
        if self._vectors is not None and self._vectors.count_rows(where):
            self._vectors.delete(where)
        if self._sentences is not None and self._sentences.count_rows(where):
            self._sentences.delete(where)

    def optimize(self) -> None:
        """Merge new rows into the FTS / vector indexes, compact files, prune old versions.

        Unindexed rows stay searchable (LanceDB scans them), so this is about speed, not
        correctness; call it at the end of a batch rather than after every document.
        """
        with self.lock.hold():
            t0 = time.perf_counter()
            self._ensure_id_index()
            self._optimize_table(CHUNKS, self._chunks)  # BM25 merge, compaction
            t1 = time.perf_counter()
            self._optimize_table(DOCUMENTS, self._documents)
            if self._vectors is not None:
                self._optimize_table(VECTORS, self._vectors)
                if not self.has_vector_index() and self._vectors.count_rows() >= ANN_THRESHOLD:
                    logger.info("creating the ANN vector index")
                    self._vectors.create_index("vector", config=HnswSq(distance_type="cosine"))
            if self._sentences is not None:
                self._optimize_table(SENTENCES, self._sentences)
                if self._sentences.count_rows() and not any(
                    ix.columns == ["chunk_id"] for ix in self._sentences.list_indices()
                ):
                    try:  # the search's fetch of ~30 chunks' sentences reads those rows only
                        self._sentences.create_index("chunk_id", config=BTree(), replace=True)
                    except Exception:  # an optimisation only
                        logger.exception("could not create the sentences' chunk_id index")
            self.times.add("bm25", (t1 - t0) * 1000)
            self.times.add("compaction", (time.perf_counter() - t1) * 1000)

    def _optimize_table(self, name: str, table: Any) -> None:
        """Optimize one table, unless this store optimized it last and nothing (in this process
        or another) wrote to it since: its version is then the one that optimize left. An
        ingest optimizes at the end of each phase; the chunks table, untouched by the
        embedding phase, is not merged and compacted a second time."""
        if self._optimized.get(name) == table.version:
            return
        table.optimize(cleanup_older_than=KEEP_VERSIONS)
        self._optimized[name] = table.version

    def unindexed_chunks(self) -> int:
        """Chunks not yet merged into the BM25 index (searched by a slower scan)."""
        for ix in self._chunks.list_indices():
            if ix.index_type == "FTS":
                stats = self._chunks.index_stats(ix.name)
                return int(stats.num_unindexed_rows) if stats else 0
        return self.count_chunks()

    def maybe_optimize(self, min_unindexed: int = OPTIMIZE_EVERY) -> bool:
        """Optimize once enough chunks await the BM25 index, or enough documents were written
        since the last one (``COMPACT_AT_FRAGMENTS``); True if it ran.

        Measured on 2 cores: keyword search scans unindexed chunks at ~0.15 ms each,
        while an optimize costs ~1-3 s on a library of ~20k chunks; so during a long
        ingest we merge every few thousand chunks, not after every document.
        """
        with self.times.stage("compaction"):  # deciding is part of the cost
            if (
                self.unindexed_chunks() < min_unindexed
                and self.small_fragments() < COMPACT_AT_FRAGMENTS
            ):
                return False
        self.optimize()
        return True

    def small_fragments(self) -> int:
        """Small (not yet compacted) fragments of the documents table: about one a document
        written since the last optimize. A statistic only: 0 if LanceDB cannot say."""
        try:  # LanceDB 0.40 (pinned) gives the statistics as plain dicts
            stats: Any = self._documents.stats()
            return int(stats["fragment_stats"]["num_small_fragments"])
        except Exception:  # an optimisation only
            logger.debug("no fragment statistics for the documents table", exc_info=True)
            return 0

    def has_vector_index(self) -> bool:
        return self._vectors is not None and any(
            ix.columns == ["vector"] for ix in self._vectors.list_indices()
        )

    # --- reads ---------------------------------------------------------------------------

    def documents(self) -> list[Document]:
        """Every document, by title. Cached per table version: every search asks for this,
        and re-reading the table cost a LanceDB query per search."""
        version = self._documents.version
        cached = self._docs_cache
        if cached is not None and cached[0] == version:
            return [d.model_copy() for d in cached[1]]
        q = self._documents.search().select(DOC_COLUMNS).limit(None)
        docs = [row_to_document(r) for r in q.to_arrow().to_pylist()]
        docs.sort(key=lambda d: (d.title.lower(), d.file))
        self._docs_cache = (version, docs)
        return [d.model_copy() for d in docs]

    def get_document(self, doc_id: str) -> Document | None:
        rows = self._query_docs(sql.equals("doc_id", doc_id))
        return row_to_document(rows[0]) if rows else None

    def find_by_path(self, path: Path | str) -> list[Document]:
        return [row_to_document(r) for r in self._query_docs(sql.equals("file", str(path)))]

    def sections(self, doc_id: str) -> list[Section]:
        rows = self._query_docs(sql.equals("doc_id", doc_id))
        if not rows or not rows[0].get("sections_json"):
            return []
        return [Section.model_validate(s) for s in json.loads(rows[0]["sections_json"])]

    def pending_embeddings(self) -> list[Document]:
        """Documents that are keyword-searchable but not (fully) embedded yet."""
        return [row_to_document(r) for r in self._query_docs(sql.equals("status", "indexed"))]

    def embedded_chunk_ids(self, doc_id: str) -> set[str]:
        if self._vectors is None:
            return set()
        q = self._vectors.search().where(sql.equals("doc_id", doc_id)).select(["chunk_id"])
        return set(q.limit(None).to_arrow().column("chunk_id").to_pylist())

    def chunk_vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        """The stored vectors of ``doc_id``'s chunks: (chunk ids, float32 array of shape
        ``(len(ids), dim)``), in chunk order; chunks not embedded yet are left out (none
        stored: ``([], an empty (0, dim) array)``). A summary reads them back instead of
        embedding the document again."""
        dim = self.meta.dim or 0
        if self._vectors is None:
            return [], np.zeros((0, dim), dtype=np.float32)
        q = self._vectors.search().where(sql.equals("doc_id", doc_id))
        table = q.select(["chunk_id", "vector"]).limit(None).to_arrow()
        ids: list[str] = table.column("chunk_id").to_pylist()
        if not ids:
            return [], np.zeros((0, dim), dtype=np.float32)
        flat = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        vecs = np.asarray(flat, dtype=np.float32).reshape(len(ids), -1)
        order = sorted(range(len(ids)), key=lambda i: ids[i])  # ids sort as chunk order
        keep: list[int] = []
        for i in order:  # a vector stored twice (an old race) counts once
            if not keep or ids[keep[-1]] != ids[i]:
                keep.append(i)
        return [ids[i] for i in keep], vecs[keep]

    def stored_sentences(self, chunk_ids: Sequence[str]) -> dict[str, tuple[list[int], np.ndarray]]:
        """Per chunk id with stored sentence vectors: the sentences' CRC-32 keys and their
        vectors (``(n, dim)`` float32). Chunks without (not embedded yet, or embedded before
        sentence vectors were stored) are left out."""
        ids = list(dict.fromkeys(chunk_ids))
        if self._sentences is None or not ids:
            return {}
        dim = self.meta.dim or 0
        out: dict[str, tuple[list[int], np.ndarray]] = {}
        for where in sql.in_batches("chunk_id", ids, FILTER_BATCH):
            q = self._sentences.search().where(where).select(["chunk_id", "keys", "vectors"])
            table = q.limit(None).to_arrow()
            cids = table.column("chunk_id").to_pylist()
            keys = table.column("keys").to_pylist()
            flat = table.column("vectors").combine_chunks()
            offsets = flat.offsets.to_numpy()
            values = flat.values.to_numpy(zero_copy_only=False)
            for i, cid in enumerate(cids):
                vec = np.asarray(values[offsets[i] : offsets[i + 1]], dtype=np.float32)
                out[cid] = (keys[i] or [], vec.reshape(-1, dim) if dim else vec.reshape(0, 0))
        return out

    def sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Per chunk id with stored sentence vectors, those vectors (``(n, dim)``)."""
        return {cid: vecs for cid, (_, vecs) in self.stored_sentences(chunk_ids).items()}

    def get_chunks(self, chunk_ids: Sequence[str], *, charmap: bool = True) -> list[Chunk]:
        """Chunks in the order asked for; unknown ids are skipped. ``charmap=False`` leaves
        out the character maps (the bulk of a row), which a search result does not need."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return []
        found: dict[str, Chunk] = {}
        for where in sql.in_batches("chunk_id", ids, FILTER_BATCH):
            for c in self._query_chunks(where, charmap=charmap):
                found[c.chunk_id] = c
        return [found[i] for i in ids if i in found]

    def chunks_of(self, doc_id: str, *, charmap: bool = True) -> list[Chunk]:
        """Every chunk of ``doc_id`` in document order (``charmap=False``: without the
        character maps, the bulk of a row)."""
        chunks = self._query_chunks(sql.equals("doc_id", doc_id), charmap=charmap)
        return sorted(chunks, key=lambda c: c.ordinal)

    def count_chunks(self) -> int:
        return int(self._chunks.count_rows())

    def chunks_version(self) -> int:
        """The chunks table's version: it changes with every write (a counted word's source)."""
        return int(self._chunks.version)

    def keyword_texts(self, doc_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(doc_id, text the keyword index sees) of every chunk of ``doc_ids``."""
        out: list[tuple[str, str]] = []
        ids = list(dict.fromkeys(doc_ids))
        for where in sql.in_batches("doc_id", ids, FILTER_BATCH):
            q = self._chunks.search().where(where).select(["doc_id", "fts_text"]).limit(None)
            table = q.to_arrow()
            out.extend(
                zip(
                    table.column("doc_id").to_pylist(),
                    table.column("fts_text").to_pylist(),
                    strict=True,
                )
            )
        return out

    def count_vectors(self) -> int:
        return 0 if self._vectors is None else int(self._vectors.count_rows())

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """BM25 over title + section + text; [(chunk_id, score)] best first."""
        if not query.strip() or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        q = self._chunks.search(cjk_terms(query), query_type="fts", fts_columns="fts_text")
        if doc_ids is not None:
            q = q.where(sql.is_in("doc_id", doc_ids), prefilter=True)
        table = q.select(["chunk_id", "_score"]).limit(k).to_arrow()
        return list(
            zip(
                table.column("chunk_id").to_pylist(),
                (float(s) for s in table.column("_score").to_pylist()),
                strict=True,
            )
        )

    def vector_search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """Cosine similarity search; [(chunk_id, similarity in [-1, 1])] best first.

        Without an ANN index the scan is exact, over the vectors held in memory
        (:mod:`app.store.flat`) when there are at most ``FLAT_MAX_ROWS`` of them."""
        if self._vectors is None or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        indexed = self.has_vector_index()
        if not indexed:
            flat = self._flat_vectors()
            if flat is not None:
                return flat.search(vec, k, doc_ids)
        return self._lance_vector_search(vec, k, doc_ids, indexed=indexed)

    def _flat_vectors(self) -> FlatVectors | None:
        """The vectors table in memory, read again whenever its version changes (a write by
        this store or, once LanceDB sees it, by another process); None above
        ``FLAT_MAX_ROWS`` rows."""
        table = self._vectors
        if table is None:
            return None
        version = table.version
        cached = self._flat
        if cached is not None and cached[0] is table and cached[1] == version:
            return cached[2]
        with self._flat_lock:
            cached = self._flat
            if cached is not None and cached[0] is table and cached[1] == version:
                return cached[2]
            t0 = time.perf_counter()
            flat: FlatVectors | None = None
            if table.count_rows() <= FLAT_MAX_ROWS:
                rows = table.search().select(["chunk_id", "doc_id", "vector"]).limit(None)
                flat = FlatVectors.from_arrow(rows.to_arrow())
                logger.debug(
                    "%d vectors read into memory (%.1f MB) in %.0f ms",
                    len(flat),
                    flat.nbytes / 1e6,
                    (time.perf_counter() - t0) * 1000,
                )
            self._flat = (table, version, flat)
            return flat

    def _lance_vector_search(
        self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None, *, indexed: bool
    ) -> list[tuple[str, float]]:
        """LanceDB's own search: through the ANN index when there is one (``indexed``, as
        :meth:`has_vector_index` says), else a flat scan."""
        assert self._vectors is not None
        q = self._vectors.search(
            np.asarray(vec, dtype=np.float32).ravel(), query_type="vector"
        ).distance_type("cosine")
        if doc_ids is not None:
            q = q.where(sql.is_in("doc_id", doc_ids), prefilter=True)
        if indexed:
            # With refinement LanceDB fetches k * refine_factor candidates and rejects an ef
            # below that ("ef must be greater than or equal to k"), so size ef from it.
            refine = 5
            q = q.nprobes(20).ef(max(64, 4 * k, k * refine)).refine_factor(refine)
        table = q.select(["chunk_id", "_distance"]).limit(k).to_arrow()
        return list(
            zip(
                table.column("chunk_id").to_pylist(),
                (1.0 - float(d) for d in table.column("_distance").to_pylist()),
                strict=True,
            )
        )

    def doc_id_column(self, table: Literal["chunks", "vectors", "sentences"]) -> list[str]:
        """All doc_id values of ``chunks``, ``vectors`` or ``sentences`` (for the consistency
        sweep, and to find documents whose sentence vectors are missing)."""
        t = {CHUNKS: self._chunks, VECTORS: self._vectors, SENTENCES: self._sentences}[table]
        if t is None:
            return []
        ids: list[str] = (
            t.search().select(["doc_id"]).limit(None).to_arrow().column("doc_id").to_pylist()
        )
        return ids

    def _query_docs(self, where: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = (
            self._documents.search().where(where).limit(None).to_arrow().to_pylist()
        )
        return rows

    def _query_chunks(self, where: str, *, charmap: bool = True) -> list[Chunk]:
        columns = [*CHUNK_COLUMNS, "charmap"] if charmap else CHUNK_COLUMNS
        q = self._chunks.search().where(where).select(columns)
        return [row_to_chunk(r) for r in q.limit(None).to_arrow().to_pylist()]


def _stored_row(doc: Document, chunks: int, *, embedded: bool) -> Document:
    """The ``documents`` row an ingest commits for ``doc``: "ready" with vectors, else
    "partial" while OCR still reads some pages (app.services.partial), else "indexed"."""
    status: DocStatus = (
        "ready" if embedded else ("partial" if doc.status == "partial" else "indexed")
    )
    return doc.model_copy(
        update={
            "chunks": chunks,
            "status": status,
            "ingested_at": doc.ingested_at or datetime.now(UTC),
        }
    )
