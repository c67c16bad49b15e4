"""Valid citations and answers for tests of one layer (rendering, metrics, verdicts).

Each returns a model that passes validation as it stands; a test overrides by keyword only
what it is about, so a new required field of ``Citation`` or ``Answer`` is filled in here once.
"""

from __future__ import annotations

from typing import Any

from app.core.models import Answer, Citation, Validation

QUOTE = "Clean the filter every 90 days."


def citation(**overrides: Any) -> Citation:
    """An exact citation of :data:`QUOTE` on page 3 of /docs/guide.pdf, with a rectangle."""
    fields: dict[str, Any] = {
        "n": 1,
        "doc_id": "d",
        "chunk_id": "d:00001",
        "file": "/docs/guide.pdf",
        "page": 3,
        "section": "Care",
        "quote": QUOTE,
        "match": "exact",
        "score": 100,
        "rects": [(3, 72.0, 100.0, 300.0, 112.0)],
    }
    fields.update(overrides)
    return Citation(**fields)


def answer(**overrides: Any) -> Answer:
    """A GREEN extractive answer quoting :data:`QUOTE` as citation 1."""
    fields: dict[str, Any] = {
        "question": "How often should I clean the filter?",
        "mode": "answer",
        "kind": "extractive",
        "answer": f"\u201c{QUOTE}\u201d [1]",
        "citations": [citation()],
        "validation": Validation(status="GREEN"),
    }
    fields.update(overrides)
    return Answer(**fields)
