"""Shared fixtures. Every test gets its own library and settings folder under tmp_path."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

# The S3-compatible test server (moto) for team-library tests: fixtures s3_server, s3_library.
# A real llama.cpp server (llama_cpp.server) for --llm-url / FOOTNOTE_LLM_URL: llama_server.
pytest_plugins = ["tests.s3_server", "tests.llama_server"]


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """On a hard crash (SIGSEGV in native code) print the crashing thread's stack alone.

    pytest's faulthandler prints every thread, newest first: with a dozen threads alive (Qt
    pools, LanceDB's loop, watchdog, llama.cpp) the crashing one is lost in the middle of a
    long dump, and CI keeps only the dump's beginning and end. Set on the same stream as
    pytest's (a copy of stderr taken before output capture), after it."""
    import faulthandler
    import sys

    faulthandler.enable(file=os.dup(sys.stderr.fileno()), all_threads=False)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the library, logs and Qt settings at tmp_path so no test touches real user data."""
    monkeypatch.setenv("FOOTNOTE_LIBRARY", str(tmp_path / "library"))
    monkeypatch.setenv("FOOTNOTE_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture
def data_dir() -> Path:
    return DATA
