"""Arrow schemas of the library tables, and the versioned ``meta`` table among them.

The schema version lives in the store itself (a two-column ``meta`` table), so a library
on object storage carries it and nothing assumes a local folder. It is read and checked
before any other table is opened: a library written by a newer Footnote must fail with a
clear message instead of being silently misread or damaged. Libraries from before this
table kept a ``meta.json`` file beside the tables; it is migrated into the table on open.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from app.core.errors import StoreError

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
META_FILE = "meta.json"  # before schema 1 moved into the store
META = "meta"

DOCUMENTS = "documents"
CHUNKS = "chunks"
VECTORS = "vectors"
SENTENCES = "sentences"

DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),
        pa.field("title", pa.string()),
        pa.field("pages", pa.int32()),
        pa.field("chunks", pa.int32()),
        pa.field("size", pa.int64()),
        pa.field("mtime", pa.float64()),
        pa.field("ingested_at", pa.timestamp("us", tz="UTC")),
        pa.field("status", pa.string()),
        pa.field("sections_json", pa.string()),
    ]
)
# Every documents column but the section list (which can be large): what listing documents reads.
DOC_COLUMNS = [name for name in DOCUMENTS_SCHEMA.names if name != "sections_json"]

CHUNKS_SCHEMA = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32()),
        pa.field("page_start", pa.int32()),
        pa.field("page_end", pa.int32()),
        pa.field("section", pa.string()),
        pa.field("text", pa.string()),
        # What BM25 indexes: document title + section path + text, so that a keyword
        # query naming a section or a document finds its passages.
        pa.field("fts_text", pa.string()),
        pa.field("charmap", pa.binary()),
    ]
)


META_SCHEMA = pa.schema(
    [pa.field("key", pa.string(), nullable=False), pa.field("value", pa.string())]
)


def vectors_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def sentences_schema() -> pa.Schema:
    """One row per chunk: the vectors of its sentences (``sentence_units`` of its text, as the
    answer step shows them), flattened, and a CRC-32 of each sentence's text, so the answer
    step can look a sentence's vector up instead of embedding it. A chunk without a sentence
    has a row with empty lists (so it is known to be done)."""
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("keys", pa.list_(pa.uint32())),
            pa.field("vectors", pa.list_(pa.float32())),
        ]
    )


@dataclass
class Meta:
    """What is recorded about a library besides its tables."""

    schema_version: int = SCHEMA_VERSION
    embedder: str | None = None  # name of the model that produced the stored vectors
    dim: int | None = None


def _meta_from(raw: dict[str, Any], where: str) -> Meta:
    try:
        dim = raw.get("dim")
        return Meta(
            schema_version=int(raw["schema_version"]),
            embedder=raw.get("embedder") or None,
            dim=int(dim) if dim not in (None, "") else None,
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"The library's meta data at {where} cannot be read ({exc}).",
            hint="Choose another library, or move this one aside to start afresh.",
        ) from exc


def read_meta(db: Any, where: str, legacy_dir: Path | None = None) -> Meta | None:
    """Meta of the library in ``db``; None for a place that is not a library yet.

    ``legacy_dir``: a local library folder that may still hold a ``meta.json``.
    """
    if META in db.list_tables().tables:
        try:
            rows = db.open_table(META).to_arrow().to_pylist()
        except ValueError:  # listed but without its first version: another writer creating it
            return None
        if not rows:
            # Created but not yet written: by a writer that crashed between the two, or by a
            # Footnote before the table was created with its rows in one commit.
            return None
        return _meta_from({r["key"]: r["value"] for r in rows}, where)
    if legacy_dir is not None and (legacy_dir / META_FILE).exists():
        try:
            raw = json.loads((legacy_dir / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(
                f"The library's {META_FILE} at {where} cannot be read ({exc}).",
                hint="Choose another library folder, or move this one aside to start afresh.",
            ) from exc
        if not isinstance(raw, dict):
            raise StoreError(f"The library's {META_FILE} at {where} cannot be read.")
        return _meta_from(raw, where)
    return None


def write_meta(db: Any, meta: Meta) -> None:
    """Upsert every key in one commit, so a crash never leaves half of it and a reader never
    sees a meta table without its rows: a new table is created with them, an existing one
    takes a merge_insert. The caller holds the writer lock."""
    values = {k: None if v is None else str(v) for k, v in asdict(meta).items()}
    table = pa.table({"key": list(values), "value": list(values.values())}, schema=META_SCHEMA)
    try:
        existing = db.open_table(META) if META in db.list_tables().tables else None
    except ValueError:  # a folder without a first version: a creation that crashed
        existing = None
    if existing is None:
        db.create_table(META, data=table, schema=META_SCHEMA)
        return
    (
        existing.merge_insert("key")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute(table)
    )


def check_version(db: Any, where: str, meta: Meta, *, writable: bool = True) -> Meta:
    """Refuse libraries from a newer Footnote; migrate older ones in place (none exist yet)."""
    if meta.schema_version > SCHEMA_VERSION:
        raise StoreError(
            f"The library at {where} was written by a newer version of Footnote "
            f"(schema {meta.schema_version}; this version reads up to {SCHEMA_VERSION}).",
            hint="Update Footnote, or choose another library.",
        )
    if meta.schema_version < SCHEMA_VERSION and writable:  # pragma: no cover - none yet
        logger.info("migrating library %s from schema %s", where, meta.schema_version)
        meta.schema_version = SCHEMA_VERSION
        write_meta(db, meta)
    return meta
