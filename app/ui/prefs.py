"""User preferences persisted with QSettings (organisation "Footnote") and turned into ``Settings``.

Why a separate module: the settings dialog, the main window and the entry point all need the
same precedence rules. Precedence: command line (``--library``) > ``FOOTNOTE_*`` environment
variables > values saved from the Settings dialog > built-in defaults.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from app.core.config import Settings

logger = logging.getLogger(__name__)

ORG = "Footnote"
APP = "Footnote"
# Settings field -> QSettings key.
_KEYS = {
    "model": "models/chat",
    "embedder": "models/embedder",
    "top_k": "answer/top_k",
    "temperature": "answer/temperature",
    "n_ctx": "answer/n_ctx",
    "library": "library/folder",
    "ocr": "ingest/ocr",
}


def qsettings() -> QSettings:
    return QSettings(ORG, APP)


def _env_set(field: str) -> bool:
    return bool(os.environ.get(f"FOOTNOTE_{field.upper()}"))


def load_settings(library: Path | None = None) -> Settings:
    """Build the effective ``Settings`` for the GUI."""
    base = Settings()
    qs = qsettings()
    updates: dict[str, Any] = {}
    for field, key in _KEYS.items():
        if _env_set(field) or not qs.contains(key):
            continue
        raw = qs.value(key)
        if raw in (None, ""):
            continue
        updates[field] = raw
    if library is not None:
        updates["library"] = library
    if not updates:
        return base
    data = base.model_dump()
    data.update(updates)
    try:
        return Settings.model_validate(data)
    except Exception:  # a corrupt preference must not stop the app starting
        logger.exception("ignoring invalid saved settings %r", updates)
        return base if library is None else base.model_copy(update={"library": library})


def save_settings(settings: Settings) -> None:
    """Persist what the Settings dialog edits."""
    qs = qsettings()
    for field, key in _KEYS.items():
        value = getattr(settings, field)
        qs.setValue(key, "" if value is None else str(value))
    qs.sync()


def recent_models() -> list[str]:
    value = qsettings().value("models/recent", [])
    if isinstance(value, str):
        value = [value]
    return [v for v in (value or []) if isinstance(v, str) and v]


def remember_model(path: Path) -> None:
    items = [str(path)] + [m for m in recent_models() if m != str(path)]
    qs = qsettings()
    qs.setValue("models/recent", items[:8])
    qs.sync()


def forget_model(path: Path) -> None:
    """Drop a model that failed to load from the recent list (it must not be offered again)."""
    items = [m for m in recent_models() if m != str(path)]
    qs = qsettings()
    qs.setValue("models/recent", items)
    qs.sync()


APPEARANCE_KEY = "view/appearance"


def appearance() -> str:
    """ "system" (follow it), "light" or "dark": View → Appearance."""
    value = qsettings().value(APPEARANCE_KEY, "system")
    return value if value in ("system", "light", "dark") else "system"


def save_appearance(mode: str) -> None:
    qs = qsettings()
    qs.setValue(APPEARANCE_KEY, mode)
    qs.sync()


def recent_libraries() -> list[str]:
    """Libraries opened in this window before, newest first (folders or team-library URIs)."""
    value = qsettings().value("library/recent", [])
    if isinstance(value, str):
        value = [value]
    return [v for v in (value or []) if isinstance(v, str) and v]


def remember_library(location: Path | str) -> None:
    """Put ``location`` first in the recent libraries (at most 8; URIs kept without their
    credentials or query string)."""
    from app.core.location import redact

    text = redact(location)
    items = [text] + [v for v in recent_libraries() if v != text]
    qs = qsettings()
    qs.setValue("library/recent", items[:8])
    qs.sync()
