"""Scanned PDFs with exactly known text, made by rendering text pages to pictures.

Why: OCR accuracy (character error rate) and highlight placement need ground truth. Each
generator lays out known sentences with PyMuPDF, renders the page to a greyscale image
(at a chosen dpi, optionally skewed by a small angle like a sheet fed askew), and writes a
PDF whose page holds only that picture. ``ScanPage.words`` keeps every word's box on the
born-digital original, so a test can check that OCR'd words land where they were printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.ingest._mupdf import pymupdf

PAGE_W, PAGE_H = 595.0, 842.0
MARGIN = 72.0

# Plain English prose with digits and punctuation; no sentence repeats inside a page.
SCAN_SENTENCES = [
    "The harbour commission met on the fourteenth of March to review the annual budget.",
    "Members agreed that the library would extend its opening hours on Saturdays.",
    "A new reading room with forty seats will open in the west wing next autumn.",
    "The treasurer reported a surplus of 12,450 euros, mostly from donated books.",
    "Volunteers catalogued 3,812 items, including maps, letters and old photographs.",
    "The lighthouse keeper's logbook from 1887 was found behind a loose panel.",
    "Its pages describe a storm that closed the northern channel for nine days.",
    "Fishing boats waited in the outer bay until the pilot signalled that it was safe.",
    "The committee asked the museum to digitise the logbook before the summer.",
    "A copper kettle, two lanterns and a brass telescope were donated in April.",
    "School classes may visit the archive on Tuesday and Thursday mornings.",
    "The roof above the east staircase must be repaired before the winter rains.",
    "An estimate of 7,300 euros was accepted after comparing three offers.",
    "The next meeting will take place on the second Monday of October at six.",
]
TWO_COLUMN_SCAN_LEFT = [
    "The northern weather station recorded a minimum of minus eighteen degrees in January.",
    "Its anemometer froze twice, and the technicians replaced the bearings in early spring.",
    "Snow depth at the northern site reached ninety centimetres by the end of February.",
]
TWO_COLUMN_SCAN_RIGHT = [
    "The southern station measured the strongest gust of the season at thirty-one metres.",
    "Its solar panel was cleaned every week because of the dust from the quarry nearby.",
    "Rainfall at the southern site was twice the average for the month of April.",
]


@dataclass
class ScanPage:
    """What was printed on one page: its text in reading order and every word's box."""

    text: str
    words: list[tuple[float, float, float, float, str]] = field(default_factory=list)


def _layout(page: pymupdf.Page, columns: list[tuple[float, float, list[str]]], size: float):
    """Write each column's sentences as paragraphs; returns the text in reading order."""
    font = pymupdf.Font("helv")
    parts: list[str] = []
    for x0, x1, sentences in columns:
        writer = pymupdf.TextWriter(page.rect)
        y = MARGIN + size
        for sentence in sentences:
            line = ""
            for word in sentence.split():
                cand = f"{line} {word}".strip()
                if line and font.text_length(cand, size) > x1 - x0:
                    writer.append((x0, y), line, font=font, fontsize=size)
                    y += size * 1.45
                    line = word
                else:
                    line = cand
            writer.append((x0, y), line, font=font, fontsize=size)
            y += size * 2.2
            parts.append(sentence)
        writer.write_text(page)
    return " ".join(parts)


def text_page(
    doc: pymupdf.Document,
    sentences: list[str] | None = None,
    *,
    two_columns: bool = False,
    size: float = 11.0,
    landscape: bool = False,
) -> ScanPage:
    """A born-digital page of known sentences (one or two columns) appended to ``doc``."""
    w, h = (PAGE_H, PAGE_W) if landscape else (PAGE_W, PAGE_H)
    page = doc.new_page(width=w, height=h)
    if two_columns:
        mid = w / 2
        cols = [
            (MARGIN, mid - 12, TWO_COLUMN_SCAN_LEFT),
            (mid + 12, w - MARGIN, TWO_COLUMN_SCAN_RIGHT),
        ]
    else:
        cols = [(MARGIN, w - MARGIN, sentences or SCAN_SENTENCES)]
    text = _layout(page, cols, size)
    words = [tuple(w[:5]) for w in page.get_text("words")]
    return ScanPage(text=text, words=words)  # type: ignore[arg-type]


def _picture(page: pymupdf.Page, dpi: int, skew: float) -> bytes:
    """The page as a greyscale PNG at ``dpi``, turned by ``skew`` degrees (the picture grows
    a little to hold the turned page, as a scanner's bed is larger than the sheet)."""
    matrix = pymupdf.Matrix(dpi / 72, dpi / 72)
    if skew:
        matrix = pymupdf.Matrix(skew) * matrix
    return page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY).tobytes("png")


def make_scan_pdf(
    path: Path | str,
    *,
    pages: int = 1,
    dpi: int = 200,
    skew: float = 0.0,
    rotation: int = 0,
    two_columns: bool = False,
    sentences: list[str] | None = None,
    garbage_layer: bool = False,
    per_page: int = 7,
) -> tuple[Path, list[ScanPage]]:
    """An image-only PDF of known text. ``rotation`` sets the page's /Rotate while the
    picture still shows upright (as a scanner that stored a landscape page sideways would);
    ``garbage_layer`` adds an invisible text layer of nonsense over the picture, like a
    broken font encoding or a bad earlier OCR run. Returns the path and what each page shows."""
    path = Path(path)
    src = pymupdf.open()
    out = pymupdf.open()
    truth: list[ScanPage] = []
    all_sentences = sentences or SCAN_SENTENCES
    for i in range(pages):
        chunk = all_sentences[i * per_page : (i + 1) * per_page] or all_sentences[:per_page]
        sideways = rotation in (90, 270)
        if sideways:
            chunk = chunk[:4]
        sp = text_page(
            src, chunk if not two_columns else None, two_columns=two_columns, landscape=sideways
        )
        picture = _picture(src[-1], dpi, skew)
        page = out.new_page(width=PAGE_W, height=PAGE_H)
        if rotation:
            page.set_rotation(rotation)
        page.insert_image(pymupdf.Rect(0, 0, PAGE_W, PAGE_H), stream=picture, rotate=rotation)
        # word boxes in the unrotated page space that extraction and highlights use
        m = page.derotation_matrix
        sp.words = [(*tuple(pymupdf.Rect(w[:4]) * m), w[4]) for w in sp.words]  # type: ignore[misc]
        if garbage_layer:
            junk = " ".join(_caesar(s) for s in chunk)
            page.insert_textbox(
                pymupdf.Rect(MARGIN, MARGIN, PAGE_W - MARGIN, PAGE_H - MARGIN),
                junk,
                fontsize=11,
                render_mode=3,
            )
        truth.append(sp)
    out.set_metadata({"title": "", "creationDate": "D:20250101000000Z"})
    out.save(path, deflate=True, no_new_id=True)
    return path, truth


def _caesar(text: str) -> str:
    """English shifted by three code points: what a font without a Unicode map yields."""
    return "".join(chr(ord(c) + 3) if c.isalpha() else c for c in text)


# --- a scanned two-column paper ----------------------------------------------------------------

GPL_TEXT = Path("/usr/share/common-licenses/GPL-3")
PAPER_TITLE = "Freedom to Share and Change Programs"


def gpl_paragraphs() -> list[str]:
    """The GPL-3's preamble and first terms as paragraphs of plain prose (real text: word
    lengths, punctuation and line breaks as a real paper has them)."""
    text = GPL_TEXT.read_text(encoding="utf-8")
    paras = [" ".join(p.split()) for p in text.split("\n\n")]
    return [p for p in paras if len(p) > 200 and not p.isupper()]


@dataclass
class PaperScan:
    """What a scanned two-column paper page shows: each column's paragraphs, and the x
    range of each column in page space."""

    left: list[str]
    right: list[str]
    left_x: tuple[float, float]
    right_x: tuple[float, float]


def paper_page(doc: pymupdf.Document) -> PaperScan:
    """A born-digital page laid out like a conference paper (US letter, a bold title and an
    author line across the page, then two justified 10-point Times columns 18 pt apart, with
    bold numbered headings), appended to ``doc``."""
    w, h = 612.0, 792.0
    page = doc.new_page(width=w, height=h)
    paras = gpl_paragraphs()
    bold, serif = pymupdf.Font("tibo"), pymupdf.Font("tiro")
    margin, gutter, size = 54.0, 17.0, 11.0
    title = pymupdf.TextWriter(page.rect)
    tw = bold.text_length(PAPER_TITLE, 16)
    title.append(((w - tw) / 2, 80), PAPER_TITLE, font=bold, fontsize=16)
    authors = "Ada Example and Ben Sample, Free Software Review Group"
    aw = serif.text_length(authors, 11)
    title.append(((w - aw) / 2, 102), authors, font=serif, fontsize=11)
    title.write_text(page)
    mid = w / 2
    cols = ((margin, mid - gutter / 2), (mid + gutter / 2, w - margin))
    plan = (
        [("1 Introduction", paras[0]), (None, paras[1]), (None, paras[2])],
        [("2 Method", paras[3]), ("2.1 Source Code", paras[4]), (None, paras[5])],
    )
    shown: list[list[str]] = [[], []]
    for k, ((x0, x1), items) in enumerate(zip(cols, plan, strict=True)):
        y = 130.0
        for heading, para in items:
            if heading:
                hw = pymupdf.TextWriter(page.rect)
                hw.append((x0, y + 11), heading, font=bold, fontsize=11)
                hw.write_text(page)
                y += 19
            writer = pymupdf.TextWriter(page.rect)
            box = pymupdf.Rect(x0, y, x1, h - margin)
            rest = writer.fill_textbox(box, para, font=serif, fontsize=size, align=3)
            writer.write_text(page)
            used = len(para) if not rest else len(para) - len(" ".join(t for t, _ in rest))
            shown[k].append(para[:used].strip())
            y = writer.last_point.y + 8
            if rest:
                break
    return PaperScan(shown[0], shown[1], cols[0], cols[1])


def make_paper_scan_pdf(path: Path | str, *, dpi: int = 200) -> tuple[Path, PaperScan]:
    """An image-only PDF of :func:`paper_page` rendered at ``dpi``, like a paper scanned
    on an office copier. Returns the path and what the page shows."""
    path = Path(path)
    src = pymupdf.open()
    truth = paper_page(src)
    picture = _picture(src[0], dpi, 0.0)
    out = pymupdf.open()
    page = out.new_page(width=src[0].rect.width, height=src[0].rect.height)
    page.insert_image(page.rect, stream=picture)
    out.set_metadata({"title": "", "creationDate": "D:20250101000000Z"})
    out.save(path, deflate=True, no_new_id=True)
    return path, truth
