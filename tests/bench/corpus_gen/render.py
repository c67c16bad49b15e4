"""A tiny, deterministic page-layout engine on PyMuPDF for the second development corpus.

Why our own: the benchmark needs PDFs whose layout is known exactly (columns, side boxes, ruled
tables, running headers) and whose bytes never change between runs (same doc_id, reusable
libraries). ``Flow`` places wrapped lines of text into one or more column rectangles per page,
moving to the next column or page at line boundaries; tables are drawn as ruled grids (rows never
split across pages, header repeated) so PyMuPDF's table finder can see them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from app.ingest._mupdf import pymupdf

# Fixed dates and no random /ID: the same call always writes the same bytes.
DATES = {"creationDate": "D:20250101000000Z", "modDate": "D:20250101000000Z"}

_FONTS: dict[str, pymupdf.Font] = {}


def font(name: str) -> pymupdf.Font:
    """Base-14 fonts by PyMuPDF short name (helv, hebo, heit, tiro, tibo, tiit), cached."""
    if name not in _FONTS:
        _FONTS[name] = pymupdf.Font(name)
    return _FONTS[name]


@dataclass(frozen=True)
class Style:
    fontname: str = "helv"
    size: float = 10.0
    leading: float = 13.0
    before: float = 0.0  # space above the block
    after: float = 5.0  # space below the block
    color: tuple[float, float, float] = (0, 0, 0)
    indent: float = 0.0  # first-line indent


_WIDTHS: dict[tuple[str, str], float] = {}


def _width(fontname: str, word: str) -> float:
    """Width of ``word`` at size 1 (cached: PyMuPDF's text_length is slow per character)."""
    key = (fontname, word)
    if key not in _WIDTHS:
        _WIDTHS[key] = font(fontname).text_length(word, fontsize=1.0)
    return _WIDTHS[key]


def wrap(text: str, width: float, style: Style) -> list[str]:
    """Greedy word wrap by real glyph widths; never hyphenates."""
    space = _width(style.fontname, " ") * style.size
    lines: list[str] = []
    cur: list[str] = []
    used = 0.0
    avail = width - style.indent
    for word in text.split():
        w = _width(style.fontname, word) * style.size
        if cur and used + space + w > avail:
            lines.append(" ".join(cur))
            cur, used, avail = [word], w, width
        else:
            used += (space if cur else 0.0) + w
            cur.append(word)
    if cur:
        lines.append(" ".join(cur))
    return lines


def put(page: pymupdf.Page, x: float, y: float, text: str, style: Style) -> None:
    """Write one line with its baseline at ``y``."""
    tw = pymupdf.TextWriter(page.rect, color=style.color)
    tw.append((x, y), text, font=font(style.fontname), fontsize=style.size)
    tw.write_text(page)


Columns = Callable[[int], Sequence[pymupdf.Rect]]
Furniture = Callable[[pymupdf.Page, int], None]


class Flow:
    """Flows paragraphs, headings and tables through the column rectangles of successive pages."""

    def __init__(
        self,
        doc: pymupdf.Document,
        size: tuple[float, float],
        columns: Columns,
        furniture: Furniture | None = None,
    ) -> None:
        self.doc = doc
        self.size = size
        self.columns = columns
        self.furniture = furniture
        self.page: pymupdf.Page | None = None
        self.col = 0
        self.y = 0.0
        self.top_override: float | None = None

    # -- positioning -------------------------------------------------------------------------
    @property
    def rect(self) -> pymupdf.Rect:
        assert self.page is not None
        return self.columns(self.page.number)[self.col]

    def new_page(self) -> pymupdf.Page:
        self.page = self.doc.new_page(width=self.size[0], height=self.size[1])
        if self.furniture is not None:
            self.furniture(self.page, self.page.number + 1)
        self.col = 0
        self.y = self.columns(self.page.number)[0].y0
        return self.page

    def start_columns_here(self, columns: Columns) -> None:
        """Switch to another column layout, beginning below what is already on this page."""
        top = self.y
        base = columns

        def cols(pno: int) -> Sequence[pymupdf.Rect]:
            rects = base(pno)
            if self.page is not None and pno == first_page:
                return [pymupdf.Rect(r.x0, max(r.y0, top), r.x1, r.y1) for r in rects]
            return rects

        first_page = self.page.number if self.page is not None else -1
        self.columns = cols
        self.col = 0
        self.y = cols(first_page)[0].y0 if self.page is not None else 0.0

    def _advance(self) -> None:
        assert self.page is not None
        if self.col + 1 < len(self.columns(self.page.number)):
            self.col += 1
            self.y = self.rect.y0
        else:
            self.new_page()

    def need(self, height: float) -> None:
        """Move on to the next column or page unless ``height`` fits below the cursor."""
        if self.page is None:
            self.new_page()
        if self.y + height > self.rect.y1 and self.y > self.rect.y0 + 1:
            self._advance()

    def space(self, h: float) -> None:
        if self.page is None:
            self.new_page()
        self.y = min(self.y + h, self.rect.y1)

    def page_break(self) -> None:
        self.new_page()

    # -- content -----------------------------------------------------------------------------
    def para(self, text: str, style: Style, *, keep_with_next: float = 0.0) -> None:
        """A wrapped paragraph; lines move on to the next column/page when the column is full."""
        if self.page is None:
            self.new_page()
        if style.before and self.y > self.rect.y0 + 1:
            self.space(style.before)
        lines = wrap(text, self.rect.width, style)
        self.need(style.leading * min(2, len(lines)) + keep_with_next)
        for i, line in enumerate(lines):
            self.need(style.leading)
            x = self.rect.x0 + (style.indent if i == 0 else 0.0)
            assert self.page is not None
            put(self.page, x, self.y + style.size, line, style)
            self.y += style.leading
        self.y += style.after

    def heading(self, text: str, style: Style) -> None:
        """A heading kept with at least three lines of what follows."""
        self.para(text, style, keep_with_next=3 * 13.0)

    def table(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        widths: Sequence[float],
        style: Style,
        *,
        caption: str | None = None,
        caption_style: Style | None = None,
    ) -> None:
        """A ruled table; each row stays on one page; the header repeats after a page break."""
        if caption:
            self.heading(caption, caption_style or style)
        bold = Style("hebo", style.size, style.leading, color=style.color, before=0, after=0)
        pad = 3.0
        self.need(3 * style.leading + 2 * pad)

        def cell_lines(cells: Sequence[str], st: Style) -> list[list[str]]:
            return [wrap(c, w - 2 * pad, st) or [""] for c, w in zip(cells, widths, strict=True)]

        def draw_row(cells: Sequence[str], st: Style, fill: tuple[float, float, float] | None):
            wrapped = cell_lines(cells, st)
            h = max(len(ls) for ls in wrapped) * st.leading + 2 * pad
            assert self.page is not None
            x = self.rect.x0
            y = self.y
            if fill is not None:
                self.page.draw_rect(
                    pymupdf.Rect(x, y, x + sum(widths), y + h), color=None, fill=fill
                )
            for ls, w in zip(wrapped, widths, strict=True):
                self.page.draw_rect(
                    pymupdf.Rect(x, y, x + w, y + h), color=(0.3, 0.3, 0.3), width=0.5
                )
                for j, line in enumerate(ls):
                    put(self.page, x + pad, y + pad + j * st.leading + st.size, line, st)
                x += w
            self.y += h

        def row_height(cells: Sequence[str], st: Style) -> float:
            return max(len(ls) for ls in cell_lines(cells, st)) * st.leading + 2 * pad

        if self.page is None:
            self.new_page()
        draw_row(header, bold, (0.88, 0.9, 0.93))
        for row in rows:
            h = row_height(row, style)
            if self.y + h > self.rect.y1:
                self._advance()
                draw_row(header, bold, (0.88, 0.9, 0.93))
            draw_row(row, style, None)
        self.y += style.after + 4

    def box(
        self,
        page: pymupdf.Page,
        rect: pymupdf.Rect,
        title: str,
        paragraphs: Sequence[str],
        style: Style,
        title_style: Style,
        fill: tuple[float, float, float] = (0.9, 0.94, 0.97),
    ) -> float:
        """A shaded side box at a fixed place (outside the flow); returns the bottom y used."""
        pad = 6.0
        width = rect.width - 2 * pad
        blocks = [(title, title_style)] + [(p, style) for p in paragraphs]
        height = 2 * pad + sum(len(wrap(t, width, st)) * st.leading + st.after for t, st in blocks)
        r = pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0 + height)
        page.draw_rect(r, color=(0.55, 0.65, 0.75), fill=fill, width=0.8)
        y = r.y0 + pad
        for t, st in blocks:
            for line in wrap(t, width, st):
                put(page, r.x0 + pad, y + st.size, line, st)
                y += st.leading
            y += st.after
        return r.y1


Table = tuple[Sequence[str], Sequence[Sequence[str]], Sequence[float]]
"""A ruled table: header, rows, column widths."""
Chapter = tuple[str, Sequence[object]]
"""A heading and its blocks: paragraph strings, or ("table", Table, caption)."""


TABLE_CELL = Style("helv", 9.0, 11.5, after=4.0)
TABLE_CAPTION = Style("hebo", 9.5, 12.5, before=4.0, after=4.0)


@dataclass(frozen=True)
class ChapterStyles:
    """How :func:`write_chapters` sets headings and paragraphs; tables look alike in every
    generated document."""

    heading: Style
    body: Style
    cell: Style = TABLE_CELL
    caption: Style = TABLE_CAPTION
    subheading: Style | None = None  # for ("h2", text) blocks


NoteWriter = Callable[[Flow, str, list[str]], None]
"""Sets a side note ("note", title, paragraphs) the document's own way: a shaded box."""


def write_chapters(
    flow: Flow,
    chapters: Sequence[Chapter],
    styles: ChapterStyles,
    *,
    break_before: Collection[int | str] = (),
    note: NoteWriter | None = None,
) -> None:
    """Flow numbered chapters of blocks: a paragraph string, ("table", (header, rows,
    widths), caption), ("h2", heading) with ``styles.subheading`` and ("note", title,
    paragraphs) with ``note``. A new page before the chapters whose index or heading is in
    ``break_before``."""
    for i, (heading, blocks) in enumerate(chapters):
        if i in break_before or heading in break_before:
            flow.page_break()
        flow.heading(heading, styles.heading)
        for block in blocks:
            match block:
                case str():
                    flow.para(block, styles.body)
                case ("h2", str() as text) if styles.subheading is not None:
                    flow.heading(text, styles.subheading)
                case ("note", str() as title, list() as paragraphs) if note is not None:
                    note(flow, title, paragraphs)
                case (_, (header, rows, widths), str() as caption):
                    flow.table(
                        header,
                        rows,
                        widths,
                        styles.cell,
                        caption=caption,
                        caption_style=styles.caption,
                    )
                case _:
                    raise ValueError(f"not a block: {block!r}")


def new_document(title: str, author: str, subject: str = "") -> pymupdf.Document:
    doc = pymupdf.open()
    doc.set_metadata(
        {
            "title": title,
            "author": author,
            "subject": subject,
            "producer": "footnote bench",
            "creator": "tests/bench/corpus_gen",
            **DATES,
        }
    )
    return doc


def save(doc: pymupdf.Document, path: str) -> None:
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
