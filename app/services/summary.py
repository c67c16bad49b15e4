"""Summaries with citations: a document (or one of its sections) as an outline of its sections,
each told in one to three of its own sentences, every sentence a verified citation.

Extractive, so it works with the embedded model and never says what the document does not:

* the outline is the document's top-level sections, read from its stored chunks' section
  paths ("3 Installation > 3.2 Wiring" belongs to "3 Installation"); a summary of one
  section ("Summarise chapter 3") outlines that section's subsections;
* each section's sentences are chosen for how central they are: the section's centroid is
  the mean of its chunks' *stored* vectors (read back, not embedded again), its most central
  chunks give the candidate sentences, and only those few are embedded and ranked by their
  similarity to the centroid (with a redundancy penalty, so two sentences say two things).
  Without stored vectors (a document still being embedded, or no embedder) word-frequency
  centrality stands in;
* every chosen sentence is a citation checked by the validator like any model's answer
  (found in its chunk, replaced by the chunk's exact text, with its rectangles), so a chip
  opens the viewer at its highlight; a sentence the validator would drop is left out.

:func:`summary_request` recognises a question that asks for a summary ("What is this
document about?", "Summarise chapter 3"): the ask service answers it here instead of by
retrieval and generation.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from app.core.models import (
    Answer,
    Chunk,
    Document,
    RawAnswer,
    RawCitation,
    Source,
    Validation,
    ValidationStatus,
)
from app.core.progress import CancelToken, Progress, ProgressCallback, Stage, no_progress
from app.core.protocols import SummaryLibrary
from app.core.text import sentence_spans
from app.core.textkit import content_words
from app.core.timing import ms_since
from app.validation import validate

logger = logging.getLogger(__name__)

SECTION_SEP = ">"
"""Separator of a chunk's section path ("2 Graphics > 2.3 Drawing")."""
OPENING = "Opening pages"
"""The outline's name for text before the first section."""
POOL_CHUNKS = 2
"""The most central chunks of a section whose sentences are candidates."""
CANDIDATE_BUDGET, MIN_CANDIDATES, MAX_CANDIDATES = 120, 3, 8
"""Candidate sentences embedded for the whole summary (the one slow step: ~60 sentences a
second on two busy cores), and for each section at least and at most."""
MAX_SENTENCES = 3
REDUNDANCY = 0.35
"""How much similarity to an already chosen sentence costs a candidate (MMR)."""
MIN_CHARS, MAX_CHARS, MIN_WORDS = 30, 360, 6
_MARKER = re.compile(r"\[\d{1,3}\]")
_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")
_ALPHA_SHARE = 0.6

NO_DOCUMENT_TEXT = "There is no document to summarise: add a PDF first."
WHICH_DOCUMENT_TEXT = (
    "Which document? Tick one in the Library panel, or right-click it and choose "
    "\u201cSummarise this document\u201d."
)
NOTHING_CITABLE_TEXT = "No sentence of this document could be quoted for a summary."
SUMMARY_FLAG = "A summary: the sections' most central sentences, quoted."


# --- which questions ask for a summary ----------------------------------------------------------
@dataclass(frozen=True)
class SummaryRequest:
    """A question that asks for a summary: of a whole document, or of one part of it."""

    target: str = ""
    """What to summarise, as the question says it ("chapter 3", "installation"); "" for the
    document as a whole ("this document", "it")."""


_DOC_WORDS = r"(?:document|doc|pdf|file|paper|book|report|manual|article|text|thesis|guide)"
_WHOLE = re.compile(
    rf"^(?:(?:this|the|that|my|our|it|its)\s*(?:{_DOC_WORDS}s?)?|it|everything|all)$",
    re.IGNORECASE,
)
_ASKS = [
    re.compile(
        r"^(?:can you |could you |would you |please )*(?:summari[sz]e|sum up|outline|recap)"
        r"\s*(?P<what>.*)$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?:can you |could you |please )*(?:give|show|write|make)\s+(?:me\s+)?(?:a\s+|an\s+)?"
        r"(?:short\s+|brief\s+|quick\s+)?(?:summary|overview|outline|synopsis|recap)"
        r"(?:\s+of\s+(?P<what>.*))?$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?:a\s+|an\s+)?(?:short\s+|brief\s+)?(?:summary|overview|outline|synopsis|tl;?dr)"
        r"(?:\s+of\s+(?P<what>.*))?$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^what(?:'s|\s+is|\s+are)\s+(?P<what>(?:this|the|that|my)\s+{_DOC_WORDS}s?|it"
        r"|(?:chapter|section|part)\s+\S+)\s+(?:all\s+)?about$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^what\s+(?:does|do)\s+(?P<what>(?:this|the|that)\s+{_DOC_WORDS}s?|it"
        r"|(?:chapter|section|part)\s+\S+)\s+(?:cover|say|discuss|describe|contain)$",
        re.IGNORECASE,
    ),
]


def summary_request(question: str) -> SummaryRequest | None:
    """The summary ``question`` asks for, or None when it asks something else."""
    q = " ".join(question.strip().split()).rstrip("?.! ")
    for pattern in _ASKS:
        m = pattern.match(q)
        if m is None:
            continue
        what = (m.group("what") or "").strip(" :,")
        what = re.sub(r"\s+(?:for me|please|briefly|in short)$", "", what, flags=re.I).strip()
        if not what or _WHOLE.match(what):
            return SummaryRequest()
        what = re.sub(
            rf"^(?:the|this)\s+|\s+of\s+(?:this|the)\s+{_DOC_WORDS}$", "", what, flags=re.I
        )
        return SummaryRequest(target=what.strip())
    return None


# --- the outline --------------------------------------------------------------------------------
@dataclass
class _Group:
    """One entry of the outline: a section and its chunks (document order)."""

    title: str
    chunks: list[Chunk] = field(default_factory=list)


@dataclass(frozen=True)
class _Pick:
    chunk: Chunk
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]


def section_path(chunk: Chunk) -> list[str]:
    """A chunk's section path as titles, outermost first ([] before the first section)."""
    return [p.strip() for p in chunk.section.split(SECTION_SEP) if p.strip()]


def top_sections(chunks: Sequence[Chunk]) -> list[str]:
    """A document's top-level sections in document order (from its chunks' section paths)."""
    return list(dict.fromkeys(p[0] for c in chunks if (p := section_path(c))))


def _groups(chunks: Sequence[Chunk], within: str | None) -> list[_Group]:
    """The outline's entries: top-level sections, or the subsections of ``within``."""
    out: dict[str, _Group] = {}
    for c in chunks:
        path = section_path(c)
        if within is None:
            key = path[0] if path else OPENING
        elif path and path[0] == within:
            key = path[1] if len(path) > 1 else within
        else:
            continue
        out.setdefault(key, _Group(key)).chunks.append(c)
    return list(out.values())


def _citable(text: str) -> bool:
    """A sentence that reads on its own in an outline: complete, prose, not a fragment."""
    t = text.strip()
    if not (MIN_CHARS <= len(t) <= MAX_CHARS) or "\n" in t or _MARKER.search(t):
        return False
    if not (t[0].isupper() or t[0].isdigit() or t[0] in "\"'\u201c(") or not _END.search(t):
        return False
    if len(t.split()) < MIN_WORDS:
        return False
    visible = [ch for ch in t if not ch.isspace()]
    return sum(ch.isalpha() for ch in visible) >= _ALPHA_SHARE * len(visible)


def _sentences(chunk: Chunk) -> list[_Pick]:
    """The chunk's citable sentences; a line break (a heading's end) also ends a sentence."""
    out: list[_Pick] = []
    for s, e in sentence_spans(chunk.text):
        piece = chunk.text[s:e]
        offset = 0
        for line in piece.split("\n"):
            ls = s + offset + (len(line) - len(line.lstrip()))
            le = s + offset + len(line.rstrip())
            offset += len(line) + 1
            if le > ls and _citable(chunk.text[ls:le]):
                out.append(_Pick(chunk, ls, le))
    return out


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def _bag(text: str) -> Counter[str]:
    return Counter(w.lower() for w in content_words(text))


def _cos(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    na = sum(v * v for v in a.values()) ** 0.5
    nb = sum(v * v for v in b.values()) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def sentences_for(n_chunks: int) -> int:
    """How many sentences a section of ``n_chunks`` chunks gets (1 to 3)."""
    return 1 if n_chunks <= 2 else 2 if n_chunks <= 6 else MAX_SENTENCES


class Summarizer:
    """Summaries of a library's documents (see the module's docstring). Synchronous and
    Qt-free like the other services; ``on_progress`` hears of each section, ``cancel`` is
    honoured between sections (raising ``Cancelled``)."""

    def __init__(self, library: SummaryLibrary) -> None:
        self.library = library

    # --- which document, which part -----------------------------------------------------------
    def resolve(
        self, request: SummaryRequest, doc_ids: Sequence[str] | None = None
    ) -> tuple[Document | None, str | None, str]:
        """(document, top-level section or None, "") for ``request``; (None, None, why) when
        it cannot be answered as a summary ("" as ``why``: the target names nothing here, so
        the question is better asked as an ordinary question)."""
        docs = self.library.documents()
        if doc_ids is not None:
            docs = [d for d in docs if d.doc_id in set(doc_ids)]
        if not docs:
            return None, None, NO_DOCUMENT_TEXT
        target = request.target
        if not target:
            if len(docs) == 1:
                return docs[0], None, ""
            return None, None, WHICH_DOCUMENT_TEXT
        named = [d for d in docs if _names(target, d.title)]
        if named:
            return named[0], None, ""
        for doc in docs:
            section = match_section(
                target, top_sections(self.library.chunks_of(doc.doc_id, charmap=False))
            )
            if section is not None:
                return doc, section, ""
        return None, None, ""

    # --- the summary --------------------------------------------------------------------------
    def summarize(
        self,
        doc_id: str,
        *,
        section: str | None = None,
        question: str = "",
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Answer:
        """The outline of document ``doc_id`` (or of its top-level ``section``) as an answer:
        ``kind`` "summary", every sentence a verified citation."""
        t0 = time.perf_counter()
        progress = on_progress or no_progress
        token = CancelToken.any_of(cancel)
        doc = next((d for d in self.library.documents() if d.doc_id == doc_id), None)
        asked = question or (f"Summarise {section}" if section else "Summarise this document")
        if doc is None:
            return _refusal(asked, f"No document with id {doc_id} is in the library.")
        chunks = self.library.chunks_of(doc_id, charmap=False)
        groups = _groups(chunks, section)
        timings: dict[str, float] = {"read": round(ms_since(t0), 1)}
        progress(Progress(Stage.SUMMARIZE, 0, len(groups), message="Reading the sections"))
        t1 = time.perf_counter()
        picks = self._pick(groups, doc_id, progress, token)
        timings["rank"] = round(ms_since(t1), 1)
        t2 = time.perf_counter()
        answer = self._answer(asked, doc, groups, picks)
        timings["validate"] = round(ms_since(t2), 1)
        timings["total"] = round(ms_since(t0), 1)
        answer.timings_ms = timings
        progress(Progress(Stage.SUMMARIZE, len(groups), len(groups)))
        logger.info(
            "summary of %s%s: %d of %d sections, %d citations, %s",
            doc_id,
            f" ({section})" if section else "",
            len({c.section for c in answer.citations}),
            len(groups),
            len(answer.citations),
            timings,
        )
        return answer

    def _pick(
        self,
        groups: list[_Group],
        doc_id: str,
        progress: ProgressCallback,
        cancel: CancelToken,
    ) -> list[list[_Pick]]:
        """Per group, its most central sentences, in document order."""
        ids, vecs = self.library.chunk_vectors(doc_id)
        row = {cid: i for i, cid in enumerate(ids)}
        embedder = self.library.embedder if ids else None
        # Vectors of another embedder (the library's was changed since) are not compared.
        semantic = embedder is not None and vecs.shape[1] == embedder.dim
        per_group = max(
            MIN_CANDIDATES, min(MAX_CANDIDATES, CANDIDATE_BUDGET // max(len(groups), 1))
        )
        plans: list[tuple[_Group, np.ndarray | None, Counter[str], list[_Pick]]] = []
        for g in groups:
            cancel.raise_if_cancelled()
            bag = _bag(" ".join(c.text for c in g.chunks))
            have = [c for c in g.chunks if c.chunk_id in row]
            centroid: np.ndarray | None = None
            if semantic and have:
                mat = vecs[[row[c.chunk_id] for c in have]]
                centroid = _unit(mat.mean(axis=0))
                order = np.argsort(-(mat @ centroid), kind="stable")
                pool = [have[i] for i in order[:POOL_CHUNKS]]
            else:
                pool = sorted(g.chunks, key=lambda c: -_cos(_bag(c.text), bag))[:POOL_CHUNKS]
            cands = [p for c in pool for p in _sentences(c)]
            # The words' centrality shortlists; only the shortlist is embedded.
            cands.sort(key=lambda p: -_cos(_bag(p.text), bag))
            plans.append((g, centroid, bag, cands[:per_group]))
        texts = [p.text for _, centroid, _, cands in plans if centroid is not None for p in cands]
        sent_vecs = embedder.embed(texts) if (semantic and embedder is not None and texts) else None
        out: list[list[_Pick]] = []
        k = 0
        for i, (g, centroid, bag, cands) in enumerate(plans):
            cancel.raise_if_cancelled()
            want = sentences_for(len(g.chunks))
            if centroid is not None and sent_vecs is not None:
                sv = sent_vecs[k : k + len(cands)]
                k += len(cands)
                chosen = _mmr(sv @ centroid, sv @ sv.T if len(cands) else sv, want)
            else:
                bags = [_bag(p.text) for p in cands]
                rel = np.array([_cos(b, bag) for b in bags], dtype=np.float32)
                sim = np.array([[_cos(a, b) for b in bags] for a in bags], dtype=np.float32)
                chosen = _mmr(rel, sim, want)
            picked = sorted((cands[j] for j in chosen), key=lambda p: (p.chunk.ordinal, p.start))
            out.append(picked)
            progress(Progress(Stage.SUMMARIZE, i + 1, len(plans), message=g.title))
        return out

    def _answer(
        self, question: str, doc: Document, groups: list[_Group], picks: list[list[_Pick]]
    ) -> Answer:
        """The picks as sources and citations, validated, then written as an outline."""
        flat = [p for ps in picks for p in ps]
        if not flat:
            return _refusal(question, NOTHING_CITABLE_TEXT)
        with_maps = {c.chunk_id: c for c in self.library.chunks([p.chunk.chunk_id for p in flat])}
        sources: list[Source] = []
        pairs: list[tuple[Source, Chunk]] = []
        for n, p in enumerate(flat, start=1):
            chunk = with_maps.get(p.chunk.chunk_id, p.chunk)
            src = Source(
                n=n,
                rank=n,
                chunk_id=chunk.chunk_id,
                doc_id=doc.doc_id,
                file=doc.file,
                title=doc.title,
                page_start=chunk.page_start,
                page_end=chunk.page_end,
                section=chunk.section,
                score=1.0,
                text=chunk.text,
            )
            sources.append(src)
            pairs.append((src, chunk))
        raw = RawAnswer(
            mode="answer",
            answer=" ".join(f"{p.text} [{n}]" for n, p in enumerate(flat, start=1)),
            citations=[RawCitation(source=n, quote=p.text) for n, p in enumerate(flat, start=1)],
        )
        checked = validate(raw, pairs)
        verified = {c.n for c in checked.citations}
        paragraphs: list[str] = []
        n = 0
        for g, ps in zip(groups, picks, strict=True):
            said: list[str] = []
            for p in ps:
                n += 1
                if n in verified:
                    said.append(f"{p.text} [{n}]")
            if said:
                paragraphs.append(f"{g.title}\n" + " ".join(said))
        citations = checked.citations
        status: ValidationStatus = "GREEN" if not checked.validation.dropped else "YELLOW"
        if not citations:
            return _refusal(question, NOTHING_CITABLE_TEXT)
        return Answer(
            question=question,
            mode="answer",
            kind="summary",
            answer="\n\n".join(paragraphs),
            citations=citations,
            sources=[s for s in sources if s.n in verified],
            validation=Validation(
                status=status,
                dropped=checked.validation.dropped,
                flags=[SUMMARY_FLAG, *checked.validation.flags],
            ),
        )


def _mmr(relevance: np.ndarray, similarity: np.ndarray, k: int) -> list[int]:
    """Indices of up to ``k`` candidates: most relevant first, each next one penalised by
    its similarity to those already chosen (maximal marginal relevance)."""
    chosen: list[int] = []
    left = list(range(len(relevance)))
    while left and len(chosen) < k:

        def gain(i: int) -> float:
            redundant = max((float(similarity[i, j]) for j in chosen), default=0.0)
            return float(relevance[i]) - REDUNDANCY * redundant

        best = max(left, key=gain)
        if chosen and max(float(similarity[best, j]) for j in chosen) > 0.95:
            left.remove(best)  # the same sentence again (a repeated paragraph)
            continue
        chosen.append(best)
        left.remove(best)
    return chosen


_NUMBERED = re.compile(
    r"^(?:(?:chapter|section|part|ch|sec|appendix)\.?\s+)?(?P<num>[0-9]+|[ivxlc]+|[a-z])$",
    re.IGNORECASE,
)


def match_section(target: str, sections: Sequence[str]) -> str | None:
    """The top-level section ``target`` names ("chapter 3", "3", "installation"), if any."""
    t = " ".join(target.split()).strip(" .:")
    m = _NUMBERED.match(t)
    if m:
        num = m.group("num").lower()
        lead = re.compile(
            rf"^(?:(?:chapter|section|part|appendix)\s+)?{re.escape(num)}(?:[.:)\s]|$)",
            re.IGNORECASE,
        )
        for s in sections:
            if lead.match(s):
                return s
        if num.isdigit() and t[:1].isalpha():  # "chapter 3" of unnumbered chapters: the third
            i = int(num) - 1
            numbered = [s for s in sections if s != OPENING]
            return numbered[i] if 0 <= i < len(numbered) else None
        return None
    words = {w.lower() for w in content_words(t)}
    if not words:
        return None
    for s in sections:
        if words <= {w.lower() for w in content_words(s)}:
            return s
    return None


def _names(target: str, title: str) -> bool:
    """Whether ``target`` names a document by its title (all its words are the title's)."""
    words = {w.lower() for w in content_words(target)}
    return bool(words) and words <= {w.lower() for w in content_words(title)}


def _refusal(question: str, text: str) -> Answer:
    return Answer(
        question=question,
        mode="refuse",
        kind="refusal",
        answer=text,
        validation=Validation(status="REFUSED"),
    )
