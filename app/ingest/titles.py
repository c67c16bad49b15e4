"""A document's title as a person would name it.

Order: the metadata title when it is real (not empty, "Untitled", a file name, a word
processor's "Microsoft Word - x.docx", an identifier); otherwise the largest text of the
first page, read over consecutive lines ("Living well" / "with diabetes"), skipping margin
stamps (an arXiv identifier printed sideways down the margin), running headers and page
furniture; otherwise the first heading; otherwise the file name.

Also here: :func:`mark_stamps`, which drops arXiv-style margin stamps from the text
altogether (they are not part of the paper and only add noise to its first chunk).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from .layout import Line, median_height

_BAD_TITLES = {"untitled", "title", "document", "unknown", "slide 1", "no title", "cover"}
_FILE_SUFFIXES = (".pdf", ".doc", ".docx", ".tex", ".dvi", ".odt", ".txt", ".indd", ".pptx")
_ARXIV = re.compile(r"\barXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?", re.IGNORECASE)
_IDENTIFIER = re.compile(
    r"^(?:arXiv:|doi:|10\.\d{4,}/|https?://|www\.)|^[\w.\-]+\.(?:pdf|docx?|tex)$", re.IGNORECASE
)
_NOTE_MARKS = "*\u2217\u2020\u2021\u00a7\u00b6 "
_FURNITURE = re.compile(
    r"^(?:preprint|draft|confidential|under review|accepted|published|page \d+|"
    r"vol\.|volume \d|proceedings|journal of)\b",
    re.IGNORECASE,
)
_MAX_TITLE_LINES = 4


def real_metadata_title(meta: str) -> str | None:
    """The metadata title if it names the document, else None."""
    meta = " ".join(meta.split())
    low = meta.lower()
    if (
        len(meta) < 3
        or not any(c.isalpha() for c in meta)
        or low in _BAD_TITLES
        or low.startswith(("microsoft word - ", "microsoft powerpoint - "))
        or low.endswith(_FILE_SUFFIXES)
        or _IDENTIFIER.match(meta)
        or _ARXIV.search(meta)
    ):
        return None
    return meta


def _vertical(line: Line) -> bool:
    """Text printed sideways (a margin stamp): its words are taller than wide."""
    return all((w[3] - w[1]) > 1.5 * (w[2] - w[0]) for w in line.words if len(w[4]) > 2) and any(
        len(w[4]) > 2 for w in line.words
    )


def mark_stamps(pages: list[list[Line]]) -> int:
    """Drop margin stamps (arXiv identifiers) from the text; returns how many lines."""
    n = 0
    for lines in pages[:2]:
        for ln in lines:
            if not ln.dropped and _ARXIV.search(ln.text) and len(ln.words) <= 12:
                ln.dropped = True
                n += 1
    return n


def _size(line: Line) -> float:
    return line.size if line.size > 0 else median_height(line.words)


def _candidate(line: Line) -> bool:
    text = line.text
    return (
        not line.dropped
        and not _vertical(line)
        and any(c.isalpha() for c in text)
        and not _ARXIV.search(text)
        and not _IDENTIFIER.match(text)
        and not _FURNITURE.match(text)
    )


def _starts_lower(text: str) -> bool:
    """A line that starts with a small letter continues something: it may carry a title on
    ("Living well" / "with diabetes"), never begin one. A name written in small letters
    does begin one: a word followed by a colon ("strucchange: An R Package for Testing for
    Structural Change", as R's and Python's packages title their papers) or with a capital or
    a digit inside ("iPhone User Guide", "ggplot2 Reference")."""
    first = next((c for c in text if c.isalpha()), "")
    if not first.islower():
        return False
    word = next(iter(text.split()), "")
    named = word.endswith(":") or any(c.isupper() or c.isdigit() for c in word)
    return not named


def page_one_title(lines: list[Line]) -> str | None:
    """The largest text of page 1, over up to four consecutive lines of that size, when it
    is clearly larger than the body text."""
    first = [ln for ln in lines if ln.page == 1 and _candidate(ln)]
    if not first:
        return None
    sizes = [_size(ln) for ln in first]
    weights: Counter[float] = Counter()
    for ln, s in zip(first, sizes, strict=True):
        weights[round(s)] += len(ln.text)
    body = weights.most_common(1)[0][0]
    top = max(sizes)
    if top < body * 1.2 or len(first) < 2:
        return None
    tops = sorted(
        (ln for ln, s in zip(first, sizes, strict=True) if s >= top * 0.92),
        key=lambda ln: (ln.y0, ln.x0),
    )
    tops = tops[next((i for i, ln in enumerate(tops) if not _starts_lower(ln.text)), 0) :]
    picked = [tops[0]]
    for ln in tops[1:]:
        prev = picked[-1]
        gap = ln.y0 - prev.y1
        if gap > 1.2 * top or len(picked) >= _MAX_TITLE_LINES:
            break
        picked.append(ln)
    title = " ".join(ln.text for ln in picked).rstrip(_NOTE_MARKS)
    return title if len(title) <= 250 else None


def choose_title(meta_title: str, page_one: str | None, heading: str | None, path: Path) -> str:
    """See the module docstring for the order (``page_one``: :func:`page_one_title`)."""
    return real_metadata_title(meta_title) or page_one or heading or path.stem
