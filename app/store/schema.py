"""Arrow schemas of the library tables and the versioned ``meta.json`` beside them.

The schema version lives in a small JSON file (not a table) so it can be read and
checked before LanceDB opens anything: a library written by a newer Footnote must
fail with a clear message instead of being silently misread or damaged.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa

from app.core.errors import StoreError

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
META_FILE = "meta.json"

DOCUMENTS = "documents"
CHUNKS = "chunks"
VECTORS = "vectors"

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


def vectors_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


@dataclass
class Meta:
    """What is recorded about a library folder besides its tables."""

    schema_version: int = SCHEMA_VERSION
    embedder: str | None = None  # name of the model that produced the stored vectors
    dim: int | None = None


def read_meta(root: Path) -> Meta | None:
    """Meta of the library at ``root``; None for a folder that is not a library yet."""
    path = root / META_FILE
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        meta = Meta(
            schema_version=int(raw["schema_version"]),
            embedder=raw.get("embedder"),
            dim=raw.get("dim"),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"The library's {META_FILE} at {root} cannot be read ({exc}).",
            hint="Choose another library folder, or move this one aside to start afresh.",
        ) from exc
    return meta


def write_meta(root: Path, meta: Meta) -> None:
    """Write ``meta.json`` atomically (temp file + rename) so a crash never truncates it."""
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / (META_FILE + ".tmp")
    tmp.write_text(json.dumps(asdict(meta), indent=2), encoding="utf-8")
    os.replace(tmp, root / META_FILE)


def check_version(root: Path, meta: Meta) -> Meta:
    """Refuse libraries from a newer Footnote; migrate older ones in place (none exist yet)."""
    if meta.schema_version > SCHEMA_VERSION:
        raise StoreError(
            f"The library at {root} was written by a newer version of Footnote "
            f"(schema {meta.schema_version}; this version reads up to {SCHEMA_VERSION}).",
            hint="Update Footnote, or choose another library folder.",
        )
    if meta.schema_version < SCHEMA_VERSION:  # pragma: no cover - no older schema exists yet
        logger.info("migrating library %s from schema %s", root, meta.schema_version)
        meta.schema_version = SCHEMA_VERSION
        write_meta(root, meta)
    return meta
