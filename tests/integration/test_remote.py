"""--llm-url: the same grammar-constrained answer through a real OpenAI-compatible server.

The server is ``python -m llama_cpp.server`` with the embedded model on a free local port
(fixture ``llama_server``, tests/llama_server.py); without the server extras the tests that
need it are skipped, saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import RemoteBackendError
from app.core.protocols import Embedder
from app.generation import RemoteChatModel
from app.services.ask import AskService
from app.services.library import Library
from app.validation.status_model import without_judgement
from tests.llama_server import LlamaServer, free_port
from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_remote_model_streams_grammar_constrained_output(llama_server: LlamaServer) -> None:
    model = RemoteChatModel(llama_server.url)
    model.warm_up()  # the server answers GET /v1/models
    pieces: list[str] = []
    before = llama_server.chat_requests()
    result = model.chat(
        [{"role": "user", "content": "Is the sky blue? Answer yes or no."}],
        grammar='root ::= "yes" | "no"',
        max_tokens=8,
        on_token=pieces.append,
    )
    assert result.text in ("yes", "no")
    assert "".join(pieces) == result.text
    assert result.finish_reason == "stop"
    assert llama_server.chat_requests() == before + 1  # the access log counts what it answered


def test_ask_through_server_gives_proven_citations(
    llama_server: LlamaServer, tmp_path: Path, shared_embedder: Embedder
) -> None:
    settings = Settings(library=tmp_path / "library", llm_url=llama_server.url)
    library = Library(settings, embedder=shared_embedder)
    library.ingest([make_manual_pdf(tmp_path / "manual.pdf")])
    service = AskService(library, settings)
    assert isinstance(service.model, RemoteChatModel)
    fact = MANUAL_FACTS["channels"]
    pieces: list[str] = []
    answer = service.ask(fact.question, on_token=pieces.append)
    assert answer.model == f"llama.cpp server at {llama_server.url}"
    assert answer.kind in ("generated", "extractive") and answer.citations
    chunks = {c.chunk_id: c for c in library.chunks([c.chunk_id for c in answer.citations])}
    for c in answer.citations:
        assert chunks[c.chunk_id].text[c.start : c.end] == c.quote
        assert c.rects
    assert "{" not in "".join(pieces)
    # a server gives no judgement: the status comes from the model fitted without one
    support = answer.validation.support
    assert support is not None and support.probability is not None
    assert "judgement" not in support.features and "judge" not in answer.timings_ms
    expected = without_judgement().probability(support.features)
    assert support.probability == pytest.approx(expected, abs=1e-4)


def test_unreachable_server_is_a_clear_error() -> None:
    model = RemoteChatModel(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(RemoteBackendError, match="Cannot reach"):
        model.warm_up()  # said when the front end starts, not only at the first answer
    with pytest.raises(RemoteBackendError, match="Cannot reach"):
        model.chat([{"role": "user", "content": "hi"}], max_tokens=4)
    with pytest.raises(RemoteBackendError, match="Not an http"):
        RemoteChatModel("ftp://example.invalid")
