"""Making text from documents and models safe to show: no terminal escapes, no forged lines.

Why: titles, file names, passages and model answers are untrusted. Printed raw, ESC[2J
clears a user's screen, an OSC sequence retitles the terminal, U+202E reverses what
follows and a CR or LF forges a row of a listing. Every CLI printer passes untrusted text
through :func:`safe_line` (one line: titles, names, sections) or :func:`safe_text`
(several lines: an answer, a passage); the GUI uses :func:`safe_line` for titles.
What is removed is shown as a visible escape (``\\x1b``, ``\\u202e``), so nothing is
hidden either. JSON output needs none of this: ``json.dumps`` already escapes C0
controls, and :func:`json_safe` escapes the few others a terminal acts on.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, bidirectional overrides/isolates/marks, line/paragraph
# separators, and the byte-order mark / interlinear annotation controls.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ufeff\ufff9-\ufffb]"
)
_UNSAFE_KEEP_NL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ufeff\ufff9-\ufffb]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": " "}


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(text: object) -> str:
    """``text`` as one printable line: every control or bidi character made visible."""
    return _UNSAFE.sub(_visible, str(text))


def safe_text(text: object) -> str:
    """Like :func:`safe_line` but keeps newlines (tabs become spaces)."""
    return _UNSAFE_KEEP_NL.sub(_visible, str(text))


def is_safe(text: str) -> bool:
    """True when ``text`` has nothing :func:`safe_line` would change."""
    return _UNSAFE.search(text) is None


_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufff9-\ufffb]"
)


def json_safe(dumped: str) -> str:
    """Escape (as ``\\uXXXX``) what ``json.dumps(ensure_ascii=False)`` leaves raw but a
    terminal would act on; the JSON value is unchanged."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", dumped)
