"""Citation markers in answer text: find "[1]", "[1][3]", "[1, 3]", "[1-3]"; rewrite them.

Why: the answer text is what a person reads, and every chip in it must stand for a
citation that survived validation. Markers are parsed once with their positions so
sentences can be checked, then rewritten to a canonical "[1][3]" form with dropped
numbers removed and the spacing left behind cleaned up.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

logger = logging.getLogger(__name__)

_ITEM = r"(?:sources?\s*|src\s*)?-?\d+(?:\s*[-\u2013]\s*\d+)?"
_MARKER = re.compile(rf"\[\s*({_ITEM}(?:\s*[,;]\s*{_ITEM})*)\s*\]", re.IGNORECASE)
_PART = re.compile(r"(-?\d+)(?:\s*[-\u2013]\s*(\d+))?")
_CODE = re.compile(r"`[^`\n]*`")
_MAX_RANGE = 20
SENTINEL = "\x00"


@dataclass(frozen=True, slots=True)
class Marker:
    """One bracketed marker at [start, end) of the answer, naming source numbers ``ns``."""

    start: int
    end: int
    ns: tuple[int, ...]


def _numbers(body: str) -> tuple[int, ...]:
    out: list[int] = []
    for m in _PART.finditer(body):
        a = int(m.group(1))
        if m.group(2) is not None:
            b = int(m.group(2))
            if 1 <= a < b and b - a <= _MAX_RANGE:
                out.extend(range(a, b + 1))
                continue
            out.extend((a, b))
        else:
            out.append(a)
    return tuple(out)


def find_markers(text: str) -> list[Marker]:
    """Every citation marker in ``text``, in order of appearance.

    Not markers: brackets right after "}" (LaTeX optional arguments such as
    ``\\newcommand{\\x}[1]``) and anything inside a `code span`.
    """
    code = [m.span() for m in _CODE.finditer(text)]
    out: list[Marker] = []
    for m in _MARKER.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] == "}":
            continue
        if any(a <= s < b for a, b in code):
            continue
        out.append(Marker(s, e, _numbers(m.group(1))))
    return out


def _fmt(ns: list[int]) -> str:
    return "".join(f"[{n}]" for n in ns)


_GROUP = re.compile(r"(?<!\})\[\d+\](?:[ \t]*\[\d+\])+")
# "claim [1].Next" -> "claim [1]. Next" (segments a grammar-constrained model glued).
_GLUED_NEXT = re.compile(r"(\[\d+\][.!?;,])(?=[^\W\d_])")
_EMPTY_PARENS = re.compile(rf"\(\s*{SENTINEL}+\s*\)")
_GAP = re.compile(rf"[ \t]*{SENTINEL}+[ \t]*")
_CLOSERS = set(".,;:!?)]}\n")


def _merge_group(m: re.Match[str]) -> str:
    seen: list[int] = []
    for n in re.findall(r"\d+", m.group()):
        if int(n) not in seen:
            seen.append(int(n))
    return _fmt(seen)


def _close_gap(m: re.Match[str]) -> str:
    text = m.string
    s, e = m.span()
    before = text[s - 1] if s > 0 else "\n"
    after = text[e] if e < len(text) else "\n"
    if after in _CLOSERS or before == "\n" or after == SENTINEL:
        return ""
    had_space = m.group().strip(SENTINEL) != ""
    if had_space or (before in ".!?" and after.isalnum()):
        return " "
    return ""


def rewrite(text: str, markers: list[Marker], keep: list[list[int]]) -> str:
    """Replace marker ``i`` by ``keep[i]`` as "[a][b]" (removed if empty); tidy spacing.

    Adjacent markers are merged and de-duplicated ("[1] [1][3]" -> "[1][3]"); where a
    marker disappears no double space and no space before punctuation remains.
    """
    if len(markers) != len(keep):
        raise ValueError("one keep-list per marker is required")
    parts: list[str] = []
    pos = 0
    for mk, ns in zip(markers, keep, strict=True):
        parts.append(text[pos : mk.start])
        uniq = list(dict.fromkeys(ns))
        parts.append(_fmt(uniq) if uniq else SENTINEL)
        pos = mk.end
    parts.append(text[pos:])
    out = "".join(parts)
    out = _GROUP.sub(_merge_group, out)
    out = _GLUED_NEXT.sub(r"\1 ", out)
    if SENTINEL in out:
        out = _EMPTY_PARENS.sub(SENTINEL, out)
        out = _GAP.sub(_close_gap, out)
        out = out.replace(SENTINEL, "")
    return out.strip()
