"""The one place that decides which chat model the settings name (paper-qa's ``get_llm()``).

Services ask for a model here and talk to it only through
:class:`app.core.protocols.ChatModel`; no use case constructs a concrete model class.
"""

from __future__ import annotations

from pathlib import Path

from app.core.config import Settings
from app.core.protocols import ChatModel
from app.generation.llama_model import LlamaChatModel
from app.generation.remote import RemoteChatModel


def chat_model_from_settings(settings: Settings) -> ChatModel:
    """A llama.cpp server when ``llm_url`` is set, else the GGUF at ``model`` (None: the
    embedded default). Light: nothing is loaded until ``warm_up()`` or the first answer."""
    if settings.llm_url:
        return RemoteChatModel(settings.llm_url)
    return LlamaChatModel(settings.model, n_ctx=settings.n_ctx, threads=settings.threads)


def local_chat_model(settings: Settings, path: Path | None) -> ChatModel:
    """The GGUF at ``path`` (None: the embedded default) with the settings' context and
    threads, whatever ``llm_url`` says: what a user picks in Settings or with ``--model``."""
    return chat_model_from_settings(settings.model_copy(update={"model": path, "llm_url": None}))
