"""A real OpenAI-compatible llama.cpp server for tests: ``python -m llama_cpp.server`` with the
embedded chat model on a free local port (fixture ``llama_server``).

That module needs the server extras (``llama-cpp-python[server]``: fastapi, uvicorn,
sse-starlette, starlette-context); without them a test that asks for the server is skipped,
saying so. The server writes uvicorn's access log to ``log``, so a test can tell that an
answer really went through it.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.core.resources import default_chat_model_path

CHAT_REQUEST = "POST /v1/chat/completions"


@dataclass(frozen=True)
class LlamaServer:
    url: str
    log: Path

    def chat_requests(self) -> int:
        """How many chat completions the server has answered so far (from its access log)."""
        return self.log.read_text(encoding="utf-8", errors="replace").count(CHAT_REQUEST)


def server_unavailable() -> str | None:
    """Why ``llama_cpp.server`` cannot start here, or None."""
    try:
        for mod in ("fastapi", "uvicorn", "sse_starlette", "starlette_context"):
            if importlib.util.find_spec(mod) is None:
                return f"llama_cpp.server needs {mod}: install llama-cpp-python[server]"
        import llama_cpp.server.app  # noqa: F401
    except ImportError as exc:
        return f"llama_cpp.server cannot import ({exc}); install llama-cpp-python[server]"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    reason = server_unavailable()
    if reason:
        pytest.skip(reason)
    port = free_port()
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
        yield LlamaServer(url=url, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
