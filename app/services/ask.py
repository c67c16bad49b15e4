"""The ask use case: retrieve, prompt, generate constrained JSON, validate, repair or fall back.

What a person gets is always one of three honest kinds (``Answer.kind``):

* ``generated``: the model's own answer, every surviving marker backed by a quote the
  validator found in the cited chunk;
* ``extractive``: the model could not write a usable answer (empty, looping, cut off, or
  every citation dropped even after a repair retry), so the answer *is* the most relevant
  source sentences, each cited;
* ``refusal``: nothing to answer from (empty library, no hits, the model declined, or no
  relevant sentence), with a message saying so.

Never an uncited answer presented as grounded. The model is used by one thread at a time.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from app.core.config import Settings
from app.core.errors import Cancelled, GenerationError, ModelLoadError
from app.core.models import Answer, Chunk, RawAnswer, Source
from app.core.progress import CancelToken, Progress, ProgressCallback, TokenCallback
from app.core.protocols import ChatModel, GenerationResult
from app.core.resources import default_chat_model_path
from app.generation import AnswerStreamer, LlamaChatModel, RemoteChatModel, build_prompt
from app.generation.grammar import CITATIONS_FIRST
from app.generation.parsing import is_looping, parse_raw_answer
from app.generation.prompt import (
    DEFAULT_BUDGET_CHARS,
    PromptBundle,
    Similarity,
    support_share,
    system_prompt,
)
from app.services.answers import (
    EMPTY_LIBRARY_TEXT,
    EMPTY_QUESTION_TEXT,
    NO_HITS_TEXT,
    REFUSAL_TEXT,
    extractive_answer,
    extractive_picks,
    extractive_raw,
    refusal,
    usable,
    why,
)
from app.services.metrics import metrics
from app.validation import ValidatedAnswer, log_record, repair_prompt, validate

logger = logging.getLogger(__name__)

__all__ = [
    "EMPTY_LIBRARY_TEXT",
    "EMPTY_QUESTION_TEXT",
    "NO_HITS_TEXT",
    "REFUSAL_TEXT",
    "AskService",
]

MAX_TOKENS = 384
MIN_SIMILARITY = 0.42
"""With ranked evidence, refuse when no candidate sentence is this similar to the question
(embedder cosine): the embedded model cannot judge relevance itself. On the eval set every
answerable question scored >= 0.44 and half the unanswerable ones < 0.3."""
MIN_SUPPORT = 0.7
"""With ranked evidence, the share of the answer's words that must come from the evidence
or the question; below it the evidence itself is shown (extractive) instead."""
MIN_COVERAGE = 0.3  # the same gate by word overlap, when no embedder is available
RANKED_BUDGET_CHARS = 600  # the answer leans on the fixed evidence: a short context will do
ANSWER_ONLY_TOKENS = 96
EvidenceMode = Literal["auto", "model", "ranked"]


class _EitherCancel(CancelToken):
    """Cancelled when the caller cancels or when we stop a looping generation ourselves."""

    def __init__(self, outer: CancelToken | None) -> None:
        super().__init__()
        self.outer = outer

    @property
    def cancelled(self) -> bool:
        return super().cancelled or (self.outer is not None and self.outer.cancelled)


class AskService:
    """Answers questions over a :class:`~app.services.library.Library` with validated citations."""

    def __init__(
        self,
        library: Any,
        settings: Settings | None = None,
        *,
        chat_model: ChatModel | None = None,
        free_quotes: bool = False,
        evidence: EvidenceMode = "auto",
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        self.library = library
        self.settings = settings or getattr(library, "settings", None) or Settings()
        self.free_quotes = free_quotes
        self.evidence = evidence
        self.max_tokens = max_tokens
        self._model: ChatModel | None = chat_model
        self._model_lock = threading.Lock()  # guards _model
        self._gen_lock = threading.Lock()  # one generation at a time
        self._warm_key: tuple[int, str] | None = None

    # --- model -------------------------------------------------------------------------------
    @property
    def model(self) -> ChatModel:
        """The chat model, created from settings on first use (not loaded until needed)."""
        with self._model_lock:
            if self._model is None:
                s = self.settings
                if s.llm_url:
                    self._model = RemoteChatModel(s.llm_url)
                else:
                    self._model = LlamaChatModel(s.model, n_ctx=s.n_ctx, threads=s.threads)
            return self._model

    def ranked_evidence(self, model: ChatModel) -> bool:
        """Whether the ranker, not the model, picks the citations.

        ``auto``: yes for the embedded 135M model, which copies and paraphrases well but
        chooses evidence poorly; no for any model a user brings (local GGUF or server).
        """
        if self.evidence != "auto":
            return self.evidence == "ranked"
        if not isinstance(model, LlamaChatModel):
            return False
        try:
            return model.path.resolve() == default_chat_model_path().resolve()
        except ModelLoadError:
            return False

    def warm_up(self) -> None:
        """Load the chat model and cache the constant system prompt now.

        Optional: the first ``ask`` does it otherwise (costing ~1-5 s). The GUI can call
        this on a worker thread at start-up so the first question is answered as fast
        as the rest.
        """
        model = self.model
        load = getattr(model, "load", None)
        if load is not None:
            load()
        with self._gen_lock:
            self._warm(model, {"role": "system", "content": system_prompt()})

    def _similarity(self) -> Similarity | None:
        """Question-to-sentence cosine similarity with the library's embedder, if it has one."""
        embedder = getattr(self.library, "embedder", None)
        if embedder is None or not hasattr(embedder, "embed"):
            return None

        def similarity(question: str, texts: list[str]) -> list[float]:
            vectors = embedder.embed([question, *texts])
            return [float(x) for x in vectors[1:] @ vectors[0]]

        return similarity

    def load_model(self, path: Path | None) -> None:
        """Switch to the GGUF at ``path`` (None: the embedded default).

        The new model is loaded completely before it replaces the old one, so a bad file
        raises ``ModelLoadError`` and the previous model stays in use.
        """
        s = self.settings
        new = LlamaChatModel(path, n_ctx=s.n_ctx, threads=s.threads)
        new.load()
        with self._gen_lock, self._model_lock:
            self._model = new
            self._warm_key = None
        logger.info("chat model switched to %s", new.name)

    # --- ask -----------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        top_k: int | None = None,
        on_token: TokenCallback | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Answer:
        t0 = time.perf_counter()
        progress = on_progress or (lambda _p: None)
        question = question.strip()
        timings: dict[str, float] = {}
        if not question:
            return self._finish(refusal(question, EMPTY_QUESTION_TEXT, []), timings, t0)

        progress(Progress("retrieve", 0, 1, message="Searching your documents"))
        k = top_k or self.settings.top_k
        hits, rt = self.library.search(question, top_k=k, doc_ids=doc_ids)
        timings["retrieve"] = round(float(rt.get("total", 0.0)), 1)
        progress(Progress("retrieve", 1, 1))
        if not hits:
            empty = not self.library.documents()
            text = EMPTY_LIBRARY_TEXT if empty else NO_HITS_TEXT
            return self._finish(refusal(question, text, []), timings, t0)
        if cancel is not None:
            cancel.raise_if_cancelled()
        sources = [Source(n=i + 1, **h.model_dump()) for i, h in enumerate(hits)]
        by_id = {c.chunk_id: c for c in self.library.chunks([s.chunk_id for s in sources])}
        pairs = [(s, by_id[s.chunk_id]) for s in sources if s.chunk_id in by_id]
        sources = [s for s, _ in pairs]
        logger.info(
            "ask: top_k=%d retrieved %s", k, [(s.n, s.chunk_id, round(s.score, 4)) for s in sources]
        )
        ranked = self.ranked_evidence(self.model)
        t_sel = time.perf_counter()
        try:
            bundle = build_prompt(
                question,
                sources,
                free_quotes=self.free_quotes,
                ranked_evidence=ranked,
                budget_chars=RANKED_BUDGET_CHARS if ranked else DEFAULT_BUDGET_CHARS,
                similarity=self._similarity() if ranked else None,
            )
        except ValueError:
            return self._finish(refusal(question, NO_HITS_TEXT, sources), timings, t0)
        timings["select"] = round(_ms(t_sel), 1)
        if ranked:
            floor = MIN_SIMILARITY if bundle.semantic else MIN_COVERAGE
            if not bundle.spec.evidence or bundle.relevance < floor:
                logger.info(
                    "refusing: best sentence relevance %.2f < %.2f", bundle.relevance, floor
                )
                return self._finish(refusal(question, REFUSAL_TEXT, sources), timings, t0)

        with self._gen_lock:
            answer = self._answer(
                question, sources, pairs, bundle, timings, t0, on_token, progress, cancel
            )
        return self._finish(answer, timings, t0)

    def _answer(
        self,
        question: str,
        sources: list[Source],
        pairs: list[tuple[Source, Chunk]],
        bundle: PromptBundle,
        timings: dict[str, float],
        t0: float,
        on_token: TokenCallback | None,
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> Answer:
        model = self.model
        progress(Progress("load_model", 0, 1, message=f"Loading {model.name}"))
        self._warm(model, bundle.messages[0])
        progress(Progress("load_model", 1, 1))

        progress(Progress("generate", 0, 1, message="Writing the answer"))
        gen, raw = self._generate(model, bundle.messages, bundle, timings, t0, on_token, cancel)
        if raw is not None and raw.mode == "refuse":
            return refusal(question, REFUSAL_TEXT, sources, model=model.name)
        checked = self._check(raw, pairs, timings)
        repaired = False
        if not usable(raw, checked, gen):
            if raw is None or checked is None or checked.validation.status != "RED":
                # Cut off, looping or empty: asking again gets the same from a greedy model.
                logger.info("answer not usable (%s); extractive fallback", why(raw, checked, gen))
                return self._extractive(
                    question, sources, pairs, bundle, checked, timings, model.name, retried=False
                )
            repaired = True
            messages = [
                *bundle.messages,
                {"role": "assistant", "content": gen.text},
                {
                    "role": "user",
                    "content": repair_prompt(
                        sorted(bundle.source_sentences), checked.validation.dropped
                    ),
                },
            ]
            logger.info("answer RED; one repair retry")
            gen, raw2 = self._generate(model, messages, bundle, timings, t0, None, cancel)
            if raw2 is not None and raw2.mode == "refuse":
                return refusal(question, REFUSAL_TEXT, sources, model=model.name, repaired=True)
            checked2 = self._check(raw2, pairs, timings)
            if not usable(raw2, checked2, gen):
                best = checked2 if checked2 is not None and checked2.citations else checked
                return self._extractive(
                    question, sources, pairs, bundle, best, timings, model.name, retried=True
                )
            raw, checked = raw2, checked2
        assert raw is not None and checked is not None
        if bundle.spec.evidence:
            share = support_share(checked.answer, [q for _, q in bundle.spec.evidence] + [question])
            if share < MIN_SUPPORT:
                logger.info("answer strays from its evidence (%.2f); extractive fallback", share)
                return self._extractive(
                    question,
                    sources,
                    pairs,
                    bundle,
                    checked,
                    timings,
                    model.name,
                    retried=repaired,
                )
        progress(Progress("generate", 1, 1))
        return Answer(
            question=question,
            mode="answer",
            kind="generated",
            answer=checked.answer,
            citations=checked.citations,
            sources=sources,
            validation=checked.validation.model_copy(update={"repaired": repaired}),
            model=model.name,
        )

    # --- steps ---------------------------------------------------------------------------------
    def _warm(self, model: ChatModel, system: dict[str, str]) -> None:
        """Cache the constant system prompt once per model (LlamaChatModel only)."""
        warm = getattr(model, "warm", None)
        key = (id(model), system["content"])
        if warm is None or self._warm_key == key:
            return
        try:
            warm([system])
        except GenerationError:
            logger.exception("warming the prompt cache failed; continuing without it")
        self._warm_key = key

    def _generate(
        self,
        model: ChatModel,
        messages: list[dict[str, str]],
        bundle: PromptBundle,
        timings: dict[str, float],
        t0: float,
        on_token: TokenCallback | None,
        cancel: CancelToken | None,
    ) -> tuple[GenerationResult, RawAnswer | None]:
        """Generate once; the structured decoder when the model has one, else one grammar."""
        streamer = AnswerStreamer()
        stop = _EitherCancel(cancel)
        first: list[float] = []

        def piece(text: str) -> None:
            new = streamer.feed(text)
            if new:
                if not first:
                    first.append((time.perf_counter() - t0) * 1000)
                if on_token is not None:
                    on_token(new)
                if len(streamer.text) > 24 and is_looping(streamer.text):
                    logger.info("answer is looping; stopping generation")
                    CancelToken.cancel(stop)

        structured = getattr(model, "answer", None)
        if structured is not None and bundle.spec.order == CITATIONS_FIRST:
            max_tokens = ANSWER_ONLY_TOKENS if bundle.spec.evidence else self.max_tokens
            gen = structured(
                messages,
                bundle.spec,
                max_tokens=max_tokens,
                temperature=self.settings.temperature,
                on_token=piece,
                cancel=stop,
            )
        else:
            gen = model.chat(
                messages,
                grammar=bundle.grammar,
                max_tokens=self.max_tokens,
                temperature=self.settings.temperature,
                on_token=piece,
                cancel=stop,
            )
        if cancel is not None and cancel.cancelled:
            raise Cancelled()
        timings["generate"] = round(timings.get("generate", 0.0) + gen.total_ms, 1)
        if "first_token" not in timings and first:
            timings["first_token"] = round(first[0], 1)
        timings.setdefault("prompt_tokens", float(gen.prompt_tokens))
        timings["completion_tokens"] = timings.get("completion_tokens", 0.0) + gen.completion_tokens
        if gen.finish_reason not in ("stop",):
            logger.info(
                "generation finished with %s after %d tokens",
                gen.finish_reason,
                gen.completion_tokens,
            )
            if gen.finish_reason == "cancelled":  # we stopped a loop
                gen.finish_reason = "loop"
        try:
            raw = parse_raw_answer(gen.text)
        except GenerationError as exc:
            logger.info("unusable model output: %s; %.200r", exc, gen.text)
            raw = None
        return gen, raw

    def _check(
        self, raw: RawAnswer | None, pairs: list[tuple[Source, Chunk]], timings: dict[str, float]
    ) -> ValidatedAnswer | None:
        if raw is None:
            return None
        t = time.perf_counter()
        result = validate(raw, pairs)
        timings["validate"] = round(timings.get("validate", 0.0) + _ms(t), 2)
        logger.info("validation %s", json.dumps(log_record(raw, pairs, result), ensure_ascii=False))
        return result

    def _extractive(
        self,
        question: str,
        sources: list[Source],
        pairs: list[tuple[Source, Chunk]],
        bundle: PromptBundle,
        checked: ValidatedAnswer | None,
        timings: dict[str, float],
        model_name: str,
        *,
        retried: bool,
    ) -> Answer:
        """Answer with source sentences themselves, each cited and validated like any answer."""
        picks = extractive_picks(bundle, checked)
        raw = extractive_raw(picks) if picks else None
        result = self._check(raw, pairs, timings)
        if result is None or not result.citations:
            logger.info("no relevant sentence for an extractive answer; refusing")
            return refusal(question, REFUSAL_TEXT, sources, model=model_name, repaired=retried)
        return extractive_answer(question, sources, result, checked, model_name, retried=retried)

    def _finish(self, answer: Answer, timings: dict[str, float], t0: float) -> Answer:
        timings["total"] = round(_ms(t0), 1)
        for key in ("retrieve", "first_token", "generate", "validate"):  # always present
            timings.setdefault(key, 0.0)
        answer.timings_ms = timings
        if not answer.model and self._model is not None:
            answer.model = self._model.name
        metrics().record(answer)
        logger.info(
            "answer: kind=%s status=%s citations=%d timings=%s",
            answer.kind,
            answer.validation.status,
            len(answer.citations),
            timings,
        )
        return answer


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000
