"""Use cases shared by the CLI and the desktop app (synchronous, Qt-free)."""

from __future__ import annotations

from typing import Any

from app.services.library import Library

__all__ = ["AskService", "Library"]


def __getattr__(name: str) -> Any:
    # AskService lives in its own module (owned by the ask/generation work); import it
    # lazily so `footnote docs` does not pay for generation imports.
    if name == "AskService":
        from app.services.ask import AskService

        return AskService
    raise AttributeError(name)
