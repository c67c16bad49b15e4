"""What the service logs about a validation, and the hint it gives the model on a retry.

Why: when an answer comes back RED the service retries once; the model does better
when told which source numbers exist and what exactly was wrong. And every drop
must be traceable afterwards, so the service logs one plain-dict record per answer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from app.core.models import Chunk, DroppedCitation, RawAnswer, Source
from app.validation.validator import ValidatedAnswer

logger = logging.getLogger(__name__)

_QUOTE_LOG_CHARS = 200
_ANSWER_LOG_CHARS = 1000

_ADVICE: dict[str, str] = {
    "out_of_range": "cites a source number that does not exist",
    "not_retrieved": "cites a source that was not given to you",
    "quote_not_found": "has a quote that is not in the cited source; copy it word for word",
    "no_overlap": "has a quote that does not support the sentence citing it",
    "number_not_in_source": "states a number the cited source does not contain",
    "orphan_marker": "has a marker with no matching citation",
    "duplicate": "repeats the same citation",
}


def log_record(
    raw: RawAnswer, sources: Sequence[tuple[Source, Chunk]], result: ValidatedAnswer
) -> dict[str, object]:
    """A JSON-serialisable record of one validation for the service's log."""
    return {
        "mode": raw.mode,
        "raw_answer": raw.answer[:_ANSWER_LOG_CHARS],
        "top_k": len(sources),
        "retrieved": [
            {
                "n": s.n,
                "chunk_id": c.chunk_id,
                "doc_id": c.doc_id,
                "page": c.page_start,
                "score": round(float(s.score), 4),
            }
            for s, c in sources
        ],
        "raw_citations": [
            {"source": rc.source, "quote": rc.quote[:_QUOTE_LOG_CHARS]} for rc in raw.citations
        ],
        "kept": [
            {
                "n": c.n,
                "chunk_id": c.chunk_id,
                "match": c.match,
                "score": c.score,
                "start": c.start,
                "end": c.end,
            }
            for c in result.citations
        ],
        "dropped": [d.model_dump() for d in result.validation.dropped],
        "unmentioned": list(result.unmentioned),
        "status": result.validation.status,
        "flags": list(result.validation.flags),
    }


def repair_prompt(valid_numbers: list[int], dropped: Sequence[DroppedCitation]) -> str:
    """Instructions for a retry: which source numbers exist and what went wrong last time."""
    nums = ", ".join(f"[{n}]" for n in sorted(set(valid_numbers)))
    lines = ["Your previous answer could not be verified."]
    if nums:
        lines.append(f"The only sources you may cite are {nums}; no other source numbers exist.")
    else:
        lines.append("No sources were found: say that the documents do not answer the question.")
    problems: list[str] = []
    for d in dropped:
        if d.reason == "duplicate":  # harmless: collapsed, nothing for the model to fix
            continue
        where = f"[{d.n}]" if d.n is not None else "A citation"
        text = f"- {where} {_ADVICE.get(d.reason, d.reason)}"
        if d.detail:
            text += f" ({d.detail})"
        if text not in problems:
            problems.append(text)
    if problems:
        lines.append("Problems found:")
        lines.extend(problems)
    lines.append(
        "Answer again. Put a marker such as [1] after every sentence that states a fact, "
        "and for each marker give a citation whose quote is copied exactly, word for word, "
        "from that source and says what the sentence says. If the sources do not answer "
        "the question, refuse."
    )
    return "\n".join(lines)
