"""The models/ folder: where model files are looked for, and the known-good catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.model_home import (
    MODELS_ENV,
    catalogue_entry_for,
    embedder_folders,
    load_catalogue,
    model_dirs,
    user_models_dir,
)
from app.core.resources import DEFAULT_CHAT_MODEL_FILE, REPO_ROOT

pytestmark = pytest.mark.unit


def test_catalogue_parses_and_is_sane() -> None:
    entries = load_catalogue()
    assert len(entries) >= 8
    names = [e.name for e in entries]
    assert len(set(names)) == len(names)
    for e in entries:
        assert e.n_ctx <= e.max_ctx, e.name
        assert e.file_glob.endswith(".gguf"), e.name
        assert "http" not in (e.notes + e.template).lower(), "the catalogue never names a download"


def test_the_embedded_default_is_in_the_catalogue() -> None:
    entry = catalogue_entry_for(Path(DEFAULT_CHAT_MODEL_FILE))
    assert entry is not None and entry.cites_alone is False
    assert catalogue_entry_for(Path("Qwen2.5-3B-Instruct-Q4_K_M.gguf")).n_ctx == 8192
    assert catalogue_entry_for(Path("my-own-finetune.gguf")) is None


def test_model_dirs_order_env_user_then_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv(MODELS_ENV, f"{a}:{b}")
    dirs = model_dirs()
    assert dirs[:2] == [a, b]
    assert dirs[2] == user_models_dir()
    assert dirs[-1] == REPO_ROOT / "models"
    assert user_models_dir().is_relative_to(tmp_path / "data")  # conftest points XDG_DATA_HOME here


def test_embedder_folders_are_found_by_modules_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "mine"
    (home / "good-embedder").mkdir(parents=True)
    (home / "good-embedder" / "modules.json").write_text("[]")
    (home / "not-a-model").mkdir()
    (home / "model.gguf").write_bytes(b"GGUF")
    monkeypatch.setenv(MODELS_ENV, str(home))
    assert embedder_folders() == [home / "good-embedder"]
