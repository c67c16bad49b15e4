"""Small text utilities shared by ingestion, generation and validation."""

from __future__ import annotations

import re
import zlib

_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "vs",
    "cf",
    "fig",
    "figs",
    "eq",
    "eqs",
    "sec",
    "secs",
    "no",
    "nos",
    "vol",
    "pp",
    "p",
    "ch",
    "chap",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "st",
    "approx",
    "resp",
    "al",
    "ref",
    "refs",
    "tab",
    "viz",
    "incl",
    "esp",
}
# "Dec. 20, 2018": a month's abbreviation before a day ends no sentence.
_MONTHS = {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and whitespace.
_BOUNDARY = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s+")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LOOKBACK = 64


def sentence_spans(text: str, *, max_chars: int = 400) -> list[tuple[int, int]]:
    """Split ``text`` into sentence spans [start, end) that together cover every non-blank char.

    Abbreviations ("e.g.", "Fig.") and single initials do not end a sentence. Sentences
    longer than ``max_chars`` are cut at the last space before the limit, so a quote of
    one sentence always stays short enough to cite.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in _BOUNDARY.finditer(text):
        # look back a bounded window only: searching from 0 made this quadratic
        before = _WORD_BEFORE.search(text, max(0, m.start() - _LOOKBACK), m.start())
        if before:
            word = before.group(1).rstrip(".").lower()
            if word in _ABBREVIATIONS or len(word) == 1:
                continue
        nxt = text[m.end() : m.end() + 1]
        if nxt and nxt.islower():
            continue
        if before and nxt.isdigit() and before.group(1).rstrip(".").lower() in _MONTHS:
            continue
        spans.append((start, m.end()))
        start = m.end()
    if start < n:
        spans.append((start, n))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        s, e = _strip(text, s, e)
        while e - s > max_chars:
            cut = text.rfind(" ", s, s + max_chars)
            if cut <= s:
                cut = s + max_chars
            a, b = _strip(text, s, cut)
            if b > a:
                out.append((a, b))
            s, e = _strip(text, cut, e)
        if e > s:
            out.append((s, e))
    return out


def _strip(text: str, s: int, e: int) -> tuple[int, int]:
    seg = text[s:e]
    body = seg.strip()
    if not body:
        return s, s
    lead = len(seg) - len(seg.lstrip())
    return s + lead, s + lead + len(body)


def split_sentences(text: str, *, max_chars: int = 400) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text, max_chars=max_chars)]


_WS = re.compile(r"\s+")


def collapse_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def sentence_key(text: str) -> int:
    """The key a sentence's vector is stored under (``sentences`` table) and looked up by in
    the answer step: the CRC-32 of its text as embedded."""
    return zlib.crc32(text.encode("utf-8"))
