"""parse_pdf on real generated PDFs: document fields, sections, clean text, chunks, geometry."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from app.core.models import Chunk, ParsedDocument
from app.ingest import file_sha, parse_pdf
from app.ingest._mupdf import pymupdf
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def manual_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pf.make_manual_pdf(tmp_path_factory.mktemp("manual") / "zephyr manual.pdf")


@pytest.fixture(scope="module")
def manual(manual_path: Path) -> ParsedDocument:
    return parse_pdf(manual_path)


def _find(parsed: ParsedDocument, phrase: str) -> tuple[Chunk, int, int]:
    """First chunk containing ``phrase`` and its offsets there."""
    for c in parsed.chunks:
        i = c.text.find(phrase)
        if i >= 0:
            return c, i, i + len(phrase)
    raise AssertionError(f"{phrase!r} not in any chunk")


def _close(a: float, b: float, tol: float = 1.0) -> bool:
    return abs(a - b) <= tol


# --- document ---------------------------------------------------------------------------------


def test_document_fields(manual: ParsedDocument, manual_path: Path) -> None:
    doc = manual.document
    data = manual_path.read_bytes()
    assert doc.doc_id == hashlib.sha256(data).hexdigest()[:16] == file_sha(manual_path)
    assert doc.title == pf.MANUAL_TITLE
    assert doc.pages == pf.MANUAL_PAGE_COUNT == 5
    assert doc.file == str(manual_path.resolve())
    assert Path(doc.file).is_absolute()
    assert doc.size == len(data)
    assert doc.mtime == pytest.approx(manual_path.stat().st_mtime)
    assert doc.status == "indexed"
    assert doc.chunks == len(manual.chunks) > 5
    assert doc.ingested_at is not None


def test_same_bytes_same_id_and_chunks(manual: ParsedDocument, tmp_path: Path) -> None:
    again = parse_pdf(pf.make_manual_pdf(tmp_path / "copy.pdf"))
    assert again.document.doc_id == manual.document.doc_id
    assert [c.text for c in again.chunks] == [c.text for c in manual.chunks]
    assert [c.chunk_id for c in again.chunks] == [c.chunk_id for c in manual.chunks]


def test_relative_path_becomes_absolute(manual_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(manual_path.parent)
    parsed = parse_pdf(Path(manual_path.name))
    assert parsed.document.file == str(manual_path.resolve())


# --- sections -------------------------------------------------------------------------------


def test_sections_from_outline(manual: ParsedDocument) -> None:
    got = [(s.level, s.title, s.page) for s in manual.sections]
    assert got == pf.MANUAL_SECTIONS
    # the outline's destination point is kept as the section's vertical position
    by_title = {s.title: s for s in manual.sections}
    assert by_title["2 Installation"].y == pytest.approx(pf.TOP, abs=1)
    assert by_title["1.2 Safety notes"].y > by_title["1.1 About this manual"].y


@pytest.mark.parametrize("key", sorted(pf.MANUAL_FACTS))
def test_fact_page_and_section(manual: ParsedDocument, key: str) -> None:
    fact = pf.MANUAL_FACTS[key]
    chunk, s, e = _find(manual, fact.sentence)
    assert chunk.section == fact.section
    assert chunk.charmap is not None
    rects = chunk.charmap.rects(s, e)
    assert rects[0].page == fact.page
    assert rects[-1].page == fact.page_end


def test_every_chunk_carries_section_and_pages(manual: ParsedDocument) -> None:
    for i, c in enumerate(manual.chunks):
        assert c.ordinal == i
        assert c.chunk_id == Chunk.make_id(manual.document.doc_id, i)
        assert c.doc_id == manual.document.doc_id
        assert c.section in pf.MANUAL_SECTION_PATHS.values()
        assert 1 <= c.page_start <= c.page_end <= 5
        assert c.charmap is not None and len(c.charmap) > 0
        assert c.charmap.page_at(0) == c.page_start
        assert c.text == c.text.strip() and "  " not in c.text


def _assert_charmap_covers_text(parsed: ParsedDocument) -> None:
    for c in parsed.chunks:
        assert c.charmap is not None
        pieces = c.charmap.pieces()
        assert [p.start for p in pieces] == sorted(p.start for p in pieces)
        for a, b in zip(pieces, pieces[1:], strict=False):
            assert a.end <= b.start  # no overlap
        for p in pieces:
            word = c.text[p.start : p.end]
            assert word and word == word.strip()
            assert p.x0 < p.x1 and p.y0 < p.y1
        covered = {i for p in pieces for i in range(p.start, p.end)}
        for i, ch in enumerate(c.text):
            if not ch.isspace():
                assert i in covered, (c.chunk_id, i, c.text[i - 10 : i + 10])
            elif i not in covered:
                assert ch in " \n"


def test_every_visible_character_maps_to_a_box(manual: ParsedDocument) -> None:
    _assert_charmap_covers_text(manual)


def test_headings_without_outline(tmp_path: Path) -> None:
    parsed = parse_pdf(pf.make_no_outline_pdf(tmp_path / "plain.pdf"))
    assert [(s.level, s.title, s.page) for s in parsed.sections] == pf.MANUAL_SECTIONS
    # no metadata title: the big title line on page 1 is the document title, not a section
    assert parsed.document.title == pf.MANUAL_TITLE
    chunk, _, _ = _find(parsed, pf.MANUAL_FACTS["burst"].sentence)
    assert chunk.section == pf.MANUAL_FACTS["burst"].section


def test_title_falls_back_to_file_stem(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Only a plain sentence of body text lives here.", fontsize=11)
    path = tmp_path / "Quarterly notes.pdf"
    doc.save(path)
    parsed = parse_pdf(path)
    assert parsed.document.title == "Quarterly notes"
    assert parsed.sections == []
    assert [c.section for c in parsed.chunks] == [""]
    assert parsed.chunks[0].text == "Only a plain sentence of body text lives here."


# --- clean text ---------------------------------------------------------------------------------


def test_hyphenated_words_are_joined(manual: ParsedDocument) -> None:
    text = "\n".join(c.text for c in manual.chunks)
    for fragment, word, _ in pf.MANUAL_HYPHENATED:
        assert word in text
        assert fragment not in text


def test_compound_split_at_its_hyphen_keeps_it(manual: ParsedDocument) -> None:
    text = "\n".join(c.text for c in manual.chunks)
    for _, word, _ in pf.MANUAL_COMPOUNDS:
        assert f"damp {word} cloth" in text
        assert word.replace("-", "") not in text


def test_ligatures_quotes_soft_hyphens(manual: ParsedDocument) -> None:
    text = "\n".join(c.text for c in manual.chunks)
    for sentence in pf.MANUAL_CLEANED:
        assert sentence in text  # fi ligature expanded, curly quotes kept, soft hyphen gone
    assert "\ufb01" not in text and "\u00ad" not in text


def test_running_header_and_page_numbers_dropped(manual: ParsedDocument) -> None:
    text = "\n".join(c.text for c in manual.chunks)
    assert pf.RUNNING_HEADER not in text
    assert "Revision 7" not in text
    for c in manual.chunks:
        assert not re.search(r"(^|\n)\d\n", c.text), c.text  # no bare page-number lines
    # the title printed once on page 1 is body text, not furniture
    assert pf.MANUAL_TITLE in manual.chunks[0].text


def test_no_text_is_lost(manual: ParsedDocument, manual_path: Path) -> None:
    """Every word on every page (except header and page number) has a piece in some chunk,
    at the same place on the same page."""
    placed = {
        (p.page, round(p.x0), round(p.y0))
        for c in manual.chunks
        for p in (c.charmap.pieces() if c.charmap else [])
    }
    doc = pymupdf.open(manual_path)
    missing = []
    for page in doc:
        for x0, y0, _, y1, word, *_ in page.get_text("words"):
            if y1 < 60 or y0 > 790:  # running header, page number
                continue
            if (page.number + 1, round(x0), round(y0)) not in placed:
                missing.append((page.number + 1, word))
    assert missing == []


def test_chunks_stay_in_one_section_and_overlap(manual: ParsedDocument) -> None:
    words = [len(c.text.split()) for c in manual.chunks]
    assert max(words) <= 300
    for a, b in zip(manual.chunks, manual.chunks[1:], strict=False):
        if a.section == b.section:  # a continuation: starts with a sentence of the previous one
            assert b.text[:40] in a.text


# --- geometry ---------------------------------------------------------------------------------


def test_rects_of_a_phrase_on_one_line(manual: ParsedDocument, manual_path: Path) -> None:
    phrase = "four M6 stainless steel screws"
    chunk, s, e = _find(manual, phrase)
    assert chunk.charmap is not None
    rects = chunk.charmap.rects(s, e)
    (want,) = pymupdf.open(manual_path)[1].search_for(phrase)
    assert len(rects) == 1
    r = rects[0]
    assert r.page == 2
    # a word cut mid-way ("screws" of "screws.") is cut proportionally: within a character
    assert _close(r.x0, want.x0) and _close(r.x1, want.x1, 3.0)
    assert _close(r.y0, want.y0, 2.0) and _close(r.y1, want.y1, 2.0)


def test_rects_of_a_phrase_across_a_line_break(manual: ParsedDocument, manual_path: Path) -> None:
    phrase = "maximum sampling rate of 200 samples per second"
    chunk, s, e = _find(manual, phrase)
    assert chunk.charmap is not None
    rects = chunk.charmap.rects(s, e)
    want = pymupdf.open(manual_path)[0].search_for(phrase)
    assert len(want) == 2, "factory layout changed: phrase should wrap once"
    assert [r.page for r in rects] == [1, 1]
    for got, exp in zip(rects, want, strict=True):
        assert _close(got.x0, exp.x0, 2.0) and _close(got.x1, exp.x1, 3.0)
        assert _close(got.y0, exp.y0, 2.0) and _close(got.y1, exp.y1, 2.0)
    assert rects[1].y0 > rects[0].y1 - 1  # second line below the first


def test_rects_of_a_hyphenated_word(manual: ParsedDocument, manual_path: Path) -> None:
    chunk, s, e = _find(manual, "accredited laboratory")
    assert chunk.charmap is not None
    rects = chunk.charmap.rects(s, s + len("accredited"))
    page = pymupdf.open(manual_path)[4]
    words = {w[4]: w for w in page.get_text("words")}
    head, tail = words["accred-"], words["ited"]
    assert len(rects) == 2 and {r.page for r in rects} == {5}
    assert _close(rects[0].x0, head[0]) and _close(rects[0].x1, head[2])
    assert _close(rects[0].y0, head[1]) and _close(rects[0].y1, head[3])
    assert _close(rects[1].x0, tail[0]) and _close(rects[1].x1, tail[2])
    assert _close(rects[1].y0, tail[1])


def test_rects_across_a_page_break(manual: ParsedDocument, manual_path: Path) -> None:
    chunk, s, e = _find(manual, "The reserve capacity of the battery")
    assert chunk.charmap is not None
    rects = chunk.charmap.rects(s, e)
    assert [r.page for r in rects] == [3, 4]
    doc = pymupdf.open(manual_path)
    (end3,) = doc[2].search_for("The reserve")
    (start4,) = doc[3].search_for("capacity of the battery")
    assert _close(rects[0].x0, end3.x0) and _close(rects[0].y0, end3.y0, 2.0)
    assert _close(rects[1].x0, start4.x0) and _close(rects[1].x1, start4.x1, 2.0)
    assert chunk.page_start == 3 and chunk.page_end == 4


def test_charmap_survives_bytes(manual: ParsedDocument) -> None:
    from app.core.charmap import CharMap

    c = manual.chunks[3]
    assert c.charmap is not None
    again = CharMap.from_bytes(c.charmap.to_bytes())
    assert again == c.charmap
    assert again.rects(0, 10) == c.charmap.rects(0, 10)


# --- two columns ------------------------------------------------------------------------------


def test_two_columns_read_column_by_column(tmp_path: Path) -> None:
    parsed = parse_pdf(pf.make_two_column_pdf(tmp_path / "two.pdf"))
    text = "\n".join(c.text for c in parsed.chunks)
    left = [text.index(s) for s in pf.TWO_COLUMN_LEFT]
    right = [text.index(s) for s in pf.TWO_COLUMN_RIGHT]
    assert left == sorted(left) and right == sorted(right)
    assert max(left) < min(right)
    mid = (pf.LEFT + pf.RIGHT) / 2
    chunk, s, e = _find(parsed, pf.TWO_COLUMN_RIGHT[0])
    assert chunk.charmap is not None
    assert all(r.x0 > mid for r in chunk.charmap.rects(s, e))
    chunk, s, e = _find(parsed, pf.TWO_COLUMN_LEFT[0])
    assert chunk.charmap is not None
    assert all(r.x1 < mid for r in chunk.charmap.rects(s, e))


# --- a real manual ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def longtable(data_dir_module: Path) -> ParsedDocument:
    return parse_pdf(data_dir_module / "longtable.pdf")


@pytest.fixture(scope="module")
def data_dir_module() -> Path:
    return Path(__file__).parents[1] / "data"


def test_real_manual_document(longtable: ParsedDocument) -> None:
    doc = longtable.document
    assert doc.pages == 27
    assert doc.title == "The longtable package"
    assert len(longtable.sections) == 24
    titles = {s.title: s.page for s in longtable.sections}
    assert titles["2 Chunk Size"] == 3
    assert titles["9.5 The longtable environment"] == 13
    assert titles["9.14 Footnotes"] == 27


@pytest.mark.parametrize(
    ("phrase", "page", "section"),
    [
        ("By default longtable uses 20 rows per chunk", 3, "2 Chunk Size"),
        ("The longtable package defines a new environment", 1, "1 Introduction"),
        ("9.14 Footnotes", 27, "9 The Macros > 9.14 Footnotes"),
    ],
)
def test_real_manual_known_places(
    longtable: ParsedDocument, phrase: str, page: int, section: str
) -> None:
    chunk, s, e = _find(longtable, phrase)
    assert chunk.section == section
    assert chunk.charmap is not None
    assert chunk.charmap.rects(s, e)[0].page == page


def test_real_manual_charmaps_cover_text(longtable: ParsedDocument) -> None:
    _assert_charmap_covers_text(longtable)


def test_real_manual_clean(longtable: ParsedDocument) -> None:
    text = "\n".join(c.text for c in longtable.chunks)
    assert not re.search("[\ufb00-\ufb06\u00ad]", text)
    assert max(len(c.text.split()) for c in longtable.chunks) <= 300
    # every page contributes text
    pages = {p.page for c in longtable.chunks for p in (c.charmap.pieces() if c.charmap else [])}
    assert pages == set(range(1, 28))


def test_title_from_page_one_when_metadata_is_empty(tmp_path: Path) -> None:
    parsed = parse_pdf(pf.make_manual_pdf(tmp_path / "untitled.pdf", title=None))
    assert parsed.document.title == pf.MANUAL_TITLE
    assert len(parsed.sections) == len(pf.MANUAL_SECTIONS)  # outline still used


def test_junk_metadata_title_is_ignored(tmp_path: Path) -> None:
    parsed = parse_pdf(pf.make_manual_pdf(tmp_path / "a.pdf", title="Microsoft Word - a.docx"))
    assert parsed.document.title == pf.MANUAL_TITLE


def test_lone_bookmark_falls_back_to_headings(tmp_path: Path) -> None:
    path = pf.make_manual_pdf(tmp_path / "one.pdf", outline=False)
    doc = pymupdf.open(path)
    doc.set_toc([[1, "Zephyr", 1]])
    fixed = tmp_path / "one-bookmark.pdf"
    doc.save(fixed)
    parsed = parse_pdf(fixed)
    assert [(s.level, s.title, s.page) for s in parsed.sections] == pf.MANUAL_SECTIONS


def test_real_manual_without_outline_finds_the_same_headings(
    data_dir_module: Path, longtable: ParsedDocument, tmp_path: Path
) -> None:
    doc = pymupdf.open(data_dir_module / "longtable.pdf")
    doc.set_toc([])
    doc.set_metadata({})
    path = tmp_path / "longtable-no-outline.pdf"
    doc.save(path)
    parsed = parse_pdf(path)
    assert parsed.document.title == "The longtable package"
    found = {(s.title, s.page) for s in parsed.sections}
    outline = {(s.title, s.page) for s in longtable.sections}
    assert len(found & outline) >= len(outline) - 1  # numbered headings, same pages
    chunk, _, _ = _find(parsed, "By default longtable uses 20 rows per chunk")
    assert chunk.section.endswith("2 Chunk Size")


def test_speed_script_reports_json(manual_path: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from app.ingest.__main__ import main

    bad = pf.make_not_pdf(tmp_path / "bad.pdf")
    assert main([str(manual_path), str(bad)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["pages"] == 5 and rows[0]["chunks"] > 5 and rows[0]["pages_per_s"] > 0
    assert rows[1]["error"] == "not_pdf"
    assert rows[2]["total_pages"] == 5


def test_parses_on_two_threads_at_once(manual_path: Path, manual: ParsedDocument) -> None:
    """Ingestion runs on worker threads; PyMuPDF calls are serialised by MUPDF_LOCK."""
    from concurrent.futures import ThreadPoolExecutor

    from app.ingest._mupdf import MUPDF_LOCK

    def render_pages() -> int:
        with MUPDF_LOCK:  # what a viewer does between ingestion's pages
            doc = pymupdf.open(manual_path)
            n = sum(len(p.get_pixmap(dpi=20).samples) > 0 for p in doc)
            doc.close()
        return n

    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = [pool.submit(parse_pdf, manual_path) for _ in range(2)]
        renders = [pool.submit(render_pages) for _ in range(3)]
        results = [f.result() for f in futures]
    assert all(r.result() == 5 for r in renders)
    for r in results:
        assert [c.text for c in r.chunks] == [c.text for c in manual.chunks]


def _symbols_pdf(path: Path) -> Path:
    """A line set as a typesetter sets it: each run of glyphs placed on its own, a symbol
    (from MuPDF's built-in fallback font, which has "→" and "≤") followed by a word across a
    gap as wide as a space, or directly with no gap at all."""
    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font("cjk")
    page.insert_font(fontname="cj", fontbuffer=font.buffer)
    x = 72.0

    def put(text: str, gap: float = 0.0, symbol: bool = False) -> None:
        nonlocal x
        x += gap
        page.insert_text((x, 100), text, fontname="cj" if symbol else "helv", fontsize=10)
        x += (
            font.text_length(text, 10)
            if symbol
            else pymupdf.get_text_length(text, fontname="helv", fontsize=10)
        )

    put("Choose File")
    put("\u2192", 3.0, symbol=True)
    put("Save as soon as n", 3.0)
    put("\u2264", symbol=True)
    put("10 and m")
    put("\u2264", symbol=True)
    put("20 cells are used.", 3.3)
    doc.save(path)
    return path


def test_a_space_after_a_symbol_is_kept(tmp_path: Path) -> None:
    """MuPDF puts no space after a symbol such as "→" or "⟩" however wide the gap to the
    next glyph ("⟨code⟩argument" in LaTeX manuals); the glyphs' gap restores it, and a
    symbol set tight against the next glyph stays one word."""
    path = _symbols_pdf(tmp_path / "symbols.pdf")
    assert "→Save" in pymupdf.open(path)[0].get_text()  # what MuPDF itself gives
    parsed = parse_pdf(path)
    text = " ".join(c.text for c in parsed.chunks)
    assert "Choose File → Save as soon as n≤10 and m≤ 20 cells are used." in text
    _assert_charmap_covers_text(parsed)
    chunk, s, e = _find(parsed, "Save")
    assert chunk.charmap is not None
    (r,) = chunk.charmap.rects(s, e)
    (want,) = pymupdf.open(path)[0].search_for("Save")
    assert _close(r.x0, want.x0) and _close(r.x1, want.x1)


# --- old TeX PDFs: ligatures set in Type3 bitmap fonts ---------------------------------------


@pytest.mark.parametrize(
    ("lines", "want"),
    [(pf.TYPE3_LINES_T1, pf.TYPE3_WORDS_T1), (pf.TYPE3_LINES_OT1, pf.TYPE3_WORDS_OT1)],
    ids=["T1", "OT1"],
)
def test_ligatures_of_type3_bitmap_fonts_are_spelled_out(
    tmp_path: Path, lines: tuple[str, ...], want: str
) -> None:
    """dvips' bitmap fonts name their glyphs by code, so MuPDF reads a ligature as a control
    character and breaks the word there ("modi" "ed", "rst"); ingestion joins the pieces and
    spells the ligature in the encoding the page's words show (T1: 0x1C is "fi"; OT1: 0x0C)."""
    path = pf.make_type3_ligature_pdf(tmp_path / "dvips.pdf", lines)
    words = [w[4] for w in pymupdf.open(path)[0].get_text("words")]
    assert "rst" in words and "ect" in words  # what MuPDF itself gives
    parsed = parse_pdf(path)
    text = re.sub(r"\s+", " ", " ".join(c.text for c in parsed.chunks))
    assert want in text
    _assert_charmap_covers_text(parsed)


def test_a_joined_ligature_word_is_highlighted_across_both_pieces(tmp_path: Path) -> None:
    """The highlight of a word joined at its ligature spans both pieces MuPDF found."""
    path = pf.make_type3_ligature_pdf(tmp_path / "dvips.pdf")
    page = pymupdf.open(path)[0]
    modi, ed = (w for w in page.get_text("words") if w[4] in ("modi", "ed"))
    parsed = parse_pdf(path)
    chunk, s, e = _find(parsed, "modified")
    assert chunk.charmap is not None
    (r,) = chunk.charmap.rects(s, e)
    assert _close(r.x0, modi[0]) and _close(r.x1, ed[2])
