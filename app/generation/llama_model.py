"""In-process chat model: llama-cpp-python over a GGUF file.

Loaded lazily, once, under a lock (llama.cpp contexts are not thread-safe; one question
at a time). The prompt is rendered with the chat template stored in the GGUF metadata
and tokenised here, so we know the prompt size, can warm the cache with the constant
system prompt, and let llama.cpp reuse that cached prefix on every later question.

Grammars are checked by llama.cpp's own parser before generation: in 0.3.36
``LlamaGrammar.from_string`` does no checking, and a grammar llama.cpp cannot parse
would otherwise reach the sampler chain as a NULL sampler.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from app.core.cpu import CpuShare
from app.core.errors import GenerationError, ModelLoadError
from app.core.progress import CancelToken, TokenCallback
from app.core.protocols import FinishReason, GenerationResult, finish_reason
from app.core.resources import DEFAULT_CHAT_MODEL_NAME, default_chat_model_path
from app.generation.decoder import StructuredDecoder
from app.generation.grammar import CITATIONS_FIRST, GrammarSpec, build_grammar

logger = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
DEFAULT_REPEAT_PENALTY = 1.0


def check_gguf_file(path: Path) -> None:
    """Raise ``ModelLoadError`` with a specific message unless ``path`` looks like a GGUF file."""
    if not path.exists():
        raise ModelLoadError(f"Model file not found: {path}")
    if not path.is_file():
        raise ModelLoadError(f"Not a file: {path}")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelLoadError(f"Cannot read the model file {path}: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelLoadError(
            f"{path.name} is not a GGUF model file (it does not start with the GGUF signature)."
        )


def grammar_error(vocab: Any, grammar: str) -> str | None:
    """Parse ``grammar`` with llama.cpp; return None if it is valid, else a short reason."""
    import llama_cpp

    if not grammar.strip():
        return "empty grammar"
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
    if not sampler:
        return "llama.cpp could not parse the grammar"
    llama_cpp.llama_sampler_free(sampler)
    return None


class LlamaChatModel:
    """:class:`app.core.protocols.ChatModel` backed by llama-cpp-python, in process.

    Construction only records the settings; :meth:`warm_up` (or the first answer) loads.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        n_ctx: int = 4096,
        threads: int | None = None,
        *,
        repeat_penalty: float = DEFAULT_REPEAT_PENALTY,
    ) -> None:
        self._path = Path(path).expanduser() if path is not None else None
        self.n_ctx = n_ctx
        # None: chosen per answer from how busy the machine is (app.core.cpu); else fixed.
        self.fixed_threads = threads
        self._cpu = CpuShare()
        self.threads = threads or self._cpu.cores
        self.repeat_penalty = repeat_penalty
        self.name = self._path.name if self._path else DEFAULT_CHAT_MODEL_NAME
        self._llm: Any = None
        self._formatter: Any = None
        self._lock = threading.RLock()
        self._yes_no: tuple[list[int], list[int]] | None = None

    # --- loading ---------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self._path if self._path is not None else default_chat_model_path()

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    @property
    def chooses_evidence(self) -> bool:
        """False for the embedded 135M model, which copies and paraphrases well but chooses
        evidence poorly (the ranker picks it instead); True for any GGUF a user brings."""
        try:
            return self.path.resolve() != default_chat_model_path().resolve()
        except ModelLoadError:
            return True

    def warm_up(self) -> None:
        """Load the model now (idempotent). Raises ``ModelLoadError`` for a bad file."""
        with self._lock:
            if self._llm is not None:
                return
            path = self.path
            check_gguf_file(path)
            try:
                # numpy.ctypeslib: llama.cpp reads logits with it (judge) and imports it only
                # then; imported with the model, a first answer does not pay for it
                import numpy.ctypeslib  # noqa: F401
                from llama_cpp import Llama
            except ImportError as exc:  # pragma: no cover - installation problem
                raise ModelLoadError(
                    "llama-cpp-python is not installed.", hint="Run `make setup`."
                ) from exc
            t0 = time.perf_counter()
            try:
                llm = Llama(
                    model_path=str(path),
                    n_ctx=self.n_ctx,
                    n_threads=self.threads,
                    n_threads_batch=self.threads,
                    n_batch=512,
                    verbose=False,
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise ModelLoadError(
                    f"llama.cpp could not load {path.name}: {exc}. The file may be truncated, "
                    "or use an architecture this llama.cpp version does not support."
                ) from exc
            self._formatter = self._make_formatter(llm)
            self._llm = llm
            logger.info(
                "loaded chat model %s in %.0f ms (n_ctx=%d, threads=%s)",
                path,
                (time.perf_counter() - t0) * 1000,
                self.n_ctx,
                self.fixed_threads or "per answer",
            )

    @contextmanager
    def _computing(self) -> Iterator[None]:
        """Run llama.cpp with the threads the machine can spare now (every core when idle,
        fewer when other processes keep cores busy; see app.core.cpu)."""
        import llama_cpp

        n = self.fixed_threads or self._cpu.threads()
        if n != self.threads:
            llama_cpp.llama_set_n_threads(self._llm.ctx, n, n)
            self.threads = n
        yield

    @staticmethod
    def _make_formatter(llm: Any) -> Any:
        from llama_cpp import llama_chat_format

        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            logger.warning("GGUF has no chat template; using ChatML")
            return llama_chat_format.format_chatml
        eos = llm.token_eos()
        bos = llm.token_bos()
        return llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )

    # --- prompt ----------------------------------------------------------------------------
    def tokenize_chat(
        self, messages: list[dict[str, str]], *, add_generation_prompt: bool = True
    ) -> list[int]:
        """Render ``messages`` with the model's chat template and tokenise them."""
        self.warm_up()
        fmt = self._formatter
        if hasattr(fmt, "add_generation_prompt"):
            saved = fmt.add_generation_prompt
            fmt.add_generation_prompt = add_generation_prompt
            try:
                result = fmt(messages=messages)
            finally:
                fmt.add_generation_prompt = saved
        else:
            result = fmt(messages=messages)
        return list(
            self._llm.tokenize(
                result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
            )
        )

    def cache_prefix(self, messages: list[dict[str, str]]) -> None:
        """Evaluate the constant leading ``messages`` (the system prompt) into the KV cache.

        Later prompts that start with the same tokens skip that part of the prefill. Does
        nothing when the cache already starts with them (every prompt begins with them).
        """
        with self._lock:
            tokens = self.tokenize_chat(messages, add_generation_prompt=False)
            if _common_prefix(self._llm._input_ids.tolist(), tokens) == len(tokens):
                return
            t0 = time.perf_counter()
            try:
                with self._computing():
                    self._llm.reset()
                    self._llm.eval(tokens)
            except (ValueError, RuntimeError) as exc:
                raise GenerationError(f"Caching the prompt failed: {exc}") from exc
            logger.info(
                "warmed %d prompt tokens in %.0f ms", len(tokens), (time.perf_counter() - t0) * 1000
            )

    def judge(self, messages: list[dict[str, str]], reply: str | None, query: str) -> float | None:
        """P("yes") of the model's first word after ``query`` follows its ``reply`` (or, with
        ``reply`` None, the prompt itself): only the tokens after what the cache already holds
        are evaluated. After an answer the cache holds its prompt, so a judgement of the
        prompt evaluates the query alone; a reply is tokenised anew (its text, not the
        forced JSON it was decoded as) and evaluated with the query."""
        with self._lock:
            self.warm_up()
            turns = [*messages]
            if reply is not None:
                turns.append({"role": "assistant", "content": reply})
            tokens = self.tokenize_chat([*turns, {"role": "user", "content": query}])
            if len(tokens) + 8 > self.n_ctx:
                return None
            yes, no = self._yes_no_tokens()
            if not yes or not no:
                return None
            llm = self._llm
            keep = min(_common_prefix(llm._input_ids.tolist(), tokens), len(tokens) - 1)
            logger.debug("judge: %d of %d tokens already in the cache", keep, len(tokens))
            try:
                with self._computing():
                    llm.n_tokens = keep
                    llm.eval(tokens[keep:])
                    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
            except (ValueError, RuntimeError) as exc:
                raise GenerationError(f"Asking the model for its judgement failed: {exc}") from exc
            top = float(max(logits[yes].max(), logits[no].max()))
            p_yes = float(np.exp(logits[yes] - top).sum())
            p_no = float(np.exp(logits[no] - top).sum())
            return p_yes / (p_yes + p_no)

    def _yes_no_tokens(self) -> tuple[list[int], list[int]]:
        """The single tokens that begin a "yes" or a "no" answer ("Yes", " yes", "YES")."""
        if self._yes_no is not None:
            return self._yes_no

        def first_tokens(words: tuple[str, ...]) -> list[int]:
            out = set()
            for w in words:
                toks = self._llm.tokenize(w.encode("utf-8"), add_bos=False, special=False)
                if len(toks) == 1:
                    out.add(toks[0])
            return sorted(out)

        result = (
            first_tokens(("Yes", " Yes", "yes", " yes", "YES")),
            first_tokens(("No", " No", "no", " no", "NO")),
        )
        self._yes_no = result
        return result

    def check_grammar(self, grammar: str) -> None:
        """Raise ``GenerationError`` if llama.cpp cannot parse ``grammar``."""
        self.warm_up()
        reason = grammar_error(self._llm._model.vocab, grammar)
        if reason:
            raise GenerationError(f"Invalid answer grammar: {reason}.")

    # --- generation --------------------------------------------------------------------------
    def answer(
        self,
        messages: list[dict[str, str]],
        spec: GrammarSpec,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> GenerationResult:
        """Write the answer JSON phase by phase (see :mod:`app.generation.decoder`).

        Same output language as ``chat(messages, grammar=build_grammar(spec))``, but the
        text the model has no choice about is forced instead of decoded token by token.
        A spec that puts the answer before the citations is decoded with that one grammar.
        """
        if spec.order != CITATIONS_FIRST:
            return self.chat(
                messages,
                grammar=build_grammar(spec),
                max_tokens=max_tokens,
                temperature=temperature,
                on_token=on_token,
                cancel=cancel,
            )
        with self._lock:
            self.warm_up()
            tokens = self.tokenize_chat(messages)
            if len(tokens) + 64 > self.n_ctx:
                raise GenerationError(
                    f"The prompt ({len(tokens)} tokens) does not fit the model's context "
                    f"({self.n_ctx} tokens)."
                )
            cached_before = _common_prefix(self._llm._input_ids.tolist(), tokens)
            decoder = StructuredDecoder(
                self._llm,
                self.check_grammar,
                temperature=temperature,
                repeat_penalty=self.repeat_penalty,
                max_tokens=max(1, min(max_tokens, self.n_ctx - len(tokens) - 64)),
                on_token=on_token,
                cancel=cancel,
            )
            try:
                with self._computing():
                    result = decoder.run(tokens, spec)
            except (ValueError, RuntimeError) as exc:
                raise GenerationError(f"Generation failed: {exc}") from exc
            result.extra["cached_prompt_tokens"] = cached_before
            logger.info(
                "structured answer: %d tokens (%s sampled; prompt %d, %d cached) in %.0f ms, "
                "first token %.0f ms, finish=%s, threads=%d",
                result.completion_tokens,
                result.extra.get("sampled_tokens"),
                len(tokens),
                cached_before,
                result.total_ms,
                result.first_token_ms,
                result.finish_reason,
                self.threads,
            )
            return result

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        grammar: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> GenerationResult:
        from llama_cpp import LlamaGrammar

        with self._lock:
            self.warm_up()
            llm = self._llm
            tokens = self.tokenize_chat(messages)
            if len(tokens) + 8 > self.n_ctx:
                raise GenerationError(
                    f"The prompt ({len(tokens)} tokens) does not fit the model's context "
                    f"({self.n_ctx} tokens)."
                )
            max_tokens = max(1, min(max_tokens, self.n_ctx - len(tokens)))
            gram = None
            if grammar:
                self.check_grammar(grammar)
                gram = LlamaGrammar.from_string(grammar, verbose=False)
            cached_before = _common_prefix(llm._input_ids.tolist(), tokens)
            t0 = time.perf_counter()
            first_ms = 0.0
            pieces: list[str] = []
            finish: FinishReason = "stop"
            n_out = 0
            with self._computing():
                stream = llm.create_completion(
                    prompt=tokens,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_k=40,
                    top_p=0.95,
                    min_p=0.05,
                    repeat_penalty=self.repeat_penalty,
                    stream=True,
                    grammar=gram,
                    stop=[],
                )
                try:
                    for chunk in stream:
                        if cancel is not None and cancel.cancelled:
                            finish = "cancelled"
                            break
                        choice = chunk["choices"][0]
                        piece = choice.get("text") or ""
                        n_out += 1
                        if piece:
                            if not first_ms:
                                first_ms = (time.perf_counter() - t0) * 1000
                            pieces.append(piece)
                            if on_token is not None:
                                on_token(piece)
                        if choice.get("finish_reason"):
                            finish = finish_reason(choice["finish_reason"])
                except (ValueError, RuntimeError) as exc:
                    raise GenerationError(f"Generation failed: {exc}") from exc
                finally:
                    close = getattr(stream, "close", None)
                    if close is not None:
                        close()
            total_ms = (time.perf_counter() - t0) * 1000
            completion_tokens = max(0, int(llm.n_tokens) - len(tokens))
            result = GenerationResult(
                text="".join(pieces),
                finish_reason=finish,
                prompt_tokens=len(tokens),
                completion_tokens=completion_tokens or n_out,
                first_token_ms=first_ms,
                total_ms=total_ms,
                extra={"cached_prompt_tokens": cached_before},
            )
            logger.info(
                "generated %d tokens (prompt %d, %d cached) in %.0f ms, first token %.0f ms, "
                "finish=%s",
                result.completion_tokens,
                len(tokens),
                cached_before,
                total_ms,
                first_ms,
                finish,
            )
            return result


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
