"""The home of model files: the folders Footnote looks in, and the catalogue of known-good models.

A person can drop a GGUF chat model, or a sentence-transformers folder, into any of
:func:`model_dirs` and it appears in Settings. The catalogue (``models/catalogue.toml``) says,
for models we know, which context size to set and what their chat template does; it never
names a download address (Footnote is offline).
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from functools import lru_cache
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field

from app.core.config import APP_NAME
from app.core.resources import REPO_ROOT, bundle_dir

MODELS_ENV = "FOOTNOTE_MODELS"
CATALOGUE_FILE = "catalogue.toml"


class CatalogueEntry(BaseModel):
    """One known-good GGUF chat model (see models/catalogue.toml for what each field means)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="What Settings shows.")
    file_glob: str = Field(description="Case-insensitive glob for the model's usual file names.")
    parameters: float = Field(gt=0, description="Billions of parameters.")
    quantisation: str = Field(description="Recommended quantisation on a CPU laptop.")
    ram_gb: float = Field(gt=0, description="Resident memory at n_ctx.")
    n_ctx: int = Field(ge=512, description="Context size to set in Settings.")
    max_ctx: int = Field(ge=512, description="Context length the model was trained for.")
    template: str = Field(description="Chat-template notes.")
    cites_alone: bool = Field(description="Strong enough to choose its own evidence sentences.")
    notes: str = ""

    def matches(self, filename: str) -> bool:
        return fnmatch.fnmatch(filename.lower(), self.file_glob.lower())


def user_models_dir() -> Path:
    """The per-user folder for models (created on demand by whoever writes to it)."""
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "models"


def model_dirs() -> list[Path]:
    """Every folder whose GGUF files and sentence-transformers folders appear in Settings.

    In order: ``$FOOTNOTE_MODELS`` (``os.pathsep``-separated), the per-user models folder,
    and the project's (or the bundle's) ``models/`` folder. Folders that do not exist are kept:
    callers skip them, and Settings can tell the user where to drop files.
    """
    dirs: list[Path] = []
    env = os.environ.get(MODELS_ENV, "")
    dirs += [Path(p).expanduser() for p in env.split(os.pathsep) if p.strip()]
    dirs.append(user_models_dir())
    dirs.append(_shipped_models_dir())
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _shipped_models_dir() -> Path:
    b = bundle_dir()
    return (b / "models") if b else REPO_ROOT / "models"


@lru_cache(maxsize=1)
def load_catalogue() -> tuple[CatalogueEntry, ...]:
    """The known-good models, in the catalogue's order."""
    path = _shipped_models_dir() / CATALOGUE_FILE
    with path.open("rb") as f:
        data = tomllib.load(f)
    return tuple(CatalogueEntry.model_validate(m) for m in data.get("model", []))


def catalogue_entry_for(model_path: Path) -> CatalogueEntry | None:
    """The catalogue's entry for a GGUF file, by its file name, or None for an unknown model."""
    for entry in load_catalogue():
        if entry.matches(model_path.name):
            return entry
    return None


def embedder_folders() -> list[Path]:
    """sentence-transformers folders (they hold ``modules.json``) directly inside the model dirs."""
    found: list[Path] = []
    for d in model_dirs():
        if not d.is_dir():
            continue
        for child in sorted(d.iterdir()):
            if child.is_dir() and (child / "modules.json").is_file():
                found.append(child)
    return found
