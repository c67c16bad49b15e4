"""Integration fixtures: one real embedder per test session (loading it takes seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.protocols import Embedder


@pytest.fixture(scope="session")
def shared_embedder() -> Embedder:
    """The real default embedder (all-MiniLM-L6-v2), loaded once for the whole session."""
    from app.retrieval import SentenceTransformerEmbedder

    emb = SentenceTransformerEmbedder()
    emb.embed(["warm up"])
    return emb


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    return tmp_path / "library"


@pytest.fixture
def library(library_dir: Path, shared_embedder: Embedder) -> Iterator[object]:
    """A real Library (real LanceDB in tmp_path) using the shared real embedder."""
    from app.services.library import Library

    yield Library(Settings(library=library_dir), embedder=shared_embedder)


@pytest.fixture
def cli_embedder(shared_embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> Embedder:
    """Make in-process CLI runs reuse the session's real embedder instead of reloading it."""
    import app.retrieval

    monkeypatch.setattr(
        app.retrieval, "SentenceTransformerEmbedder", lambda *a, **k: shared_embedder
    )
    return shared_embedder
