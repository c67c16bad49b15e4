"""Citations on a real PDF: the rectangles of a validated quote cover exactly its words.

A generated manual (tests/pdf_factory.py) is parsed by the real ingestion; the model's
quote is typed the way models type (straight quotes, collapsed spaces), and the
rectangles the validator derives from the chunk's CharMap are checked against the words
PyMuPDF finds on the page. This is what the person sees highlighted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.models import Chunk, ParsedDocument, RawAnswer, RawCitation, Source
from app.ingest import parse_pdf
from app.validation import validate
from app.validation.normalize import loose
from tests.pdf_factory import highlighted_words, make_manual_pdf

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ParsedDocument]:
    path = make_manual_pdf(tmp_path_factory.mktemp("pdf") / "manual.pdf")
    return path, parse_pdf(path)


def _pair(doc: ParsedDocument, phrase: str, path: Path) -> tuple[Source, Chunk]:
    chunk = next(c for c in doc.chunks if phrase in " ".join(c.text.split()))
    src = Source(
        rank=1, chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, file=str(path),
        title=doc.document.title, page_start=chunk.page_start, page_end=chunk.page_end,
        section=chunk.section, score=1.0, text=chunk.text, n=1,
    )  # fmt: skip
    return src, chunk


@pytest.mark.parametrize(
    ("typed", "pages"),
    [
        # crosses the page break between pages 3 and 4
        ("a warning symbol appears when less than ten percent is left. "
         "The reserve capacity of the battery is enough", [3, 4]),
        # "accred-ited" is hyphenated at a line end in the PDF
        ("Calibration must be repeated every 12 months by an accredited laboratory", [5]),
        # curly quotes and the "fi" ligature in the PDF, typed plainly
        ('The first start-up wizard shows "Ready" when it has finished', [1]),
    ],
)  # fmt: skip
def test_rects_cover_exactly_the_quoted_words(
    manual: tuple[Path, ParsedDocument], typed: str, pages: list[int]
) -> None:
    path, doc = manual
    src, chunk = _pair(doc, typed.split(' "')[0][:40], path)
    raw = RawAnswer(
        mode="answer",
        answer=f"{typed} [1].",
        citations=[RawCitation(source=1, quote=typed)],
    )
    result = validate(raw, [(src, chunk)])
    (c,) = result.citations
    assert chunk.text[c.start : c.end] == c.quote
    assert c.page == pages[0]
    assert sorted({r[0] for r in c.rects}) == pages
    # Same words (PyMuPDF words carry their punctuation and the "ﬁ" ligature).
    assert loose(highlighted_words(path, c.rects)) == loose(c.quote)
    assert result.validation.status in ("GREEN", "YELLOW")
    assert not [d for d in result.validation.dropped if d.reason == "quote_not_found"]
