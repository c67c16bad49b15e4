"""Settings and per-user paths. One typed object; environment variables override (FOOTNOTE_*)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir, user_log_dir
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.location import LibraryLocation, is_remote, location_key, parse_location

APP_NAME = "Footnote"


def default_library_dir() -> LibraryLocation:
    """``$FOOTNOTE_LIBRARY`` if set (a folder or a URI such as s3://bucket/prefix), else the
    per-user data folder."""
    env = os.environ.get("FOOTNOTE_LIBRARY")
    if env:
        return parse_location(env)
    return user_library_dir()


def user_library_dir() -> Path:
    """The per-user library folder (the default when nothing names another)."""
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "library"


def user_state_dir() -> Path:
    """Per-user folder for what belongs to this desktop, not to a (possibly shared) library."""
    return Path(user_data_dir(APP_NAME, appauthor=False))


def converted_dir(location: LibraryLocation) -> Path:
    """Where the PDFs made from a library's other documents (EPUB, DOCX...) are kept: inside
    a local library's folder (they travel with it), else in this desktop's data folder."""
    location = parse_location(location)
    if is_remote(location):
        return user_state_dir() / "converted" / location_key(location)
    return Path(location) / "converted"


def log_dir() -> Path:
    env = os.environ.get("FOOTNOTE_LOG_DIR")
    return Path(env) if env else Path(user_log_dir(APP_NAME, appauthor=False))


class Settings(BaseSettings):
    """What a user can choose. ``None`` model paths mean the embedded defaults."""

    model_config = SettingsConfigDict(env_prefix="FOOTNOTE_", extra="ignore")

    library: Path | str = Field(
        default_factory=default_library_dir,
        description="Library folder, or a URI LanceDB supports (s3://bucket/prefix, gs://, az://).",
    )
    read_only: bool | None = Field(
        default=None,
        description="Open the library read-only; None = the front end decides (the desktop "
        "opens a team library on object storage read-only, the CLI writes).",
    )
    model: Path | None = Field(
        default=None, description="GGUF chat model; None = embedded default."
    )
    embedder: Path | None = Field(
        default=None, description="sentence-transformers folder; None = embedded default."
    )
    llm_url: str | None = Field(
        default=None, description="OpenAI-compatible llama.cpp server URL instead of a local model."
    )
    ocr: bool = Field(default=True, description="Read scanned pages with OCR (Tesseract).")
    ocr_languages: str = Field(
        default="eng", description="OCR languages, Tesseract names joined by '+' ('eng+deu')."
    )
    top_k: int = Field(default=8, ge=1, le=50)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    n_ctx: int = Field(default=4096, ge=512, le=131072)
    threads: int | None = Field(default=None, description="CPU threads; None = all cores.")
    sentence_vectors: bool = Field(
        default=False,
        description="Embed every sentence at ingestion too (stored beside the chunk vectors; "
        "1.5-1.8x the embedding work): the answer step looks sentences up instead of embedding "
        "them, and search can score a passage by its best sentence "
        "(FusionParams.sentence_weight). Off by default (app/retrieval/README.md, issue 31).",
    )
    isolate_parsing: bool = Field(
        default=True,
        description="Parse PDFs in a child process with a memory ceiling (see app.ingest.worker).",
    )

    @field_validator("library", mode="before")
    @classmethod
    def _location(cls, value: object) -> object:
        return parse_location(value) if isinstance(value, str | Path) else value
