"""Scripts without spaces between words (Chinese, Japanese) and text shaped for display
(Arabic presentation forms): what keyword search and extraction need to handle them.

Why bigrams: the keyword index splits text at spaces and punctuation, so a Chinese
sentence would be one "word" and a query for a word inside it would never match; Korean
attaches particles to words ("인용은" = "인용" + "은"). Every run of CJK characters is
therefore indexed, and queried, as its overlapping character pairs ("离线问答" -> "离线 线问
问答"), the usual approach of CJK full-text engines without a dictionary. Other text is
left exactly as it is.
"""

from __future__ import annotations

import re
import unicodedata

_CJK_RUN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]+"
)
_SPACES = re.compile(r" {2,}")
_PRESENTATION = re.compile(r"[\ufb50-\ufdff\ufe70-\ufeff]")


def _bigrams(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "


def cjk_terms(text: str) -> str:
    """``text`` with every CJK run replaced by its overlapping character pairs."""
    if not _CJK_RUN.search(text):
        return text
    return _SPACES.sub(" ", _CJK_RUN.sub(_bigrams, text)).strip()


def has_presentation_forms(text: str) -> bool:
    return _PRESENTATION.search(text) is not None


def logical_letters(text: str) -> str:
    """Arabic presentation forms (the shaped glyphs some PDFs map to) as plain letters,
    so "ﺍﻟﺸﺒﻜﺔ" reads and matches as "الشبكة"."""
    return _PRESENTATION.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
