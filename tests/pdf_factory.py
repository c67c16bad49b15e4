"""Generate real, deterministic PDFs with PyMuPDF for tests of every layer.

Why: tests must use real PDFs, and their assertions need ground truth (which sentence is on
which page, in which section). Every generator lays text out line by line itself, so the page,
section and line breaks of each known sentence are fixed and exposed in ``MANUAL_FACTS``,
``MANUAL_SECTIONS``, ``TWO_COLUMN_LEFT`` / ``TWO_COLUMN_RIGHT``.

Markup inside paragraph strings:
- ``~`` inside a word forces a hyphenated line break there ("calibra~tion" -> "calibra-" at the
  end of one line, "tion" at the start of the next);
- ``\u00ad`` (soft hyphen) and ``\ufb01`` (fi ligature) are written as such into the PDF.
``clean(text)`` gives what ingestion should produce from such a string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from app.ingest._mupdf import pymupdf

PAGE_W, PAGE_H = 595.0, 842.0
LEFT, RIGHT = 72.0, 523.0
TOP, BOTTOM = 96.0, 770.0
BODY_SIZE, BODY_LEADING = 10.5, 14.0
H_SIZES = {1: 16.0, 2: 13.0}
TITLE_SIZE = 22.0
MANUAL_TITLE = "Zephyr 3000 Field Manual"
RUNNING_HEADER = "Zephyr 3000 Field Manual \u2013 Revision 7"

_REGULAR, _BOLD = "F0", "F1"
# Fixed dates and no random /ID, so the same call always writes the same bytes (same doc_id).
_DATES = {"creationDate": "D:20250101000000Z", "modDate": "D:20250101000000Z"}


def clean(text: str) -> str:
    """What ingestion should extract from a factory string: markers and ligatures resolved."""
    return text.replace("-~", "-").replace("~", "").replace("\u00ad", "").replace("\ufb01", "fi")


@dataclass(frozen=True)
class Fact:
    """A sentence with a checkable answer, and where it is printed."""

    key: str
    question: str
    answer: str  # a short string that occurs in the sentence
    sentence: str  # clean text, as ingestion should produce it
    page: int  # 1-based page of its first character
    page_end: int  # 1-based page of its last character
    section: str  # section path in force at the sentence


# Each page: a list of (kind, text). kinds: "title", "h1", "h2", "p" (paragraph), "pc" (paragraph
# continued from the previous page: no extra space before it).
_MANUAL_PAGES: list[list[tuple[str, str]]] = [
    [
        ("title", MANUAL_TITLE),
        ("h1", "1 Introduction"),
        (
            "p",
            "This manual describes the installation, operation and maintenance of the Zephyr "
            "3000 data logger. The Zephyr 3000 records up to 64 channels at a maximum sampling "
            "rate of 200 samples per second. It is designed for long unattended field "
            "campaigns in weather stations, bridges and greenhouses.",
        ),
        ("h2", "1.1 About this manual"),
        (
            "p",
            "Read the whole manual before the \ufb01rst deployment. The \ufb01rst start-up "
            "wizard shows \u201cReady\u201d when it has \ufb01nished. Chapters two and three "
            "explain the everyday work; chapters four and five are the reference for "
            "service techni~cians. The printed docu\u00admentation always matches firmware "
            "version 4.2 of the logger.",
        ),
        ("h2", "1.2 Safety notes"),
        (
            "p",
            "Never open the housing while the logger is connected to mains power. The "
            "logger contains a lithium cell that can overheat when it is short-circuited. "
            "Dispose of used cells according to the local regulations for hazardous "
            "waste and keep them away from children.",
        ),
    ],
    [
        ("h1", "2 Installation"),
        (
            "p",
            "Choose a dry, shaded place for the logger and keep at least ten centimetres of "
            "free space around the housing so that air can circulate. Avoid places where "
            "water can collect after heavy rain.",
        ),
        ("h2", "2.1 Mounting the logger"),
        (
            "p",
            "The mounting bracket must be fixed with four M6 stainless steel screws. "
            "Tighten the screws to a torque of 8 newton metres and check them again after "
            "the first week of operation. On wooden poles use the supplied spacer plate so "
            "that the bracket does not bend when the wood shrinks in dry weather. The "
            "housing can be rotated in steps of ninety degrees after the bracket is "
            "mounted, which makes it easy to point the cable glands down~wards.",
        ),
        (
            "p",
            "Route every cable through a separate gland and leave a drip loop below the "
            "housing. Unused glands must stay closed with the blind plugs supplied in the "
            "accessory bag, otherwise insects and moisture will get inside.",
        ),
    ],
    [
        ("h2", "2.2 Connecting sensors"),
        (
            "p",
            "Thermocouple inputs accept type K and type J sensors only. Voltage inputs "
            "measure from minus ten to plus ten volts with a resolution of one microvolt. "
            "Each input is protected against overvoltage up to forty volts, but a "
            "permanent overvoltage will drift the calibration of the whole input card.",
        ),
        ("h1", "3 Operation"),
        (
            "p",
            "The logger starts sampling as soon as a measurement plan has been loaded "
            "from the configuration software or from the memory card.",
        ),
        ("h2", "3.1 Sampling modes"),
        (
            "p",
            "In continuous mode every channel is sampled at the configured rate until the "
            "memory is full. In burst mode the logger stores 5000 samples before it pauses "
            "for 30 seconds. Event mode only records when a trigger channel crosses its "
            "threshold, which saves power on quiet days.",
        ),
        ("h2", "3.2 Power and batteries"),
        (
            "p",
            "The logger runs from an external supply between 9 and 30 volts. When the "
            "external supply fails, an internal battery takes over without losing a sample. "
            "The internal lithium battery lasts for 18 months when the logger samples once "
            "per minute, but only for about six weeks in burst mode. The battery voltage is "
            "logged every hour as channel 65, so a slow decline can be noticed early and the "
            "service visit can be planned before the logger stops. Replace the battery "
            "only with the original type, because other cells may not fit the holder and "
            "some have a different voltage. After a replacement the logger asks for the "
            "date and time, which must be entered before sampling resumes. The display "
            "shows the remaining capacity in percent, and a warning symbol appears when "
            "less than ten percent is left. The reserve",
        ),
    ],
    [
        (
            "pc",
            "capacity of the battery is enough to finish the running measurement plan and "
            "to write every buffered sample to the memory card. The maximum operating "
            "temperature is 55 degrees Celsius. Below minus twenty degrees the battery "
            "capacity drops to about half of its nominal value.",
        ),
        ("h1", "4 Maintenance"),
        (
            "p",
            "Regular maintenance keeps the measurements accurate and the housing tight. "
            "Write every maintenance action into the logbook that is stored on the memory "
            "card.",
        ),
        ("h2", "4.1 Cleaning"),
        (
            "p",
            "Clean the air filter every 90 days with a soft brush. Do not use compressed "
            "air, because it pushes dust into the pressure sensor. Only lint-free cloths are "
            "suitable for the display. Wipe the display with a damp lint-~free cloth and "
            "never use solvents on the plastic window.",
        ),
    ],
    [
        ("h2", "4.2 Calibration"),
        (
            "p",
            "Calibration must be repeated every 12 months by an accred~ited laboratory. The "
            "laboratory writes the new coefficients to the memory card, and the logger "
            "loads them at the next start. A calibration certificate is stored together "
            "with the coefficients, so an auditor can always trace every measurement back "
            "to its reference standard.",
        ),
        ("h1", "5 Troubleshooting"),
        (
            "p",
            "Error code E42 means that the sensor cable is broken or disconnected. If the "
            "display shows E17, the memory card is full and must be replaced. When the "
            "logger does not react to any key, hold the reset button for ten seconds; the "
            "stored measurements are kept.",
        ),
    ],
]


def _section_table() -> tuple[list[tuple[int, str, int]], dict[str, str]]:
    """Outline entries (level, title, page) and the section path of every heading."""
    entries: list[tuple[int, str, int]] = []
    path_of: dict[str, str] = {}
    stack: list[str] = []
    for pno, items in enumerate(_MANUAL_PAGES, start=1):
        for kind, text in items:
            if kind in ("h1", "h2"):
                level = int(kind[1])
                entries.append((level, text, pno))
                stack = stack[: level - 1] + [text]
                path_of[text] = " > ".join(stack)
    return entries, path_of


MANUAL_SECTIONS, MANUAL_SECTION_PATHS = _section_table()
MANUAL_PAGE_COUNT = len(_MANUAL_PAGES)


def _locate(fragment: str) -> tuple[int, int, str]:
    """(page, page_end, section path) of a clean sentence in the manual content."""
    flat: list[tuple[int, str, str, str]] = []  # (page, section, kind, clean text)
    section = ""
    for pno, items in enumerate(_MANUAL_PAGES, start=1):
        for kind, text in items:
            if kind in ("h1", "h2"):
                section = MANUAL_SECTION_PATHS[text]
            elif kind in ("p", "pc"):
                flat.append((pno, section, kind, clean(text)))
    for pno, section, _, text in flat:
        if fragment in text:
            return pno, pno, section
    for (pno, section, _, text), nxt in zip(flat, flat[1:], strict=False):
        if nxt[2] == "pc" and fragment in text + " " + nxt[3]:
            return pno, pno + 1, section
    raise KeyError(fragment)


def _fact(key: str, question: str, answer: str, sentence: str) -> Fact:
    page, page_end, section = _locate(sentence)
    return Fact(key, question, answer, sentence, page, page_end, section)


MANUAL_FACTS: dict[str, Fact] = {
    f.key: f
    for f in [
        _fact(
            "channels",
            "How many channels can the Zephyr 3000 record?",
            "64 channels",
            "The Zephyr 3000 records up to 64 channels at a maximum sampling rate of 200 "
            "samples per second.",
        ),
        _fact(
            "housing",
            "When must the housing never be opened?",
            "mains power",
            "Never open the housing while the logger is connected to mains power.",
        ),
        _fact(
            "screws",
            "Which screws fix the mounting bracket?",
            "M6 stainless steel",
            "The mounting bracket must be fixed with four M6 stainless steel screws.",
        ),
        _fact(
            "thermocouple",
            "Which thermocouple types are accepted?",
            "type K and type J",
            "Thermocouple inputs accept type K and type J sensors only.",
        ),
        _fact(
            "burst",
            "How many samples does burst mode store before pausing?",
            "5000",
            "In burst mode the logger stores 5000 samples before it pauses for 30 seconds.",
        ),
        _fact(
            "battery",
            "How long does the internal battery last?",
            "18 months",
            "The internal lithium battery lasts for 18 months when the logger samples once "
            "per minute, but only for about six weeks in burst mode.",
        ),
        _fact(
            "reserve",
            "What is the reserve capacity of the battery enough for?",
            "finish the running measurement plan",
            "The reserve capacity of the battery is enough to finish the running "
            "measurement plan and to write every buffered sample to the memory card.",
        ),
        _fact(
            "temperature",
            "What is the maximum operating temperature?",
            "55 degrees",
            "The maximum operating temperature is 55 degrees Celsius.",
        ),
        _fact(
            "filter",
            "How often must the air filter be cleaned?",
            "every 90 days",
            "Clean the air filter every 90 days with a soft brush.",
        ),
        _fact(
            "calibration",
            "How often must calibration be repeated?",
            "every 12 months",
            "Calibration must be repeated every 12 months by an accredited laboratory.",
        ),
        _fact(
            "e42",
            "What does error code E42 mean?",
            "sensor cable is broken",
            "Error code E42 means that the sensor cable is broken or disconnected.",
        ),
        _fact(
            "e17",
            "What does E17 on the display mean?",
            "memory card is full",
            "If the display shows E17, the memory card is full and must be replaced.",
        ),
    ]
}

# Words printed with a hyphen at a line end, as (first fragment, clean word, page).
# A compound split at its own hyphen over a line end ("lint-" / "free"), also printed whole
# elsewhere: ingestion keeps its hyphen, as (first fragment, clean word, page).
MANUAL_COMPOUNDS = [("lint-", "lint-free", 4)]
MANUAL_HYPHENATED = [
    ("techni-", "technicians", 1),
    ("down-", "downwards", 2),
    ("accred-", "accredited", 5),
]
# Sentences printed with typographic features ingestion must clean, as they should come out.
MANUAL_CLEANED = [
    "The first start-up wizard shows \u201cReady\u201d when it has finished.",
    "The printed documentation always matches firmware version 4.2 of the logger.",
]


# --- layout ---------------------------------------------------------------------------------


def _new_doc() -> pymupdf.Document:
    return pymupdf.open()


_FONT_CACHE: dict[str, pymupdf.Font] = {}


def _font(name: str) -> pymupdf.Font:
    """Built-in Nimbus Sans (regular / bold) as Unicode fonts, so ligatures and quotes survive."""
    if name not in _FONT_CACHE:
        _FONT_CACHE[name] = pymupdf.Font("hebo" if name == _BOLD else "helv")
    return _FONT_CACHE[name]


class _Canvas:
    """Collects the text of one page (in drawing order) and writes it in one go: fast, and one
    copy of each font per page."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self.writer = pymupdf.TextWriter(page.rect)

    def text(self, pos: tuple[float, float], text: str, font: str, size: float) -> None:
        self.writer.append(pos, text, font=_font(font), fontsize=size)

    def flush(self) -> None:
        self.writer.write_text(self.page)


_ADVANCE: dict[str, float] = {}


def _width(text: str, size: float) -> float:
    """Text width in points (per-glyph advances cached: measuring strings is slow in PyMuPDF)."""
    total = 0.0
    for ch in text:
        adv = _ADVANCE.get(ch)
        if adv is None:
            adv = _ADVANCE[ch] = _font(_REGULAR).glyph_advance(ord(ch))
        total += adv
    return total * size


def _wrap(text: str, width: float, size: float) -> list[str]:
    """Greedy line breaking; a ``~`` in a word forces 'frag-' at a line end."""
    lines: list[str] = []
    cur = ""
    for word in text.split():
        if "~" in word:
            head, tail = word.split("~", 1)
            head = head if head.endswith("-") else head + "-"  # "lint-~free" keeps one hyphen
            cand = f"{cur} {head}".strip()
            if cur and _width(cand, size) > width:
                lines.append(cur)
                cand = head
            lines.append(cand)
            cur = tail
            continue
        cand = f"{cur} {word}".strip()
        if cur and _width(cand, size) > width:
            lines.append(cur)
            cur = word
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


class _Writer:
    """Writes lines top-down inside one column of one page."""

    def __init__(self, canvas: _Canvas, x0: float, x1: float, y: float) -> None:
        self.canvas, self.x0, self.x1, self.y = canvas, x0, x1, y

    def line(self, text: str, size: float, font: str = _REGULAR, leading: float | None = None):
        baseline = self.y + size
        self.canvas.text((self.x0, baseline), text, font, size)
        self.y += leading or size * 1.35
        return baseline

    def paragraph(self, text: str, size: float = BODY_SIZE) -> None:
        for ln in _wrap(text, self.x1 - self.x0, size):
            self.line(ln, size, leading=BODY_LEADING)
        if self.y > BOTTOM:
            raise ValueError(f"page overflow near {text[:40]!r}")


def _page_furniture(canvas: _Canvas, pno: int) -> None:
    canvas.text((LEFT, 52), RUNNING_HEADER, _REGULAR, 8.5)
    num = str(pno)
    canvas.text((PAGE_W / 2 - _width(num, 9) / 2, 806), num, _REGULAR, 9)


def _render_manual(doc: pymupdf.Document, *, furniture: bool) -> list[tuple[int, str, int, float]]:
    """Draw the manual; return outline entries (level, title, page, y of the heading's top)."""
    toc: list[tuple[int, str, int, float]] = []
    for pno, items in enumerate(_MANUAL_PAGES, start=1):
        canvas = _Canvas(doc.new_page(width=PAGE_W, height=PAGE_H))
        if furniture:
            _page_furniture(canvas, pno)
        w = _Writer(canvas, LEFT, RIGHT, TOP)
        for kind, text in items:
            if kind == "title":
                w.line(text, TITLE_SIZE, _BOLD, leading=TITLE_SIZE * 1.8)
            elif kind in ("h1", "h2"):
                size = H_SIZES[int(kind[1])]
                w.y += 8 if w.y > TOP else 0
                toc.append((int(kind[1]), text, pno, w.y))
                w.line(text, size, _BOLD, leading=size * 1.6)
            else:
                w.paragraph(text)
                w.y += 6
        canvas.flush()
    return toc


def make_manual_pdf(
    path: Path | str,
    *,
    title: str | None = MANUAL_TITLE,
    outline: bool = True,
    furniture: bool = True,
) -> Path:
    """The Zephyr 3000 manual: 5 pages, outline with heading positions, running header,
    page numbers, hyphenated line ends, a ligature, curly quotes, a soft hyphen, and a
    paragraph continuing over a page break. Facts: ``MANUAL_FACTS``."""
    path = Path(path)
    doc = _new_doc()
    toc = _render_manual(doc, furniture=furniture)
    if outline:
        doc.set_toc(
            [
                [lvl, text, pno, {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(LEFT, y)}]
                for lvl, text, pno, y in toc
            ]
        )
    doc.set_metadata(
        {"title": title or "", "author": "Footnote tests", "producer": "pdf_factory", **_DATES}
    )
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def make_no_outline_pdf(path: Path | str) -> Path:
    """The manual without outline and without metadata title: headings known by font size only."""
    return make_manual_pdf(path, title=None, outline=False)


TWO_COLUMN_TITLE = "Two Column Field Report"
TWO_COLUMN_LEFT = [
    "Alpha station recorded the lowest temperature of the winter on the ninth of January.",
    "Alpha station also reported two short power failures during the storm.",
    "The alpha crew replaced the wind sensor after the storm had passed.",
    "Snow covered the alpha solar panel for three days in a row.",
]
TWO_COLUMN_RIGHT = [
    "Bravo station measured the highest wind speed at 31 metres per second.",
    "Bravo station kept logging without any interruption during the storm.",
    "The bravo crew cleaned the rain gauge funnel twice in February.",
    "Ice on the bravo mast was removed with a wooden mallet.",
]


def make_two_column_pdf(path: Path | str) -> Path:
    """One page: full-width title, then a left and a right column (left drawn first, as LaTeX
    does). Each column repeats its sentences so that both columns fill several lines side by
    side; reading must finish the left column before the right one starts."""
    path = Path(path)
    doc = _new_doc()
    canvas = _Canvas(doc.new_page(width=PAGE_W, height=PAGE_H))
    w = _Writer(canvas, LEFT, RIGHT, TOP)
    w.line(TWO_COLUMN_TITLE, 16.0, _BOLD, leading=30)
    top = w.y
    gutter = 24.0
    mid = (LEFT + RIGHT) / 2
    for x0, x1, sentences in (
        (LEFT, mid - gutter / 2, TWO_COLUMN_LEFT),
        (mid + gutter / 2, RIGHT, TWO_COLUMN_RIGHT),
    ):
        col = _Writer(canvas, x0, x1, top)
        for s in sentences:
            col.paragraph(s)
            col.y += 6
    canvas.flush()
    doc.set_metadata({"title": TWO_COLUMN_TITLE, **_DATES})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def make_scanned_pdf(path: Path | str, pages: int = 2) -> Path:
    """Pages that only hold a picture of text (no text layer), like an un-OCRed scan."""
    path = Path(path)
    src = _new_doc()
    _render_manual(src, furniture=True)
    doc = _new_doc()
    for i in range(pages):
        pix = src[i % src.page_count].get_pixmap(dpi=50)
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        page.insert_image(page.rect, stream=pix.tobytes("png"))
    doc.save(path, deflate=True)
    return path


def make_photo_pdf(path: Path | str, pages: int = 2) -> Path:
    """Image-only pages that show no text at all (shapes on a grey ground, like a photo):
    OCR finds nothing to read, so ingestion must refuse the file with its reason."""
    path = Path(path)
    src = _new_doc()
    doc = _new_doc()
    for i in range(pages):
        art = src.new_page(width=PAGE_W, height=PAGE_H)
        art.draw_rect(art.rect, color=None, fill=(0.85, 0.85, 0.8))
        art.draw_circle((200 + 60 * i, 300), 120, color=None, fill=(0.4, 0.5, 0.7))
        art.draw_rect(pymupdf.Rect(300, 450, 520, 700), color=None, fill=(0.7, 0.3, 0.2))
        pix = art.get_pixmap(dpi=72)
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        page.insert_image(page.rect, stream=pix.tobytes("png"))
    doc.save(path, deflate=True)
    return path


def make_encrypted_pdf(path: Path | str, password: str = "secret") -> Path:
    """The manual, AES-256 encrypted with a user password."""
    path = Path(path)
    doc = _new_doc()
    _render_manual(doc, furniture=True)
    doc.save(
        path,
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw=password,
        owner_pw=password + "-owner",
    )
    return path


def make_corrupt_pdf(path: Path | str) -> Path:
    """A valid manual cut off after its first 25% of bytes (like an interrupted download)."""
    path = Path(path)
    tmp = path.with_name(path.stem + ".full.pdf")
    make_manual_pdf(tmp)
    data = tmp.read_bytes()
    tmp.unlink()
    path.write_bytes(data[: len(data) // 4])
    return path


def make_empty_file(path: Path | str) -> Path:
    path = Path(path)
    path.write_bytes(b"")
    return path


def make_not_pdf(path: Path | str) -> Path:
    """A plain text file named like a PDF."""
    path = Path(path)
    path.write_text("These are my shopping notes, not a PDF.\nMilk, bread, 12 eggs.\n")
    return path


def make_zero_page_pdf(path: Path | str) -> Path:
    """A syntactically valid PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    path = Path(path)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))
    return path


LONG_TABLE_HEADER = "Field Positions Description"
LONG_TABLE_ITEMS = [
    "housing",
    "travel",
    "meal",
    "uniform",
    "tool",
    "phone",
    "laundry",
    "study",
    "childcare",
    "removal",
    "relocation",
    "subsistence",
    "mileage",
    "parking",
    "toll",
    "ferry",
    "training",
    "books",
    "software",
    "hardware",
    "postage",
    "printing",
    "stationery",
    "broadband",
    "energy",
    "water",
    "insurance",
    "medical",
    "dental",
    "optical",
    "pension",
    "union",
    "charity",
    "gift",
    "bonus",
    "overtime",
    "shift",
    "night",
    "weekend",
    "holiday",
]


def long_table_row(i: int) -> str:
    """The text of row ``i`` of :func:`make_long_table_pdf`'s table, as Footnote reads it."""
    item = LONG_TABLE_ITEMS[i]
    return f"FLD{i:02d} {i * 10 + 1}-{i * 10 + 10} Amount of the {item} allowance claimed in pence"


def make_long_table_pdf(path: Path | str) -> Path:
    """A record layout: a ruled table of 40 rows, far longer than one chunk, under a heading."""
    from tests.bench.corpus_gen import report
    from tests.bench.corpus_gen.render import TABLE_CELL, Flow, new_document, save

    path = Path(path)
    doc = new_document("Annual return record layout", "Footnote tests")
    w, h = 595.0, 842.0
    flow = Flow(doc, (w, h), lambda pno: [pymupdf.Rect(60, 60, w - 60, h - 60)], None)
    flow.new_page()
    flow.heading("3 Record layout of the annual return", report.H1)
    flow.para("Each record of the annual return is one line of fixed-width fields.", report.BODY)
    rows = [long_table_row(i).split(" ", 2) for i in range(len(LONG_TABLE_ITEMS))]
    flow.table(LONG_TABLE_HEADER.split(), rows, [80, 80, 315], TABLE_CELL)
    save(doc, str(path))
    return path


RECORD_HEADER = ["Field", "Start", "Length", "Content"]
RECORD_ROWS = [
    ["RECTYPE", "1", "2", "Record type, always 07"],
    ["EMPREF", "3", "9", "Employer reference number"],
    ["PERIOD", "12", "6", "Tax month as YYYYMM"],
    ["GROSSPAY", "18", "11", "Gross pay in pence"],
    ["TAXDUE", "29", "11", "Income tax deducted in pence"],
]


def make_column_wise_table_pdf(path: Path | str, rows: list[list[str]] | None = None) -> Path:
    """A record layout whose table is drawn column by column (MuPDF: one block per column)."""
    path = Path(path)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Monthly return file: record layout", fontsize=13)
    page.insert_text((72, 110), "Each record is one line of fixed-width fields.", fontsize=10)
    for c, x in enumerate((72, 160, 220, 290)):
        for r, row in enumerate([RECORD_HEADER, *(RECORD_ROWS if rows is None else rows)]):
            page.insert_text((x, 140 + 14 * r), row[c], fontsize=10)
    doc.save(path)
    return path


# --- a paper without an outline: headings, footnote marks, a rupee sign ----------------------

PAPER_TITLE = "Dense Retrieval of Passages for Open Questions"
PAPER_HEADINGS = ["Related Work", "4 Experimental Setup", "4.1 Wikipedia Data Pre-processing"]
PAPER_SENTENCES = {
    "related": "Earlier systems ranked passages by the overlap of their words with the question.",
    "dump": "Following earlier work, we use the English Wikipedia dump from Dec. 20, 2018 as "
    "the source documents for answering questions.",
    "age": "Most women in the survey lived beyond the age of 85.",
    "women": "The gap was widest among older women.",
    "rupee": "Revenue from operations reached \u20b967,845 crore in the year.",
}


def make_paper_pdf(path: Path | str) -> Path:
    """One page set like a LaTeX article, without outline or metadata title: a 16-pt bold
    title, 12-pt bold headings over 11-pt Times (one unnumbered, as "Related Work"), an 11-pt
    bold numbered subheading drawn in the same block as the paragraph under it, footnote
    marks set as raised 7-pt digits after "85." and "women." ("²", "²,³"), and a rupee sign
    drawn as a backtick, as in reports set with the "Rupee Foradian" font."""
    path = Path(path)
    doc = _new_doc()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    tw = pymupdf.TextWriter(page.rect)
    bold, roman = pymupdf.Font("tibo"), pymupdf.Font("tiro")
    y = TOP
    tw.append((LEFT, y), PAPER_TITLE, font=bold, fontsize=16)
    y += 34

    def line(text: str, font: pymupdf.Font = roman, size: float = 11.0, gap: float = 14.0):
        nonlocal y
        _, end = tw.append((LEFT, y), text, font=font, fontsize=size)
        y += gap
        return end

    line(PAPER_HEADINGS[0], bold, 12, 17)
    line(PAPER_SENTENCES["related"], gap=24)
    line(PAPER_HEADINGS[1], bold, 12, 17)
    line(PAPER_HEADINGS[2], bold, 11, 14)
    words = PAPER_SENTENCES["dump"].split()
    line(" ".join(words[:12]))
    line(" ".join(words[12:]), gap=24)
    end = line(PAPER_SENTENCES["age"], gap=0)
    _, end = tw.append((end.x, y - 4), "2", font=roman, fontsize=7)
    _, end = tw.append((end.x + 3, y), PAPER_SENTENCES["women"], font=roman, fontsize=11)
    tw.append((end.x, y - 4), "2,3", font=roman, fontsize=7)
    y += 24
    line(PAPER_SENTENCES["rupee"].replace("\u20b9", "`"))
    tw.write_text(page)
    doc.set_metadata({"title": "", **_DATES})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def highlighted_words(path: Path, rects: list[tuple[int, float, float, float, float]]) -> str:
    """Words of the PDF whose centre lies inside one of the rectangles, in reading order: what
    a person reads in a highlight."""
    out: list[str] = []
    with pymupdf.open(path) as pdf:
        for page_no in dict.fromkeys(r[0] for r in rects):
            page_rects = [r[1:] for r in rects if r[0] == page_no]
            for w in pdf[page_no - 1].get_text("words", sort=True):
                cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
                if any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in page_rects):
                    out.append(w[4])
    # Join line-end hyphenation the way the person reads it.
    return re.sub(r"(\w)- (\w)", r"\1\2", " ".join(out))


# --- old TeX PDFs: Type3 bitmap fonts whose ligatures are control codes --------------------

TYPE3_LINES_T1 = (
    "This is a modi\x1ced version of the generalized \x1ductuation test,",
    "\x1crst \x1ctted to the data and then \x1cnally speci\x1ced;",
    "the coe\x1ecients di\x1ber, which re\x1dects the e\x1bect of o\x1b",
)
"""Lines as dvips sets them in T1 (Cork) encoding: 0x1B "ff", 0x1C "fi", 0x1D "fl",
0x1E "ffi", inside words, at a line's start and at its end."""
TYPE3_WORDS_T1 = (
    "This is a modified version of the generalized fluctuation test, first fitted to the data "
    "and then finally specified; the coefficients differ, which reflects the effect of off"
)
TYPE3_LINES_OT1 = (
    "The \x0crst e\x0bect of the \x0dow is de\x0cned here,",
    "and the sta\x0b ask for the o\x0ece.",
)
"""The same in TeX's original OT1 encoding: 0x0B "ff", 0x0C "fi", 0x0D "fl", 0x0E "ffi"."""
TYPE3_WORDS_OT1 = "The first effect of the flow is defined here, and the staff ask for the office."


def make_type3_ligature_pdf(path: Path | str, lines: tuple[str, ...] = TYPE3_LINES_T1) -> Path:
    """One page set in a Type3 font like dvips' bitmap fonts: every glyph (a filled box) is
    named by its code (``/a28``), with no ToUnicode map, so a reader can only take each code
    for the character it numbers and a ligature comes out as a control character. ``lines``
    are byte strings of codes below 128, one text line each."""
    path = Path(path)
    doc = _new_doc()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    procs: dict[int, int] = {}
    for code in sorted({ord(c) for line in lines for c in line}):
        xref = doc.get_new_xref()
        doc.update_object(xref, "<<>>")
        glyph = "250 0 0 0 0 0 d1" if code == 32 else "500 0 0 0 500 700 d1 50 0 400 600 re f"
        doc.update_stream(xref, glyph.encode())
        procs[code] = xref
    names = " ".join(f"/a{c} {x} 0 R" for c, x in procs.items())
    widths = " ".join("250" if c == 32 else ("500" if c in procs else "0") for c in range(128))
    font = doc.get_new_xref()
    doc.update_object(
        font,
        f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 700] "
        f"/FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << {names} >> "
        f"/Encoding << /Type /Encoding /Differences [0 "
        f"{' '.join(f'/a{c}' for c in range(128))}] >> "
        f"/FirstChar 0 /LastChar 127 /Widths [{widths}] >>",
    )
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /T3 {font} 0 R >> >>")
    ops = ["BT /T3 10 Tf"]
    for k, line in enumerate(lines):
        codes = "".join(f"\\{ord(c):03o}" if ord(c) < 32 or c in "()\\" else c for c in line)
        ops.append(f"1 0 0 1 {LEFT} {PAGE_H - TOP - 14 * k} Tm ({codes}) Tj")
    ops.append("ET")
    contents = doc.get_new_xref()
    doc.update_object(contents, "<<>>")
    doc.update_stream(contents, "\n".join(ops).encode())
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.set_metadata({"title": "", **_DATES})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path
