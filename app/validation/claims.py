"""Lexical checks of a cited sentence against its evidence: content words and numbers.

Why: a quote that really occurs in the source proves nothing if the sentence citing
it talks about something else, and small models are prone to get numbers (versions,
sizes, counts, dates) wrong while citing a correct passage. These checks are cheap,
explainable and conservative: they flag, they do not try to understand.
"""

from __future__ import annotations

import logging
import re

from app.validation.normalize import normalize

logger = logging.getLogger(__name__)

# Function words plus the words models use to talk *about* sources rather than content.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could did do does doing down during each
    either else etc even ever every few for from further had has have having he her here hers
    herself him himself his how however i if in into is it its itself just let like may me
    might more most much must my myself neither no nor not now of off often on once one only
    or other others otherwise our ours ourselves out over own per rather same shall she should
    since so some such than that the their theirs them themselves then there these they this
    those though through thus to too under until up upon us use used uses using very via was
    we well were what when where whether which while who whom whose why will with within
    without would yes yet you your yours yourself yourselves
    according answer answers cite cited cites document documents example given mention
    mentioned mentions note noted notes passage passages provided quote quoted say says said
    source sources state stated states text
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ly")
_ES_AFTER = ("xes", "ches", "shes", "zes", "sses")


def stem(word: str) -> str:
    """A deliberately light stemmer: strip a common suffix and a final "e", keep 6 letters.

    Lenient on purpose ("configure" ~ "configuration", "pages" ~ "page", "based" ~
    "base"): the overlap check must only catch citations that share *nothing* with
    their claim.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if not w.isalpha() or len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(_ES_AFTER):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w[:6]


def content_stems(text: str) -> set[str]:
    """Stems of the content words (stopwords and 1-letter words removed) of ``text``."""
    norm = normalize(text).text
    out: set[str] = set()
    for m in _WORD.finditer(norm):
        w = m.group()
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.add(stem(w))
    return out


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


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
