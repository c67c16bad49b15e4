"""Page text as physical lines of words with geometry, and removal of page furniture.

Why words, not characters: MuPDF's word extraction is several times faster than
``rawdict`` and already gives each word's box and its (block, line) numbers, which is
all a citation highlight needs. Ligatures are expanded by MuPDF itself (we do not ask
it to preserve them); soft hyphens, zero-width characters and leftover ligature code
points are cleaned per word, and only for the rare words that are not pure ASCII.

Running headers/footers are recognised across pages (see :func:`drop_furniture`), so
extraction keeps every line first and filters afterwards.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from dataclasses import dataclass

from app.core.scripts import has_presentation_forms, logical_letters

from ._mupdf import pymupdf
from .tables import table_rows

logger = logging.getLogger(__name__)

# Expand ligatures (no TEXT_PRESERVE_LIGATURES), clip to the media box, keep it fast.
TEXT_FLAGS = pymupdf.TEXT_MEDIABOX_CLIP

_LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\u00ad": "",  # soft hyphen: invisible unless at a line end (handled by the caller)
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\u2060": "",
    "\ufeff": "",
    "\ufffd": "",
    "\u00a0": " ",
    "\u2002": " ",
    "\u2003": " ",
    "\u2009": " ",
}
_TRANSLATE = str.maketrans(_LIGATURES)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

Word = tuple[float, float, float, float, str]  # x0, y0, x1, y1, cleaned text


@dataclass(slots=True)
class Line:
    """One physical line of text on a page, in MuPDF's reading (block) order."""

    page: int  # 1-based
    block: int  # unique per (page, block) across the document
    key: int  # unique per physical line across the document
    words: list[Word]
    x0: float = 0.0
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0
    size: float = 0.0  # font size from spans; 0 when fonts were not extracted
    bold: bool = False
    soft_end: bool = False  # last word ended with a soft hyphen (a line-end break)
    dropped: bool = False  # running header/footer or bare page number
    heading: bool = False  # the line a section starts at (its text stands on a line of its own)
    ocr: bool = False  # read by OCR: no fonts, ``size`` is estimated from word boxes

    @property
    def text(self) -> str:
        return " ".join(w[4] for w in self.words)


_RUPEE = re.compile(r"^`(?=\d[\d,.]*$)")
"""Indian reports set the rupee sign in a font ("Rupee Foradian") that draws it for the
backtick key, so the text layer reads "`67,845": a backtick right before a sum is "₹"."""


def clean_word(text: str) -> tuple[str, bool]:
    """Clean one extracted word. Returns (text, ended_with_soft_hyphen)."""
    if text.isascii():
        if text[:1] == "`":
            text = _RUPEE.sub("\u20b9", text)
        if text.isprintable():
            return text, False
        return _CONTROL.sub("", text), False
    soft = text.endswith("\u00ad")
    text = _CONTROL.sub("", text.translate(_TRANSLATE)).strip()
    if has_presentation_forms(text):
        text = logical_letters(text)
    return text, soft


_PUNCT = re.compile(r"[.,;:!?\u060c\u061b\u061f\u06d4()\"'\u00ab\u00bb]+")
RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def join_rtl_pieces(words: list) -> list:
    """Join right-to-left pieces MuPDF splits one word into: in Arabic, a letter that does
    not connect to the next (alef in "ال") leaves a tiny gap that MuPDF may take for a word
    break. Pieces of one line that touch (right to left) become one word again."""
    out: list = []
    for w in words:
        if out:
            p = out[-1]
            touching = abs(p[0] - w[2]) < 0.15 * max(w[3] - w[1], 1.0)
            same_line = p[5] == w[5] and p[6] == w[6]
            rtl_p, rtl_w = RTL.search(p[4]), RTL.search(w[4])
            punct = _PUNCT.fullmatch(w[4]) or _PUNCT.fullmatch(p[4])
            if same_line and touching and ((rtl_p and rtl_w) or ((rtl_p or rtl_w) and punct)):
                out[-1] = (w[0], min(p[1], w[1]), p[2], max(p[3], w[3]), p[4] + w[4], *p[5:])
                continue
        out.append(w)
    return out


class PageExtractor:
    """Turns pages into :class:`Line` lists; numbering of blocks and lines runs across pages."""

    def __init__(self, *, want_fonts: bool) -> None:
        self.want_fonts = want_fonts
        self._next_block = 0
        self._next_line = 0
        self.tables_seconds = 0.0  # spent regrouping table cells (the "tables" stage)
        self._type3: dict[int, bool] = {}  # font (or font dictionary) xref -> a Type3 font

    def extract(self, page: pymupdf.Page, pno: int) -> list[Line]:
        """Lines of one page's text layer."""
        tp = page.get_textpage(flags=TEXT_FLAGS)
        # Drawing order is reading order, except tables whose cells MuPDF grouped by column.
        words = tp.extractWORDS()
        blocks = None
        if words and has_type3_font(page, self._type3):
            blocks = tp.extractDICT()["blocks"]
            words = join_ligature_pieces(words, blocks)
        if any(_MARKED.search(w[4]) for w in words):
            if blocks is None:
                blocks = tp.extractDICT()["blocks"]
            words = drop_note_marks(words, blocks)
        if any(_GLUED.search(w[4]) for w in words):
            if blocks is None:
                blocks = tp.extractDICT()["blocks"]
            words = split_after_symbols(words, blocks)
        t0 = time.perf_counter()
        words = table_rows(words)
        self.tables_seconds += time.perf_counter() - t0
        if self.want_fonts and words:
            fonts = _line_fonts(blocks if blocks is not None else tp.extractDICT()["blocks"])
        else:
            fonts = {}
        return self.lines(words, pno, fonts)

    def lines(
        self,
        words: list,
        pno: int,
        fonts: dict[tuple[int, int], tuple[float, bool, float]] | None = None,
    ) -> list[Line]:
        """Lines from MuPDF word tuples (x0, y0, x1, y1, text, block, line, word) in
        reading order, e.g. a text layer's or OCR's. Per-word work is kept minimal:
        pure-ASCII words pass as is."""
        fonts = fonts or {}
        if any(RTL.search(w[4]) for w in words if not w[4].isascii()):
            words = join_rtl_pieces(words)
        lines: list[Line] = []
        numbers: list[tuple[int, int]] = []
        line: Line | None = None
        cur: list = []
        cb = cl = -1
        block_id = -1
        last_soft = False
        leaders = 0  # "." words: dot leaders of tables of contents
        for w in words:
            b, ln = w[5], w[6]
            raw = w[4]
            if raw.isascii() and raw.isprintable() and raw[:1] != "`":
                soft = False
            else:
                text, soft = clean_word(raw)
                if not text:
                    continue
                w = (w[0], w[1], w[2], w[3], text)
            if b != cb or ln != cl:
                if line is not None:
                    line.soft_end = last_soft
                if b != cb:
                    block_id = self._next_block
                    self._next_block += 1
                cur = []
                line = Line(pno, block_id, self._next_line, cur)
                self._next_line += 1
                lines.append(line)
                numbers.append((b, ln))
                cb, cl = b, ln
            cur.append(w)
            last_soft = soft
            if raw == ".":
                leaders += 1
        if line is not None:
            line.soft_end = last_soft
        if leaders >= 3:
            lines, numbers = _drop_leaders(lines, numbers)
        for line, key in zip(lines, numbers, strict=True):
            x0s, y0s, x1s, y1s = list(zip(*line.words, strict=False))[:4]
            line.x0, line.y0, line.x1, line.y1 = min(x0s), min(y0s), max(x1s), max(y1s)
            font = fonts.get(key)
            if font is not None and abs(font[2] - line.y1) < 3:  # same line in both views
                line.size, line.bold = font[0], font[1]
        return lines


def _drop_leaders(
    lines: list[Line], numbers: list[tuple[int, int]]
) -> tuple[list[Line], list[tuple[int, int]]]:
    """Remove dot leaders (runs of 3+ words that are a lone ".", as in "Intro . . . . 3"):
    they are layout, not text, and would fill table-of-contents chunks with noise."""
    keep_lines, keep_numbers = [], []
    for line, key in zip(lines, numbers, strict=True):
        words = line.words
        out: list = []
        run: list = []
        for w in words:
            if w[4] == ".":
                run.append(w)
                continue
            if 0 < len(run) < 3:
                out.extend(run)
            run = []
            out.append(w)
        if 0 < len(run) < 3:
            out.extend(run)
        if len(out) != len(words):
            if not out:
                continue
            line.words = out
        keep_lines.append(line)
        keep_numbers.append(key)
    return keep_lines, keep_numbers


def median_height(words: list[Word]) -> float:
    """Font size estimate from word boxes, when span fonts were not extracted."""
    hs = sorted(w[3] - w[1] for w in words)
    return round(hs[len(hs) // 2], 1)


def ocr_size(words: list[Word]) -> float:
    """Font size estimate of an OCR'd line from how wide its letters are (a roman text face
    averages about half an em per character). Not from box heights: OCR gives all words of
    a line its tallest box, so a body line beside a bracket or a formula once looked larger
    than the page's title ("distribute and/or modify it." as a scanned paper's title)."""
    per = sorted((w[2] - w[0]) / len(w[4]) for w in words if len(w[4]) >= 3)
    if not per:
        return median_height(words)
    return round(2.0 * per[len(per) // 2], 1)


_BOLD_NAMES = re.compile(
    r"bold|black|heavy|demi|-medi|medium\b|\bbd\b|(?:^|\+)cm(?:ss|tt)?bx?\d", re.IGNORECASE
)


def _bold(span: dict) -> bool:
    """A bold span: by its flags, or by its font's name, which for Type 1 fonts is often all
    there is ("NimbusRomNo9L-Medi", LaTeX's Times bold, and "CMBX10" have no bold flag)."""
    return bool(span["flags"] & 16) or bool(_BOLD_NAMES.search(span["font"]))


def _line_fonts(blocks: list[dict]) -> dict[tuple[int, int], tuple[float, bool, float]]:
    """(block, line) -> (largest span size, all spans bold, line bottom), numbered like
    ``extractWORDS`` (which counts every block, text or not)."""
    out: dict[tuple[int, int], tuple[float, bool, float]] = {}
    for bno, block in enumerate(blocks):
        if block.get("type", 0) != 0:
            continue
        for lno, line in enumerate(block["lines"]):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans:
                continue
            size = max(s["size"] for s in spans)
            bold = all(_bold(s) for s in spans)
            out[(bno, lno)] = (round(size, 1), bold, line["bbox"][3])
    return out


# --- spaces MuPDF leaves out after a symbol -------------------------------------------------

SYMBOLS = "\u2190-\u2bff"
"""Arrows, mathematical operators, technical and miscellaneous symbols (⟨ ⟩ ∈ ≤ → ∗ ␣): after
one of these MuPDF puts no space however wide the gap to the next glyph, so LaTeX manuals
read "⟨code⟩argument" and "⟨option-name⟩a". Measured with PyMuPDF 1.26: a gap of 5 pt at
10 pt after "⟩" still gives one word; after ")", "]", "”", "—" or "•" a gap of 2.5 pt gives
two."""
_SYMBOL_CHAR = re.compile(f"[{SYMBOLS}]")
_GLUED = re.compile(f"[{SYMBOLS}][^{SYMBOLS}]")
SPACE_GAP = 0.15
"""A gap of at least this many font sizes between two glyphs is a space: TeX's interword
space shrinks to about 0.22 em at most, kerning and glyph joins stay within a few hundredths."""


def split_after_symbols(words: list, blocks: list[dict]) -> list:
    """``words`` with each word that runs on after a symbol (:data:`SYMBOLS`) across a gap as
    wide as a space split there, each part with its own box. ``blocks`` are the same text
    page's ``dict`` blocks: a symbol set in a font of its own (TeX's ⟨ ⟩ and ∈ come from
    its symbol fonts) ends a span, so the gap is the one between the spans' boxes (``dict``
    costs less than half of what ``rawdict``'s glyph boxes do). A word whose line does not spell it
    where it stands is left as it is."""
    # (block, line, word) -> the word as its line spells it, and its cuts: (offset in the
    # word, the left part's x1, the right part's x0)
    cuts: dict[tuple[int, int, int], tuple[str, list[tuple[int, float, float]]]] = {}
    for b, ln in {(w[5], w[6]) for w in words if _GLUED.search(w[4])}:
        try:
            spans = blocks[b]["lines"][ln]["spans"]
        except (IndexError, KeyError):
            continue
        text = ""
        gaps: list[tuple[int, float, float]] = []  # (offset in the line, left's x1, right's x0)
        before: dict | None = None  # the last span with text
        for sp in spans:
            t = sp["text"]
            if not t:
                continue
            if before is not None and not t[0].isspace() and _SYMBOL_CHAR.match(text[-1]):
                gap = sp["bbox"][0] - before["bbox"][2]
                if gap >= SPACE_GAP * max(before["size"], sp["size"]):
                    gaps.append((len(text), before["bbox"][2], sp["bbox"][0]))
            text += t
            before = sp
        for k, m in enumerate(re.finditer(r"\S+", text)):
            inside = [(o - m.start(), x1, x0) for o, x1, x0 in gaps if m.start() < o < m.end()]
            if inside:
                cuts[(b, ln, k)] = (m.group(), inside)
    if not cuts:
        return words
    out = []
    for w in words:
        spelled, at = cuts.get((w[5], w[6], w[7]), ("", []))
        if spelled != w[4]:
            out.append(w)
            continue
        start, x0 = 0, w[0]
        for offset, left_x1, right_x0 in at:
            out.append((x0, w[1], left_x1, w[3], w[4][start:offset], *w[5:]))
            start, x0 = offset, right_x0
        out.append((x0, w[1], w[2], w[3], w[4][start:], *w[5:]))
    return out


# --- ligatures of old TeX bitmap fonts --------------------------------------------------------


_REF = re.compile(r"(\d+) 0 R")


def has_type3_font(page: pymupdf.Page, known: dict[int, bool] | None = None) -> bool:
    """Whether ``page`` uses a Type3 font: dvips' bitmap fonts are Type3 fonts whose glyphs
    are named by their codes (``/a28``), so MuPDF reads each code as the character it
    numbers, and a ligature becomes a control character.

    Read from the page's ``/Resources/Font`` entries, each font's type remembered in
    ``known`` (xref -> Type3; one dict per document): ~0.05 ms a page, where MuPDF's
    ``get_fonts`` takes ~0.25 ms, a quarter of the page's word extraction. A page whose
    resources are inherited from its page tree asks ``get_fonts``."""
    known = {} if known is None else known
    doc = page.parent
    kind, value = doc.xref_get_key(page.xref, "Resources/Font")
    if kind == "null":
        return any(f[2] == "Type3" for f in page.get_fonts())
    if kind == "xref":
        shared = int(value.split()[0])
        if shared in known:
            return known[shared]
        value = doc.xref_object(shared, compressed=True)
    found = "/Type3" in value  # a font written inline
    for m in _REF.finditer(value):
        font = int(m.group(1))
        if font not in known:
            known[font] = doc.xref_get_key(font, "Subtype")[1] == "/Type3"
        found = found or known[font]
    if kind == "xref":
        known[shared] = found
    return found


T1_LIGATURES = {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl"}
"""TeX's T1 (Cork) encoding puts its ligatures at 0x1B-0x1F (below them: accents, quotes,
dashes, never inside a word)."""
OT1_LIGATURES = {
    "\x0b": "ff",
    "\x0c": "fi",
    "\x0d": "fl",
    "\x0e": "ffi",
    "\x0f": "ffl",
    "\x19": "\u00df",
    "\x1a": "\u00e6",
    "\x1b": "\u0153",
    "\x1c": "\u00f8",
    "\x1d": "\u00c6",
    "\x1e": "\u0152",
    "\x1f": "\u00d8",
}
"""TeX's original OT1 encoding: the ligatures at 0x0B-0x0F, and ß æ œ ø Æ Œ Ø at 0x19-0x1F
(where T1 has its ligatures). TeX's math italic fonts put Greek letters at 0x0B-0x0F; a code
is only read as a letter where it touches a word, which a formula's α rarely does."""
_IN_WORD = re.compile(r"(?<=[^\W\d_])[\x0b-\x1f]|[\x0b-\x1f](?=[^\W\d_])")


def _word_delimiter(ch: str) -> bool:
    """MuPDF's word break (``JM_is_word_delimiter``): any code up to a space, a no-break
    space, or a bidirectional control."""
    c = ord(ch)
    return c <= 32 or c == 160 or 0x202A <= c <= 0x202E


def ligature_table(texts: list[str]) -> dict[str, str]:
    """The reading of the control codes touching a word in ``texts`` (a page's lines): the
    encoding whose ligature codes occur there most, T1 on a tie. Every English or German
    text sets "fi" and "ff" often, so an OT1 page has 0x0B-0x0F inside its words and a T1
    page 0x1B-0x1F; which one a code means cannot be told from the code alone (0x1C is "fi"
    in T1 and "ø" in OT1)."""
    found = [m.group() for t in texts for m in _IN_WORD.finditer(t)]
    t1 = sum(1 for c in found if "\x1b" <= c <= "\x1f")
    ot1 = sum(1 for c in found if "\x0b" <= c <= "\x0f")
    return T1_LIGATURES if t1 >= ot1 else OT1_LIGATURES


def join_ligature_pieces(words: list, blocks: list[dict]) -> list:
    """``words`` with the pieces MuPDF split at a ligature joined again, the ligature spelled
    out ("modi" "ed" -> "modified", "rst" -> "first").

    A Type3 font with no character names gives a ligature as its code (0x1C), and MuPDF
    breaks words at every code below 33: the words lose the letters and the search loses
    the word. ``blocks`` are the same text page's ``dict`` blocks, whose lines keep the
    codes where they stand; each line is cut into words as MuPDF cuts it, and a line whose
    cut does not give back its words exactly is left as it is. A code between two pieces
    joins them, one after a space begins the next piece, one before a space ends the piece
    before it (its box widened by half an em a letter, the glyph's width unknown)."""
    lines: dict[tuple[int, int], str] = {}
    for bno, block in enumerate(blocks):
        if block.get("type", 0) != 0:
            continue
        for lno, line in enumerate(block["lines"]):
            text = "".join(s["text"] for s in line["spans"])
            if _IN_WORD.search(text):
                lines[(bno, lno)] = text
    if not lines:
        return words
    table = ligature_table(list(lines.values()))
    by_line: dict[tuple[int, int], list] = {}
    for w in words:
        if (w[5], w[6]) in lines:
            by_line.setdefault((w[5], w[6]), []).append(w)
    joined: dict[tuple[int, int], list] = {}
    for key, ws in by_line.items():
        line_words = _join_line(lines[key], ws, table)
        if line_words is not None:
            joined[key] = line_words
    out: list = []
    done: set[tuple[int, int]] = set()
    for w in words:
        key = (w[5], w[6])
        if key not in joined:
            out.append(w)
        elif key not in done:  # the line's words stand together in reading order
            out.extend(joined[key])
            done.add(key)
    return out


def _join_line(text: str, words: list, table: dict[str, str]) -> list | None:
    """One line's ``words`` joined at its ligature codes (:func:`join_ligature_pieces`),
    numbered anew; None when ``text`` does not cut into exactly these words."""
    pieces: list[tuple[str, str]] = []  # (the delimiters before a piece, the piece)
    gap, cur = "", ""
    for ch in text:
        if _word_delimiter(ch):
            if cur:
                pieces.append((gap, cur))
                gap, cur = "", ""
            gap += ch
        else:
            cur += ch
    if cur:
        pieces.append((gap, cur))
    tail = gap if not cur else ""
    if [p for _, p in pieces] != [w[4] for w in words]:
        return None
    out: list = []
    for (before, _piece), w in zip(pieces, words, strict=True):
        lead, inner, trail = _split_gap(before, table)
        if out and inner is not None:  # only codes between the two pieces: one word
            p = out[-1]
            out[-1] = (p[0], min(p[1], w[1]), w[2], max(p[3], w[3]), p[4] + inner + w[4], *p[5:])
            continue
        if inner is not None:  # the line begins with a ligature
            trail = inner
        if out and lead:
            out[-1] = _widened(out[-1], lead, after=True)
        out.append(_widened(w, trail, after=False) if trail else w)
    lead, inner, _trail = _split_gap(tail, table)
    lead = inner if inner is not None else lead  # the line ends with a ligature
    if out and lead:
        out[-1] = _widened(out[-1], lead, after=True)
    return [(*w[:7], k, *w[8:]) for k, w in enumerate(out)]


def _split_gap(gap: str, table: dict[str, str]) -> tuple[str, str | None, str]:
    """A run of delimiters between two pieces as (the letters ending the piece before it,
    the letters joining the two when the run has nothing else, the letters beginning the
    piece after it)."""
    if gap and all(c in table for c in gap):
        return "", "".join(table[c] for c in gap), ""
    lead = ""
    for c in gap:
        if c not in table:
            break
        lead += table[c]
    trail = ""
    for c in reversed(gap):
        if c not in table:
            break
        trail = table[c] + trail
    return lead, None, trail


def _widened(w: tuple, letters: str, *, after: bool) -> tuple:
    """Word ``w`` with ``letters`` added at its end (``after``) or start, its box widened by
    half its height a letter."""
    dx = 0.5 * (w[3] - w[1]) * len(letters)
    if after:
        return (w[0], w[1], w[2] + dx, w[3], w[4] + letters, *w[5:])
    return (w[0] - dx, w[1], w[2], w[3], letters + w[4], *w[5:])


# --- footnote marks ---------------------------------------------------------------------------

_MARKED = re.compile(r"(?:[a-z]{3}|[.,;:)\]])\d{1,3}(?:,\d{1,3})*$")
"""A word that may end in a footnote mark: "85.2", "women.2,3", "studies12" (whether the
digits are raised and small is told by the spans)."""
_MARK = re.compile(r"^[\d,*\u2020\u2021]{1,8}$")


def drop_note_marks(words: list, blocks: list[dict]) -> list:
    """``words`` without the footnote marks set as superscripts at their ends ("by the age of
    85.²" is "85." and a note, not the number 85.2). A mark is a span of digits (commas
    between) that MuPDF flags as superscript or that is clearly smaller than its line's text
    and raised above its baseline."""
    marks: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    for bno, block in enumerate(blocks):
        if block.get("type", 0) != 0:
            continue
        for lno, line in enumerate(block["lines"]):
            spans = line["spans"]
            if len(spans) < 2:
                continue
            body = max(s["size"] for s in spans)
            base = max(s["origin"][1] for s in spans if s["size"] == body)
            for s in spans:
                text = s["text"].strip()
                raised = s["size"] < 0.85 * body and s["origin"][1] < base - 0.15 * body
                if text and _MARK.match(text) and (s["flags"] & 1 or raised):
                    marks.setdefault((bno, lno), []).append((s["bbox"][0], s["bbox"][2], text))
    if not marks:
        return words
    out = []
    for w in words:
        found = marks.get((w[5], w[6]))
        text = w[4]
        if found and any(abs(x0 - w[0]) < 1.5 and abs(x1 - w[2]) < 1.5 for x0, x1, _ in found):
            continue  # the mark stands apart: "women. ²,³"
        if found and _MARKED.search(text):
            for x0, x1, mark in found:
                if text.endswith(mark) and abs(x1 - w[2]) < 1.5 and x0 > w[0]:
                    w = (w[0], w[1], x0, w[3], text[: -len(mark)], *w[5:])
                    break
        out.append(w)
    return out


# --- page furniture -------------------------------------------------------------------------

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+|p\.\s*|seite\s+)?[-\u2013\u2014(\[]?\s*(?:\d{1,5}|[ivxlcdm]{1,7})\s*[-\u2013\u2014)\]]?"
    r"(?:\s*(?:/|of|von)\s*\d{1,5})?$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_EDGE_BAND = 0.2  # headers/footers live in the outer 20% of the page height


def _edge_rows(lines: list[Line], height: float) -> list[list[Line]]:
    """The top-most and bottom-most rows of a page (lines sharing a baseline band, left to
    right), when they stand apart from the body: inside the outer band of the page and
    separated from the rest by a clear gap. A first body line directly followed by more
    lines, or a heading whose number is a separate line, is a row like any other."""
    if len(lines) < 2:
        return []
    rows: list[list[Line]] = []
    first = min(lines, key=lambda ln: ln.y0)
    last = max(lines, key=lambda ln: ln.y1)
    for anchor, top in ((first, True), (last, False)):
        mid = (anchor.y0 + anchor.y1) / 2
        if (mid >= height * _EDGE_BAND) if top else (mid <= height * (1 - _EDGE_BAND)):
            continue
        row = [ln for ln in lines if ln.y0 < anchor.y1 - 1 and ln.y1 > anchor.y0 + 1]
        in_row = {id(ln) for ln in row}
        rest = [ln for ln in lines if id(ln) not in in_row]
        if not rest:
            continue
        if top:
            gap = min([ln.y0 for ln in rest]) - max([ln.y1 for ln in row])
        else:
            gap = min([ln.y0 for ln in row]) - max([ln.y1 for ln in rest])
        if gap >= max(4.0, 0.5 * (anchor.y1 - anchor.y0)) and not (rows and rows[0] == row):
            rows.append(sorted(row, key=lambda ln: ln.x0))
    return rows


def _furniture_key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def drop_furniture(pages: list[list[Line]], heights: list[float]) -> int:
    """Mark running headers/footers and bare page numbers as dropped; return how many.

    A header/footer is a whole top or bottom row of a page whose text (digits normalised,
    so "Page 3" equals "Page 4") recurs as a row on several pages. Very short rows ("}"
    at the top of code listings) need far more repetitions, so real text is not lost. A
    page number alone (or beside one or two other items) in such a row is dropped too.
    """
    edges = [_edge_rows(lines, h) for lines, h in zip(pages, heights, strict=True)]
    keyed = [
        [(_furniture_key(" ".join(ln.text for ln in row)), row) for row in rows] for rows in edges
    ]
    counts: Counter[str] = Counter()
    for rows in keyed:
        counts.update({key for key, _ in rows})
    n = len(pages)
    dropped = 0
    for rows in keyed:
        for key, row in rows:
            need = 3 if len(key.replace(" ", "")) > 4 else max(3, n // 4)
            repeated = n >= 2 and counts[key] >= min(need, n)
            for ln in row:
                if repeated or (len(row) <= 3 and _PAGE_NUMBER.match(ln.text)):
                    ln.dropped = True
                    dropped += 1
    return dropped
