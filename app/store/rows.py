"""Conversion between domain models and Arrow rows of the library tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from app.core.charmap import CharMap
from app.core.models import Chunk, Document, Section
from app.core.scripts import cjk_terms
from app.store.schema import CHUNKS_SCHEMA, DOCUMENTS_SCHEMA

CHUNK_COLUMNS = ["chunk_id", "doc_id", "ordinal", "page_start", "page_end", "section", "text"]


def fts_text(title: str, section: str, text: str) -> str:
    """What the keyword index sees for a chunk: document title, section path, then text
    (CJK runs as character pairs, see :mod:`app.core.scripts`)."""
    return cjk_terms("\n".join(part for part in (title, section, text) if part))


def chunk_table(title: str, chunks: Sequence[Chunk]) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [] for name in CHUNKS_SCHEMA.names}
    for c in chunks:
        for name in CHUNK_COLUMNS:
            cols[name].append(getattr(c, name))
        cols["fts_text"].append(fts_text(title, c.section, c.text))
        cols["charmap"].append(c.charmap.to_bytes() if c.charmap is not None else None)
    return pa.table(cols, schema=CHUNKS_SCHEMA)


def document_table(docs: Sequence[Document], sections: Sequence[list[Section]]) -> pa.Table:
    rows = []
    for d, secs in zip(docs, sections, strict=True):
        row = d.model_dump()
        row["sections_json"] = json.dumps([s.model_dump() for s in secs])
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=DOCUMENTS_SCHEMA)


def row_to_document(row: dict[str, Any]) -> Document:
    data = {k: v for k, v in row.items() if k in Document.model_fields}
    return Document.model_validate(data)


def row_to_chunk(row: dict[str, Any]) -> Chunk:
    raw = row.get("charmap")
    charmap = CharMap.from_bytes(raw) if raw is not None else None
    return Chunk(**{k: row[k] for k in CHUNK_COLUMNS}, charmap=charmap)
