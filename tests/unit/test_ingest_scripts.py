"""Chinese, Korean and Arabic PDFs ingest, are found by keyword and highlight exactly.

Keyword search runs on a real LanceDB in a temp folder (the store indexes CJK runs as
character pairs); highlights are compared with MuPDF's own boxes for the same text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.scripts import cjk_terms, logical_letters
from app.ingest import parse_pdf
from app.ingest._mupdf import pymupdf
from app.store import Store
from tests import doc_factory as df

pytestmark = pytest.mark.unit


def test_cjk_runs_become_character_pairs() -> None:
    assert cjk_terms("离线问答 system") == "离线 线问 问答 system"
    assert cjk_terms("인용은 x") == "인용 용은 x"
    assert cjk_terms("plain English, untouched") == "plain English, untouched"


def test_arabic_presentation_forms_read_as_letters() -> None:
    assert logical_letters("\ufe8d\ufedf\ufeb8\ufe92\ufedc\ufe94") == "الشبكة"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "library")


def _rect_of(parsed, phrase: str):
    chunk = next(c for c in parsed.chunks if phrase in c.text)
    i = chunk.text.index(phrase)
    (rect,) = chunk.charmap.rects(i, i + len(phrase))
    return chunk, rect


def test_chinese_and_korean_ingest_search_and_highlight(tmp_path: Path, store: Store) -> None:
    path = df.make_cjk_pdf(tmp_path / "cjk.pdf")
    parsed = parse_pdf(path)
    text = " ".join(c.text for c in parsed.chunks)
    for sentence in df.CHINESE_SENTENCES + df.KOREAN_SENTENCES:
        assert sentence in text
    store.add_document(parsed)
    for query in ("引用原文", "文字识别", "인용", "질문에"):
        hits = store.text_search(query, 5)
        assert hits and hits[0][0] == parsed.chunks[0].chunk_id, query
    assert store.text_search("火山", 5) == []  # characters not in the document
    chunk, rect = _rect_of(parsed, df.CHINESE_SENTENCES[1])
    with pymupdf.open(path) as doc:
        (want,) = doc[0].search_for(df.CHINESE_SENTENCES[1])
    assert rect.page == 1
    assert abs(rect.x0 - want.x0) < 1.5 and abs(rect.x1 - want.x1) < 1.5
    assert abs(rect.y0 - want.y0) < 3 and abs(rect.y1 - want.y1) < 3


def test_arabic_ingests_in_logical_order_searches_and_highlights(store: Store) -> None:
    parsed = parse_pdf(df.ARABIC_PDF)
    text = " ".join(c.text for c in parsed.chunks)
    for sentence in df.ARABIC_SENTENCES:
        assert sentence in text  # letters, not shaped glyphs; words whole; right to left
    store.add_document(parsed)
    for query in ("المكتبة", "اقتباس"):  # whole words: clitics ("ب" + "الشبكة") are not split
        hits = store.text_search(query, 5)
        assert hits and hits[0][0] == parsed.chunks[0].chunk_id, query
    _, rect = _rect_of(parsed, "بالشبكة")
    with pymupdf.open(df.ARABIC_PDF) as doc:
        (box,) = [w for w in doc[0].get_text("words") if logical_letters(w[4]) == "بالشبكة."]
    # the word is read right to left: its highlight starts at the box's right edge and
    # leaves out the full stop at its left end
    assert abs(rect.x1 - box[2]) < 0.5 and abs(rect.y0 - box[1]) < 0.5
    assert box[0] + 1 < rect.x0 < box[0] + 0.25 * (box[2] - box[0])
