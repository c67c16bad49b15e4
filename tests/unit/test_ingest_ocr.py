"""OCR of scanned pages: which pages need it, reading order, word boxes, rotation, settings.

The fast tests check the decisions (garbage text, column order) on plain data; the slow ones
run the real engine on PDFs made by rendering known text to pictures (tests/scan_factory.py)
and check the words and where their highlight rectangles land.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.core.errors import Cancelled, NoTextLayerError
from app.core.progress import CancelToken, Progress
from app.ingest import parse_pdf
from app.ingest.columns import reading_order
from app.ingest.ocr import (
    OcrOptions,
    available_languages,
    is_glyph_chart,
    is_plot_marks,
    tessdata_dir,
    text_is_garbage,
)
from tests.scan_factory import (
    PAPER_TITLE,
    SCAN_SENTENCES,
    TWO_COLUMN_SCAN_LEFT,
    TWO_COLUMN_SCAN_RIGHT,
    make_paper_scan_pdf,
    make_scan_pdf,
)

pytestmark = pytest.mark.unit

SHORT = SCAN_SENTENCES[:3]


# --- decisions, no engine ------------------------------------------------------------------------


def test_language_data_is_installed() -> None:
    assert tessdata_dir() is not None, "make setup installs tesseract-ocr-eng"
    assert "eng" in available_languages()


@pytest.mark.parametrize(
    "text",
    [
        "Wkh kduerxu frpplvvlrq phw rq wkh irxuwhhqwk ri Pdufk wr uhylhz wkh dqqxdo exgjhw.",
        "\ue001\ue002\ue003 \ue004\ue005 " * 12,
        "!#$% &'()* +,-./ :;<=> ?@[\\] ^_`{| }~!#$ %&'() *+,-. /:;<= >?@[\\ ]^_`{ |}~" * 2,
    ],
    ids=["shifted-letters", "private-use", "symbols"],
)
def test_garbage_text_layers_are_recognised(text: str) -> None:
    assert text_is_garbage(text)


@pytest.mark.parametrize(
    "text",
    [
        " ".join(SCAN_SENTENCES[:3]),
        "Die Kommission traf sich am vierzehnten März, um den Jahreshaushalt zu prüfen.",
        "研究表明，离线问答系统可以在没有网络的情况下引用原文。" * 3,
        "أظهرت الدراسة أن النظام يعمل دون اتصال بالشبكة ويستشهد بالنص الأصلي." * 2,
        "Table 3: 12.5 14.2 18.9 21.0 value unit total 33.4 41.7 52.8",
        "x",
    ],
    ids=["english", "german", "chinese", "arabic", "numbers", "short"],
)
def test_real_text_is_not_garbage(text: str) -> None:
    assert not text_is_garbage(text)


def test_a_table_of_contents_is_not_garbage() -> None:
    """Dot leaders are layout: a contents page keeps its text layer instead of going to OCR
    (39 pages of the real corpus did, at a second or more each)."""
    toc = (
        " ".join(f"{n}. Chapter {n} {'.' * 90} {10 * n}" for n in range(1, 30))
        + " List of Figures 1.1. A chart of accounts "
        + "." * 80
        + " 1"
    )
    assert not text_is_garbage(toc)
    assert not text_is_garbage("Inhaltsverzeichnis Über die Verfasser " + "." * 120 + " xiii")


def test_plot_marks_are_not_sent_to_ocr() -> None:
    """A scatter plot drawn with letters as marks has no vowels, but OCR reads the same marks."""
    plot = "xmin Frequency 0 5 10 15 20 (a) " + "G G GG G G G G GGG G G " * 30
    assert text_is_garbage(plot)
    assert is_plot_marks(plot)
    spaced = " ".join("Wkh kduerxu frpplvvlrq phw rq wkh irxuwhhqwk ri Pdufk") * 2
    assert not is_plot_marks(spaced)  # broken prose, spaced out letter by letter, still goes


def _code_chart() -> str:
    """A font's code chart as MuPDF reads it: octal row labels, and one glyph per cell, the
    first 32 of them control characters (glyphs without a Unicode meaning)."""
    cells = [chr(c) for c in range(0x00, 0x80) if not chr(c).isspace()]
    rows = [f"\u00b4{r:02o}x " + " ".join(cells[r * 8 : r * 8 + 8]) for r in range(len(cells) // 8)]
    return "wnr10, OT2 " + " ".join(f"\u00b4{i}" for i in range(8)) + " " + " ".join(rows)


def test_a_code_chart_is_garbage_but_not_sent_to_ocr() -> None:
    chart = _code_chart()
    assert text_is_garbage(chart)
    assert is_glyph_chart(chart)


@pytest.mark.parametrize(
    "text",
    [
        "Wkh kduerxu frpplvvlrq phw rq wkh irxuwhhqwk ri Pdufk wr uhylhz wkh dqqxdo exgjhw." * 3,
        " ".join("Wkh kduerxu frpplvvlrq phw rq wkh irxuwhhqwk ri Pdufk") * 2,  # spaced letters
        "!#$% &'()* +,-./ :;<=> ?@[\\] ^_`{| }~!#$ %&'() *+,-. /:;<= >?@[\\ ]^_`{ |}~" * 2,
        " ".join(SCAN_SENTENCES),
    ],
    ids=["shifted-words", "spaced-letters", "symbol-words", "prose"],
)
def test_broken_prose_is_no_glyph_chart(text: str) -> None:
    assert not is_glyph_chart(text)


def _words(line_specs: list[tuple[float, float, float, str]]) -> list[tuple]:
    """Word tuples (x0, y0, x1, y1, text, block, line, word): one MuPDF line per spec."""
    out = []
    for n, (x0, y, x1, text) in enumerate(line_specs):
        out.append((x0, y, x1, y + 10, text, 0, n, 0))
    return out


def test_two_columns_are_read_column_by_column() -> None:
    specs = [(72, 60, 400, "Title across the page")]
    for i in range(6):
        y = 100 + 16 * i
        specs.append((72, y, 280, f"left {i}"))
        specs.append((310, y + 1, 520, f"right {i}"))
    order = [w[4] for w in reading_order(_words(specs), 595)]
    assert order == ["Title across the page"] + [f"left {i}" for i in range(6)] + [
        f"right {i}" for i in range(6)
    ]


def test_table_cells_are_not_columns() -> None:
    specs = []
    for i in range(6):
        y = 100 + 16 * i
        specs += [(72, y, 120, f"a{i}"), (250, y, 290, f"b{i}"), (450, y, 500, f"c{i}")]
    order = [w[4] for w in reading_order(_words(specs), 595)]
    assert order[:3] == ["a0", "b0", "c0"]  # row by row


# --- the engine on rendered pages --------------------------------------------------------------


def _overlap(a: tuple, b: tuple) -> float:
    """Share of box ``b`` covered by box ``a``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (b[2] - b[0]) * (b[3] - b[1])
    return max(0.0, w) * max(0.0, h) / area if area > 0 else 0.0


def _check_words_highlight(path: Path, truth_words: list[tuple], parsed) -> None:
    """Every long printed word is found in a chunk and its highlight covers where it was
    printed (boxes in unrotated page space, as the viewer receives them)."""
    checked = 0
    for x0, y0, x1, y1, word in truth_words:
        if len(word) < 6 or not word.isalpha():
            continue
        for chunk in parsed.chunks:
            i = chunk.text.find(word)
            if i >= 0:
                rects = chunk.charmap.rects(i, i + len(word))
                assert rects, word
                got = rects[0]
                assert got.page == 1
                assert _overlap((got.x0, got.y0, got.x1, got.y1), (x0, y0, x1, y1)) > 0.5, (
                    word,
                    got,
                    (x0, y0, x1, y1),
                )
                checked += 1
                break
    assert checked >= 5, f"too few words of {path.name} checked"


@pytest.mark.slow
def test_scanned_page_is_read_with_word_boxes_and_progress(tmp_path: Path) -> None:
    path, truth = make_scan_pdf(tmp_path / "scan.pdf", dpi=200, sentences=SHORT)
    seen: list[Progress] = []
    parsed = parse_pdf(path, on_progress=seen.append)
    assert parsed.ocr_pages == [1]
    text = " ".join(c.text for c in parsed.chunks)
    for sentence in SHORT:
        assert sentence in text
    ocr = [p for p in seen if p.stage == "ocr"]
    assert [(p.done, p.total) for p in ocr] == [(0, 1), (1, 1)]
    _check_words_highlight(path, truth[0].words, parsed)


@pytest.mark.slow
@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotated_scan_highlights_land_on_the_words(tmp_path: Path, rotation: int) -> None:
    path, truth = make_scan_pdf(
        tmp_path / f"rot{rotation}.pdf", dpi=150, rotation=rotation, sentences=SHORT
    )
    parsed = parse_pdf(path)
    assert parsed.ocr_pages == [1]
    assert SHORT[0] in parsed.chunks[0].text
    _check_words_highlight(path, truth[0].words, parsed)


@pytest.mark.slow
def test_two_column_scan_reads_column_by_column(tmp_path: Path) -> None:
    path, _ = make_scan_pdf(tmp_path / "two.pdf", dpi=200, two_columns=True)
    parsed = parse_pdf(path)
    text = " ".join(c.text for c in parsed.chunks)
    # each sentence crosses a line break inside its column, and comes back whole
    for s in (TWO_COLUMN_SCAN_LEFT[0], TWO_COLUMN_SCAN_RIGHT[0], TWO_COLUMN_SCAN_RIGHT[2]):
        assert s in text, s
    assert text.index(TWO_COLUMN_SCAN_LEFT[0]) < text.index(TWO_COLUMN_SCAN_RIGHT[0])


@pytest.mark.slow
def test_garbage_text_layer_is_replaced_by_ocr(tmp_path: Path) -> None:
    path, _ = make_scan_pdf(
        tmp_path / "bad-layer.pdf", dpi=200, sentences=SHORT, garbage_layer=True
    )
    parsed = parse_pdf(path)
    assert parsed.ocr_pages == [1]
    assert SHORT[1] in " ".join(c.text for c in parsed.chunks)
    assert "Wkh" not in parsed.chunks[0].text


def test_ocr_turned_off_refuses_a_scan_with_the_reason(tmp_path: Path) -> None:
    path, _ = make_scan_pdf(tmp_path / "scan.pdf", dpi=100, sentences=SHORT)
    with pytest.raises(NoTextLayerError, match="turned off") as info:
        parse_pdf(path, ocr=OcrOptions(enabled=False))
    assert "scan.pdf" in str(info.value) and "OCR" in info.value.user_text()


def test_ocr_is_cancellable_between_pages(tmp_path: Path) -> None:
    path, _ = make_scan_pdf(tmp_path / "scan.pdf", pages=3, dpi=100, sentences=SHORT)
    token = CancelToken()

    def cancel_on_first_ocr_report(p: Progress) -> None:
        if p.stage == "ocr":
            token.cancel()

    with pytest.raises(Cancelled):
        parse_pdf(path, on_progress=cancel_on_first_ocr_report, cancel=token)


@pytest.mark.slow
def test_pages_become_available_as_ocr_finishes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ingest import pdf

    monkeypatch.setattr(pdf, "PARTIAL_EVERY", 0.0)
    path, truth = make_scan_pdf(tmp_path / "three.pdf", pages=3, dpi=150, per_page=2)
    partials = []
    final = parse_pdf(path, on_partial=partials.append)
    assert [p.ocr_pages for p in partials] == [[1], [1, 2]]  # the last page comes with the result
    first = " ".join(" ".join(c.text for c in partials[0].chunks).split())
    assert truth[0].text in first and truth[1].text not in first
    assert {p.document.doc_id for p in partials} == {final.document.doc_id}
    assert final.ocr_pages == [1, 2, 3]
    assert all(t.text in " ".join(" ".join(c.text for c in final.chunks).split()) for t in truth)


def _bare(text: str) -> str:
    """Words only: OCR may drop a final period or read a comma as a full stop."""
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def _sentences(paragraphs: list[str]) -> list[str]:
    return [s for p in paragraphs for s in re.split(r"(?<=[.:])\s+", p) if len(s.split()) >= 6]


@pytest.mark.slow
@pytest.mark.parametrize("dpi", [200, 300])
def test_scanned_two_column_paper_is_read_column_by_column(tmp_path: Path, dpi: int) -> None:
    """A paper's page (10-pt justified Times, 17 pt between the columns, headings, a title
    across the page) scanned at office-copier resolutions: OCR's specks in the gutter and
    the narrow gutter itself once made rows read straight across both columns."""
    path, truth = make_paper_scan_pdf(tmp_path / f"paper{dpi}.pdf", dpi=dpi)
    parsed = parse_pdf(path)
    assert parsed.ocr_pages == [1]
    text = " ".join(" ".join(c.text.split()) for c in parsed.chunks)
    left, right = _sentences(truth.left), _sentences(truth.right)
    found = 0
    for sentence, (x0, x1) in [(s, truth.left_x) for s in left] + [
        (s, truth.right_x) for s in right
    ]:
        # never cut by the other column's words: its first and last words stay close
        said, words = _bare(text), _bare(sentence).split()
        head, tail = " ".join(words[:4]), " ".join(words[-4:])
        assert head in said and tail in said, sentence
        i = said.index(head)
        assert said.index(tail, i) + len(tail) - i <= len(sentence) + 8, sentence
        pattern = re.compile(r"[\W_]+".join(map(re.escape, words)))
        hit = next(((c, m) for c in parsed.chunks if (m := pattern.search(c.text))), None)
        if hit is None:
            continue  # an OCR slip inside the sentence; its order was checked above
        found += 1
        rects = hit[0].charmap.rects(hit[1].start(), hit[1].end())
        assert rects and all(x0 - 3 <= r.x0 and r.x1 <= x1 + 3 for r in rects), (sentence, rects)
    assert found >= 0.7 * (len(left) + len(right)), found
    said = _bare(text)
    first, last = (" ".join(_bare(s).split()[:5]) for s in (left[0], left[-1]))
    assert said.index(first) < said.index(last) < said.index(" ".join(_bare(right[0]).split()[:5]))


@pytest.mark.slow
def test_scanned_paper_is_titled_and_sectioned_by_its_headings(tmp_path: Path) -> None:
    """OCR gives no fonts and every word of a line its tallest box: the title is told by how
    wide the letters are, headings by their section numbers, and no body line ("distribute
    and/or modify it.", "ting, where each ...") is a title, a section or a passage's start."""
    path, _ = make_paper_scan_pdf(tmp_path / "paper.pdf", dpi=200)
    parsed = parse_pdf(path)
    assert parsed.document.title == PAPER_TITLE
    assert [(s.title, s.level) for s in parsed.sections] == [
        ("1 Introduction", 1),
        ("2 Method", 1),
        ("2.1 Source Code", 2),
    ]
    for chunk in parsed.chunks:
        assert chunk.text[:1].isupper() or chunk.text[:1].isdigit(), chunk.text[:60]
