"""AskService flow with a scripted chat model and an in-memory library (real validator).

The fakes (tests/fakes.py) stand in for retrieval and the LLM only, so each path of the service (good
answer, repair, extractive fallback, refusal, cancel, empty library) can be driven
deterministically. The real model and library are exercised in tests/integration.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import Cancelled, ModelLoadError, RemoteBackendError
from app.core.progress import CancelToken
from app.core.protocols import ChatModel
from app.core.resources import DEFAULT_CHAT_MODEL_NAME
from app.services.ask import EMPTY_LIBRARY_TEXT, REFUSAL_TEXT, AskService
from app.services.metrics import reset_metrics
from app.validation.status_model import shipped
from tests.fakes import FakeLibrary, HashEmbedder, ScriptedModel

pytestmark = pytest.mark.unit

TEXTS = [
    "The Zephyr 3000 records up to 64 channels. It samples at 200 samples per second. "
    "The housing is made of aluminium.",
    "Clean the air filter every 90 days with a soft brush. Never use water on the filter.",
]


def _json(mode: str, answer: str, cites: list[tuple[int, str]]) -> str:
    return json.dumps(
        {"mode": mode, "citations": [{"source": n, "quote": q} for n, q in cites], "answer": answer}
    )


GOOD = _json(
    "answer",
    "The Zephyr 3000 records up to 64 channels [1].",
    [(1, "The Zephyr 3000 records up to 64 channels.")],
)


@pytest.fixture
def lib(tmp_path: Path) -> FakeLibrary:
    return FakeLibrary(TEXTS, tmp_path)


def test_good_answer_streams_only_answer_text(lib: FakeLibrary) -> None:
    reg = reset_metrics()
    model = ScriptedModel([GOOD])
    tokens: list[str] = []
    a = AskService(lib, chat_model=model).ask(
        "How many channels does the Zephyr record?", on_token=tokens.append
    )
    assert a.kind == "generated" and a.mode == "answer"
    assert a.validation.status == "GREEN" and not a.validation.repaired
    assert "".join(tokens) == "The Zephyr 3000 records up to 64 channels [1]."
    assert [(c.n, c.quote, c.match) for c in a.citations] == [
        (1, "The Zephyr 3000 records up to 64 channels.", "exact")
    ]
    assert [s.n for s in a.sources] == [1, 2]
    assert set(a.timings_ms) >= {"retrieve", "first_token", "generate", "validate", "total"}
    assert a.timings_ms["first_token"] > 0
    assert len(model.calls) == 1 and model.grammars[0] and "quote-1" in model.grammars[0]
    text = reg.render()
    assert 'footnote_validations_total{status="GREEN"} 1.0' in text
    assert 'footnote_answers_total{kind="generated"} 1.0' in text


def test_red_answer_is_repaired_once(lib: FakeLibrary) -> None:
    bad = _json("answer", "It has 99 channels [1].", [(1, "It has 99 channels.")])
    model = ScriptedModel([bad, GOOD])
    a = AskService(lib, chat_model=model).ask("How many channels?")
    assert a.kind == "generated" and a.validation.repaired
    assert len(model.calls) == 2
    repair = model.calls[1]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "[1]" in repair[-1]["content"] and repair[2]["content"] == bad


def test_looping_answer_falls_back_to_cited_quotes(lib: FakeLibrary) -> None:
    loop = "The channels are the channels of the channels. " * 6
    looping = _json("answer", loop + "[1]", [(1, "The Zephyr 3000 records up to 64 channels.")])
    model = ScriptedModel([looping, looping])
    a = AskService(lib, chat_model=model).ask("How many channels does the Zephyr record?")
    assert a.kind == "extractive" and a.mode == "answer"
    # the quote answers the question (a number of channels): GREEN, in the document's words
    assert a.validation.status == "GREEN" and not a.validation.repaired
    assert a.validation.support is not None and a.validation.support.missing == []
    assert len(model.calls) == 1  # a loop is not retried: greedy decoding would loop again
    assert [c.quote for c in a.citations] == ["The Zephyr 3000 records up to 64 channels."]
    assert "64 channels" in a.answer and "[1]" in a.answer
    assert any("could not be verified" in f for f in a.validation.flags)


def test_unparseable_output_falls_back_to_relevant_sentences(lib: FakeLibrary) -> None:
    cut = '{"mode": "answer", "citations": [{"source": 2, "quote": "Clean the'
    model = ScriptedModel([cut, cut])
    a = AskService(lib, chat_model=model).ask("How often must the air filter be cleaned?")
    assert a.kind == "extractive"
    assert a.citations and a.citations[0].quote.startswith("Clean the air filter every 90 days")
    assert all(c.quote in TEXTS[c.n - 1] for c in a.citations)


def test_red_twice_falls_back_to_extractive(lib: FakeLibrary) -> None:
    bad = _json("answer", "It has 99 channels [1].", [(1, "It has 99 channels.")])
    model = ScriptedModel([bad, bad])
    a = AskService(lib, chat_model=model).ask("How many channels does the Zephyr record?")
    assert len(model.calls) == 2
    assert a.kind == "extractive" and a.validation.repaired
    assert a.citations and all(c.quote in TEXTS[c.n - 1] for c in a.citations)
    assert "64 channels" in a.answer
    assert {d.reason for d in a.validation.dropped} >= {"quote_not_found"}


def test_model_refusal_is_reported_as_refusal(lib: FakeLibrary) -> None:
    model = ScriptedModel([_json("refuse", "Not in the sources.", [])])
    a = AskService(lib, chat_model=model).ask("What is the housing of the Zephyr made of?")
    assert (a.kind, a.mode) == ("refusal", "refuse")
    # the refusal says why in words: what the closest passages (listed with it) lack
    assert a.answer == (
        "The documents don't answer this: the closest passages don't mention \u2018Zephyr\u2019."
    )
    assert REFUSAL_TEXT not in a.answer
    assert not a.citations
    support = a.validation.support
    assert support is not None and support.closest  # passages to check by hand


def test_concept_absent_from_the_library_refuses_before_generation(lib: FakeLibrary) -> None:
    model = ScriptedModel([])
    a = AskService(lib, chat_model=model).ask("Who painted the Mona Lisa?")
    assert model.calls == []
    assert a.kind == "refusal"
    assert a.answer == (
        "No passage in your library mentions \u2018painted\u2019, \u2018Mona\u2019 or \u2018Lisa\u2019."
    )
    assert a.validation.support is not None and a.validation.support.absent


def test_empty_library_refuses_without_the_model(tmp_path: Path) -> None:
    model = ScriptedModel([])
    a = AskService(FakeLibrary([], tmp_path), chat_model=model).ask("Anything?")
    assert a.kind == "refusal" and a.answer == EMPTY_LIBRARY_TEXT
    assert model.calls == []


def test_cancel_raises_cancelled(lib: FakeLibrary) -> None:
    stop = CancelToken()
    model = ScriptedModel([GOOD], cancel_after=10, press_stop=stop)
    with pytest.raises(Cancelled):
        AskService(lib, chat_model=model).ask("How many channels?", cancel=stop)
    assert len(model.calls) == 1  # the model saw the caller's Stop through the composed token


def test_stopping_a_loop_leaves_the_callers_token_alone(lib: FakeLibrary) -> None:
    loop = "The channels are the channels of the channels. " * 6
    model = ScriptedModel([_json("answer", loop + "[1]", [(1, TEXTS[0].split(". ")[0] + ".")])])
    caller = CancelToken()
    tokens: list[str] = []
    a = AskService(lib, chat_model=model).ask(
        "How many channels?", cancel=caller, on_token=tokens.append
    )
    assert a.kind == "extractive" and not caller.cancelled
    assert len("".join(tokens)) < len(loop)  # generation stopped early


def test_scripted_model_satisfies_the_protocol() -> None:
    assert isinstance(ScriptedModel([]), ChatModel)


def test_bad_model_file_keeps_previous_model(lib: FakeLibrary, tmp_path: Path) -> None:
    model = ScriptedModel([GOOD])
    service = AskService(lib, chat_model=model)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"this is not a model")
    with pytest.raises(ModelLoadError, match="not a GGUF"):
        service.load_model(bad)
    with pytest.raises(ModelLoadError, match="not found"):
        service.load_model(tmp_path / "missing.gguf")
    assert service.model is model
    assert service.ask("How many channels?").kind == "generated"


def test_ranked_evidence_gate_and_fixed_citations(lib: FakeLibrary) -> None:
    model = ScriptedModel(
        [
            _json(
                "answer",
                "Every 90 days [2].",
                [(2, "Clean the air filter every 90 days with a soft brush.")],
            )
        ]
    )
    service = AskService(lib, chat_model=model, evidence="ranked")
    refused = service.ask("Who painted the Mona Lisa?")
    assert refused.kind == "refusal" and model.calls == []  # nothing relevant: no model call
    a = service.ask("How often must the air filter be cleaned?")
    grammar = model.grammars[0] or ""
    assert "Clean the air filter every 90 days with a soft brush." in grammar
    assert "refuse-obj" not in grammar  # the ranker decided: the model only words the answer
    assert a.kind == "generated" and a.citations[0].quote.startswith("Clean the air filter")


def test_ranked_answer_straying_from_evidence_shows_the_evidence(lib: FakeLibrary) -> None:
    stray = _json(
        "answer",
        "Filters are replaced by the dealer once a year [2].",
        [(2, "Clean the air filter every 90 days with a soft brush.")],
    )
    model = ScriptedModel([stray])
    a = AskService(lib, chat_model=model, evidence="ranked").ask(
        "How often must the air filter be cleaned?"
    )
    assert a.kind == "extractive" and len(model.calls) == 1
    assert [c.quote for c in a.citations] == [
        "Clean the air filter every 90 days with a soft brush."
    ]
    assert "dealer" not in a.answer


def test_auto_evidence_follows_the_model(lib: FakeLibrary) -> None:
    """The ranker picks the evidence exactly when the model says it does not choose well."""
    q = "How often must the air filter be cleaned?"
    answer = _json("answer", "Every 90 days [2].", [(2, TEXTS[1].split(". ")[0] + ".")])
    small = ScriptedModel([answer], chooses_evidence=False)
    AskService(lib, chat_model=small).ask(q)
    assert small.specs[0].evidence and small.max_tokens == [96]
    big = ScriptedModel([answer], chooses_evidence=True)
    AskService(lib, chat_model=big).ask(q)
    assert big.specs[0].evidence == () and big.max_tokens == [384]


def test_warm_up_loads_and_caches_the_system_prompt_once_per_question(lib: FakeLibrary) -> None:
    model = ScriptedModel([GOOD])
    service = AskService(lib, chat_model=model)
    service.warm_up()
    assert model.warmed == 1 and [m["role"] for m in model.cached[0]] == ["system"]
    service.ask("How many channels?")
    assert model.cached[1] == model.cached[0]  # the same constant prefix every time


def test_progress_reports_each_step(lib: FakeLibrary) -> None:
    stages: list[tuple[str, int]] = []
    AskService(lib, chat_model=ScriptedModel([GOOD])).ask(
        "How many channels?", on_progress=lambda p: stages.append((p.stage, p.done))
    )
    assert stages == [
        ("retrieve", 0),
        ("retrieve", 1),
        ("load_model", 0),
        ("load_model", 1),
        ("generate", 0),
        ("generate", 1),
    ]


def test_model_comes_from_the_settings(tmp_path: Path) -> None:
    from app.generation import LlamaChatModel, RemoteChatModel

    local = AskService(FakeLibrary(TEXTS, tmp_path))
    assert isinstance(local.model, LlamaChatModel) and not local.model.loaded
    remote_settings = Settings(library=tmp_path / "lib", llm_url="http://127.0.0.1:9")
    remote = AskService(FakeLibrary(TEXTS, tmp_path), remote_settings)
    assert isinstance(remote.model, RemoteChatModel)


@contextmanager
def models_endpoint() -> Iterator[str]:
    """A real HTTP server on a free local port that answers ``GET /v1/models`` (all a
    server model's warm-up asks), for as long as the block runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"object": "list", "data": []}'
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_reload_model_follows_the_settings(lib: FakeLibrary, tmp_path: Path) -> None:
    from app.generation import RemoteChatModel

    settings = Settings(library=tmp_path / "lib", llm_url="http://127.0.0.1:9")
    service = AskService(lib, settings, chat_model=ScriptedModel([GOOD]))
    with pytest.raises(RemoteBackendError, match="Cannot reach"):  # nothing listens on port 9
        service.reload_model()
    assert isinstance(service.model, ScriptedModel), "an unreachable server keeps the model"
    with models_endpoint() as url:  # something answers at the URL now
        settings.llm_url = url
        service.reload_model()
    assert isinstance(service.model, RemoteChatModel)
    assert service.model.base_url == url
    settings.llm_url, settings.model = None, tmp_path / "missing.gguf"
    with pytest.raises(ModelLoadError, match="not found"):
        service.reload_model()
    assert isinstance(service.model, RemoteChatModel), "a bad file keeps the previous model"


@pytest.mark.parametrize(("always", "matters", "asked"), [(False, False, 0), (False, True, 1),
                                                          (True, False, 1)])  # fmt: skip
def test_the_model_is_asked_for_its_judgement_only_when_it_could_change_the_status(
    lib: FakeLibrary, monkeypatch: pytest.MonkeyPatch, always: bool, matters: bool, asked: int
) -> None:
    from app.services import verdict

    monkeypatch.setattr(verdict, "judgement_matters", lambda *a, **k: matters)
    model = ScriptedModel([GOOD])
    a = AskService(lib, chat_model=model, always_judge=always).ask(
        "How many channels does the Zephyr record?"
    )
    assert a.kind == "generated" and len(model.judged) == asked
    assert ("judge" in a.timings_ms) == bool(asked)


class JudgingModel(ScriptedModel):
    """A scripted model with a judgement of its own (``p``: its P("yes"), None: none)."""

    def __init__(self, outputs: list[str], *, name: str, p: float | None) -> None:
        super().__init__(outputs)
        self.name, self.p = name, p

    def judge(self, messages: list[dict[str, str]], reply: str | None, query: str) -> float | None:
        super().judge(messages, reply, query)
        return self.p


@pytest.mark.parametrize(
    ("name", "p", "weighed"),
    [
        (DEFAULT_CHAT_MODEL_NAME, 0.4, True),  # the model the judgement was fitted with
        (DEFAULT_CHAT_MODEL_NAME, None, False),  # ... whose judgement could not be read
        ("Llama-3.2-3B-Instruct-Q4_K_M.gguf", 0.99, False),  # a user's GGUF: another scale
    ],
)
def test_the_status_weighs_only_a_judgement_it_was_fitted_on(
    lib: FakeLibrary, name: str, p: float | None, weighed: bool
) -> None:
    from app.validation.status_model import shipped, without_judgement

    model = JudgingModel([GOOD], name=name, p=p)
    a = AskService(lib, chat_model=model, always_judge=True).ask(
        "How many channels does the Zephyr record?"
    )
    support = a.validation.support
    assert support is not None and support.probability is not None
    x = support.features
    assert ("judgement" in x) == (p is not None)  # recorded for training whichever decides
    decided_by = shipped() if weighed else without_judgement()
    assert support.probability == pytest.approx(decided_by.probability(x), abs=1e-4)
    assert decided_by.weighs_judgement == weighed


def test_another_models_judgement_is_not_asked_for(lib: FakeLibrary) -> None:
    """Nothing would weigh it: the ~100 ms are saved."""
    model = JudgingModel([GOOD], name="Qwen2.5-7B-Instruct-Q4_K_M.gguf", p=0.9)
    a = AskService(lib, chat_model=model).ask("How many channels does the Zephyr record?")
    assert a.kind == "generated" and model.judged == [] and "judge" not in a.timings_ms


class EmbeddedLibrary(FakeLibrary):
    """The fake library with an embedder called ``name``: the answer step and the check read
    its similarities."""

    def __init__(self, texts: list[str], tmp: Path, name: str) -> None:
        super().__init__(texts, tmp)
        self._embedder = HashEmbedder(name=name)

    @property
    def embedder(self) -> HashEmbedder:  # type: ignore[override]
        return self._embedder


def test_no_answer_is_green_over_a_library_another_embedder_embedded(tmp_path: Path) -> None:
    """The status model was fitted on the embedded embedder's similarities; over another
    embedder's, a verified answer is YELLOW and says why, and its citations stay proven."""
    fitted_on = shipped().embedder
    assert fitted_on is not None
    question = "How many channels does the Zephyr record?"
    flags = {}
    for name in (fitted_on, "bge-small-en-v1.5"):
        lib = EmbeddedLibrary(TEXTS, tmp_path / name.replace(" ", "_"), name)
        a = AskService(lib, chat_model=ScriptedModel([GOOD])).ask(question)
        assert a.mode == "answer" and [c.quote for c in a.citations] == [
            "The Zephyr 3000 records up to 64 channels."
        ]
        flags[name] = a.validation.flags
        if name != fitted_on:
            assert a.validation.status == "YELLOW"
    withheld = [f for f in flags["bge-small-en-v1.5"] if f.startswith("Not marked GREEN")]
    assert withheld and "bge-small-en-v1.5" in withheld[0]
    assert not any(f.startswith("Not marked GREEN") for f in flags[fitted_on])
