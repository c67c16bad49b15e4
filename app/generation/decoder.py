"""Structured decoding: write the answer JSON in phases, forcing every character the model has no say in.

With one big grammar the model must still *decode* every forced token one at a time:
the JSON keys, punctuation, and, once a quote has been recognised after a few words,
the rest of that quoted sentence. On a small CPU each decode step costs ~10-100 ms,
while forced text appended to the prompt is evaluated in one batch. So the answer is
produced as a fixed sequence of phases, each either forced text or a short sampled
choice under a small grammar (:func:`app.generation.grammar.phase_grammars`):

    {"mode": "  <answer|refuse>  , "citations": [{"source": <n>,  "quote": "<quote>
    }, {"source": ... | }],  "answer": "<answer text>  }

A quote is fast-forwarded as soon as its first tokens match exactly one shown sentence.
The result has exactly the layout of the full grammar (same JSON, same bounds), and is
re-parsed by :func:`app.generation.parsing.parse_raw_answer` like any other output.
"""

from __future__ import annotations

import codecs
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.core.progress import CancelToken, TokenCallback
from app.core.protocols import FinishReason, GenerationResult
from app.generation.grammar import (
    CITATIONS_FIRST,
    GrammarSpec,
    evidence_json,
    json_string,
    phase_grammars,
)

logger = logging.getLogger(__name__)


class _Stop(Exception):
    def __init__(self, reason: FinishReason) -> None:
        self.reason = reason


@dataclass
class _State:
    tokens: list[int]
    pieces: list[str] = field(default_factory=list)
    sampled: int = 0
    first_ms: float = 0.0


class StructuredDecoder:
    """Phase-by-phase generation over a llama-cpp ``Llama`` (used by ``LlamaChatModel``)."""

    def __init__(
        self,
        llm: Any,
        check_grammar: Callable[[str], None],
        *,
        temperature: float,
        repeat_penalty: float,
        max_tokens: int,
        on_token: TokenCallback | None,
        cancel: CancelToken | None,
    ) -> None:
        self.llm = llm
        self.check_grammar = check_grammar
        self.temperature = temperature
        self.repeat_penalty = repeat_penalty
        self.max_tokens = max_tokens
        self.on_token = on_token
        self.cancel = cancel
        self._grammars: dict[str, Any] = {}
        self._t0 = 0.0

    # --- primitives -------------------------------------------------------------------------
    def _emit(self, st: _State, text: str, *, sampled: bool = False) -> None:
        if not text:
            return
        if sampled and not st.first_ms:
            st.first_ms = (time.perf_counter() - self._t0) * 1000
        st.pieces.append(text)
        if self.on_token is not None:
            self.on_token(text)

    def _force(self, st: _State, text: str) -> None:
        """Append ``text`` to the output; its tokens are evaluated in one batch later."""
        if not text:
            return
        st.tokens.extend(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))
        self._emit(st, text)

    def _grammar(self, text: str) -> Any:
        from llama_cpp import LlamaGrammar

        g = self._grammars.get(text)
        if g is None:
            self.check_grammar(text)
            g = LlamaGrammar.from_string(text, verbose=False)
            self._grammars[text] = g
        return g

    def _sample(
        self, st: _State, grammar_key: str, grammar: str, done: Callable[[str], str | None]
    ) -> str:
        """Sample under ``grammar`` until ``done(text)`` returns the forced rest (maybe "")."""
        llm = self.llm
        eos = llm.token_eos()
        gen = llm.generate(
            list(st.tokens),
            top_k=40,
            top_p=0.95,
            min_p=0.05,
            temp=self.temperature,
            repeat_penalty=self.repeat_penalty,
            grammar=self._grammar(grammar),
        )
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = ""
        try:
            for tok in gen:
                if self.cancel is not None and self.cancel.cancelled:
                    raise _Stop("cancelled")
                if tok == eos:
                    break
                prev = st.tokens[-8:]
                st.tokens.append(int(tok))
                st.sampled += 1
                piece = decoder.decode(llm.detokenize([tok], prev_tokens=prev))
                text += piece
                self._emit(st, piece, sampled=True)
                rest = done(text)
                if rest is not None:
                    self._force(st, rest)
                    return text + rest
                if st.sampled >= self.max_tokens:
                    raise _Stop("length")
        finally:
            gen.close()
            logger.debug("phase %s: %r", grammar_key, text)
        rest = done(text)
        if rest is None:
            raise _Stop("stop")  # the grammar ended early: cannot happen with our grammars
        self._force(st, rest)
        return text + rest

    # --- the answer ----------------------------------------------------------------------------
    def run(self, prompt_tokens: list[int], spec: GrammarSpec) -> GenerationResult:
        if spec.order != CITATIONS_FIRST:
            raise ValueError("structured decoding writes citations before the answer")
        self._t0 = time.perf_counter()
        g = phase_grammars(spec)
        st = _State(tokens=list(prompt_tokens))
        finish: FinishReason = "stop"
        try:
            if spec.evidence:  # citations chosen by the ranker: the model writes the answer
                head = f'{{"mode": "answer", "citations": {evidence_json(spec.evidence)}, '
                self._force(st, head + '"answer": "')
            else:
                self._force(st, '{"mode": "')
                mode = self._sample(st, "mode", g["mode"], _one_of(['answer"', 'refuse"']))
                if mode.startswith("refuse"):
                    self._force(st, ', "citations": [], "answer": ""}')
                    raise _Stop("stop")
                self._citations(st, spec, g)
                self._force(st, '"answer": "')
            self._sample(st, "answer", g["answer"], _ends_with('"'))
            self._force(st, "}")
        except _Stop as stop:
            finish = stop.reason
        total_ms = (time.perf_counter() - self._t0) * 1000
        return GenerationResult(
            text="".join(st.pieces),
            finish_reason=finish,
            prompt_tokens=len(prompt_tokens),
            completion_tokens=len(st.tokens) - len(prompt_tokens),
            first_token_ms=st.first_ms,
            total_ms=total_ms,
            extra={"sampled_tokens": st.sampled},
        )

    def _citations(self, st: _State, spec: GrammarSpec, g: dict[str, str]) -> None:
        self._force(st, ', "citations": [{"source": ')
        for i in range(spec.max_citations):
            number = self._sample(st, "source", g["source"], _ends_with(","))
            n = int(number.rstrip(","))
            self._force(st, ' "quote": "')
            if spec.free_quotes:
                self._sample(st, "free-quote", g["free-quote"], _ends_with('"'))
            else:
                options = list(
                    dict.fromkeys(json_string(s.strip())[1:] for s in spec.quotes[n] if s.strip())
                )
                self._sample(st, f"quote-{n}", g[f"quote-{n}"], _one_of(options))
            if i == spec.max_citations - 1:
                self._force(st, "}], ")
                return
            more = self._sample(st, "more", g["more"], _one_of(['}, {"source": ', "}], "]))
            if "]" in more:
                return


def _ends_with(terminator: str) -> Callable[[str], str | None]:
    def done(text: str) -> str | None:
        return "" if text.endswith(terminator) else None

    return done


def _one_of(options: list[str]) -> Callable[[str], str | None]:
    """Done once ``text`` is a prefix of exactly one option: force that option's rest."""

    def done(text: str) -> str | None:
        left = [o for o in options if o.startswith(text)]
        if len(left) == 1:
            return left[0][len(text) :]
        return None

    return done
