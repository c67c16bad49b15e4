"""The in-memory term index counts as the full-text index does and keeps in step with the
store; the library's words it lists are embedded ahead of questions."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from app.core import textkit
from app.core.config import Settings
from app.core.progress import CancelToken
from app.core.scripts import cjk_terms
from app.retrieval.terms import TermIndex, document_frequencies, fold
from app.services.ask import AskService
from app.services.library import Library
from app.services.verdict import CachedEmbed
from app.store import sql
from app.store.store import Store
from app.validation.support import neighbour_candidates
from tests import doc_factory as df
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder, ScriptedModel

ABSENT = ["walnut", "watermark", "dividend", "xyzzy"]
KEYWORD_STOPS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do
    does did doing a an the and but if or because as until while of at by for with about
    against between into through during before after above below to from up down in out on
    off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will
    just don should now d ll m o re ve y""".split()  # noqa: SIM905
)
"""The function words the keyword index drops (NLTK's English list): it counts them 0, the
term index as they are; no key concept is one of them."""


def _library(root: Path) -> Library:
    return Library(Settings(library=root / "lib"), embedder=HashEmbedder())


def _ingest(lib: Library, path: Path) -> str:
    [result] = lib.ingest([path]).results
    assert result.status == "added", result
    assert result.doc_id
    return result.doc_id


def _words(store: Store) -> list[str]:
    """Every word of the library's chunks that is not a stop word, a few inflected
    ("pages" for "page"), capitalised and accented forms, and words it lacks."""
    docs = [d.doc_id for d in store.documents()]
    seen: dict[str, None] = {}
    for _, text in store.keyword_texts(docs):
        for w in textkit.TOKEN.findall(text.lower()):
            if w not in textkit.stop_words("en") and cjk_terms(w) == w:
                seen.setdefault(w, None)
    words = list(seen)
    return [*words, *(w + "s" for w in words[:50]), *(w.upper() for w in words[:20]), *ABSENT]


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = _library(tmp_path)
    _ingest(lib, pf.make_manual_pdf(tmp_path / "manual.pdf"))
    _ingest(lib, df.make_report_pdf(tmp_path / "report.pdf"))
    return lib


def _differ(queried: dict[str, int], counted: dict[str, int]) -> dict[str, tuple[int, int]]:
    return {
        w: (n, counted[w])
        for w, n in queried.items()
        if n != counted[w] and not (n == 0 and w in KEYWORD_STOPS)
    }


def _agrees(lib: Library, index: TermIndex) -> None:
    words = _words(lib.store)
    index.refresh()
    counted, n = index.counts(words)
    assert n == lib.store.count_chunks()
    queried = document_frequencies(lib.store, words)
    assert set(queried) == set(counted) == {w.lower() for w in words}
    differ = _differ(queried, counted)
    assert not differ, f"full-text index vs term index: {differ}"
    assert all(counted[w] == 0 for w in ABSENT)
    assert any(n > 1 for n in counted.values())


def test_counts_as_the_full_text_index_does(library: Library) -> None:
    _agrees(library, TermIndex(library.store))


def test_accents_fold_and_words_stem_as_in_the_index() -> None:
    assert fold("Größe") == "grosse"
    assert fold("Café") == "cafe"
    assert fold("plain") == "plain"


class Recording:
    """A store as the term index sees it, recording which documents it read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.read: list[list[str]] = []

    def chunks_version(self) -> int:
        return self.store.chunks_version()

    def doc_id_column(self, table: Literal["chunks", "vectors"]) -> list[str]:
        return self.store.doc_id_column(table)

    def keyword_texts(self, doc_ids: list[str]) -> list[tuple[str, str]]:
        self.read.append(sorted(doc_ids))
        return self.store.keyword_texts(doc_ids)


def test_a_new_document_is_read_alone(library: Library, tmp_path: Path) -> None:
    source = Recording(library.store)
    index = TermIndex(source)
    index.refresh()
    first = source.read[-1]
    new = _ingest(library, df.make_arxiv_pdf(tmp_path / "arxiv.pdf"))
    _agrees(library, index)
    assert source.read[-1] == [new], "only the new document is read"
    assert len(first) == 2
    index.refresh()
    assert len(source.read) == 2, "an unchanged store is not read again"


def test_a_removed_document_is_taken_out(library: Library) -> None:
    library.count_words()
    word = "dividend"
    assert library.term_counts([word])[0][word] == 0
    report = next(d for d in library.documents() if "Water" in d.title)
    others = [d.doc_id for d in library.documents() if d.doc_id != report.doc_id]
    candidates = ("agency", "environment", "regional", "quality", "annual")
    only_there = [
        w
        for w in candidates
        if document_frequencies(library.store, [w])[w]
        and not document_frequencies(library.store, [w], doc_ids=others)[w]
    ]
    assert only_there, "the report has words of its own"
    assert library.term_counts(only_there)[0][only_there[0]] > 0
    assert library.remove(report.doc_id)
    counts, n = library.term_counts(only_there)
    assert n == library.store.count_chunks()
    assert all(counts[w] == 0 for w in only_there)
    assert library._terms is not None
    _agrees(library, library._terms)


def test_another_process_removing_a_document_is_seen(library: Library, tmp_path: Path) -> None:
    source = Recording(library.store)
    index = TermIndex(source)
    index.refresh()
    other = Library(library.settings, embedder=HashEmbedder())
    report = next(d for d in other.documents() if "Water" in d.title)
    assert other.remove(report.doc_id)
    other.store.close()
    _agrees(library, index)
    assert len(source.read) == 1, "taken out by its own counts: nothing is read again"


def test_another_process_rewriting_a_document_reads_it_alone(
    library: Library, tmp_path: Path
) -> None:
    source = Recording(library.store)
    index = TermIndex(source)
    index.refresh()
    manual = next(d for d in library.documents() if "Zephyr" in d.title)
    chunks = library.store.chunks_of(manual.doc_id)
    assert len(chunks) > 1
    # what a writer elsewhere could leave: the same document with a chunk fewer
    library.store._chunks.delete(sql.equals("chunk_id", chunks[-1].chunk_id))
    _agrees(library, index)
    assert source.read[1:] == [[manual.doc_id]], "the rest of the library is not read again"


def test_term_counts_agree_before_and_after_counting_words(library: Library) -> None:
    words = _words(library.store)
    cold, n_cold = library.term_counts(words)
    library.count_words()
    assert library._terms is not None
    warm, n_warm = library.term_counts(words)
    assert n_warm == n_cold
    assert not _differ(cold, warm)


def test_cjk_words_are_counted_by_character_pairs(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    _ingest(lib, df.make_cjk_pdf(tmp_path / "cjk.pdf"))
    lib.count_words()
    word = df.CHINESE_SENTENCES[0][:4]  # "离线问答": asked as 离线, 线问, 问答
    counts, _ = lib.term_counts([word, "东京大学图书馆"])
    assert counts[word] == document_frequencies(lib.store, [word])[word] >= 1
    assert counts["东京大学图书馆"] == 0


def test_forgetting_a_document_spares_a_rebuild(library: Library) -> None:
    source = Recording(library.store)
    index = TermIndex(source)
    index.refresh()
    report = next(d for d in library.documents() if "Water" in d.title)
    index.forget(report.doc_id)
    assert library.store.remove(report.doc_id)
    _agrees(library, index)
    assert len(source.read) == 1, "nothing is read again"


# --- the library's words embedded ahead of questions (AskService.warm_words) -----------------
def _asker(lib: Library) -> AskService:
    return AskService(lib, chat_model=ScriptedModel([]))


def test_common_words_come_from_the_term_index(library: Library) -> None:
    assert library.common_words(10) == [], "nothing counted before count_words"
    library.count_words()
    words = library.common_words(30)
    assert len(words) == 30
    counts, _ = library.term_counts(words)
    assert [counts[w] for w in words] == sorted((counts[w] for w in words), reverse=True)
    assert "zephyr" in library.common_words(1000)


def test_warm_words_embeds_each_word_once(library: Library) -> None:
    library.count_words()
    asker = _asker(library)
    embedded = asker.warm_words()
    words = neighbour_candidates(library.common_words(20_000), "en")
    assert embedded == len(words) > 100
    embed = asker._embed()
    assert embed is not None and embed.unknown(words) == []
    assert asker.warm_words() == 0, "nothing left to embed"


def test_warm_words_stems_the_library_words_in_its_languages(library: Library) -> None:
    """After warming, stemming a passage's words costs nothing: each is remembered."""
    library.count_words()
    words = library.common_words(20_000)
    assert textkit.languages_in(words) == ["en"]
    textkit.stem.cache_clear()
    _asker(library).warm_words()
    before = textkit.stem.cache_info()
    for w in words:
        textkit.stem(w, "en")
    after = textkit.stem.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + len(words)


def test_warm_words_stops_when_cancelled(library: Library) -> None:
    library.count_words()
    asker = _asker(library)
    cancel = CancelToken()
    cancel.cancel()
    assert asker.warm_words(cancel=cancel) == 0
    embed = asker._embed()
    assert embed is not None and embed.unknown(["zephyr"]) == ["zephyr"]


def test_warm_words_waits_while_a_question_is_answered(library: Library) -> None:
    library.count_words()
    asker = _asker(library)
    asker._asking = 1  # as during ask()
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(asker.warm_words()))
    worker.start()
    worker.join(0.3)
    embed = asker._embed()
    assert embed is not None
    assert worker.is_alive() and embed.unknown(["zephyr"]) == ["zephyr"], "it waited"
    asker._asking = 0
    worker.join(30)
    assert done and done[0] > 100 and embed.unknown(["zephyr"]) == []


def test_unknown_lists_only_words_the_cache_keeps() -> None:
    """A token too long to be remembered is never listed, so warming does not embed it
    again and again."""
    long = "a" * 41
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    cache = CachedEmbed(embed)
    assert cache.unknown(["walnut", long, "walnut"]) == ["walnut"]
    cache(["walnut", long])
    assert cache.unknown(["walnut", long]) == []
