"""--llm-url: the same grammar-constrained answer through a real OpenAI-compatible server.

The test starts ``python -m llama_cpp.server`` with the embedded model on a free local
port. That module needs the server extras (``llama-cpp-python[server]``: fastapi,
uvicorn, sse-starlette, starlette-context); without them the test is skipped, saying so.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import RemoteBackendError
from app.core.protocols import Embedder
from app.core.resources import default_chat_model_path
from app.generation import RemoteChatModel
from app.services.ask import AskService
from app.services.library import Library
from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _server_importable() -> str | None:
    try:
        for mod in ("fastapi", "uvicorn", "sse_starlette", "starlette_context"):
            if importlib.util.find_spec(mod) is None:
                return f"llama_cpp.server needs {mod}: install llama-cpp-python[server]"
        import llama_cpp.server.app  # noqa: F401
    except ImportError as exc:
        return f"llama_cpp.server cannot import ({exc}); install llama-cpp-python[server]"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    reason = _server_importable()
    if reason:
        pytest.skip(reason)
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(default_chat_model_path()),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/v1/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not start:\n{log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_remote_model_streams_grammar_constrained_output(server_url: str) -> None:
    model = RemoteChatModel(server_url)
    pieces: list[str] = []
    result = model.chat(
        [{"role": "user", "content": "Is the sky blue? Answer yes or no."}],
        grammar='root ::= "yes" | "no"',
        max_tokens=8,
        on_token=pieces.append,
    )
    assert result.text in ("yes", "no")
    assert "".join(pieces) == result.text
    assert result.finish_reason == "stop"


def test_ask_through_server_gives_proven_citations(
    server_url: str, tmp_path: Path, shared_embedder: Embedder
) -> None:
    settings = Settings(library=tmp_path / "library", llm_url=server_url)
    library = Library(settings, embedder=shared_embedder)
    library.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    service = AskService(library, settings)
    assert isinstance(service.model, RemoteChatModel)
    fact = MANUAL_FACTS["filter"]
    pieces: list[str] = []
    answer = service.ask(fact.question, on_token=pieces.append)
    assert answer.model.startswith("remote ")
    assert answer.kind in ("generated", "extractive", "refusal")
    if answer.kind != "refusal":
        assert answer.citations
        chunks = {c.chunk_id: c for c in library.chunks([c.chunk_id for c in answer.citations])}
        for c in answer.citations:
            assert chunks[c.chunk_id].text[c.start : c.end] == c.quote
            assert c.rects
    assert "{" not in "".join(pieces)


def test_unreachable_server_is_a_clear_error() -> None:
    model = RemoteChatModel(f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(RemoteBackendError, match="Cannot reach"):
        model.chat([{"role": "user", "content": "hi"}], max_tokens=4)
    with pytest.raises(RemoteBackendError, match="Not an http"):
        RemoteChatModel("ftp://example.invalid")
