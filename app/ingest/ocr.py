"""OCR of pages without a usable text layer, offline, with word boxes.

Engine: Tesseract as built into PyMuPDF's own MuPDF (no ``tesseract`` program is run).
It needs only Tesseract's language files (``*.traineddata``), which Footnote finds in
``$FOOTNOTE_TESSDATA``, the installer's ``tessdata`` folder, ``$TESSDATA_PREFIX`` or the
system's (Debian: ``tesseract-ocr-eng``). Why this engine over RapidOCR (PP-OCR on ONNX):
measured on the same rendered pages it read English with 0.0% character errors against
about 20-30% for RapidOCR's Chinese/English model (which drops the spaces between English
words), was 3-4x faster, and adds ~6 MB of language data to the installer instead of
~105 MB of wheels (onnxruntime, OpenCV). See ``tests/bench/bench_ocr.py``.

How a page is read: it is rendered upright (as the reader sees it, whatever its
``/Rotate``), Tesseract reads the picture, and the word boxes are mapped back to the
unrotated page space every other text extraction uses, so citations and highlights on a
scanned page work exactly like on a born-digital one.

Which pages need OCR: a page with no words whose images cover a good part of it (a scan),
or a page whose text layer is garbage (glyphs mapped to the wrong characters by a broken
font encoding): see :func:`text_is_garbage`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.core.errors import OcrUnavailableError

from ._mupdf import pymupdf
from .columns import reading_order

logger = logging.getLogger(__name__)

DEFAULT_LANGUAGES = "eng"
DEFAULT_DPI = 300
_SYSTEM_TESSDATA = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)
_MIN_IMAGE_SHARE = 0.1  # images covering less of the page are logos, not a scan


@dataclass(frozen=True)
class OcrOptions:
    """What OCR may do. ``languages`` uses Tesseract's names joined by "+" ("eng+deu")."""

    enabled: bool = True
    languages: str = DEFAULT_LANGUAGES
    dpi: int = DEFAULT_DPI
    max_workers: int | None = None
    """OCR processes one file may use at most (a Ray actor: the CPUs it holds); None: as
    many as :func:`app.ingest.ocr_pool.workers_for` allows."""
    defer: bool = False
    """Leave the pages that need OCR unread (``ParsedDocument.ocr_pending`` lists them), so a
    caller can store the document's text pages at once and read those pages later, while
    other work goes on (``app.services.ocr_stage``). Only when OCR can run at all; else the
    file is read (or refused) as without it."""


def _candidates() -> list[Path]:
    out: list[Path] = []
    for env in ("FOOTNOTE_TESSDATA",):
        if os.environ.get(env):
            out.append(Path(os.environ[env]))
    base = getattr(sys, "_MEIPASS", None)
    if base:
        out.append(Path(base) / "tessdata")
    if os.environ.get("TESSDATA_PREFIX"):
        prefix = Path(os.environ["TESSDATA_PREFIX"])
        out += [prefix, prefix / "tessdata"]
    out += [Path(p) for p in _SYSTEM_TESSDATA]
    return out


@lru_cache(maxsize=1)
def tessdata_dir() -> Path | None:
    """The folder holding Tesseract's language files, or None when OCR cannot run."""
    for c in _candidates():
        if c.is_dir() and any(c.glob("*.traineddata")):
            return c
    return None


def available_languages() -> list[str]:
    """Installed OCR languages (Tesseract names, e.g. ["deu", "eng"]); "osd" is not one."""
    d = tessdata_dir()
    if d is None:
        return []
    return sorted(p.stem for p in d.glob("*.traineddata") if p.stem != "osd")


def ocr_available(options: OcrOptions) -> bool:
    """True when OCR can read pages under ``options``: on, with one of its languages' data."""
    if not options.enabled or tessdata_dir() is None:
        return False
    have = set(available_languages())
    return any(lang in have for lang in options.languages.split("+") if lang)


def check_languages(languages: str) -> str:
    """``languages`` restricted to the installed ones; raises when none is installed."""
    have = set(available_languages())
    want = [lang for lang in languages.split("+") if lang]
    ok = [lang for lang in want if lang in have]
    if not ok:
        where = tessdata_dir()
        raise OcrUnavailableError(
            f"OCR language data for {languages!r} is not installed"
            + (f" (found {', '.join(sorted(have))} in {where})." if have else ".")
        )
    if len(ok) < len(want):
        logger.warning("OCR languages %s are not installed; using %s", want, ok)
    return "+".join(ok)


# --- which pages need OCR -----------------------------------------------------------------------


def looks_scanned(page: pymupdf.Page) -> bool:
    """A page whose images cover a good part of it (caller holds MUPDF_LOCK)."""
    area = abs(page.rect) or 1.0
    covered = 0.0
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & page.rect
        covered += abs(r)
    return covered / area >= _MIN_IMAGE_SHARE


def scan_dpi(page: pymupdf.Page, ceiling: int) -> int:
    """The resolution to read a page at: its largest picture's own resolution, within
    [150, ``ceiling``]. Rendering a 200-dpi scan at 300 dpi adds time, not detail."""
    best, dpi = 0.0, float(ceiling)
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"])
        if r.is_empty or abs(r) <= best:
            continue
        best = abs(r)
        side = max(r.width, r.height)
        pixels = max(info.get("width", 0), info.get("height", 0))
        if side > 0 and pixels > 0:
            dpi = pixels * 72.0 / side
    return int(max(150, min(ceiling, round(dpi))))


def has_words(text: str) -> bool:
    """OCR output worth keeping: some word of two or more letters, and not garbage."""
    return any(sum(c.isalnum() for c in w) >= 2 for w in text.split()) and not text_is_garbage(text)


def _bad_char(ch: str) -> bool:
    o = ord(ch)
    if 0xE000 <= o <= 0xF8FF or o == 0xFFFD or o >= 0xF0000:  # private use, replacement
        return True
    return unicodedata.category(ch) in ("Cc", "Co", "Cn", "Cs")


_LEADERS = re.compile(r"([^\w\s])\1{2,}")
"""Three or more of the same mark in a row: the dot leaders of a table of contents ("Intro
....... 3"), rules ("-----"), ellipses. Layout, not text: left out before judging it."""
_VOWELS = frozenset("aeiouyAEIOUY")


def text_is_garbage(text: str) -> bool:
    """True for text that a broken font encoding produced instead of words.

    Signs: many private-use, replacement or control characters; few of the visible
    characters are letters or digits; or, for Latin text, almost no vowels ("Wkh
    frpplwwhh" is English shifted by three code points, the symptom of a font without a
    Unicode map).
    Runs of one mark (dot leaders, rules) are left out first: a table of contents is text,
    and OCR read its pages no better, at a second or more each (39 such pages of the real
    corpus went to OCR before). Short texts (under 40 visible characters) are never judged.
    Each distinct character is looked at once (a page holds a few thousand characters but
    rarely a hundred distinct ones).
    """
    chars = "".join(_LEADERS.sub("", text).split())
    n = len(chars)
    if n < 40:
        return False
    bad = alnum = letters = latin = vowels = 0
    for c, k in Counter(chars).items():
        if c.isalnum():
            alnum += k
            if c.isalpha():
                letters += k
                if c.isascii():
                    latin += k
                    vowels += k if c in _VOWELS else 0
        elif _bad_char(c):
            bad += k
    if bad / n > 0.1 or alnum / n < 0.5:
        return True
    return latin >= 0.8 * letters and latin >= 40 and vowels / latin < 0.2


def is_plot_marks(text: str) -> bool:
    """True for a chart whose points are drawn as letters: one short token ("G", "o", "+")
    makes up at least half of the page's tokens. Its text has no vowels and looks like a
    broken font, but OCR reads the same letters (powerlaw-jss-paper.pdf page 10, a scatter
    plot of "G" marks). Broken prose spaced out letter by letter has no token that common."""
    tokens = text.split()
    if len(tokens) < 40:
        return False
    token, count = Counter(tokens).most_common(1)[0]
    return len(token) <= 3 and count >= 0.5 * len(tokens)


def is_glyph_chart(text: str) -> bool:
    """True for a font's code chart or a table of single symbols: most tokens are one or two
    characters, and most of those are not letters. Its text layer may look like garbage (the
    glyphs of code points 0-31 come out as control characters), but OCR reads no better: on
    the five code-chart pages of encguide.pdf it produced "|» |» [au fos |i fe" in place of
    the font names and codes the text layer has, at 1.5 s a page. Prose in a broken font is
    different: its tokens are word-length ("Wkh frpplwwhh"), or single *letters* when the
    font spaces them out, and both still go to OCR."""
    tokens = text.split()
    if len(tokens) < 40:
        return False
    short = [t for t in tokens if len(t) <= 2]
    if len(short) < 0.7 * len(tokens):
        return False
    letters = sum(1 for t in short if t.isalpha())
    return letters < 0.5 * len(short)


# --- reading a page -----------------------------------------------------------------------------


def ocr_textpage(
    page: pymupdf.Page, options: OcrOptions
) -> tuple[pymupdf.TextPage, pymupdf.Matrix | None, object]:
    """OCR one page (caller holds MUPDF_LOCK). Returns (text page, matrix, keep-alive).

    ``matrix`` maps the text page's coordinates to the unrotated page space (None when
    they already are); hold on to ``keep-alive`` while the text page is used.
    """
    tessdata = tessdata_dir()
    if tessdata is None:
        raise OcrUnavailableError("OCR language data (Tesseract traineddata) is not installed.")
    languages = check_languages(options.languages)
    dpi = scan_dpi(page, options.dpi)
    if page.rotation % 360 == 0:
        tp = page.get_textpage_ocr(language=languages, dpi=dpi, full=True, tessdata=str(tessdata))
        return tp, None, None
    # Render upright, read the upright picture, map boxes back through the derotation.
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    shown = page.rect
    tmp = pymupdf.open()
    upright = tmp.new_page(width=shown.width, height=shown.height)
    upright.insert_image(upright.rect, pixmap=pix)
    tp = upright.get_textpage_ocr(language=languages, dpi=dpi, full=True, tessdata=str(tessdata))
    return tp, page.derotation_matrix, (tmp, upright)


def ocr_words(page: pymupdf.Page, options: OcrOptions) -> list[tuple]:
    """OCR one page (caller holds MUPDF_LOCK): its words in reading order, as MuPDF word
    tuples (x0, y0, x1, y1, text, block, line, word) in the unrotated page space."""
    tp, matrix, keep = ocr_textpage(page, options)
    words = reading_order(tp.extractWORDS(), tp.rect.width)  # OCR has no drawing order
    del tp, keep
    if matrix is None:
        return words
    out = []
    for w in words:
        r = pymupdf.Rect(w[0], w[1], w[2], w[3]) * matrix
        out.append((r.x0, r.y0, r.x1, r.y1, *w[4:]))
    return out
