"""Domain models: the single source of truth for what flows between layers.

Every field has a description; JSON produced by the CLI is these models dumped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.charmap import CharMap

DocStatus = Literal["indexed", "ready", "partial"]
IngestStatus = Literal["added", "unchanged", "updated", "failed"]
MatchKind = Literal["exact", "normalized", "fuzzy"]
ValidationStatus = Literal["GREEN", "YELLOW", "RED", "REFUSED"]
"""GREEN: answered from the documents, every claim cited and verified; YELLOW: the quotes are
real but the evidence covers the question only in part (or a claim is uncited); RED: citations
that could not be verified; REFUSED: the documents do not answer (``Answer.kind`` "refusal")."""
AnswerMode = Literal["answer", "refuse"]
AnswerKind = Literal["generated", "extractive", "summary", "refusal"]
DropReason = Literal[
    "out_of_range",
    "not_retrieved",
    "quote_not_found",
    "no_overlap",
    "number_not_in_source",
    "orphan_marker",
    "duplicate",
]


class Document(BaseModel):
    doc_id: str = Field(description="Stable id: hash of the file's content.")
    file: str = Field(description="Absolute path of the PDF when it was ingested.")
    title: str = Field(description="Metadata title, else first heading, else file name.")
    pages: int = Field(description="Number of pages.")
    chunks: int = Field(default=0, description="Number of chunks indexed.")
    size: int = Field(default=0, description="File size in bytes.")
    mtime: float = Field(default=0.0, description="File modification time (epoch seconds).")
    ingested_at: datetime | None = Field(default=None, description="When it was (re)ingested.")
    status: DocStatus = Field(
        default="ready",
        description="'indexed': keyword-searchable, embeddings pending; 'ready': fully embedded;"
        " 'partial': OCR has read only some pages yet (or was interrupted), those searchable.",
    )


class Section(BaseModel):
    title: str = Field(description="Heading text, e.g. '2.3 Drawing Operations'.")
    level: int = Field(description="1 for top-level sections.")
    page: int = Field(description="1-based page where the section starts.")
    y: float = Field(default=0.0, description="Vertical position of the heading on its page.")


class Chunk(BaseModel):
    """A passage of a document, sized for retrieval and citation."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chunk_id: str = Field(description="Stable id: '<doc_id>:<ordinal>' (ordinal zero-padded to 5).")
    doc_id: str = Field(description="Document this chunk belongs to.")
    ordinal: int = Field(description="Position of the chunk in its document, from 0.")
    page_start: int = Field(description="1-based page of the first character.")
    page_end: int = Field(description="1-based page of the last character.")
    section: str = Field(default="", description="Section path, e.g. '2 Graphics > 2.3 Drawing'.")
    text: str = Field(description="Cleaned text of the chunk.")
    charmap: CharMap | None = Field(
        default=None, exclude=True, description="Geometry of every character, for highlighting."
    )

    @staticmethod
    def make_id(doc_id: str, ordinal: int) -> str:
        return f"{doc_id}:{ordinal:05d}"


class ParsedDocument(BaseModel):
    """What ingestion produces from one PDF, before it is stored."""

    document: Document
    sections: list[Section] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    ocr_pages: list[int] = Field(
        default_factory=list, description="1-based pages whose text was read by OCR."
    )
    ocr_pending: list[int] = Field(
        default_factory=list,
        description="1-based pages that need OCR and were left unread (OcrOptions.defer).",
    )
    timings_ms: dict[str, float] = Field(
        default_factory=dict,
        description="Wall milliseconds per parse stage (app.core.timing.INGEST_STAGES).",
    )


class IngestResult(BaseModel):
    file: str
    status: IngestStatus
    doc_id: str | None = None
    pages: int = 0
    chunks: int = 0
    ocr_pages: int = Field(default=0, description="Pages read by OCR in this run.")
    error: str | None = Field(default=None, description="User-facing message when failed.")
    error_code: str | None = Field(default=None, description="Stable error code when failed.")
    timings_ms: dict[str, float] = Field(
        default_factory=dict,
        description="Wall milliseconds per ingestion stage of this file "
        "(app.core.timing.INGEST_STAGES).",
    )


class IngestOutcome(BaseModel):
    """What one ingest run did: per-file results of the first phase, then the embedding phase."""

    results: list[IngestResult] = Field(
        default_factory=list, description="One per file processed, in order."
    )
    embedded_chunks: int = Field(default=0, description="Chunks embedded by the second phase.")
    cancelled: bool = Field(default=False, description="The run was cut short by a cancel.")
    embed_error: str | None = Field(
        default=None,
        description="Why embedding failed (user text); the documents stay keyword-searchable.",
    )
    index_ms: float = Field(default=0.0, description="Wall time of parse + keyword index.")
    embed_ms: float = Field(default=0.0, description="Wall time of the embedding phase.")
    timings_ms: dict[str, float] = Field(
        default_factory=dict,
        description="Wall milliseconds per ingestion stage, summed over the run's files plus "
        "the run's own (model load, worker start, BM25 merge, compaction).",
    )


class SearchHit(BaseModel):
    """A retrieved chunk. ``n`` is its source number in an answer (1-based), else 0.

    ``keyword_rank`` and ``vector_rank``: its 1-based rank in the question's own keyword
    list and vector list before fusion, 0 when that list did not return it (or the search
    had no such list). Whether the two independent searches agree on a passage is a signal
    of the status model (:mod:`app.validation.status_model`)."""

    rank: int
    chunk_id: str
    doc_id: str
    file: str
    title: str
    page_start: int
    page_end: int
    section: str
    score: float
    text: str
    keyword_rank: int = 0
    vector_rank: int = 0


class RawCitation(BaseModel):
    """A citation as the model wrote it: untrusted until validated."""

    source: int = Field(description="Source number as shown to the model, 1..k.")
    quote: str = Field(description="Evidence copied from that source.")


class RawAnswer(BaseModel):
    """The model's structured output: untrusted until validated."""

    mode: AnswerMode = Field(description="'answer', or 'refuse' when the sources do not answer.")
    answer: str = Field(description="Answer text with inline markers like [1] or [1][3].")
    citations: list[RawCitation] = Field(default_factory=list)


class Citation(BaseModel):
    n: int = Field(description="Source number, as in the marker [n].")
    doc_id: str
    chunk_id: str
    file: str
    page: int = Field(description="1-based page where the quote starts.")
    section: str
    quote: str = Field(description="The document's own words, exactly as in the chunk.")
    match: MatchKind
    score: float = Field(description="Match score, 0..100 (100 for exact and normalized).")
    start: int = Field(default=0, description="Character offset of the quote in the chunk.")
    end: int = Field(default=0, description="End offset (exclusive) of the quote in the chunk.")
    rects: list[tuple[int, float, float, float, float]] = Field(
        default_factory=list,
        description="[page, x0, y0, x1, y1] in PDF points, 1-based pages, covering the quote.",
    )


class Source(SearchHit):
    n: int = Field(description="Source number shown to the model.")


class DroppedCitation(BaseModel):
    n: int | None = Field(description="Source number the model wrote (None if unknown).")
    reason: DropReason
    detail: str = ""


class Support(BaseModel):
    """Whether the cited evidence answers the question, not just whether the quotes are real."""

    score: float = Field(description="0..1: how well the evidence covers the question.")
    covered: list[str] = Field(
        default_factory=list, description="Key concepts of the question found in the evidence."
    )
    missing: list[str] = Field(
        default_factory=list, description="Key concepts of the question the evidence lacks."
    )
    absent: list[str] = Field(
        default_factory=list,
        description=(
            "Key concepts the evidence lacks that occur nowhere in the library: refused before "
            "generation, unless a passage is close to the question anyway (then at most YELLOW)."
        ),
    )
    answer_type: str = Field(
        default="other",
        description=(
            "What the question asks for: price (a sum of money), number, year, name, command, "
            "place, yes/no, method (a way to do something), other."
        ),
    )
    similarity: float | None = Field(
        default=None, description="Best cosine similarity of the question to a cited passage."
    )
    reasons: list[str] = Field(
        default_factory=list, description="Why the score is what it is, in words for a person."
    )
    closest: list[Citation] = Field(
        default_factory=list,
        description="For a refusal: the passages closest to the question, to check by hand.",
    )
    judged: list[Citation] = Field(
        default_factory=list,
        description="For an answer refused after it was written: the citations it had.",
    )
    features: dict[str, float] = Field(
        default_factory=dict,
        description="The signals the status model weighed (app.validation.status_model).",
    )
    probability: float | None = Field(
        default=None,
        description="The status model's probability that the answer is right (None: not judged).",
    )


class Validation(BaseModel):
    status: ValidationStatus
    dropped: list[DroppedCitation] = Field(default_factory=list)
    repaired: bool = Field(default=False, description="True when a repair retry was needed.")
    flags: list[str] = Field(
        default_factory=list,
        description="Human-readable warnings: uncited or unsupported sentences.",
    )
    support: Support | None = Field(
        default=None,
        description="Does the evidence answer the question (app/validation/support.py).",
    )


class Answer(BaseModel):
    question: str
    understood_as: str | None = Field(
        default=None,
        description="A follow-up question as understood with the previous turns (what was "
        "searched and checked); None when the question stands alone.",
    )
    context: str | None = Field(
        default=None,
        description="In a conversation, the previous question as understood: the passages "
        "were searched with it as well as with this question. None for a first question.",
    )
    mode: AnswerMode
    kind: AnswerKind = Field(
        default="generated",
        description="'generated' by the model, 'extractive' (cited source sentences), 'summary'"
        " (an outline of a document's sections in its own cited sentences), or 'refusal'.",
    )
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    validation: Validation
    timings_ms: dict[str, float] = Field(default_factory=dict)
    model: str = ""
