"""Asking with the real parts: factory PDFs ingested into LanceDB, the real embedder, the real
embedded GGUF model, the real validator. No fakes.

The Zephyr manual knows the page and sentence of each fact, so an answer's citations can be
checked against ground truth: the quote must occur verbatim in the cited chunk, and its
highlight rectangles must lie on the page where the fact is printed.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import Cancelled, ModelLoadError
from app.core.models import Answer
from app.core.progress import DRAFT_NOTE, CancelToken, Progress
from app.core.protocols import Embedder
from app.core.resources import (
    DEFAULT_CHAT_MODEL_NAME,
    default_chat_model_path,
    default_embedder_path,
)
from app.services.ask import EMPTY_LIBRARY_TEXT, REFUSAL_TEXT, AskService
from app.services.library import Library
from app.services.metrics import reset_metrics
from app.validation.answer_checks import repeats_itself
from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf, make_two_column_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> Library:
    root = tmp_path_factory.mktemp("ask")
    library = Library(Settings(library=root / "library"), embedder=shared_embedder)
    results = library.ingest(
        [make_manual_pdf(root / "manual.pdf"), make_two_column_pdf(root / "report.pdf")]
    ).results
    assert [r.status for r in results] == ["added", "added"]
    return library


@pytest.fixture(scope="module")
def service(lib: Library) -> AskService:
    return AskService(lib, lib.settings)


def assert_citations_proven(answer: Answer, lib: Library) -> None:
    """Every citation's quote occurs verbatim in its chunk and has highlight rectangles."""
    chunks = {c.chunk_id: c for c in lib.chunks([c.chunk_id for c in answer.citations])}
    source_ids = {s.n: s.chunk_id for s in answer.sources}
    for c in answer.citations:
        chunk = chunks[c.chunk_id]
        assert source_ids[c.n] == c.chunk_id
        assert chunk.text[c.start : c.end] == c.quote
        assert c.rects, f"no rectangles for {c.quote!r}"
        assert all(r[0] == c.page for r in c.rects[:1])


@pytest.mark.parametrize("key", ["filter", "channels", "burst"])
def test_answerable_question_gets_proven_citations(
    service: AskService, lib: Library, key: str
) -> None:
    fact = MANUAL_FACTS[key]
    progress: list[Progress] = []
    answer = service.ask(fact.question, on_progress=progress.append)
    assert answer.mode == "answer" and answer.kind in ("generated", "extractive")
    assert answer.validation.status in ("GREEN", "YELLOW")
    assert answer.citations
    assert_citations_proven(answer, lib)
    on_fact = [c for c in answer.citations if fact.answer in c.quote]
    assert on_fact, f"no citation carries {fact.answer!r}: {[c.quote for c in answer.citations]}"
    assert {r[0] for c in on_fact for r in c.rects} == {fact.page}
    assert answer.model == DEFAULT_CHAT_MODEL_NAME
    assert {"retrieve", "first_token", "generate", "validate", "total"} <= set(answer.timings_ms)
    assert {p.stage for p in progress} >= {"retrieve", "generate"}


def test_the_answer_shown_never_loops_over_its_quote(service: AskService, lib: Library) -> None:
    """The embedded model wrote "12 months must be repeated every 12 months by an accredited
    laboratory" for the calibration fact, shown GREEN; its quote says it well formed."""
    fact = MANUAL_FACTS["calibration"]
    answer = service.ask(fact.question)
    assert answer.validation.status == "GREEN"
    assert_citations_proven(answer, lib)
    quotes = " ".join(c.quote for c in answer.citations)
    assert fact.answer in quotes
    if answer.kind == "generated":
        assert not repeats_itself(answer.answer, quotes), answer.answer
    else:
        assert answer.kind == "extractive" and fact.answer in answer.answer


def test_no_answer_is_green_when_the_embedder_is_not_the_one_the_status_was_fitted_on(
    tmp_path: Path, service: AskService
) -> None:
    """The same real MiniLM chosen by its folder (as a person picks an embedding model in
    Settings) is another embedder by name: its library is embedded anew, its answers keep
    their proven citations, and GREEN, calibrated for the embedded one only, is withheld."""
    fact = MANUAL_FACTS["calibration"]
    assert service.ask(fact.question).validation.status == "GREEN"  # the embedded embedder
    library = Library(Settings(library=tmp_path / "library", embedder=default_embedder_path()))
    assert library.ingest([make_manual_pdf(tmp_path / "manual.pdf")]).results[0].status == "added"
    assert library.embedder is not None and library.embedder.name.startswith("model")
    answer = AskService(library, library.settings).ask(fact.question)
    assert answer.mode == "answer" and answer.validation.status == "YELLOW"
    assert_citations_proven(answer, library)
    assert any(fact.answer in c.quote for c in answer.citations)
    withheld = [f for f in answer.validation.flags if f.startswith("Not marked GREEN")]
    assert withheld and library.embedder.name in withheld[0]


@pytest.mark.parametrize(
    "question", ["Who painted the Mona Lisa?", "What is the boiling point of water on Mars?"]
)
def test_unanswerable_question_is_refused(service: AskService, question: str) -> None:
    answer = service.ask(question)
    assert (answer.mode, answer.kind) == ("refuse", "refusal")
    assert not answer.citations
    support = answer.validation.support
    assert support is not None and support.reasons  # why, in words
    assert support.closest  # and where to look instead


@pytest.mark.parametrize(
    "question", ["How long is the sensor cable?", "How many screws does the battery need?"]
)
def test_a_question_no_passage_is_close_to_is_refused_with_a_reason(
    service: AskService, question: str
) -> None:
    """Every word of these is in the manual, but no sentence is close to the question and
    the ranked evidence lacks something (a length; the battery's screws): refused before
    any generation, saying why in words, with the closest passages to check."""
    answer = service.ask(question)
    assert (answer.mode, answer.kind) == ("refuse", "refusal")
    assert answer.timings_ms["generate"] == 0
    assert answer.answer.startswith("The documents don't answer this: ")
    assert answer.answer != REFUSAL_TEXT
    support = answer.validation.support
    assert support is not None and support.closest


def ask_json(lib: Library, capsys: pytest.CaptureFixture[str], question: str) -> dict[str, Any]:
    from app.cli.main import main

    assert main(["ask", "--library", str(lib.settings.library), "--json", question]) == 0
    obj: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert set(obj["validation"]) >= {"status", "dropped", "repaired", "flags", "support"}
    assert set(obj["validation"]["support"]) >= {"score", "covered", "missing", "reasons"}
    return obj


def test_cli_green_answer_is_answered_from_the_documents(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    fact = MANUAL_FACTS["filter"]
    obj = ask_json(lib, capsys, fact.question)
    assert obj["mode"] == "answer" and obj["validation"]["status"] == "GREEN"
    support = obj["validation"]["support"]
    assert support["missing"] == [] and support["score"] >= 0.7
    assert any(fact.answer in c["quote"] and c["page"] == fact.page for c in obj["citations"])


def test_cli_says_the_streamed_words_are_a_draft_until_checked(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the desktop does while it writes: the model's words stream to stdout, and stderr
    says first that they are a draft; the checked answer and its status follow them."""
    from app.cli.main import main

    fact = MANUAL_FACTS["filter"]
    assert main(["ask", "--library", str(lib.settings.library), fact.question]) == 0
    printed = capsys.readouterr()
    assert printed.err.count(DRAFT_NOTE) == 1
    assert "citation(s) verified" in printed.out  # the status line, after the answer
    assert DRAFT_NOTE not in printed.out  # stdout holds only the answer and its evidence


def test_cli_yellow_answer_names_its_missing_concept(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    # "5000" is in the manual (burst mode), but not in the filter passage that answers the rest
    obj = ask_json(lib, capsys, "How often must the air filter of the Zephyr 5000 be cleaned?")
    assert obj["mode"] == "answer" and obj["validation"]["status"] == "YELLOW"
    support = obj["validation"]["support"]
    assert "5000" in support["missing"]
    assert any("\u20185000\u2019" in r for r in support["reasons"])


def test_cli_yellow_answer_says_when_the_library_lacks_the_concept(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """A near miss: the manual's error codes are close to the question, so it is answered,
    but nothing in the library mentions an antenna, and the status says exactly that."""
    obj = ask_json(lib, capsys, "Which error code means the antenna cable is broken?")
    assert obj["mode"] == "answer" and obj["validation"]["status"] == "YELLOW"
    support = obj["validation"]["support"]
    assert support["absent"] == ["antenna"] and "antenna" in support["missing"]
    assert support["reasons"][0] == "No passage in your library mentions \u2018antenna\u2019."
    assert support["reasons"][0] in obj["validation"]["flags"]


def test_cli_refusal_names_the_absent_concept_and_lists_closest_passages(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = ask_json(lib, capsys, "Who painted the Mona Lisa?")
    assert (obj["mode"], obj["kind"], obj["citations"]) == ("refuse", "refusal", [])
    assert obj["validation"]["status"] == "REFUSED"  # a status of its own, never YELLOW
    assert obj["answer"] == (
        "No passage in your library mentions \u2018painted\u2019, \u2018Mona\u2019 or \u2018Lisa\u2019."
    )
    support = obj["validation"]["support"]
    assert support["absent"] == ["painted", "Mona", "Lisa"] and support["score"] == 0.0
    closest = support["closest"]
    assert closest and all(
        set(c) >= {"file", "page", "section", "quote", "rects"} and c["rects"] for c in closest
    )
    assert obj["timings_ms"]["generate"] == 0  # refused before any generation

    # Printed for a person: a status of its own, and each closest passage on one line.
    from app.cli.main import main

    assert main(["ask", "--library", str(lib.settings.library), "Who painted the Mona Lisa?"]) == 0
    printed = capsys.readouterr()
    out = printed.out
    assert "\nNOT ANSWERED: 0 citation(s) verified; refusal" in out
    assert DRAFT_NOTE not in printed.err  # refused before the model wrote a word
    assert "YELLOW" not in out and "GREEN" not in out
    passages = out.split("Closest passages:\n", 1)[1].splitlines()
    assert len(passages) == len(closest) and all(p.startswith("  ") for p in passages)


def test_cli_refusal_names_no_common_word_as_what_the_library_lacks(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "live" is as absent from the manual as "outside" and "cold", but it is among the most
    common English words, which a library says otherwise: it does not refuse the question,
    and the refusal, which the rarer words bring, names those only."""
    obj = ask_json(lib, capsys, "Can the Zephyr 3000 live outside in the cold all year?")
    assert (obj["mode"], obj["validation"]["status"]) == ("refuse", "REFUSED")
    assert (
        obj["answer"]
        == "No passage in your library mentions \u2018outside\u2019 or \u2018cold\u2019."
    )
    assert obj["validation"]["support"]["absent"] == ["live", "outside", "cold"]
    assert obj["timings_ms"]["generate"] == 0


def test_cli_a_price_no_passage_gives_is_refused_before_generation(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """The manual tells of calibration on several pages, but names no price anywhere: a
    question for one is refused at once, with its reason and the closest passages. ("pay"
    is absent too, but too common a word to refuse a question by itself.)"""
    obj = ask_json(lib, capsys, "How much do I pay for a calibration of the Zephyr 3000?")
    assert obj["validation"]["status"] == "REFUSED" and obj["timings_ms"]["generate"] == 0
    assert obj["answer"] == (
        "The documents don't answer this: the question asks for a price or sum of money, "
        "and none of the closest passages gives one."
    )
    support = obj["validation"]["support"]
    assert support["answer_type"] == "price" and support["closest"]
    assert any("calibration" in c["quote"].lower() for c in support["closest"])


def test_cli_a_year_the_library_never_prints_is_refused_before_generation(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """The manual answers how often to calibrate, for no year in particular: asked for 2031,
    every word but the year is close, and the year is what the question asks. Told in
    passing ("We bought it in 2031."), the year asks nothing and the question is answered."""
    obj = ask_json(lib, capsys, "How often must the sensor be calibrated in 2031?")
    assert obj["validation"]["status"] == "REFUSED" and obj["timings_ms"]["generate"] == 0
    assert obj["answer"] == "No passage in your library mentions \u20182031\u2019."
    support = obj["validation"]["support"]
    assert "2031" in support["absent"] and support["closest"]
    assert any("calibrat" in c["quote"].lower() for c in support["closest"])
    told = ask_json(lib, capsys, "We bought ours in 2031. How often must the sensor be calibrated?")
    assert told["mode"] != "refuse" or told["timings_ms"]["generate"] > 0


def library_of(name: str, tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Library:
    """A library of its own holding one PDF of the mixed development corpus (``name``, a
    module of ``tests.bench.corpus_gen`` with ``FILE`` and ``build``)."""
    import importlib

    module = importlib.import_module(f"tests.bench.corpus_gen.{name}")
    root = tmp_path_factory.mktemp(f"ask-{name}")
    module.build(str(root / module.FILE))
    library = Library(Settings(library=root / "library"), embedder=embedder)
    assert [r.status for r in library.ingest([root / module.FILE]).results] == ["added"]
    return library


@pytest.fixture(scope="module")
def brochure_lib(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> Library:
    """The lighthouse brochure: prices printed without a currency ("Adults 7.50, children
    aged 5 to 16 3.50")."""
    return library_of("brochure", tmp_path_factory, shared_embedder)


def test_cli_a_price_printed_without_a_currency_is_answered(
    brochure_lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = ask_json(brochure_lib, capsys, "How much does a kid's ticket cost?")
    assert obj["mode"] == "answer" and obj["timings_ms"]["generate"] > 0
    support = obj["validation"]["support"]
    assert support["answer_type"] == "price" and obj["citations"]
    assert not any("asks for a price" in r for r in support["reasons"])  # "costs 19" is one


@pytest.fixture(scope="module")
def german_lib(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> Library:
    """The German solar guide."""
    return library_of("german", tmp_path_factory, shared_embedder)


def test_cli_german_concept_absent_from_the_library_is_refused_before_generation(
    german_lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    """The English embedder holds "Versicherung" close to "verlieren" by word pieces; that
    must not pass for a paraphrase: the guide says nothing about insurance."""
    obj = ask_json(
        german_lib, capsys, "Welche Versicherung kommt für Hagelschäden an den Modulen auf?"
    )
    assert obj["validation"]["status"] == "REFUSED" and obj["timings_ms"]["generate"] == 0
    absent = obj["validation"]["support"]["absent"]
    assert {"Versicherung", "Hagelschäden"} <= set(absent)
    assert obj["answer"] == (  # the nouns a person would name; the verb 'kommt' is left out
        "No passage in your library mentions \u2018Versicherung\u2019 or \u2018Hagelschäden\u2019."
    )
    assert obj["validation"]["support"]["closest"]

    answered = ask_json(german_lib, capsys, "Wie lange hält ein Wechselrichter?")
    assert answered["mode"] == "answer" and answered["citations"]

    # the English embedder holds this question close to the guide (cosine 0.72, by the word
    # pieces of "Photovoltaikmodulen"), but half of what it asks is nowhere in the library
    near = ask_json(
        german_lib,
        capsys,
        "Übernimmt die Gebäudeversicherung eigentlich Hagelschäden an den Photovoltaikmodulen?",
    )
    assert near["validation"]["status"] == "REFUSED" and near["timings_ms"]["generate"] == 0
    assert near["answer"] == (
        "No passage in your library mentions \u2018Gebäudeversicherung\u2019 or "
        "\u2018Hagelschäden\u2019."
    )

    # a verb the guide lacks ("kaputtgehen") is no noun: no refusal before generation, and
    # the answer's status line says what is missing
    verb = ask_json(german_lib, capsys, "Wie lange hält ein Wechselrichter, bis er kaputtgeht?")
    assert verb["mode"] == "answer" and verb["timings_ms"]["generate"] > 0
    assert "kaputtgeht" in verb["validation"]["support"]["absent"]


def test_streaming_delivers_answer_text_only(service: AskService) -> None:
    pieces: list[str] = []
    answer = service.ask(MANUAL_FACTS["temperature"].question, on_token=pieces.append)
    streamed = "".join(pieces)
    assert len(pieces) > 3
    assert "{" not in streamed and '"mode"' not in streamed
    if answer.kind == "generated":
        assert "55 degrees" in streamed
        assert answer.answer.split("[")[0].strip() == streamed.split("[")[0].strip()


def test_cancel_stops_generation_and_service_recovers(service: AskService) -> None:
    cancel = CancelToken()
    pieces: list[str] = []

    def on_token(piece: str) -> None:
        pieces.append(piece)
        cancel.cancel()

    with pytest.raises(Cancelled):
        service.ask(MANUAL_FACTS["battery"].question, on_token=on_token, cancel=cancel)
    assert len(pieces) == 1
    after = service.ask(MANUAL_FACTS["battery"].question)
    assert after.mode == "answer" and after.citations


def test_bad_model_file_keeps_previous_model(service: AskService, tmp_path: Path) -> None:
    before = service.model
    truncated = tmp_path / "truncated.gguf"
    with default_chat_model_path().open("rb") as fh:
        truncated.write_bytes(fh.read(1_000_000))  # a real GGUF header, cut short
    text = tmp_path / "notes.gguf"
    text.write_text("not a model", encoding="utf-8")
    for bad, msg in ((truncated, "could not load"), (text, "not a GGUF")):
        with pytest.raises(ModelLoadError, match=msg):
            service.load_model(bad)
        assert service.model is before
    assert service.ask(MANUAL_FACTS["filter"].question).citations


def test_ask_works_with_sockets_blocked(
    service: AskService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network access attempted during ask")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    answer = service.ask(MANUAL_FACTS["e17"].question)
    assert answer.mode == "answer" and answer.citations


def test_empty_library_says_add_documents(tmp_path: Path, shared_embedder: Embedder) -> None:
    library = Library(Settings(library=tmp_path / "empty"), embedder=shared_embedder)
    answer = AskService(library).ask("How many channels?")
    assert (answer.kind, answer.answer) == ("refusal", EMPTY_LIBRARY_TEXT)


def test_cli_ask_json_and_metrics(
    lib: Library, cli_embedder: Embedder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from app.cli.main import main

    reset_metrics()
    q = MANUAL_FACTS["calibration"].question
    assert main(["ask", "--library", str(lib.settings.library), "--json", q]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["question"] == q and obj["mode"] in ("answer", "refuse")
    assert set(obj) >= {
        "question",
        "mode",
        "answer",
        "citations",
        "sources",
        "validation",
        "timings_ms",
        "kind",
    }
    for c in obj["citations"]:
        assert set(c) >= {
            "n",
            "doc_id",
            "chunk_id",
            "file",
            "page",
            "section",
            "quote",
            "match",
            "score",
            "rects",
        }
        assert all(len(r) == 5 for r in c["rects"])
    for s in obj["sources"]:
        assert set(s) >= {
            "n",
            "chunk_id",
            "doc_id",
            "file",
            "title",
            "page_start",
            "page_end",
            "section",
            "score",
            "text",
        }
    assert set(obj["validation"]) >= {"status", "dropped", "repaired"}
    assert set(obj["timings_ms"]) >= {"retrieve", "first_token", "generate", "validate", "total"}

    batch = tmp_path / "questions.txt"
    batch.write_text(
        f"{MANUAL_FACTS['screws'].question}\n\nWho painted the Mona Lisa?\n", encoding="utf-8"
    )
    assert main(["ask", "--library", str(lib.settings.library), "--batch", str(batch)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["question"] for x in lines] == [
        MANUAL_FACTS["screws"].question,
        "Who painted the Mona Lisa?",
    ]
    assert lines[1]["kind"] == "refusal"

    assert main(["metrics"]) == 0
    text = capsys.readouterr().out
    assert 'footnote_answers_total{kind="refusal"} 1.0' in text
    assert "footnote_first_token_seconds_bucket" in text

    assert main(["ask", "--library", str(lib.settings.library), q]) == 0
    out = capsys.readouterr().out
    assert "citation(s) verified" in out


def test_warmed_library_judges_concepts_as_a_cold_one(
    lib: Library, shared_embedder: Embedder
) -> None:
    """The desktop warms up (term index, the library's words embedded ahead); a one-shot
    command does not. Both must find the same concepts, weights and absent words, and once
    warmed the passages' words need no embedding mid-question."""
    from app.services import ask_steps as steps
    from app.services import verdict
    from app.validation.support import Evidence, neighbour_candidates

    question = "Which error code means the antenna cable is broken?"

    def concepts(library: Library, asker: AskService) -> tuple[verdict.Concepts, list]:
        run = steps.AskRun(
            question=question,
            top_k=library.settings.top_k,
            doc_ids=None,
            on_token=None,
            progress=lambda _p: None,
            cancel=CancelToken(),
        )
        assert steps.retrieve(run, library)
        return asker._concepts(run), run.pairs

    cold_lib = Library(lib.settings, embedder=shared_embedder)
    cold, _ = concepts(cold_lib, AskService(cold_lib, cold_lib.settings))
    warm_lib = Library(lib.settings, embedder=shared_embedder)
    warm_lib.count_words()
    asker = AskService(warm_lib, warm_lib.settings)
    assert asker.warm_words() > 100
    warm, pairs = concepts(warm_lib, asker)
    assert [(c.text, c.weight) for c in warm.items] == [(c.text, c.weight) for c in cold.items]
    assert [c.text for c in warm.absent] == [c.text for c in cold.absent] == ["antenna"]
    words = Evidence.of([c.text for _, c in pairs]).words
    embed = asker._embed()
    assert embed is not None and embed.unknown(neighbour_candidates(words, "en")) == []
