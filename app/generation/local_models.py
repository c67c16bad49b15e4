"""GGUF models already on this machine, where other local-LLM apps keep them.

Why: a person who has LM Studio, GPT4All or Ollama usually has a better model than the tiny
embedded one; Settings lists these so it is one click to use. Only the local disk is read
(no network, no downloads), each file's header only (:mod:`app.generation.gguf_header`).

Places (Linux paths; macOS and Windows equivalents are included where the apps use them):
LM Studio ``~/.lmstudio/models`` (older ``~/.cache/lm-studio/models``), GPT4All's data folder,
Ollama's ``models/manifests`` + ``models/blobs`` (``OLLAMA_MODELS`` overrides), the Hugging
Face cache (``HF_HUB_CACHE`` / ``HF_HOME``), and Footnote's own model folders
(:func:`app.core.model_home.model_dirs`: ``$FOOTNOTE_MODELS``, the per-user folder, ``models/``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.core.model_home import model_dirs
from app.generation.gguf_header import GGUFInfo, NotGGUFError, read_gguf

logger = logging.getLogger(__name__)

MAX_DEPTH = 6  # folders below a root to look into (LM Studio: publisher/repo/file.gguf)
MAX_FILES = 500  # a safety net against scanning a whole disk
FOOTNOTE_SOURCE = "Footnote models folder"  # app.core.model_home.model_dirs()


@dataclass(frozen=True)
class LocalModel:
    """A GGUF file found on this machine and the app that keeps it."""

    info: GGUFInfo
    source: str  # "LM Studio", "GPT4All", "Ollama", "Hugging Face cache", FOOTNOTE_SOURCE
    label: str  # Ollama's "llama3.2:3b"; else the file name

    @property
    def path(self) -> Path:
        return self.info.path


def default_places(
    home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[str, Path]]:
    """(source, folder) pairs to search, most specific first."""
    home = home or Path.home()
    env = os.environ if env is None else env
    xdg_data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    hf_home = Path(env.get("HF_HOME") or home / ".cache" / "huggingface")
    hf_cache = Path(env.get("HF_HUB_CACHE") or hf_home / "hub")
    places = [
        ("LM Studio", home / ".lmstudio" / "models"),
        ("LM Studio", home / ".cache" / "lm-studio" / "models"),
        ("GPT4All", xdg_data / "nomic.ai" / "GPT4All"),
        ("GPT4All", home / "Library" / "Application Support" / "nomic.ai" / "GPT4All"),
        ("GPT4All", home / "AppData" / "Local" / "nomic.ai" / "GPT4All"),
        ("Hugging Face cache", hf_cache),
    ]
    places += [(FOOTNOTE_SOURCE, d) for d in model_dirs()]
    return places


def ollama_roots(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    home = home or Path.home()
    env = os.environ if env is None else env
    roots = [Path(env["OLLAMA_MODELS"])] if env.get("OLLAMA_MODELS") else []
    roots += [home / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]
    return roots


def _walk_gguf(root: Path) -> Iterator[Path]:
    """*.gguf files under ``root`` (symlinks followed once, as the HF cache uses them)."""
    base_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if len(Path(dirpath).parts) - base_depth >= MAX_DEPTH:
            dirnames[:] = []
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "blobs"]
        for name in filenames:
            if name.lower().endswith(".gguf"):
                yield Path(dirpath) / name


def _ollama_models(root: Path) -> Iterator[tuple[str, Path]]:
    """(name:tag, blob) for each Ollama manifest whose model layer is a stored blob."""
    manifests = root / "manifests"
    if not manifests.is_dir():
        return
    for manifest in manifests.rglob("*"):
        if not manifest.is_file():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        layers = data.get("layers") if isinstance(data, dict) else None
        for layer in layers or []:
            if not isinstance(layer, dict):
                continue
            if layer.get("mediaType") != "application/vnd.ollama.image.model":
                continue
            digest = str(layer.get("digest", "")).replace(":", "-")
            blob = root / "blobs" / digest
            if digest and blob.is_file():
                rel = manifest.relative_to(manifests).parts  # host/namespace/model/tag
                model, tag = (rel[-2], rel[-1]) if len(rel) >= 2 else (rel[-1], "latest")
                namespace = rel[-3] if len(rel) >= 3 and rel[-3] != "library" else ""
                yield (f"{namespace}/{model}:{tag}" if namespace else f"{model}:{tag}"), blob


def find_local_models(
    places: list[tuple[str, Path]] | None = None,
    ollama: list[Path] | None = None,
    exclude: set[Path] | None = None,
) -> list[LocalModel]:
    """Every readable GGUF model in ``places`` and Ollama's stores, each file once."""
    places = default_places() if places is None else places
    ollama = ollama_roots() if ollama is None else ollama
    seen: set[Path] = {p.resolve() for p in exclude or set()}
    out: list[LocalModel] = []

    def add(source: str, path: Path, label: str) -> None:
        try:
            real = path.resolve()
        except OSError:
            return
        if real in seen or len(out) >= MAX_FILES:
            return
        seen.add(real)
        try:
            info = read_gguf(path)
        except NotGGUFError as exc:
            logger.info("skipping %s: %s", path, exc)
            return
        out.append(LocalModel(info, source, label))

    for root in ollama:
        if root.is_dir():
            for label, blob in _ollama_models(root):
                add("Ollama", blob, label)
    for source, root in places:
        if root.is_dir():
            for path in _walk_gguf(root):
                add(source, path, path.name)
    out.sort(key=lambda m: (m.source, m.label.lower()))
    logger.info("found %d local GGUF model(s)", len(out))
    return out
