"""Retrieval with the real parts: the default embedder, a real LanceDB store, real PDFs.

The Zephyr manual from tests/pdf_factory.py knows on which page each fact is printed, so
a question about a fact must bring that page to the top of the results.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import ModelLoadError
from app.core.protocols import Embedder
from app.ingest import parse_pdf
from app.retrieval import FusionParams, HybridRetriever, SentenceTransformerEmbedder
from app.services.library import embedding_text
from app.store import Store
from tests.pdf_factory import MANUAL_FACTS, make_manual_pdf, make_two_column_pdf

pytestmark = pytest.mark.integration


def _store_with(tmp_path: Path, embedder: Embedder, *, embed: list[str]) -> tuple[Store, dict]:
    """A store holding the manual and the two-column report; embeds the named ones only."""
    store = Store(tmp_path / "lib")
    store.set_embedder(embedder.name, embedder.dim)
    ids = {}
    for name, make in (("manual", make_manual_pdf), ("report", make_two_column_pdf)):
        parsed = parse_pdf(make(tmp_path / f"{name}.pdf"))
        store.add_document(parsed)
        ids[name] = parsed.document.doc_id
        if name in embed:
            doc = parsed.document
            texts = [embedding_text(doc.title, c.section, c.text) for c in parsed.chunks]
            store.add_vectors(
                doc.doc_id, [c.chunk_id for c in parsed.chunks], embedder.embed(texts)
            )
            store.mark_ready(doc.doc_id)
    return store, ids


@pytest.fixture(scope="module")
def manual_store(
    tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder
) -> tuple[Store, dict]:
    """Built once for the module: the searches below only read it."""
    return _store_with(
        tmp_path_factory.mktemp("retrieval"), shared_embedder, embed=["manual", "report"]
    )


@pytest.mark.parametrize("key", sorted(MANUAL_FACTS))
def test_question_retrieves_the_page_of_its_answer(
    manual_store: tuple[Store, dict], shared_embedder: Embedder, key: str
) -> None:
    store, ids = manual_store
    fact = MANUAL_FACTS[key]
    hits = HybridRetriever(store, shared_embedder).search(fact.question, top_k=3)
    assert hits, fact.question
    top = [h for h in hits if h.doc_id == ids["manual"] and h.page_start <= fact.page <= h.page_end]
    assert top, (
        f"{fact.question!r}: page {fact.page} not in {[(h.page_start, h.page_end) for h in hits]}"
    )
    assert any(fact.answer in h.text for h in hits)


def test_paraphrase_found_by_meaning(manual_store: tuple[Store, dict], shared_embedder: Embedder):
    """No word of this question occurs in the library: only the vectors know.

    (The question used to be "How hot may it get?", which passed through the keyword "may"
    until the Snowball stop-word list rightly dropped it; MiniLM alone ranks that chunk 9th.)
    """
    store, ids = manual_store
    fact = MANUAL_FACTS["temperature"]
    question = "What heat can the unit withstand?"
    assert store.text_search(question, 5) == [], "no keyword of the question may help"
    hits = HybridRetriever(store, shared_embedder).search(question, top_k=5)
    assert any(fact.answer in h.text for h in hits)


@pytest.mark.parametrize(
    ("key", "question"),
    [
        (
            "filter",
            "We took the logger on a long field trip and the battery died twice, and the "
            "housing got wet in the rain. How often should the air filter be cleaned?",
        ),
        (
            "battery",
            "I set burst mode on and the housing is closed and the filter is clean. How long "
            "will the battery last?",
        ),
    ],
)
def test_a_question_told_around_finds_what_it_asks(
    manual_store: tuple[Store, dict], shared_embedder: Embedder, key: str, question: str
) -> None:
    """The situation told first names other facts of the manual; the asking sentence's own
    vector list (``FusionParams.focus_weight``) runs beside the whole question's."""
    store, _ = manual_store
    fact = MANUAL_FACTS[key]
    embedded: list[list[str]] = []

    class Recording:
        name, dim = shared_embedder.name, shared_embedder.dim

        def embed(self, texts: list[str], *, batch_size: int | None = None) -> np.ndarray:
            embedded.append(list(texts))
            return shared_embedder.embed(texts, batch_size=batch_size)

    hits = HybridRetriever(store, Recording()).search(question, top_k=3)
    assert fact.answer in hits[0].text, [h.text[:60] for h in hits]
    assert embedded == [[question, question[question.rindex(". ") + 2 :]]]


@pytest.mark.parametrize(
    "query",
    [
        '\\newcommand{"x"}: AND OR NOT',
        "E42?",
        'what\'s "E17" -- (display) [card] {full} ^2 ~ * : \\\\',
        "'; DROP TABLE chunks; --",
        "\u00e9t\u00e9 \u2013 \u201cquoted\u201d",
    ],
)
def test_special_characters_never_crash(
    manual_store: tuple[Store, dict], shared_embedder: Embedder, query: str
) -> None:
    store, _ = manual_store
    hits = HybridRetriever(store, shared_embedder).search(query, top_k=5)
    assert isinstance(hits, list)
    assert store.count_chunks() > 0  # the injection attempt did nothing


def test_doc_filter_and_pending_document(tmp_path: Path, shared_embedder: Embedder) -> None:
    store, ids = _store_with(tmp_path, shared_embedder, embed=["report"])  # manual pending
    r = HybridRetriever(store, shared_embedder)
    fact = MANUAL_FACTS["e42"]
    hits = r.search(fact.question, top_k=3)
    assert hits[0].doc_id == ids["manual"]  # found by keywords while its vectors are pending
    assert fact.page in range(hits[0].page_start, hits[0].page_end + 1)
    only_report = r.search(fact.question, top_k=3, doc_ids=[ids["report"]])
    assert only_report and {h.doc_id for h in only_report} == {ids["report"]}


def test_embedder_contract(shared_embedder: Embedder) -> None:
    texts = ["The battery lasts 18 months.", "", "x " * 2000, "Kalibrierung alle 12 Monate."]
    v = shared_embedder.embed(texts)
    assert v.shape == (4, shared_embedder.dim) == (4, 384)
    assert v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    # order is kept although batches are sorted by length
    one = shared_embedder.embed([texts[0]])[0]
    assert float(one @ v[0]) > 0.999
    assert shared_embedder.embed([]).shape == (0, 384)


def test_embedder_loads_once_under_concurrent_first_use() -> None:
    emb = SentenceTransformerEmbedder(batch_size=4)
    assert not emb.loaded  # construction is cheap; weights load on first use
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(emb.embed(["hello"]))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and emb.loaded
    assert all(np.allclose(r, results[0], atol=1e-5) for r in results)


def test_bad_model_folders_raise_model_load_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        SentenceTransformerEmbedder(tmp_path / "missing")
    f = tmp_path / "model.bin"
    f.write_bytes(b"\0" * 10)
    with pytest.raises(ModelLoadError, match="is a file"):
        SentenceTransformerEmbedder(f)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="not a sentence-transformers model folder"):
        SentenceTransformerEmbedder(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "bert"}')
    (broken / "modules.json").write_text("[]")
    emb = SentenceTransformerEmbedder(broken)
    with pytest.raises(ModelLoadError, match="Cannot load the embedding model"):
        emb.embed(["hello"])


def test_int8_embedder_stays_close_to_fp32(shared_embedder: Embedder) -> None:
    texts = [fact.sentence for fact in MANUAL_FACTS.values()]
    q = SentenceTransformerEmbedder(quantize=True)
    assert "int8" in q.name and q.name != shared_embedder.name  # its vectors are kept apart
    cos = np.sum(q.embed(texts) * shared_embedder.embed(texts), axis=1)
    # measured on these sentences: mean 0.987, min 0.976 (why int8 is opt-in)
    assert cos.mean() >= 0.98 and cos.min() >= 0.97, cos


def test_bfloat16_products_give_the_float32_vectors_and_ranking() -> None:
    """The bfloat16 products ("auto" on a CPU with native support) change no vector a search
    could tell apart: every cosine to the float32 vector >= 0.999, each question ranks the
    same sentence first, and a text's vector does not depend on its batch (unlike int8)."""
    facts = list(MANUAL_FACTS.values())
    sentences = [f.sentence for f in facts]
    questions = [f.question for f in facts]
    full = SentenceTransformerEmbedder(precision="float32")
    half = SentenceTransformerEmbedder(precision="bfloat16")
    assert half.name == full.name  # the same vectors: a library may hold both
    f_s, h_s = full.embed(sentences), half.embed(sentences)
    assert half.bfloat16 and not full.bfloat16
    cos = np.sum(f_s * h_s, axis=1)
    assert cos.min() >= 0.999, cos
    assert np.allclose(np.linalg.norm(h_s, axis=1), 1.0, atol=1e-4)
    f_q, h_q = full.embed(questions), half.embed(questions)
    assert ((f_q @ f_s.T).argmax(axis=1) == (h_q @ h_s.T).argmax(axis=1)).all()
    alone = half.embed([sentences[0]])[0]
    beside_long = half.embed([sentences[0], "word " * 400])[0]
    assert float(alone @ beside_long) >= 0.999
    with pytest.raises(ValueError, match="precision"):
        SentenceTransformerEmbedder(precision="float16")


_GERMAN_PAGES = [
    "Der Rasenmäher darf nur bei Tageslicht und trockenem Gras benutzt werden. Kinder und "
    "Haustiere müssen beim Mähen Abstand halten.",
    "Das Messer muss einmal im Jahr in einer Fachwerkstatt geschliffen werden.",
    "Nach dem Mähen den Grasfangkorb leeren und das Gehäuse mit einer Bürste reinigen.",
]


def _leaflet_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for text in _GERMAN_PAGES:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 400), text, fontsize=11, fontname="helv")
    doc.set_metadata({"title": "Rasenmäher: Kurzanleitung"})
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize(
    ("key", "question"),
    [
        ("filter", "Wie oft muss der Luftfilter gereinigt werden?"),
        ("screws", "Welche Schrauben befestigen die Halterung?"),
        ("calibration", "Wie oft muss die Kalibrierung wiederholt werden?"),
    ],
)
def test_a_german_question_finds_the_english_page(
    tmp_path: Path, shared_embedder: Embedder, key: str, question: str
) -> None:
    """An English manual and a German leaflet: a German question is also searched by its
    words' English translations (``FusionParams.translation_weight``): keyword search finds
    the manual's page first by them, and not at all without them; with the (English-only)
    vectors beside it, the page stays among the first two."""
    store, ids = _store_with(tmp_path, shared_embedder, embed=["manual", "report"])
    parsed = parse_pdf(_leaflet_pdf(tmp_path / "leaflet.pdf"))
    store.add_document(parsed)
    doc = parsed.document
    texts = [embedding_text(doc.title, c.section, c.text) for c in parsed.chunks]
    store.add_vectors(doc.doc_id, [c.chunk_id for c in parsed.chunks], shared_embedder.embed(texts))
    store.mark_ready(doc.doc_id)
    fact = MANUAL_FACTS[key]

    def rank(embedder: Embedder | None, params: FusionParams) -> int | None:
        hits = HybridRetriever(store, embedder, params).search(question, top_k=8)
        return next(
            (
                h.rank
                for h in hits
                if h.doc_id == ids["manual"] and h.page_start <= fact.page <= h.page_end
            ),
            None,
        )

    assert rank(None, FusionParams()) == 1
    with_vectors = rank(shared_embedder, FusionParams())
    assert with_vectors is not None and with_vectors <= 2
    assert rank(None, FusionParams(translation_weight=0)) is None


def test_a_concept_the_library_holds_in_german_is_not_absent(
    tmp_path: Path, shared_embedder: Embedder
) -> None:
    """Over an English manual and a German leaflet, with the real full-text index: an English
    question about the lawnmower and daylight names words the library holds only as
    "Rasenmäher" and "Tageslicht", so the support check does not call them absent (nor refuse
    for them); a word with no translation there ("insurance") still is."""
    from app.retrieval.terms import document_frequencies
    from app.services import verdict

    store, _ = _store_with(tmp_path, shared_embedder, embed=["manual"])
    store.add_document(parse_pdf(_leaflet_pdf(tmp_path / "leaflet.pdf")))

    def counts(words: Iterable[str]) -> tuple[dict[str, int], int]:
        return document_frequencies(store, words), store.count_chunks()

    q = "May the lawnmower be used without daylight?"
    assert verdict.question_concepts(q, counts, []).absent == []
    q = "Does my insurance cover the lawnmower?"
    assert [c.text for c in verdict.question_concepts(q, counts, []).absent] == ["insurance"]
