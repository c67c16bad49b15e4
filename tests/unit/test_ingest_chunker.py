"""Chunking, text joining, furniture removal and path expansion, on hand-made lines and folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.models import Section
from app.ingest import ChunkParams, iter_pdf_paths, parse_pdf
from app.ingest._mupdf import pymupdf
from app.ingest.chunker import (
    _slice_map,
    _windows,
    build_segment,
    chunk_segments,
    hyphenated_words,
    segments,
)
from app.ingest.layout import Line, clean_word, drop_furniture
from app.ingest.sections import SectionStart
from tests import pdf_factory as pf

pytestmark = pytest.mark.unit

_key = iter(range(1_000_000))


def _line(text: str, *, page: int = 1, block: int = 0, y: float = 100.0, x: float = 72.0) -> Line:
    """A physical line whose words are 6 pt per character wide, 1 space apart."""
    words = []
    for w in text.split():
        words.append((x, y, x + 6 * len(w), y + 12, w))
        x += 6 * len(w) + 6
    return Line(page, block, next(_key), words, words[0][0], y, words[-1][2], y + 12)


# --- joining lines --------------------------------------------------------------------------


def test_lines_of_a_block_join_with_spaces_blocks_with_newlines() -> None:
    seg = build_segment("", [_line("one two", block=1), _line("three", block=1, y=114),
                             _line("Four five", block=2, y=140)])  # fmt: skip
    assert seg.text == "one two three\nFour five"
    assert [seg.text[int(r[0]) : int(r[1])] for r in seg.rows] == [
        "one", "two", "three", "Four", "five",
    ]  # fmt: skip


def test_dehyphenation_rules() -> None:
    seg = build_segment("", [_line("a calibra-", block=1), _line("tion step", block=1, y=114)])
    assert seg.text == "a calibration step"
    rows = seg.rows
    # both fragments keep their own boxes, on their own lines
    assert seg.text[int(rows[1][0]) : int(rows[1][1])] == "calibra"
    assert seg.text[int(rows[2][0]) : int(rows[2][1])] == "tion"
    assert rows[1][7] != rows[2][7] and rows[1][4] < rows[2][4]
    # an uppercase continuation is a real dash, not a hyphenated word
    seg = build_segment("", [_line("see X-", block=1), _line("Ray tubes", block=1, y=114)])
    assert seg.text == "see X- Ray tubes"
    # a lone dash or a number range stays
    seg = build_segment("", [_line("pages 10-", block=1), _line("twenty", block=1, y=114)])
    assert seg.text == "pages 10- twenty"


def test_known_compound_keeps_its_hyphen_at_a_line_end() -> None:
    lines = [_line("a well-known fact", block=1, y=80),
             _line("It is well-", block=2), _line("known to all", block=2, y=114)]  # fmt: skip
    assert hyphenated_words(lines) == frozenset({"well-known"})
    seg = build_segment("", lines, hyphenated_words(lines))
    assert seg.text == "a well-known fact\nIt is well-known to all"
    # both halves keep their boxes; the hyphen stays with the first
    assert [seg.text[int(r[0]) : int(r[1])] for r in seg.rows][5:7] == ["well-", "known"]
    assert build_segment("", lines).text.endswith("It is wellknown to all")  # no evidence: joined


def test_soft_hyphen_at_line_end_joins() -> None:
    text, soft = clean_word("docu\u00ad")
    assert (text, soft) == ("docu", True)
    first = _line(f"the {text}", block=1)
    first.soft_end = True
    seg = build_segment("", [first, _line("mentation is", block=1, y=114)])
    assert seg.text == "the documentation is"


def test_clean_word() -> None:
    assert clean_word("\ufb01nd") == ("find", False)
    assert clean_word("e\ufb03cient") == ("efficient", False)
    assert clean_word("zero\u200bwidth") == ("zerowidth", False)
    assert clean_word("plain") == ("plain", False)
    assert clean_word("\u201cquoted\u201d") == ("\u201cquoted\u201d", False)


def test_continuation_block_joins_with_space() -> None:
    """A paragraph continued on the next page (new block, lowercase start) is one sentence."""
    seg = build_segment("", [_line("The reserve", block=1), _line("capacity is", page=2, block=2)])
    assert seg.text == "The reserve capacity is"


# --- windows --------------------------------------------------------------------------------


@pytest.mark.parametrize("counts", [[30] * 20, [5] * 100, [250, 10, 250, 10], [400], [1], [60] * 7])
def test_windows_cover_everything_in_order(counts: list[int]) -> None:
    p = ChunkParams()
    wins = _windows(counts, p)
    assert wins[0][0] == 0 and wins[-1][1] == len(counts)
    for (i0, j0), (i1, j1) in zip(wins, wins[1:], strict=False):
        assert i0 < i1 <= j0 < j1  # progress, no gap, overlap allowed
        assert j0 - i1 <= p.overlap_sentences
        assert sum(counts[i1:j0]) <= p.overlap_words
    for i, j in wins:
        assert sum(counts[i:j]) <= p.max_words or j - i == 1


def test_windows_target_size_and_small_tail_merged() -> None:
    p = ChunkParams(target_words=100, max_words=150, min_words=30, overlap_sentences=1)
    wins = _windows([20] * 11, p)  # 220 words
    sizes = [sum([20] * (j - i)) for i, j in wins]
    assert all(s >= 100 for s in sizes[:-1])
    assert wins[-1][1] == 11
    # a 20-word tail is folded into the previous window instead of standing alone
    assert _windows([20] * 5 + [20], ChunkParams(target_words=100, max_words=150, min_words=30))[
        -1
    ] == (0, 6)


# --- segments and chunks --------------------------------------------------------------------


def _sentences(prefix: str, n: int, page: int, block: int, y0: float = 100) -> list[Line]:
    return [
        _line(
            f"{prefix} sentence number {i} has seven words.", page=page, block=block, y=y0 + 14 * i
        )
        for i in range(n)
    ]


def test_bare_heading_joins_its_subsection() -> None:
    head = _line("2 Graphics", block=1)
    sub = _line("2.1 Colours", block=2, y=120)
    body = _sentences("Colour", 5, 1, 3, 140)
    lines = [head, sub, *body]
    starts = [
        SectionStart(Section(title="2 Graphics", level=1, page=1), "2 Graphics", 0),
        SectionStart(Section(title="2.1 Colours", level=2, page=1), "2 Graphics > 2.1 Colours", 1),
    ]
    segs = segments(lines, starts, ChunkParams())
    assert len(segs) == 1
    assert segs[0].path == "2 Graphics > 2.1 Colours"
    assert segs[0].text.startswith("2 Graphics\n2.1 Colours\nColour sentence number 0")


def test_chunks_never_cross_sections_and_keep_all_text() -> None:
    a = _sentences("Alpha", 60, 1, 1)  # 420 words: several chunks
    b = _sentences("Bravo", 10, 2, 2)
    starts = [
        SectionStart(Section(title="A", level=1, page=1), "A", 0),
        SectionStart(Section(title="B", level=1, page=2), "B", len(a)),
    ]
    params = ChunkParams()
    chunks = chunk_segments("d" * 16, segments(a + b, starts, params), params)
    assert [c.section for c in chunks].count("B") == 1
    assert all(("Bravo" in c.text) == (c.section == "B") for c in chunks)
    alpha = [c for c in chunks if c.section == "A"]
    assert len(alpha) >= 2
    for i in range(60):
        assert any(f"Alpha sentence number {i} " in c.text for c in alpha)
    for c in chunks:
        assert c.charmap is not None
        for p in c.charmap.pieces():  # every piece points at its own word in the chunk
            assert c.text[p.start : p.end] in {w[4] for ln in a + b for w in ln.words}


def test_slice_map_cuts_a_word_proportionally() -> None:
    seg = build_segment("", [_line("abcdefghij klm")])
    rows = _slice_map(seg.rows, 2, 12)  # "cdefghij k"
    assert rows[0][0] == 0 and rows[0][1] == 8
    assert rows[0][3] == pytest.approx(72 + 12)  # two characters of 6 pt cut off
    assert rows[1][0] == 9 and rows[1][1] == 10
    assert rows[1][5] == pytest.approx(rows[1][3] + 6)


# --- furniture ------------------------------------------------------------------------------


def _page(
    header: str | None, body: list[str], footer: str | None, page: int, top: float = 200
) -> list[Line]:
    lines = []
    if header:
        lines.append(_line(header, page=page, block=0, y=40))
    for i, t in enumerate(body):
        lines.append(_line(t, page=page, block=1, y=top + 14 * i))
    if footer:
        lines.append(_line(footer, page=page, block=2, y=800))
    return lines


def test_running_headers_footers_and_page_numbers() -> None:
    pages = [
        _page(f"Chapter 2 page {n}", [f"Body text {n} here.", "}"], str(n), n) for n in range(1, 7)
    ]
    dropped = drop_furniture(pages, [842.0] * 6)
    assert dropped == 12
    for lines in pages:
        assert [ln.text for ln in lines if not ln.dropped][0].startswith("Body text")


def test_short_repeated_top_lines_survive_in_long_documents() -> None:
    """A "}" that happens to open 3 of 40 code pages is text, not a header."""
    pages = [_page(None, ["}" if n < 3 else f"line {n}", "more code here"], None, n + 1, top=90)
             for n in range(40)]  # fmt: skip
    drop_furniture(pages, [842.0] * 40)
    assert not any(ln.dropped for lines in pages for ln in lines)
    # set apart from the body, the same short line on every page is a header
    pages = [_page("}", [f"line {n} of code"], None, n + 1, top=90) for n in range(4)]
    drop_furniture(pages, [842.0] * 4)
    assert [ln.text for lines in pages for ln in lines if ln.dropped] == ["}"] * 4


def test_single_page_keeps_its_top_line() -> None:
    pages = [_page("Meeting minutes", ["We met."], None, 1)]
    drop_furniture(pages, [842.0])
    assert not any(ln.dropped for ln in pages[0])


# --- bold numbered headings without outline ---------------------------------------------------


def test_bold_body_size_numbered_headings(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 80.0
    for title, body in [
        ("1 Scope", "This part sets the scope."),
        ("2 Terms", "Words mean things."),
    ]:
        page.insert_text((72, y), title, fontname="hebo", fontsize=11)
        y += 30
        for _ in range(3):
            page.insert_text(
                (72, y), body + " It is plain body text.", fontname="helv", fontsize=11
            )
            y += 14
        y += 20
    path = tmp_path / "bold.pdf"
    doc.save(path)
    parsed = parse_pdf(path)
    assert [s.title for s in parsed.sections] == ["1 Scope", "2 Terms"]
    assert {c.section for c in parsed.chunks} == {"1 Scope", "2 Terms"}


# --- paths ----------------------------------------------------------------------------------


def test_iter_pdf_paths(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / ".hidden").mkdir()
    a = pf.make_manual_pdf(root / "b.pdf")
    b = pf.make_two_column_pdf(root / "sub" / "A.PDF")
    c = pf.make_no_outline_pdf(root / "sub" / "deeper" / "c.Pdf")
    (root / "photo.png").write_bytes(b"\x89PNG")  # not a document Footnote reads
    (root / ".hidden" / "secret.pdf").write_bytes(b"%PDF-")
    explicit = pf.make_not_pdf(tmp_path / "notes.txt")
    missing = tmp_path / "missing.pdf"
    got = iter_pdf_paths([root, explicit, missing, a])
    assert got == [a, b, c, explicit, missing]  # folder sorted, duplicates once, given kept
    assert all(p.is_absolute() for p in got)
    assert iter_pdf_paths([]) == []
    assert iter_pdf_paths([str(root / "sub")]) == [b, c]


def test_dot_leaders_are_dropped_but_text_dots_kept(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Contents", fontsize=16)
    page.insert_text((72, 110), "1 Introduction " + ". " * 30 + "3", fontsize=11)
    page.insert_text((72, 124), "2 Usage " + ". " * 34 + "7", fontsize=11)
    page.insert_text((72, 160), "Wait . . and see what happens at the end.", fontsize=11)
    page.insert_text((72, 174), "The values were 1.5 and 2.5 in the end.", fontsize=11)
    path = tmp_path / "toc.pdf"
    doc.save(path)
    text = parse_pdf(path).chunks[0].text
    assert "1 Introduction 3 2 Usage 7" in text
    assert "Wait . . and see" in text  # two dots are not a leader
    assert "1.5 and 2.5" in text


def test_windows_prefer_paragraph_ends() -> None:
    p = ChunkParams()  # target 180
    ends = [False] * 10
    ends[2] = True  # a paragraph ends after 3 sentences (120 words >= 60% of the target)
    assert _windows([40] * 10, p, ends)[0] == (0, 3)
    ends = [False] * 10
    ends[1] = True  # 80 words: too short, keep filling to the target
    assert _windows([40] * 10, p, ends)[0] == (0, 5)


def test_blocks_are_units_of_chunking() -> None:
    """A heading or list item without a full stop does not glue onto the next sentence."""
    lines = [_line("3.2 Power", block=1), *_sentences("Power", 40, 1, 2, 120)]
    params = ChunkParams(target_words=60, max_words=100, min_words=10)
    chunks = chunk_segments("d" * 16, segments(lines, [], params), params)
    assert chunks[0].text.startswith("3.2 Power\nPower sentence number 0")
    # an overlap sentence, never a bare heading, starts the next chunk
    assert all(c.text.startswith("Power sentence number") for c in chunks[1:])


# --- tables longer than a chunk --------------------------------------------------------------


def test_chunks_inside_a_long_table_begin_with_its_header(tmp_path: Path) -> None:
    chunks = parse_pdf(pf.make_long_table_pdf(tmp_path / "layout.pdf")).chunks
    header = pf.LONG_TABLE_HEADER
    assert len(chunks) >= 3, "the table must be longer than one chunk for this test"
    first = chunks[0]
    at = first.text.index(header)
    header_rects = first.charmap.rects(at, at + len(header))
    for c in chunks[1:]:
        assert c.text.startswith(header + "\n"), c.text[:80]
        # once, or twice where the chunk runs onto a page on which the PDF repeats the header
        assert c.text.count(header) == 1 + (c.page_end > c.page_start), c.text
        # the copy is mapped to where the header is printed: a highlight of it is the header's
        assert c.charmap.rects(0, len(header)) == header_rects
    rows = [pf.long_table_row(i) for i in range(len(pf.LONG_TABLE_ITEMS))]
    for row in rows:  # every row whole in some chunk, and a row's highlight is its own line
        holder = next(c for c in chunks if row in c.text)
        start = holder.text.index(row)
        rects = holder.charmap.rects(start, start + len(row))
        assert len({round(r.y0) for r in rects}) == 1, (row, rects)
        assert all(r.y0 > header_rects[0].y0 for r in rects) or holder.page_end > 1


def _cells_line(cells: list[str], xs: list[float], y: float, block: int) -> Line:
    words = []
    for cell, x in zip(cells, xs, strict=True):
        for w in cell.split():
            words.append((x, y, x + 6 * len(w), y + 10, w))
            x += 6 * len(w) + 3
    return Line(1, block, next(_key), words, words[0][0], y, words[-1][2], y + 10)


@pytest.mark.parametrize(
    ("lines", "header"),
    [
        ([["Field", "Start", "Content"]] + [[f"F{i}", str(i), "a value"] for i in range(6)], True),
        ([[str(100 + i), f"\\def\\x{i}{{y}}"] for i in range(6)], False),  # numbered listing
        ([[f"{i} Chapter title", str(3 * i)] for i in range(1, 7)], False),  # contents
        ([["\\qed,", "4"], ["\\quad,", "13"], ["\\qquad,", "13"], ["\\sup,", "20"]], False),
    ],
    ids=["record-layout", "numbered-code", "contents", "index"],
)
def test_only_a_table_with_a_header_line_gets_one(lines: list[list[str]], header: bool) -> None:
    from app.ingest.table_rows import find_tables

    xs = [72.0, 180.0, 300.0]
    seg = build_segment(
        "S",
        [_cells_line(cells, xs[: len(cells)], 100.0 + 14 * i, i) for i, cells in enumerate(lines)],
    )
    tables = find_tables(seg.rows, seg.text)
    if header:
        assert [seg.text[t.header_start : t.header_end] for t in tables] == ["Field Start Content"]
    else:
        assert tables == []


# --- lists longer than a chunk ---------------------------------------------------------------


def test_chunks_inside_a_long_list_begin_with_its_introduction() -> None:
    """A list longer than a chunk: every later chunk that starts among its items begins with
    the sentence that introduces it, so "what does option 17 do?" finds the options."""
    intro = "The logger accepts the following options on its command line:"
    lines = [_line("Setup", block=1, y=60), _line(intro, block=2, y=74)]
    items = [f"Option{i} sets the value number {i} of the logger" for i in range(30)]
    lines += [_line(t, block=3 + i, y=88 + 14 * i) for i, t in enumerate(items)]
    tail = "After the list comes more prose about other things."
    lines += [_line(tail, block=99, y=88 + 14 * 30)]
    params = ChunkParams(target_words=60, max_words=100, min_words=10, list_intros=True)
    chunks = chunk_segments("d" * 16, segments(lines, [], params), params)
    first = next(c for c in chunks if items[0] in c.text)
    at = first.text.index(intro)
    later = [c for c in chunks if c.ordinal > first.ordinal and items[-1] not in first.text]
    assert len(later) >= 2
    for c in later:
        if any(t in c.text for t in items):
            assert c.text.startswith(intro + "\n"), c.text[:80]
            # mapped to where the introduction is printed, as a table's copied header
            assert c.charmap.rects(0, len(intro)) == first.charmap.rects(at, at + len(intro))
    off = ChunkParams(target_words=60, max_words=100, min_words=10)
    plain = chunk_segments("d" * 16, segments(lines, [], off), off)
    assert sum(intro in c.text for c in plain) < sum(intro in c.text for c in chunks)


def test_find_lists_needs_an_introduction_and_short_items() -> None:
    from app.ingest.chunker import find_lists

    text = "Intro:\na\nb\nc\nA long paragraph."
    spans = [(0, 6), (7, 8), (9, 10), (11, 12), (13, 30)]
    ends = [True] * 5
    (lst,) = find_lists(text, spans, ends, [1, 1, 1, 1, 100])
    assert (lst.header_start, lst.header_end, lst.end) == (0, 6, 12)
    assert find_lists(text, spans, ends, [1, 1, 100, 1, 1]) == []  # one short item only
    assert find_lists("No colon\na\nb", [(0, 8), (9, 10), (11, 12)], [True] * 3, [2, 1, 1]) == []
