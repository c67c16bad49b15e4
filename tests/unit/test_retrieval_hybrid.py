"""HybridRetriever logic with deterministic fakes: an in-memory store and a hashing embedder.

The fakes (tests/fakes.py) pass the same contract tests as ``app.store.Store``
(tests/unit/test_store_contract.py); the real store is exercised in
tests/integration/test_retrieval.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

from app.retrieval import FusionParams, HybridRetriever
from app.retrieval.hybrid import focus_of
from tests.fakes import FakeStore, HashEmbedder

pytestmark = pytest.mark.unit

_WORD = re.compile(r"[^\W_]+")


def _both_first() -> float:
    """Fused score of a chunk ranked first by both lists."""
    p = FusionParams()
    return (p.text_weight + p.vector_weight) / (p.rrf_k + 1)


@pytest.fixture
def emb() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def store(emb: HashEmbedder) -> FakeStore:
    s = FakeStore(emb)
    s.add(
        "aaaa",
        [
            "The battery lasts eighteen months when sampling once per minute.",
            "Clean the air filter every ninety days with a soft brush.",
            "Error code E42 means the sensor cable is broken.",
        ],
    )
    s.add(
        "bbbb",
        [
            "Longtable repeats the table caption on every page of a long table.",
            "Use the newcommand macro to define a new command with optional arguments.",
        ],
    )
    return s


def test_finds_the_right_chunk_with_hit_fields(store: FakeStore, emb: HashEmbedder) -> None:
    hits = HybridRetriever(store, emb).search("How often must I clean the air filter?", top_k=3)
    assert hits[0].chunk_id == "aaaa:00001"
    assert hits[0].rank == 1 and hits[0].page_start == 2 and hits[0].file == "/tmp/aaaa.pdf"
    assert hits[0].title == "Title aaaa" and "air filter" in hits[0].text
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_special_characters_reach_the_store_as_plain_words(
    store: FakeStore, emb: HashEmbedder
) -> None:
    r = HybridRetriever(store, emb)
    hits = r.search('\\newcommand: "optional" (arguments) AND OR*', top_k=2)
    assert hits[0].chunk_id == "bbbb:00001"
    assert store.text_queries[-1] == "newcommand optional arguments"
    asked = len(store.text_queries)
    r.search('"\\:(){}', top_k=3)  # no words at all: the keyword list is skipped, not sent
    assert len(store.text_queries) == asked


def test_doc_filter_limits_both_lists(store: FakeStore, emb: HashEmbedder) -> None:
    r = HybridRetriever(store, emb)
    hits = r.search("battery caption table error", top_k=10, doc_ids=["bbbb"])
    assert hits and {h.doc_id for h in hits} == {"bbbb"}
    assert r.search("battery", doc_ids=[]) == []
    assert r.search("battery", doc_ids=["unknown"]) == []


def test_empty_query_and_zero_k(store: FakeStore, emb: HashEmbedder) -> None:
    r = HybridRetriever(store, emb)
    emb.calls.clear()
    assert r.search("   ") == []
    assert r.search("battery", top_k=0) == []
    assert emb.calls == []  # nothing was embedded for nothing


def test_pending_document_ranks_by_keywords_alone(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("rrrr", [f"filler text number {i} about nothing in particular" for i in range(5)])
    s.add("pppp", ["The calibration must be repeated every twelve months."], embedded=False)
    r = HybridRetriever(s, emb)
    hits, timings = r.search_with_timings("calibration repeated twelve months", top_k=3)
    assert hits[0].chunk_id == "pppp:00000"
    # keyword-only documents count their keyword rank for both lists
    assert hits[0].score == pytest.approx(_both_first(), rel=1e-4)
    assert {"text", "embed", "vector", "fetch", "total"} <= set(timings)


def test_only_pending_documents_skip_the_embedder(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("pppp", ["The calibration must be repeated every twelve months."], embedded=False)
    emb.calls.clear()
    hits = HybridRetriever(s, emb).search("calibration", top_k=3)
    assert [h.chunk_id for h in hits] == ["pppp:00000"]
    assert emb.calls == []


def test_keyword_only_without_embedder(store: FakeStore) -> None:
    hits = HybridRetriever(store, None).search("sensor cable broken", top_k=2)
    assert hits[0].chunk_id == "aaaa:00002"


def test_overlapping_chunks_are_deduplicated(emb: HashEmbedder) -> None:
    words = [f"w{i}" for i in range(120)]
    s = FakeStore(emb)
    s.add(
        "oooo",
        [
            "gearbox torque " + " ".join(words[:80]),
            "gearbox torque " + " ".join(words[10:90]),  # an overlapping window
            "gearbox oil " + " ".join(f"x{i}" for i in range(60)),
        ],
    )
    hits = HybridRetriever(s, emb).search("gearbox torque", top_k=3)
    ids = [h.chunk_id for h in hits]
    assert len(ids) == 2 and "oooo:00002" in ids
    assert not {"oooo:00000", "oooo:00001"} <= set(ids)


def test_title_boost_promotes_matching_section(emb: HashEmbedder) -> None:
    s = FakeStore(emb)
    s.add("s1", ["Widgets are configured in the settings file."], section="1 General")
    s.add("s2", ["Widgets are configured in the settings file too."], section="2 Widgets")
    plain = HybridRetriever(s, emb).search("widgets", top_k=2)
    boosted = HybridRetriever(s, emb, FusionParams(title_boost=1.0, dedupe_overlap=1.1)).search(
        "widgets", top_k=2
    )
    assert boosted[0].section == "2 Widgets"
    assert boosted[0].score > plain[0].score


def test_document_weight_lifts_the_passages_of_the_document_most_results_come_from(
    emb: HashEmbedder,
) -> None:
    """Off by default (measured on the real corpus: every fold chose it off); on, a chunk
    gains its document's share of the best fused scores."""
    s = FakeStore(emb)
    s.add(
        "many",
        [
            "The pump must be primed before the first start.",
            "Check the pump seal every season for leaks.",
            "A noisy pump usually means air in the intake hose.",
        ],
    )
    s.add("once", ["Pump pressure is shown on the front gauge in bar."])
    plain = HybridRetriever(s, emb).search("pump pressure", top_k=4)
    lifted = HybridRetriever(s, emb, FusionParams(document_weight=8.0)).search(
        "pump pressure", top_k=4
    )
    assert plain[0].doc_id == "once"
    assert lifted[0].doc_id == "many"
    assert {h.chunk_id for h in lifted} == {h.chunk_id for h in plain}


class PickyIndexStore(FakeStore):
    """Like an ANN index that rejects large k (LanceDB HNSW: 'ef must be >= k')."""

    def __init__(self, embedder: HashEmbedder) -> None:
        super().__init__(embedder)
        self.asked: list[int] = []

    def vector_search(self, vec: np.ndarray, k: int, doc_ids: Sequence[str] | None = None):
        self.asked.append(k)
        if k > 12:
            raise RuntimeError("lance error: ef must be greater than or equal to k")
        return super().vector_search(vec, k, doc_ids)


def test_vector_index_error_degrades_to_fewer_candidates(emb: HashEmbedder) -> None:
    s = PickyIndexStore(emb)
    s.add("pppp", ["How hot may it get", "unrelated words here"])
    r = HybridRetriever(s, emb)
    hits = r.search("hot get", top_k=2)
    assert hits[0].chunk_id == "pppp:00000"
    assert hits[0].score == pytest.approx(_both_first(), rel=1e-4)  # found by both lists
    r.search("hot", top_k=2)
    assert s.asked == [40, 12, 12]  # after one refusal it asks for fewer straight away


_TOLD_THEN_ASKED = (
    "My laptop battery died on the trip and the charger cable broke too. "
    "How often should I clean the air filter?"
)


def test_a_question_that_tells_first_is_also_searched_by_what_it_asks(
    emb: HashEmbedder,
) -> None:
    s = FakeStore(emb)
    s.add(
        "tttt",
        [
            "The laptop battery and the charger cable died on a long trip.",
            "Clean the air filter every ninety days.",
        ],
    )
    emb.calls.clear()
    hits = HybridRetriever(s, emb).search(_TOLD_THEN_ASKED, top_k=2)
    # one call embeds the whole question and its asking sentence
    assert emb.calls == [[_TOLD_THEN_ASKED, "How often should I clean the air filter?"]]
    plain = HybridRetriever(s, emb, FusionParams(focus_weight=0.0)).search(
        _TOLD_THEN_ASKED, top_k=2
    )
    gain = {h.chunk_id: h.score for h in hits}
    for h in plain:
        gain[h.chunk_id] -= h.score
    # the asking sentence's list ranks the filter first, the situation's chunk second
    p = FusionParams()
    assert gain["tttt:00001"] == pytest.approx(p.focus_weight / (p.rrf_k + 1), rel=1e-4)
    assert gain["tttt:00000"] == pytest.approx(p.focus_weight / (p.rrf_k + 2), rel=1e-4)


def test_a_plain_question_is_embedded_once(store: FakeStore, emb: HashEmbedder) -> None:
    emb.calls.clear()
    HybridRetriever(store, emb).search("How often must I clean the air filter?", top_k=3)
    assert emb.calls == [["How often must I clean the air filter?"]]


@pytest.mark.parametrize(
    ("query", "focus"),
    [
        ("How often must I clean the air filter?", None),
        ("Which fonts? And which encodings?", None),  # every sentence asks
        (_TOLD_THEN_ASKED, "How often should I clean the air filter?"),
        (
            "I'm skimming this paper for a class and I was wondering, how many docks are there?",
            "how many docks are there?",
        ),
        (
            "Ich hab Debian ohne Desktop installiert. Kann ich mehrere Konsolen offen haben?",
            "Kann ich mehrere Konsolen offen haben?",
        ),
    ],
)
def test_focus_of_a_query(query: str, focus: str | None) -> None:
    assert focus_of(query) == focus


def _sentences_of(store: FakeStore, emb: HashEmbedder, chunk_id: str) -> None:
    text = store.chunks[chunk_id].text
    store.sentences[chunk_id] = emb.embed([s for s in re.split(r"(?<=\.) ", text) if s])


def test_a_chunk_is_lifted_by_its_best_sentence(emb: HashEmbedder) -> None:
    """Small-to-big: a chunk whose one sentence matches the question closely climbs above
    chunks that match it loosely as a whole; chunks without stored sentences keep their
    place (a library embedded before they were stored)."""
    s = FakeStore(emb)
    filler = " ".join(f"Unrelated remark number {i} about housings." for i in range(12))
    s.add("aaaa", [f"{filler} Sensor drift comes from a warm cable."])
    s.add("bbbb", ["Warm weather may come; the sensor cable and sensor housing drift."])
    question = "Does sensor drift come from a warm cable?"
    params = FusionParams(sentence_weight=6.0)
    off = HybridRetriever(s, emb, params).search(question, top_k=2)
    assert off[0].chunk_id == "bbbb:00000"  # nothing stored: the fused order stands
    for cid in s.chunks:
        _sentences_of(s, emb, cid)
    on = HybridRetriever(s, emb, params).search(question, top_k=2)
    assert on[0].chunk_id == "aaaa:00000"
    plain = HybridRetriever(s, emb, FusionParams(sentence_weight=0.0)).search(question, top_k=2)
    assert [h.chunk_id for h in plain] == [h.chunk_id for h in off]


def test_sentences_count_only_in_the_languages_the_embedder_knows() -> None:
    """The embedded MiniLM knows English words only: for a German question over German
    pages its sentence cosines are noise, so the sentence list stays out and the fused order
    stands; an embedder that names itself multilingual gets the list for every language, and
    the gate can be switched off."""
    filler = " ".join(f"Eine Bemerkung Nummer {i} über das Gehäuse." for i in range(12))
    question = "Kommt die Drift des Sensors von einem warmen Kabel?"
    order = {}
    for name in ("hash-64", "paraphrase-multilingual-hash"):
        emb = HashEmbedder(name=name)
        s = FakeStore(emb)
        s.add("aaaa", ["Kommt die Drift von einem Gehäuse. Des Sensors warmen Kabel liegen lose."])
        s.add("bbbb", [f"{filler} Die Drift des Sensors kommt von einem warmen Kabel."])
        for cid in s.chunks:
            _sentences_of(s, emb, cid)
        plain = HybridRetriever(s, emb, FusionParams(sentence_weight=0.0)).search(question, 2)
        on = HybridRetriever(s, emb, FusionParams(sentence_weight=6.0)).search(question, 2)
        ungated = FusionParams(sentence_weight=6.0, sentence_languages_only=False)
        forced = HybridRetriever(s, emb, ungated).search(question, 2)
        order[name] = [h.chunk_id for h in plain], [h.chunk_id for h in on], forced[0].chunk_id
    plain_ids, on_ids, forced_first = order["hash-64"]
    assert plain_ids[0] == "aaaa:00000" and forced_first == "bbbb:00000"  # the list would lift it
    assert on_ids == plain_ids, "an English-only embedder's sentences do not reorder German"
    _, multi_ids, _ = order["paraphrase-multilingual-hash"]
    assert multi_ids[0] == "bbbb:00000"


def test_feedback_adds_a_second_keyword_pass_with_the_best_passages_words(
    emb: HashEmbedder,
) -> None:
    s = FakeStore(emb)
    s.add("aaaa", ["Footer page numbers use the lastpage label for the total."])
    s.add("bbbb", ["The lastpage label is written at the very end of the run."])
    s.add("cccc", ["Footer styles and page numbers in general."])
    params = FusionParams(prf_weight=1.0, prf_docs=1, prf_terms=8)
    HybridRetriever(s, emb, params).search("footer page numbers", top_k=3)
    first, second = s.text_queries
    assert first == "footer page numbers"
    assert second.startswith(first + " ")
    extra = second.split()[3:]
    assert "lastpage" in extra and "label" in extra
    assert set(extra) <= set(_WORD.findall(s.chunks["aaaa:00000"].text.lower()))


def _bilingual(emb: HashEmbedder) -> FakeStore:
    s = FakeStore(emb)
    s.add(
        "en01",
        [
            "The battery lasts eighteen months when sampling once per minute.",
            "Clean the air filter every ninety days with a soft brush.",
            "The page numbers are printed in the footer of every page.",
        ],
    )
    s.add(
        "de01",
        [
            "Der Akku hält achtzehn Monate, wenn einmal pro Minute gemessen wird.",
            "Reinigen Sie den Luftfilter alle neunzig Tage mit einer weichen Bürste.",
            "Die Seitenzahlen stehen in der Fußzeile jeder Seite.",
        ],
    )
    return s


def test_a_question_is_also_searched_in_the_other_languages_of_its_scope(
    emb: HashEmbedder,
) -> None:
    store = _bilingual(emb)
    r = HybridRetriever(store, None)  # keywords only: the translation is all that bridges
    hits, timings = r.search_with_timings("Wie oft reinige ich den Luftfilter?", top_k=4)
    assert "translated" in timings
    assert {"air", "filter"} <= set(store.text_queries[-1].split())
    assert [h.chunk_id for h in hits[:2]] == ["de01:00001", "en01:00001"]
    off = HybridRetriever(store, None, FusionParams(translation_weight=0))
    hits, timings = off.search_with_timings("Wie oft reinige ich den Luftfilter?", top_k=4)
    assert "translated" not in timings
    assert "en01:00001" not in [h.chunk_id for h in hits]
    # An English question finds the German page by its German words.
    hits = r.search("How long does the battery last?", top_k=4)
    assert {"en01:00000", "de01:00000"} <= {h.chunk_id for h in hits[:2]}


def test_no_translation_in_a_library_of_the_questions_language(emb: HashEmbedder) -> None:
    store = _bilingual(emb)
    r = HybridRetriever(store, emb)
    for scope in (["en01"], None):
        queries = len(store.text_queries)
        _, timings = r.search_with_timings("Where are the page numbers?", top_k=3, doc_ids=scope)
        assert ("translated" in timings) == (scope is None)
        assert len(store.text_queries) - queries == (1 if scope else 2)
    # A question in a script no list covers, or a language without a list, is searched as asked.
    for question in (
        "배터리는 얼마나 오래 갑니까?",
        "Hvor længe holder batteriet, og hvor er det?",
    ):
        _, timings = r.search_with_timings(question, top_k=3)
        assert "translated" not in timings, question


def test_document_languages_are_judged_once(emb: HashEmbedder) -> None:
    store = _bilingual(emb)
    calls: list[int] = []
    get_chunks = store.get_chunks

    def counting(ids: Sequence[str], *, charmap: bool = True) -> list:
        calls.append(len(ids))
        return get_chunks(ids, charmap=charmap)

    store.get_chunks = counting  # type: ignore[method-assign]
    r = HybridRetriever(store, None, FusionParams(candidates=2))
    r.search("Wo ist die Fußzeile?", top_k=1)
    first = len(calls)
    r.search("Wo ist die Fußzeile?", top_k=1)
    assert len(calls) == 2 * first - 1  # the second search fetched its hits, not the samples
    assert r._doc_language == {"en01": "en", "de01": "de"}


def test_a_document_whose_samples_cannot_be_read_is_not_asked_again(emb: HashEmbedder) -> None:
    store = _bilingual(emb)
    asked: list[list[str]] = []
    get_chunks = store.get_chunks

    def without_german(ids: Sequence[str], *, charmap: bool = True) -> list:
        asked.append(list(ids))
        return [c for c in get_chunks(ids, charmap=charmap) if c.doc_id != "de01"]

    store.get_chunks = without_german  # type: ignore[method-assign]
    r = HybridRetriever(store, None)
    for _ in range(2):
        r.search("Where are the page numbers?", top_k=1)
    samples = [ids for ids in asked if any(i.startswith("de01:") for i in ids)]
    assert len(samples) == 1  # the first search's sample only
    assert r._doc_language == {"en01": "en", "de01": ""}


def test_each_hit_carries_its_rank_in_the_keyword_and_the_vector_list(
    store: FakeStore, emb: HashEmbedder
) -> None:
    query = "How often must I clean the air filter?"
    hits = HybridRetriever(store, emb).search(query, top_k=5)
    terms = " ".join(
        w for w in _WORD.findall(query.lower()) if w in {"often", "clean", "air", "filter"}
    )
    keyword = [cid for cid, _ in store.text_search(terms, 40)]
    vector = [cid for cid, _ in store.vector_search(emb.embed([query])[0], 40)]
    for h in hits:
        want_k = keyword.index(h.chunk_id) + 1 if h.chunk_id in keyword else 0
        want_v = vector.index(h.chunk_id) + 1 if h.chunk_id in vector else 0
        assert (h.keyword_rank, h.vector_rank) == (want_k, want_v)
    assert hits[0].keyword_rank == 1 and hits[0].vector_rank >= 1
    # A chunk no keyword matches was found by its vector alone.
    assert any(h.keyword_rank == 0 and h.vector_rank > 0 for h in hits)


def test_without_an_embedder_no_hit_has_a_vector_rank(store: FakeStore) -> None:
    hits = HybridRetriever(store, None).search("sensor cable broken", top_k=3)
    assert hits and all(h.vector_rank == 0 for h in hits)
    assert hits[0].keyword_rank == 1
