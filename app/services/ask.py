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
The steps themselves, and the :class:`~app.services.ask_steps.AskRun` that carries one
question through them, are in ``ask_steps``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from app.core import lexicon
from app.core.config import Settings
from app.core.errors import GenerationError
from app.core.models import Answer
from app.core.progress import (
    CancelToken,
    Progress,
    ProgressCallback,
    Stage,
    TokenCallback,
    no_progress,
)
from app.core.protocols import AskLibrary, ChatModel
from app.core.text import sentence_key
from app.core.textkit import languages_in, other_language, stem, word_languages
from app.core.timing import ms_since
from app.generation import chat_model_from_settings, local_chat_model
from app.generation.prompt import PromptBundle, Similarity, system_prompt
from app.services import ask_steps as steps
from app.services import verdict
from app.services.answers import (
    EMPTY_LIBRARY_TEXT,
    EMPTY_QUESTION_TEXT,
    FAR_TEXT,
    NO_HITS_TEXT,
    REFUSAL_TEXT,
)
from app.services.ask_steps import AskRun, Attempt
from app.services.metrics import metrics
from app.services.summary import Summarizer, SummaryRequest, summary_request
from app.validation.status_model import for_models
from app.validation.support import SupportCheck, neighbour_candidates

logger = logging.getLogger(__name__)

__all__ = [
    "EMPTY_LIBRARY_TEXT",
    "EMPTY_QUESTION_TEXT",
    "NO_HITS_TEXT",
    "REFUSAL_TEXT",
    "AskService",
]

MAX_TOKENS = 384
JUDGE_QUERY = "Do these passages answer my question? Answer yes or no."
"""What the chat model is asked after the prompt it answered, for its own judgement (a signal
of the status model). The question is in that prompt already and is not repeated: each token
evaluated costs the embedded model ~3 ms on two cores, and repeating the question made the
judgement ~30-45 tokens (100-165 ms) instead of ~15."""
WARM_BATCH = 256
EvidenceMode = Literal["auto", "model", "ranked"]


class AskService:
    """Answers questions over a :class:`~app.services.library.Library` with validated citations."""

    def __init__(
        self,
        library: AskLibrary,
        settings: Settings | None = None,
        *,
        chat_model: ChatModel | None = None,
        free_quotes: bool = False,
        evidence: EvidenceMode = "auto",
        max_tokens: int = MAX_TOKENS,
        always_judge: bool = False,
    ) -> None:
        """``always_judge``: ask the chat model for its judgement of every answer, even when
        it could not change the status (``make train-verdict`` needs it in every row)."""
        self.library = library
        self.always_judge = always_judge
        self.settings = settings or library.settings
        self.free_quotes = free_quotes
        self.evidence = evidence
        self.max_tokens = max_tokens
        self._model: ChatModel | None = chat_model
        self._model_lock = threading.Lock()  # guards _model
        self._cached_embed: tuple[object, verdict.CachedEmbed] | None = None
        self._gen_lock = threading.Lock()  # one generation at a time
        self._asking = 0  # questions being answered now (warm_words waits for none)
        self._asking_lock = threading.Lock()
        self.summaries = Summarizer(library)

    # --- model -------------------------------------------------------------------------------
    @property
    def model(self) -> ChatModel:
        """The chat model the settings name, created on first use (not loaded until needed)."""
        with self._model_lock:
            if self._model is None:
                self._model = chat_model_from_settings(self.settings)
            return self._model

    def ranked_evidence(self, model: ChatModel) -> bool:
        """Whether the ranker, not the model, picks the citations (``evidence="auto"``: when
        the model does not choose its own evidence well, i.e. the embedded 135M model)."""
        if self.evidence != "auto":
            return self.evidence == "ranked"
        return not model.chooses_evidence

    def warm_up(self) -> None:
        """Load the chat model and cache the constant system prompt now.

        Optional: the first ``ask`` does it otherwise (costing ~1-5 s). The GUI can call
        this on a worker thread at start-up so the first question is answered as fast
        as the rest.
        """
        model = self.model
        model.warm_up()
        with self._gen_lock:
            _cache_prefix(model, {"role": "system", "content": system_prompt()})

    def warm_words(self, *, limit: int | None = None, cancel: CancelToken | None = None) -> int:
        """Embed the library's commonest words now, so the support check finds a concept's
        paraphrases among a passage's words without embedding them mid-question (a word
        nowhere in the library made that step take 100-300 ms; cached, ~20 ms).

        At most ``limit`` words (default: as many as the cache keeps, 50,000), those in the
        most chunks first, in batches, pausing while a question is being answered; needs the
        library's words counted (``Library.count_words``); then stems them in the library's
        languages (:meth:`_stem_words`). Returns how many words were embedded. For
        long-running front ends: a one-shot command would spend seconds on words it never
        needs.
        """
        embed = self._embed()
        if embed is None:
            return 0
        common = self.library.common_words(embed.max_words if limit is None else limit)
        words = embed.unknown(neighbour_candidates(common, "en", self._word_languages()))
        for start in range(0, len(words), WARM_BATCH):
            if not self._wait_for_questions(cancel):
                return start
            embed(words[start : start + WARM_BATCH])
        logger.info("embedded %d of the library's words ahead of questions", len(words))
        self._stem_words(common, cancel)
        return len(words)

    def _stem_words(self, words: Sequence[str], cancel: CancelToken | None) -> None:
        """Stem the library's words in each language it is written in, so that the support
        check finds a passage's stems remembered: a German word takes ~30 us to stem in pure
        Python, and over the German Debian Reference a question's passages brought ~340
        words not stemmed before, ~10 ms of its check. The word lists the search translates
        questions with are read too (``app.core.lexicon``; ~0.25 s for German)."""
        languages = languages_in(words)
        lexicon.warm(languages)
        for lang in languages:
            for start in range(0, len(words), WARM_BATCH):
                if not self._wait_for_questions(cancel):
                    return
                for w in words[start : start + WARM_BATCH]:
                    stem(w, lang)
            logger.info("stemmed %d of the library's words (%s)", len(words), lang)

    def _wait_for_questions(self, cancel: CancelToken | None) -> bool:
        """Wait while a question is being answered (warming yields to it); False when
        ``cancel`` says to stop."""
        while self._asking and not (cancel and cancel.cancelled):
            time.sleep(0.05)
        return not (cancel is not None and cancel.cancelled)

    def load_model(self, path: Path | None) -> None:
        """Switch to the GGUF at ``path`` (None: the embedded default), whatever ``llm_url``
        says: a file the user picked (``--model``).

        The new model is loaded completely before it replaces the old one, so a bad file
        raises ``ModelLoadError`` and the previous model stays in use.
        """
        self._switch(local_chat_model(self.settings, path))

    def reload_model(self) -> None:
        """Switch to the model the settings name now: the llama.cpp server at ``llm_url``
        when set, else the GGUF at ``model``. Same guarantee as :meth:`load_model`.

        For a front end that keeps one ``Settings`` and changes it (the desktop).
        """
        self._switch(chat_model_from_settings(self.settings))

    def _switch(self, new: ChatModel) -> None:
        new.warm_up()
        with self._gen_lock, self._model_lock:
            self._model = new
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
        context: str | None = None,
    ) -> Answer:
        """Answer ``question``. ``context``: the previous question of a conversation, as
        understood; the passages are then searched with it as well
        (:func:`~app.services.ask_steps.conversation_search`). Citations can still only name
        the passages retrieved, and the check judges them against ``question`` alone."""
        with self._asking_lock:
            self._asking += 1
        try:
            return self._ask(question, doc_ids, top_k, on_token, on_progress, cancel, context)
        finally:
            with self._asking_lock:
                self._asking -= 1

    def _ask(
        self,
        question: str,
        doc_ids: Sequence[str] | None,
        top_k: int | None,
        on_token: TokenCallback | None,
        on_progress: ProgressCallback | None,
        cancel: CancelToken | None,
        context: str | None = None,
    ) -> Answer:
        run = AskRun(
            question=question.strip(),
            top_k=top_k or self.settings.top_k,
            doc_ids=doc_ids,
            context=context,
            on_token=on_token,
            progress=on_progress or no_progress,
            cancel=CancelToken.any_of(cancel),
        )
        return self._finish(run, self._answer(run))

    def _answer(self, run: AskRun) -> Answer:
        """Retrieve → concepts → select → (gate) → respond → verdict; the first step with
        nothing to go on refuses, and says why."""
        if not run.question:
            return run.refusal(EMPTY_QUESTION_TEXT)
        request = summary_request(run.question)
        if request is not None:  # "What is this document about?", "Summarise chapter 3"
            summary = self._summary(run, request)
            if summary is not None:
                return summary
        if not steps.retrieve(run, self.library):
            return run.refusal(NO_HITS_TEXT if self.library.documents() else EMPTY_LIBRARY_TEXT)
        model = self.model
        run.model_name = model.name
        concepts = self._concepts(run)
        ranked = self.ranked_evidence(model)
        bundle = steps.select(
            run,
            ranked=ranked,
            free_quotes=self.free_quotes,
            similarity=self._similarity(run) if ranked else None,
        )
        if bundle is None:
            return run.refusal(NO_HITS_TEXT)
        nearest = [chunk.text for _, chunk in run.pairs[:3]]
        refusing = concepts.refusing(
            bundle.relevance,
            self._word_languages(),
            elsewhere=other_language(run.question, nearest),
        )
        if refusing:  # a key concept is nowhere in the library, and nothing is close
            logger.info("refusing: %s occur nowhere in the library", [c.text for c in refusing])
            refused = verdict.absent_refusal(run.question, concepts, run.pairs)
            refused.model = model.name
            return refused
        t0 = time.perf_counter()
        kind = verdict.kind_missing(run.question, run.pairs)
        run.timings["kind"] = round(ms_since(t0), 2)
        if kind is not None:  # a price asked, and no passage close to the question gives one
            logger.info("refusing: no retrieved passage holds %s", kind)
            refused = verdict.kind_refusal(run.question, kind, concepts, run.pairs)
            refused.model = model.name
            return refused
        far = ranked and not steps.relevant_enough(bundle)
        pre = self._before_generation(run, bundle, concepts) if far else None
        if far and (pre is None or pre.reasons):  # nothing close, and the check finds a lack
            answer = run.refusal(FAR_TEXT)
        else:
            with self._gen_lock:
                answer = self._respond(run, model, bundle)
        return self._judge(run, answer, bundle, concepts, model)

    def summarize(
        self,
        doc_id: str,
        *,
        section: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Answer:
        """An outline of document ``doc_id`` (or of its top-level ``section``) in its own
        cited sentences (:class:`~app.services.summary.Summarizer`); no chat model needed."""
        answer = self.summaries.summarize(
            doc_id, section=section, on_progress=on_progress, cancel=cancel
        )
        metrics().record(answer)
        return answer

    def _summary(self, run: AskRun, request: SummaryRequest) -> Answer | None:
        """A summary question answered by the summarizer; None when what it names is no
        document or section here (it is then asked like any question)."""
        doc, section, why = self.summaries.resolve(request, run.doc_ids)
        if doc is None:
            return run.refusal(why) if why else None
        answer = self.summaries.summarize(
            doc.doc_id,
            section=section,
            question=run.question,
            on_progress=run.progress,
            cancel=run.cancel,
        )
        run.timings.update(answer.timings_ms)
        return answer

    # --- verdict -------------------------------------------------------------------------------
    def _embed(self) -> verdict.CachedEmbed | None:
        """The library's embedder for the support check, its word vectors kept across
        questions (for as long as the library keeps that embedder)."""
        embedder = self.library.embedder
        if embedder is None:
            return None
        cached = self._cached_embed
        if cached is None or cached[0] is not embedder:
            cached = (embedder, verdict.CachedEmbed(lambda texts: embedder.embed(texts)))
            self._cached_embed = cached
        return cached[1]

    def _word_languages(self) -> frozenset[str] | None:
        """The languages whose words the library's embedder knows (for paraphrases)."""
        embedder = self.library.embedder
        return None if embedder is None else word_languages(embedder.name)

    def _concepts(self, run: AskRun) -> verdict.Concepts:
        """The question's key concepts, weighted by their rarity in the library."""
        concepts = verdict.question_concepts(
            run.question,
            self.library.term_counts,
            run.pairs,
            embed=self._embed(),
            languages=self._word_languages(),
        )
        run.timings["concepts"] = round(concepts.ms, 1)
        return concepts

    def _before_generation(
        self, run: AskRun, bundle: PromptBundle, concepts: verdict.Concepts
    ) -> SupportCheck | None:
        """The support check of the ranked evidence, for a question whose best sentence is
        below the relevance floor: similarity is one signal of several, so evidence in which
        the check finds nothing lacking (every key concept, the kind of answer asked for)
        goes on to be answered, and judged again, rather than refused."""
        t0 = time.perf_counter()
        pre = verdict.before_generation(
            run.question,
            bundle,
            run.pairs,
            concepts=concepts,
            embed=self._embed(),
            languages=self._word_languages(),
        )
        run.timings["precheck"] = round(ms_since(t0), 1)
        logger.info(
            "best sentence below the relevance floor; its evidence %s",
            "lacks something" if pre is None or pre.reasons else "covers the question",
        )
        return pre

    def _judgement(
        self, run: AskRun, answer: Answer, bundle: PromptBundle, model: ChatModel
    ) -> float | None:
        """The chat model's own P("yes") that the passages it was given answer the question
        (a signal of the status model); None for a refusal or when the model gives none.

        Asked of the prompt, not of the reply: the prompt is still in the model's cache
        after answering, so only the ~15 tokens of the query are evaluated (the reply's
        text would be tokenised anew and evaluated too, ~100 more)."""
        if verdict.is_refusal(answer) or not answer.citations:
            return None
        t0 = time.perf_counter()
        try:
            with self._gen_lock:
                p = model.judge(bundle.messages, None, JUDGE_QUERY)
        except GenerationError:
            logger.exception("the model's judgement failed; the status is judged without it")
            return None
        run.timings["judge"] = round(ms_since(t0), 1)
        return p

    def _judge(
        self,
        run: AskRun,
        answer: Answer,
        bundle: PromptBundle,
        concepts: verdict.Concepts,
        model: ChatModel | None = None,
    ) -> Answer:
        """GREEN only when the evidence covers the question; else YELLOW or a refusal.

        The status model is the one fitted with this chat model's judgement if there is one
        (the embedded model's), else the one fitted without any
        (:func:`~app.validation.status_model.for_models`, which also withholds GREEN over a
        library another embedder embedded); the judgement is asked for
        only when it could change the status, and an answer whose judgement mattered but
        could not be read (too long a prompt, a failure) is judged by the model without it."""
        t0 = time.perf_counter()
        shown = [x for xs in bundle.source_sentences.values() for x in xs]
        result = verdict.check(
            run.question,
            answer,
            run.pairs,
            concepts=concepts,
            known_similarity={x.text: x.similarity for x in shown if x.similarity is not None},
            embed=self._embed(),
            languages=self._word_languages(),
            quote_context={x.text: x.context for x in shown if x.context},
        )
        run.timings["support"] = round(ms_since(t0), 2)
        embedder = self.library.embedder
        similarities_of = embedder.name if embedder is not None else None
        status_model = for_models(model.name if model is not None else None, similarities_of)
        judgement = None
        if model is not None and (
            self.always_judge  # recorded for make train-verdict, whichever model decides
            or verdict.judgement_matters(
                answer, result, run.pairs, relevance=bundle.relevance, model=status_model
            )
        ):
            judgement = self._judgement(run, answer, bundle, model)
            if judgement is None and status_model.weighs_judgement:
                # it mattered, and could not be read: the model fitted without it
                status_model = for_models(None, similarities_of)
        return verdict.apply(
            answer,
            result,
            run.pairs,
            judgement=judgement,
            relevance=bundle.relevance,
            model=status_model,
        )

    def _respond(self, run: AskRun, model: ChatModel, bundle: PromptBundle) -> Answer:
        """Generate → check → repair once if the citations failed → fall back if still unusable."""
        run.progress(Progress(Stage.LOAD_MODEL, 0, 1, message=f"Loading {model.name}"))
        _cache_prefix(model, bundle.messages[0])
        run.progress(Progress(Stage.LOAD_MODEL, 1, 1))

        run.progress(Progress(Stage.GENERATE, 0, 1, message="Writing the answer"))
        attempt = self._generate(run, model, bundle, bundle.messages, stream=True)
        if attempt.refused:
            return run.refusal(REFUSAL_TEXT)
        if not attempt.usable:
            if not attempt.repairable:
                logger.info("answer not usable (%s); extractive fallback", attempt.why)
                return steps.extractive(run, bundle, attempt.checked)
            first, attempt = attempt, self._repair(run, model, bundle, attempt)
            if attempt.refused:
                return run.refusal(REFUSAL_TEXT)
            if not attempt.usable:
                best = attempt if attempt.checked and attempt.checked.citations else first
                return steps.extractive(run, bundle, best.checked)
        assert attempt.checked is not None  # usable
        if steps.strays(run, bundle, attempt.checked):
            return steps.extractive(run, bundle, attempt.checked)
        checked = attempt.checked
        nonsense = verdict.adds_nothing(
            run.question, checked.answer, [c.quote for c in checked.citations]
        )
        if nonsense:  # show the evidence rather than a sentence that misleads
            logger.info("the model's answer %s; extractive fallback", nonsense)
            return steps.extractive(run, bundle, checked)
        run.progress(Progress(Stage.GENERATE, 1, 1))
        return run.generated(attempt.checked)

    def _repair(
        self, run: AskRun, model: ChatModel, bundle: PromptBundle, failed: Attempt
    ) -> Attempt:
        logger.info("answer RED; one repair retry")
        run.repaired = True
        messages = steps.repair_messages(bundle, failed)
        return self._generate(run, model, bundle, messages, stream=False)

    def _generate(
        self,
        run: AskRun,
        model: ChatModel,
        bundle: PromptBundle,
        messages: list[dict[str, str]],
        *,
        stream: bool,
    ) -> Attempt:
        return steps.generate(
            run,
            model,
            bundle,
            messages,
            max_tokens=self.max_tokens,
            temperature=self.settings.temperature,
            stream=stream,
        )

    def _similarity(self, run: steps.AskRun) -> Similarity | None:
        """Question-to-sentence cosine similarity with the library's embedder, if it has one.
        A sentence whose vector was stored at ingestion is looked up, not embedded (the same
        text through the same embedder: the same vector); only the rest are embedded."""
        embedder = self.library.embedder
        if embedder is None:
            return None
        library = self.library

        def similarity(question: str, texts: list[str]) -> list[float]:
            stored = library.stored_sentence_vectors([s.chunk_id for s in run.sources])
            keys = [sentence_key(t) for t in texts]
            missing = [t for t, k in zip(texts, keys, strict=True) if k not in stored]
            vectors = embedder.embed([question, *missing])
            fresh = dict(zip(missing, vectors[1:], strict=True))
            q = vectors[0]
            return [
                float((stored[k] if k in stored else fresh[t]) @ q)
                for t, k in zip(texts, keys, strict=True)
            ]

        return similarity

    def _finish(self, run: AskRun, answer: Answer) -> Answer:
        timings = run.timings
        timings["total"] = round(ms_since(run.t0), 1)
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


def _cache_prefix(model: ChatModel, system: dict[str, str]) -> None:
    """Cache the constant system prompt; a failure only costs speed."""
    try:
        model.cache_prefix([system])
    except GenerationError:
        logger.exception("warming the prompt cache failed; continuing without it")
