"""Lexical checks of a cited sentence against its evidence: content words and numbers.

Why: a quote that really occurs in the source proves nothing if the sentence citing
it talks about something else, and small models are prone to get numbers (versions,
sizes, counts, dates) wrong while citing a correct passage. These checks are cheap,
explainable and conservative: they flag, they do not try to understand.
"""

from __future__ import annotations

import logging
import re

from app.core import textkit
from app.core.textkit import SOURCE_TALK, detect_language
from app.validation.normalize import normalize

logger = logging.getLogger(__name__)


def content_stems(text: str, lang: str | None = None) -> set[str]:
    """Stems of the content words of ``text`` (stop words, words about sources and
    1-letter words removed), in ``lang`` (default: the text's own language)."""
    norm = normalize(text).text
    return set(textkit.content_stems(norm, lang or detect_language(norm), extra=SOURCE_TALK))


def word_count(text: str) -> int:
    return len(textkit.tokens(text))


# A number: digits with optional thousands commas and dot-separated parts (2.3.1, 1,000, 0.5).
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?![\d,]*\d)|\d+(?:\.\d+)*")
_ENUMERATOR = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022])\s+")


def canonical_number(raw: str) -> str:
    """'1,000' -> '1000'; '007' -> '7'; '2.03.1' -> '2.3.1'; '2.10' stays '2.10'.

    The fraction of a two-part number is kept as written: it may be a version, where
    2.10 and 2.1 differ. Better to flag "10.50" against "10.5" than to accept a wrong
    version.
    """
    s = raw.replace(",", "")
    parts = s.split(".")
    if len(parts) == 1:
        return str(int(s))
    if len(parts) == 2:
        return f"{int(parts[0])}.{parts[1]}"
    return ".".join(str(int(p)) for p in parts)


def _is_figure(text: str, start: int) -> bool:
    """A number glued to a word on its left ("LaTeX2e", "utf8", "L6") is a name, not a figure.

    "v2.3" still counts as a version number.
    """
    if start == 0:
        return True
    prev = text[start - 1]
    if prev in "._" or prev.isdigit():
        return False
    if prev.isalpha():
        return prev in "vV" and (start < 2 or not text[start - 2].isalnum())
    return True


def claim_numbers(sentence: str) -> list[str]:
    """Numbers a sentence asserts (list enumerators like '1.' at its start are not claims)."""
    body = _ENUMERATOR.sub("", sentence, count=1)
    seen: list[str] = []
    for m in _NUMBER.finditer(body):
        if not _is_figure(body, m.start()):
            continue
        c = canonical_number(m.group())
        if c not in seen:
            seen.append(c)
    return seen


def source_numbers(text: str, *, normalized: bool = False) -> set[str]:
    """Every number in a source text, canonical; glued ones too ("LaTeX2e" gives 2).

    A dotted number only matches whole: "2.3" in a claim never matches "2.3.1".
    A date "2024-01-05" gives 2024, 1 and 5.
    """
    norm = text if normalized else normalize(text).text
    return {canonical_number(m.group()) for m in _NUMBER.finditer(norm)}


def missing_numbers(sentence: str, evidence: str | set[str]) -> list[str]:
    """Numbers of ``sentence`` absent from ``evidence`` (a text, or its :func:`source_numbers`)."""
    wanted = claim_numbers(normalize(sentence).text)
    if not wanted:
        return []
    have = source_numbers(evidence) if isinstance(evidence, str) else evidence
    return [n for n in wanted if n not in have]
