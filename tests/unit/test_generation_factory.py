"""One factory builds the chat model the settings name; every model honours the protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.protocols import ChatModel
from app.core.resources import default_chat_model_path
from app.generation import (
    LlamaChatModel,
    RemoteChatModel,
    chat_model_from_settings,
    local_chat_model,
)

pytestmark = pytest.mark.unit


def test_default_settings_give_the_embedded_model_unloaded(tmp_path: Path) -> None:
    model = chat_model_from_settings(Settings(library=tmp_path, n_ctx=2048, threads=1))
    assert isinstance(model, LlamaChatModel) and isinstance(model, ChatModel)
    assert not model.loaded  # light construction: loading waits for warm_up()
    assert (model.n_ctx, model.threads) == (2048, 1)
    assert model.path == default_chat_model_path()
    assert not model.chooses_evidence  # the embedded 135M model: the ranker picks evidence


def test_a_users_gguf_chooses_its_own_evidence(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    model = chat_model_from_settings(Settings(library=tmp_path, model=gguf))
    assert isinstance(model, LlamaChatModel) and model.path == gguf
    assert model.chooses_evidence and model.name == "mine.gguf"


def test_llm_url_gives_a_remote_model(tmp_path: Path) -> None:
    settings = Settings(library=tmp_path, llm_url="http://127.0.0.1:9/v1")
    model = chat_model_from_settings(settings)
    assert isinstance(model, RemoteChatModel) and isinstance(model, ChatModel)
    assert model.base_url == "http://127.0.0.1:9" and model.chooses_evidence
    assert model.name == "llama.cpp server at http://127.0.0.1:9"  # shown as the model
    model.cache_prefix([{"role": "system", "content": "x"}])  # the server keeps its own cache


def test_local_chat_model_ignores_llm_url(tmp_path: Path) -> None:
    settings = Settings(library=tmp_path, llm_url="http://127.0.0.1:9", n_ctx=1024)
    gguf = tmp_path / "other.gguf"
    model = local_chat_model(settings, gguf)
    assert isinstance(model, LlamaChatModel)
    assert (model.path, model.n_ctx) == (gguf, 1024)
    assert settings.llm_url and settings.model is None  # the caller's settings are untouched


def test_warm_up_reports_a_bad_file(tmp_path: Path) -> None:
    from app.core.errors import ModelLoadError

    bad = tmp_path / "notes.gguf"
    bad.write_text("not a model", encoding="utf-8")
    model = chat_model_from_settings(Settings(library=tmp_path, model=bad))
    with pytest.raises(ModelLoadError, match="not a GGUF"):
        model.warm_up()
