"""Use cases shared by the CLI and the desktop app (synchronous, Qt-free)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.services.ask import AskService
    from app.services.library import Library

__all__ = ["AskService", "Library"]


def __getattr__(name: str) -> Any:
    # Both use cases are imported on first use: importing any module of this package (the
    # desktop window imports services.ingest_process before it shows) must not pay for
    # LanceDB (~1.8 s) or the generation stack.
    if name == "AskService":
        from app.services.ask import AskService

        return AskService
    if name == "Library":
        from app.services.library import Library

        return Library
    raise AttributeError(name)
