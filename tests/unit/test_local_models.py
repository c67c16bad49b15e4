"""The GGUF header reader and the scanner of other apps' model folders, on GGUF files written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.resources import default_chat_model_path
from app.generation.gguf_header import NotGGUFError, human_size, is_gguf, read_gguf
from app.generation.local_models import FOOTNOTE_SOURCE, default_places, find_local_models
from tests.gguf_factory import llama_meta, write_gguf

pytestmark = pytest.mark.unit


def test_reads_name_quantisation_context_and_size(tmp_path: Path) -> None:
    f = write_gguf(tmp_path / "tiny.gguf", llama_meta("Tiny Llama Instruct", ftype=15), pad=1000)
    info = read_gguf(f)
    assert (info.name, info.architecture, info.quantization) == (
        "Tiny Llama Instruct",
        "llama",
        "Q4_K_M",
    )
    assert info.size_label == "1B" and info.context_length == 4096
    assert info.file_size == f.stat().st_size and info.version == 3
    assert info.summary.startswith("Tiny Llama Instruct · 1B · Q4_K_M · ")


def test_version_1_header_and_missing_name(tmp_path: Path) -> None:
    meta = {"general.architecture": "gpt2", "general.file_type": 7}
    info = read_gguf(write_gguf(tmp_path / "old-model.gguf", meta, version=1))
    assert info.name == "old-model" and info.quantization == "Q8_0" and info.context_length is None


@pytest.mark.parametrize(
    "data, words",
    [
        (b"PK\x03\x04 not a model", "not a GGUF"),
        (b"GGUF\x09\x00\x00\x00", "unsupported GGUF version"),
        (b"GGUF\x03\x00\x00\x00\x00", "cut short"),
    ],
)
def test_not_gguf_is_a_clear_error(tmp_path: Path, data: bytes, words: str) -> None:
    f = tmp_path / "bad.gguf"
    f.write_bytes(data)
    with pytest.raises(NotGGUFError, match=words):
        read_gguf(f)
    assert is_gguf(f) == data.startswith(b"GGUF")


def test_truncated_inside_a_value(tmp_path: Path) -> None:
    f = write_gguf(tmp_path / "cut.gguf", llama_meta())
    f.write_bytes(f.read_bytes()[:60])
    with pytest.raises(NotGGUFError):
        read_gguf(f)


def test_the_embedded_model_header_agrees_with_its_file_name() -> None:
    info = read_gguf(default_chat_model_path())
    assert info.quantization == "Q4_1"  # SmolLM2-135M-Instruct.Q4_1.gguf
    assert info.architecture == "llama" and (info.context_length or 0) >= 2048


def test_human_size() -> None:
    assert human_size(4_900_000_000) == "4.9 GB"
    assert human_size(81_000_000) == "81.0 MB"


def _ollama(root: Path, model: str, tag: str, blob: Path) -> None:
    digest = "sha256:" + "ab" * 32
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    blob.rename(root / "blobs" / digest.replace(":", "-"))
    manifest = root / "manifests" / "registry.ollama.ai" / "library" / model / tag
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        json.dumps(
            {
                "layers": [
                    {"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:00"},
                    {"mediaType": "application/vnd.ollama.image.model", "digest": digest},
                ]
            }
        )
    )


def test_finds_models_of_every_app_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"XDG_DATA_HOME": str(home / ".local" / "share")}
    write_gguf(home / ".lmstudio/models/pub/repo/lm.Q4_K_M.gguf", llama_meta("LM model"))
    write_gguf(home / ".local/share/nomic.ai/GPT4All/gpt.gguf", llama_meta("GPT4All model", 2))
    hub = home / ".cache/huggingface/hub/models--org--m"
    blob = write_gguf(hub / "blobs" / ("cd" * 20), llama_meta("HF model", 7))
    snap = hub / "snapshots" / "rev1"
    snap.mkdir(parents=True)
    (snap / "m.Q8_0.gguf").symlink_to(blob)
    (snap / "same-again.gguf").symlink_to(blob)  # one file, listed once
    (home / ".lmstudio/models/pub/repo/broken.gguf").write_bytes(b"not a model")
    raw = write_gguf(tmp_path / "ollama-blob", llama_meta("Ollama model", 15))
    _ollama(home / ".ollama/models", "llama3.2", "3b", raw)

    found = find_local_models(default_places(home, env), [home / ".ollama" / "models"])
    by_source = {m.source: m for m in found}
    assert set(by_source) == {"LM Studio", "GPT4All", "Hugging Face cache", "Ollama"}
    assert by_source["Ollama"].label == "llama3.2:3b"
    assert by_source["Ollama"].info.name == "Ollama model"
    assert by_source["GPT4All"].info.quantization == "Q4_0"
    assert by_source["Hugging Face cache"].info.quantization == "Q8_0"
    assert len([m for m in found if m.source == "Hugging Face cache"]) == 1
    assert all(m.info.name != "broken" for m in found)


def test_nothing_installed_finds_nothing(tmp_path: Path) -> None:
    places = [p for p in default_places(tmp_path, {}) if p[0] != FOOTNOTE_SOURCE]
    assert find_local_models(places, [tmp_path / "none"]) == []


def test_footnote_model_folders_are_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "my-models"
    write_gguf(mine / "qwen.Q4_K_M.gguf", llama_meta("Qwen small", 15))
    monkeypatch.setenv("FOOTNOTE_MODELS", str(mine))
    places = [p for p in default_places(tmp_path, {}) if p[0] == FOOTNOTE_SOURCE]
    found = find_local_models(places, [])
    assert [m.info.name for m in found] == ["Qwen small"]
