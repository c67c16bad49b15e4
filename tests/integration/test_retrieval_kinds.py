"""Retrieval over PDFs of other kinds than manuals, with the real embedder and LanceDB.

The PDFs are the second development set's (tests/bench/corpus_gen): a two-column paper, a
report with ruled tables, a long book; plus a table drawn column by column.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.protocols import Embedder
from app.services.library import Library
from app.store import Store
from tests import pdf_factory as pf
from tests.bench.corpus_gen import book, generate, paper, report

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Embedder) -> tuple:
    root = tmp_path_factory.mktemp("kinds")
    corpus = root / "corpus"
    pdfs = [p for p in generate(corpus) if p.name in (paper.FILE, report.FILE, book.FILE)]
    pdfs.append(pf.make_column_wise_table_pdf(corpus / "layout.pdf"))
    pdfs.append(pf.make_long_table_pdf(corpus / "long-layout.pdf"))
    library = Library(Settings(library=root / "lib"), embedder=shared_embedder)
    results = library.ingest(pdfs).results
    assert all(r.status == "added" for r in results), results
    return library, {Path(r.file).name: r.doc_id for r in results}


def _hits(library: Library, question: str, k: int = 5):
    hits, _ = library.search(question, top_k=k)
    return hits


def test_paraphrase_without_the_evidence_words_finds_its_page(kinds: tuple) -> None:
    """Not one content word of the question is in the evidence sentence."""
    library, ids = kinds
    evidence = "Codling moth is responsible for most maggoty apples"
    hits = _hits(library, "Which insect leaves grubs inside my fruit?")
    assert any(h.doc_id == ids[book.FILE] and evidence in h.text for h in hits), [
        (h.file, h.page_start) for h in hits
    ]


def test_table_row_question_retrieves_the_row_with_its_header(kinds: tuple) -> None:
    library, ids = kinds
    hits = _hits(library, "What is the daily capacity of the Kingsmere treatment works?")
    top = [h for h in hits[:3] if h.doc_id == ids[report.FILE]]
    row = "Kingsmere River Lodden 41.0 1974 33.0"
    header = "Treatment works Source Capacity (Ml/d) Commissioned Average output 2025"
    assert any(row in h.text and header in h.text for h in top), [h.text[:80] for h in top]


def test_column_wise_table_rows_stay_whole(kinds: tuple) -> None:
    library, ids = kinds
    hits = _hits(library, "Which field of the return holds the income tax deducted?")
    best = [h for h in hits[:3] if h.doc_id == ids["layout.pdf"]]
    assert best, [(h.file, h.text[:60]) for h in hits]
    text = best[0].text
    assert "TAXDUE 29 11 Income tax deducted in pence" in text
    assert "Field Start Length Content" in text


def test_a_row_far_down_a_long_table_is_found_and_quoted_with_the_header(kinds: tuple) -> None:
    """The table runs over three chunks; the row asked about is in a later one, which begins
    with a copy of the header line (mapped to where the header is printed)."""
    library, ids = kinds
    hits = _hits(library, "Which positions of the record hold the broadband allowance field?")
    best = [h for h in hits[:3] if h.doc_id == ids["long-layout.pdf"]]
    row = pf.long_table_row(pf.LONG_TABLE_ITEMS.index("broadband"))
    assert best and row in best[0].text, [(h.file, h.text[:60]) for h in hits]
    assert best[0].text.startswith(pf.LONG_TABLE_HEADER + "\n")
    first = library.store.chunks_of(ids["long-layout.pdf"])[0]
    assert row not in first.text, "the row must lie past the header's own chunk"


def test_two_column_page_retrieves_the_right_column_sentence(kinds: tuple) -> None:
    library, ids = kinds
    evidence = (
        "We call a dock short when it holds fewer than two bikes or fewer than two free slots"
    )
    hits = _hits(library, "What did the authors define as a bike station running short?")
    found = [h for h in hits if h.doc_id == ids[paper.FILE] and evidence in h.text]
    assert found and found[0].page_start == 1, [(h.file, h.page_start) for h in hits]


def test_library_made_without_the_chunk_id_index_gets_it_and_keeps_working(
    tmp_path: Path, shared_embedder: Embedder
) -> None:
    """A library written by the previous version (no scalar index on chunk_id) is upgraded
    when opened: the index is built, documents, search and chunk fetches work as before."""
    pdf = pf.make_column_wise_table_pdf(tmp_path / "layout.pdf")
    settings = Settings(library=tmp_path / "lib")
    Library(settings, embedder=shared_embedder).ingest([pdf])
    store = Store(tmp_path / "lib")
    for ix in store._chunks.list_indices():  # make it look like a library of the old version
        if ix.columns == ["chunk_id"]:
            store._chunks.drop_index(ix.name)
    assert not any(ix.columns == ["chunk_id"] for ix in store._chunks.list_indices())
    del store

    upgraded = Library(settings, embedder=shared_embedder)
    indexed = upgraded.store._chunks.list_indices()
    assert any(ix.columns == ["chunk_id"] for ix in indexed)
    assert [d.file for d in upgraded.documents()] == [str(pdf.resolve())]
    hits = _hits(upgraded, "Where is the gross pay in pence?")
    assert hits and "GROSSPAY 18 11 Gross pay in pence" in hits[0].text
    full = upgraded.chunks([hits[0].chunk_id])[0]
    assert full.charmap is not None  # the full fetch still carries the character map
