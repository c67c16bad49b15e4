"""Chat model behind an OpenAI-compatible llama.cpp server (``--llm-url``).

For people with a bigger model on another process or machine. We send the same GBNF
grammar as the local model (both llama.cpp's own server and ``llama_cpp.server`` accept a
``grammar`` field in ``/v1/chat/completions``), stream the reply as server-sent events,
and read them with urllib: no extra dependency. A server that ignores the grammar is
still safe: every output is re-parsed and validated downstream.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request

from app.core.errors import RemoteBackendError
from app.core.progress import CancelToken, TokenCallback
from app.core.protocols import FinishReason, GenerationResult, finish_reason
from app.generation.grammar import GrammarSpec, build_grammar, evidence_json

logger = logging.getLogger(__name__)

WARM_UP_TIMEOUT_S = 5.0
"""How long warming up waits for the server to answer before it says it cannot reach it."""


def server_base(url: str) -> str:
    """The server's own address: ``url`` without a trailing "/", "/v1" or
    "/v1/chat/completions" (people paste any of them)."""
    base = url.rstrip("/")
    if base.endswith("/v1/chat/completions"):
        return base[: -len("/v1/chat/completions")]
    return base[:-3] if base.endswith("/v1") else base


def server_label(url: str) -> str:
    """The server as a person reads it wherever the chat model is named (status bar,
    Settings, an answer's model): one wording, one form of the URL."""
    return f"llama.cpp server at {server_base(url)}"


class RemoteChatModel:
    """:class:`app.core.protocols.ChatModel` over HTTP (OpenAI chat completions + grammar).

    Nothing to load or cache on this side: the server holds the model.
    """

    chooses_evidence = True  # whatever the server runs, the user chose it

    def __init__(
        self,
        url: str,
        *,
        model: str | None = None,
        timeout: float = 120.0,
        repeat_penalty: float = 1.0,
    ) -> None:
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RemoteBackendError(
                f"Not an http(s) URL: {url!r}", hint="Use e.g. http://127.0.0.1:8080"
            )
        self.base_url = server_base(url)
        self.model = model
        self.timeout = timeout
        self.repeat_penalty = repeat_penalty
        self.name = server_label(url)  # what a user reads as "the model"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/v1/chat/completions"

    def warm_up(self) -> None:
        """Nothing to load here, but say now, not at the first answer, when nothing answers
        at the URL: one ``GET /v1/models`` (both llama.cpp's server and ``llama_cpp.server``
        serve it), at most ``WARM_UP_TIMEOUT_S``. Any HTTP reply means a server is there."""
        req = urllib.request.Request(f"{self.base_url}/v1/models", method="GET")
        try:
            with urllib.request.urlopen(req, timeout=min(self.timeout, WARM_UP_TIMEOUT_S)):
                pass
        except urllib.error.HTTPError:
            return  # a server that answers, if not to this request
        except OSError as exc:  # refused, unknown host, timeout
            reason = getattr(exc, "reason", exc)
            raise RemoteBackendError(
                f"Cannot reach the llama.cpp server at {self.base_url}: {reason}"
            ) from exc

    def cache_prefix(self, messages: list[dict[str, str]]) -> None:
        """The server keeps its own prompt cache."""

    def judge(self, messages: list[dict[str, str]], reply: str | None, query: str) -> float | None:
        """None: servers report token probabilities in ways of their own (or not at all), so
        a server's answers are judged by the status model fitted without the judgement
        (``status_model.for_chat_model``)."""
        return None

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
        """The answer under the full grammar of ``spec``; the server decodes every token, so
        fixed evidence (written by the grammar, not chosen) gets its own allowance."""
        fixed = len(evidence_json(spec.evidence)) // 2 + 16 if spec.evidence else 0
        return self.chat(
            messages,
            grammar=build_grammar(spec),
            max_tokens=max_tokens + fixed,
            temperature=temperature,
            on_token=on_token,
            cancel=cancel,
        )

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
        body: dict[str, object] = {
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
            "repeat_penalty": self.repeat_penalty,
        }
        if self.model:
            body["model"] = self.model
        if grammar:
            body["grammar"] = grammar
        req = urllib.request.Request(
            self.endpoint,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
            method="POST",
        )
        t0 = time.perf_counter()
        first_ms = 0.0
        pieces: list[str] = []
        finish: FinishReason = "stop"
        n_chunks = 0
        usage: dict[str, int] = {}
        try:
            resp = urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            detail = exc.read(500).decode("utf-8", "replace")
            raise RemoteBackendError(
                f"The llama.cpp server at {self.base_url} answered HTTP {exc.code}: {detail}"
            ) from exc
        except OSError as exc:  # URLError, timeouts, refused connections
            reason = getattr(exc, "reason", exc)
            raise RemoteBackendError(
                f"Cannot reach the llama.cpp server at {self.base_url}: {reason}"
            ) from exc
        try:
            with resp:
                for raw in resp:
                    if cancel is not None and cancel.cancelled:
                        finish = "cancelled"
                        break
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    try:
                        event = json.loads(payload)
                    except json.JSONDecodeError:
                        logger.warning("skipping unreadable server event: %.80s", payload)
                        continue
                    if "error" in event:
                        raise RemoteBackendError(f"The llama.cpp server failed: {event['error']}")
                    if isinstance(event.get("usage"), dict):
                        usage = event["usage"]
                    choices = event.get("choices") or []
                    if not choices:
                        continue
                    choice = choices[0]
                    piece = (choice.get("delta") or {}).get("content") or ""
                    if piece:
                        n_chunks += 1
                        if not first_ms:
                            first_ms = (time.perf_counter() - t0) * 1000
                        pieces.append(piece)
                        if on_token is not None:
                            on_token(piece)
                    if choice.get("finish_reason"):
                        finish = finish_reason(choice["finish_reason"])
        except OSError as exc:
            raise RemoteBackendError(
                f"The connection to {self.base_url} broke during generation: {exc}"
            ) from exc
        total_ms = (time.perf_counter() - t0) * 1000
        return GenerationResult(
            text="".join(pieces),
            finish_reason=finish,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", n_chunks)),
            first_token_ms=first_ms,
            total_ms=total_ms,
        )
