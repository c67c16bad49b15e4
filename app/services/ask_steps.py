"""One question on its way to an answer: the object that carries it, and the steps it takes.

:class:`AskRun` holds everything one call to ``AskService.ask`` knows (the question, the
caller's callbacks and cancel token, the sources found, the timings so far), so each
step takes one object instead of nine parameters. The steps are plain functions:
retrieve → select → generate (+ check) → fall back; ``app.services.ask`` strings them
together, ``app.services.answers`` builds the answers they end in.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.core.errors import GenerationError
from app.core.models import Answer, Chunk, RawAnswer, SearchHit, Source
from app.core.progress import (
    CancelToken,
    Progress,
    ProgressCallback,
    Stage,
    TokenCallback,
    no_progress,
)
from app.core.protocols import AskLibrary, ChatModel, GenerationResult
from app.core.timing import ms_since
from app.generation import AnswerStreamer, build_prompt
from app.generation.parsing import is_looping, parse_raw_answer
from app.generation.prompt import (
    DEFAULT_BUDGET_CHARS,
    PromptBundle,
    Similarity,
    support_share,
)
from app.retrieval.fusion import reciprocal_rank_fusion
from app.services.answers import (
    REFUSAL_TEXT,
    extractive_answer,
    extractive_picks,
    extractive_raw,
    refusal,
    usable,
    why,
)
from app.validation import ValidatedAnswer, log_record, repair_prompt, validate

logger = logging.getLogger(__name__)

MIN_SIMILARITY = 0.42
"""With ranked evidence, refuse when no candidate sentence is this similar to the question
(embedder cosine): the embedded model cannot judge relevance itself. On the eval set every
answerable question scored >= 0.44 and half the unanswerable ones < 0.3."""
MIN_SUPPORT = 0.7
"""With ranked evidence, the share of the answer's words that must come from the evidence
or the question; below it the evidence itself is shown (extractive) instead."""
MIN_COVERAGE = 0.3  # the same gate by word overlap, when no embedder is available
RANKED_BUDGET_CHARS = 600  # the answer leans on the fixed evidence: a short context will do
ANSWER_ONLY_TOKENS = 96  # with ranked evidence the model writes only the answer text
LOOP_CHECK_CHARS = 24  # streamed answer text needed before looking for a loop


@dataclass
class AskRun:
    """One question: what was asked, how to report back, and what has been found so far."""

    question: str
    top_k: int
    doc_ids: Sequence[str] | None = None
    context: str | None = None  # the conversation's previous question (see conversation_search)
    on_token: TokenCallback | None = None
    progress: ProgressCallback = no_progress
    cancel: CancelToken = field(default_factory=CancelToken)
    t0: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    sources: list[Source] = field(default_factory=list)
    pairs: list[tuple[Source, Chunk]] = field(default_factory=list)
    model_name: str = ""
    repaired: bool = False  # a repair retry was asked for

    def refusal(self, text: str) -> Answer:
        return refusal(
            self.question, text, self.sources, model=self.model_name, repaired=self.repaired
        )

    def generated(self, checked: ValidatedAnswer) -> Answer:
        return Answer(
            question=self.question,
            mode="answer",
            kind="generated",
            answer=checked.answer,
            citations=checked.citations,
            sources=self.sources,
            validation=checked.validation.model_copy(update={"repaired": self.repaired}),
            model=self.model_name,
        )

    def record(self, gen: GenerationResult, first_token_ms: float | None) -> None:
        """Add one generation's time and tokens (first token: the first attempt's that had one)."""
        t = self.timings
        t["generate"] = round(t.get("generate", 0.0) + gen.total_ms, 1)
        if "first_token" not in t and first_token_ms is not None:
            t["first_token"] = round(first_token_ms, 1)
        t.setdefault("prompt_tokens", float(gen.prompt_tokens))
        t["completion_tokens"] = t.get("completion_tokens", 0.0) + gen.completion_tokens


@dataclass
class Attempt:
    """One generation: what the model wrote, parsed (None: unparseable) and checked."""

    gen: GenerationResult
    raw: RawAnswer | None
    checked: ValidatedAnswer | None = None

    @property
    def refused(self) -> bool:
        return self.raw is not None and self.raw.mode == "refuse"

    @property
    def usable(self) -> bool:
        return usable(self.raw, self.checked, self.gen)

    @property
    def repairable(self) -> bool:
        """Parsed, but the validator rejected its citations (RED): a repair retry may help.
        Cut-off, looping or empty output is not: a greedy model writes the same again."""
        return self.checked is not None and self.checked.validation.status == "RED"

    @property
    def why(self) -> str:
        return why(self.raw, self.checked, self.gen)


# --- retrieve → select ---------------------------------------------------------------------
def conversation_search(
    library: AskLibrary,
    question: str,
    *,
    context: str | None,
    top_k: int,
    doc_ids: Sequence[str] | None = None,
) -> tuple[list[SearchHit], dict[str, float]]:
    """The passages for ``question`` asked after ``context`` (the conversation's previous
    question as understood; None: the first question, searched alone).

    Two searches, fused by reciprocal rank: the question alone, and the previous question and
    this one together. Which questions lean on the one before cannot be told reliably by
    rules ("what's the default fill threshold for the incremental kind?" names no pronoun),
    so every question after the first is searched both ways: a follow-up finds the pages of
    the topic it continues through the joint search, and a question on a new topic keeps its
    own best passages through the first. Equal weights, the usual RRF constant: nothing here
    was fitted. ``tests/bench/eval_conversations.py`` measures both effects (the follow-ups'
    page recall, and questions that change document after a turn about another).
    """
    hits, timings = library.search(question, top_k=top_k, doc_ids=doc_ids)
    if not context or not context.strip() or context.strip() == question.strip():
        return hits, timings
    joint, more = library.search(f"{context.strip()} {question}", top_k=top_k, doc_ids=doc_ids)
    by_id = {h.chunk_id: h for h in (*hits, *joint)}
    fused = reciprocal_rank_fusion(
        [([h.chunk_id for h in hits], 1.0), ([h.chunk_id for h in joint], 1.0)]
    )
    order = sorted(by_id, key=lambda cid: -fused[cid])[:top_k]  # stable: ties keep first-seen
    # A passage's ranks in the keyword and vector lists (a signal of the status model) are
    # those of the question's own search where it found the passage.
    own = {h.chunk_id: {"keyword_rank": h.keyword_rank, "vector_rank": h.vector_rank} for h in hits}
    ranked = [
        by_id[cid].model_copy(update={"rank": i, **own.get(cid, {})})
        for i, cid in enumerate(order, start=1)
    ]
    merged = {k: timings.get(k, 0.0) + more.get(k, 0.0) for k in {*timings, *more}}
    return ranked, merged


def retrieve(run: AskRun, library: AskLibrary) -> bool:
    """Search the library; sets ``run.sources``. False when nothing matched at all."""
    run.progress(Progress(Stage.RETRIEVE, 0, 1, message="Searching your documents"))
    hits, rt = conversation_search(
        library, run.question, context=run.context, top_k=run.top_k, doc_ids=run.doc_ids
    )
    run.timings["retrieve"] = round(float(rt.get("total", 0.0)), 1)
    run.progress(Progress(Stage.RETRIEVE, 1, 1))
    if not hits:
        return False
    run.cancel.raise_if_cancelled()
    sources = [Source(n=i + 1, **h.model_dump()) for i, h in enumerate(hits)]
    by_id = {c.chunk_id: c for c in library.chunks([s.chunk_id for s in sources])}
    run.pairs = [(s, by_id[s.chunk_id]) for s in sources if s.chunk_id in by_id]
    run.sources = [s for s, _ in run.pairs]
    logger.info(
        "ask: top_k=%d retrieved %s",
        run.top_k,
        [(s.n, s.chunk_id, round(s.score, 4)) for s in run.sources],
    )
    return True


def select(
    run: AskRun, *, ranked: bool, free_quotes: bool, similarity: Similarity | None
) -> PromptBundle | None:
    """The sentences to show and the prompt; None when no source has text to show.

    ``ranked``: the ranker fixes the citations (see ``ChatModel.chooses_evidence``)."""
    t0 = time.perf_counter()
    try:
        bundle = build_prompt(
            run.question,
            run.sources,
            free_quotes=free_quotes,
            ranked_evidence=ranked,
            budget_chars=RANKED_BUDGET_CHARS if ranked else DEFAULT_BUDGET_CHARS,
            similarity=similarity,
        )
    except ValueError:
        return None
    run.timings["select"] = round(ms_since(t0), 1)
    return bundle


def relevant_enough(bundle: PromptBundle) -> bool:
    """With ranked evidence: whether the best sentence is close enough to the question to
    answer from (the embedded model cannot judge that itself)."""
    floor = MIN_SIMILARITY if bundle.semantic else MIN_COVERAGE
    if bundle.spec.evidence and bundle.relevance >= floor:
        return True
    logger.info("refusing: best sentence relevance %.2f < %.2f", bundle.relevance, floor)
    return False


# --- generate → check ----------------------------------------------------------------------
def generate(
    run: AskRun,
    model: ChatModel,
    bundle: PromptBundle,
    messages: list[dict[str, str]],
    *,
    max_tokens: int,
    temperature: float,
    stream: bool,
) -> Attempt:
    """Generate once, streaming the answer text (``stream``), stopping a looping answer;
    then parse and (unless the model declined) validate. Raises ``Cancelled``."""
    streamer = AnswerStreamer()
    loop_stop = CancelToken.any_of(run.cancel)  # cancelling it leaves the caller's alone
    first_ms: list[float] = []
    on_token = run.on_token if stream else None

    def piece(text: str) -> None:
        new = streamer.feed(text)
        if not new:
            return
        if not first_ms:
            first_ms.append(ms_since(run.t0))
        if on_token is not None:
            on_token(new)
        if len(streamer.text) > LOOP_CHECK_CHARS and is_looping(streamer.text):
            logger.info("answer is looping; stopping generation")
            loop_stop.cancel()

    budget = ANSWER_ONLY_TOKENS if bundle.spec.evidence else max_tokens
    gen = model.answer(
        messages,
        bundle.spec,
        max_tokens=budget,
        temperature=temperature,
        on_token=piece,
        cancel=loop_stop,
    )
    run.cancel.raise_if_cancelled()
    run.record(gen, first_ms[0] if first_ms else None)
    if gen.finish_reason != "stop":
        logger.info(
            "generation finished with %s after %d tokens", gen.finish_reason, gen.completion_tokens
        )
        if gen.finish_reason == "cancelled":  # not by the caller (checked above): a loop
            gen.finish_reason = "loop"
    attempt = Attempt(gen, _parse(gen.text))
    if not attempt.refused:
        attempt.checked = check(run, attempt.raw)
    return attempt


def _parse(text: str) -> RawAnswer | None:
    try:
        return parse_raw_answer(text)
    except GenerationError as exc:
        logger.info("unusable model output: %s; %.200r", exc, text)
        return None


def check(run: AskRun, raw: RawAnswer | None) -> ValidatedAnswer | None:
    """Validate ``raw`` against the retrieved chunks (None in, None out)."""
    if raw is None:
        return None
    t0 = time.perf_counter()
    result = validate(raw, run.pairs)
    run.timings["validate"] = round(run.timings.get("validate", 0.0) + ms_since(t0), 2)
    logger.info("validation %s", json.dumps(log_record(raw, run.pairs, result), ensure_ascii=False))
    return result


def repair_messages(bundle: PromptBundle, failed: Attempt) -> list[dict[str, str]]:
    """The conversation so far plus a request to fix the citations the validator dropped."""
    assert failed.checked is not None
    return [
        *bundle.messages,
        {"role": "assistant", "content": failed.gen.text},
        {
            "role": "user",
            "content": repair_prompt(
                sorted(bundle.source_sentences), failed.checked.validation.dropped
            ),
        },
    ]


def strays(run: AskRun, bundle: PromptBundle, checked: ValidatedAnswer) -> bool:
    """With ranked evidence: whether the answer's words stray from the evidence."""
    if not bundle.spec.evidence:
        return False
    share = support_share(checked.answer, [q for _, q in bundle.spec.evidence] + [run.question])
    if share < MIN_SUPPORT:
        logger.info("answer strays from its evidence (%.2f); extractive fallback", share)
        return True
    return False


# --- fall back -----------------------------------------------------------------------------
def extractive(run: AskRun, bundle: PromptBundle, checked: ValidatedAnswer | None) -> Answer:
    """Answer with source sentences themselves, each cited and validated like any answer;
    a refusal when no sentence is relevant enough."""
    picks = extractive_picks(bundle, checked)
    result = check(run, extractive_raw(picks) if picks else None)
    if result is None or not result.citations:
        logger.info("no relevant sentence for an extractive answer; refusing")
        return run.refusal(REFUSAL_TEXT)
    return extractive_answer(
        run.question, run.sources, result, checked, run.model_name, retried=run.repaired
    )
