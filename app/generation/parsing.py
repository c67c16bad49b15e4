"""Reading the model's output: strict parsing, streaming of the answer text, loop detection.

Even grammar-constrained output is re-validated with pydantic: a grammar does not stop
truncation at ``max_tokens``, and a remote server may ignore the grammar altogether.
While the JSON streams in, :class:`AnswerStreamer` follows its structure character by
character and passes on only the decoded characters of the top-level ``answer`` string,
so a user sees prose appear, never JSON syntax.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter

from pydantic import ValidationError

from app.core import textkit
from app.core.errors import GenerationError
from app.core.models import RawAnswer

logger = logging.getLogger(__name__)

_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def parse_raw_answer(text: str) -> RawAnswer:
    """Parse and validate the model's JSON; raise ``GenerationError`` with a readable reason."""
    stripped = text.strip()
    if not stripped:
        raise GenerationError("The model returned nothing.")
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise GenerationError(
            f"The model's output is not valid JSON ({exc.msg} at character {exc.pos}); "
            "it was probably cut off."
        ) from exc
    try:
        return RawAnswer.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise GenerationError(
            f"The model's JSON does not fit the answer schema ({where}: {first['msg']})."
        ) from exc


class AnswerStreamer:
    """Incrementally extract the top-level ``"answer"`` string from streamed JSON text.

    ``feed(piece)`` returns the newly decoded answer characters (possibly ""). It copes
    with pieces that split keys, escapes and ``\\uXXXX`` sequences anywhere, and ignores
    an ``"answer"`` key nested deeper (e.g. inside a quote's object).
    """

    def __init__(self, key: str = "answer") -> None:
        self.key = key
        self.text = ""  # answer text decoded so far
        self.done = False  # the answer string has been closed
        self._stack: list[str] = []  # "{" or "["
        self._expect_key: list[bool] = []
        self._in_string = False
        self._string_is_key = False
        self._emitting = False
        self._escape = False
        self._unicode: str | None = None
        self._pending_high: int | None = None
        self._buf: list[str] = []  # current key being read
        self._last_key: str | None = None

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for ch in piece:
            self._step(ch, out)
        new = "".join(out)
        self.text += new
        return new

    def _emit(self, out: list[str], s: str) -> None:
        if self._emitting:
            out.append(s)
        elif self._string_is_key:
            self._buf.append(s)

    def _step(self, ch: str, out: list[str]) -> None:
        if self._in_string:
            if self._unicode is not None:
                self._unicode += ch
                if len(self._unicode) == 4:
                    self._finish_unicode(out)
                return
            if self._escape:
                self._escape = False
                if ch == "u":
                    self._unicode = ""
                else:
                    self._emit(out, _SIMPLE_ESCAPES.get(ch, ch))
                return
            if ch == "\\":
                self._escape = True
            elif ch == '"':
                self._close_string()
            else:
                self._emit(out, ch)
            return
        if ch == '"':
            self._in_string = True
            is_key = bool(self._expect_key) and self._expect_key[-1] and self._stack[-1] == "{"
            self._string_is_key = is_key
            self._buf = []
            self._emitting = (
                not is_key
                and len(self._stack) == 1
                and self._stack[-1] == "{"
                and self._last_key == self.key
                and not self.done
            )
        elif ch in "{[":
            self._stack.append(ch)
            self._expect_key.append(ch == "{")
        elif ch in "}]":
            if self._stack:
                self._stack.pop()
                self._expect_key.pop()
        elif ch == ":":
            if self._expect_key:
                self._expect_key[-1] = False
        elif ch == "," and self._stack and self._stack[-1] == "{":
            self._expect_key[-1] = True

    def _finish_unicode(self, out: list[str]) -> None:
        code_text, self._unicode = self._unicode or "", None
        try:
            code = int(code_text, 16)
        except ValueError:
            return
        if 0xD800 <= code < 0xDC00:
            self._pending_high = code
            return
        if 0xDC00 <= code < 0xE000 and self._pending_high is not None:
            code = 0x10000 + ((self._pending_high - 0xD800) << 10) + (code - 0xDC00)
        self._pending_high = None
        self._emit(out, chr(code))

    def _close_string(self) -> None:
        self._in_string = False
        if self._string_is_key and len(self._stack) == 1:
            self._last_key = "".join(self._buf)
        if self._emitting:
            self.done = True
        self._emitting = False
        self._string_is_key = False


_MARKER = re.compile(r"\[\d+\]")


_STUTTER = re.compile(r"(.{1,12}?)\1{5,}", re.DOTALL)


def is_looping(text: str, *, n: int = 4, repeats: int = 3) -> bool:
    """True if the model is going round: some run of ``n`` words occurs ``repeats`` times,
    or a short piece repeats back to back ("100000000", "2, 2, 2, 2, 2, 2")."""
    if any(len(m.group(0)) >= 12 for m in _STUTTER.finditer(text)):
        return True
    words = textkit.words(_MARKER.sub(" ", text))
    if len(words) < n * repeats:
        return False
    grams = Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return grams.most_common(1)[0][1] >= repeats


def is_degenerate(answer: str) -> bool:
    """True for an answer no one should read: no real word, mostly symbols, or looping.

    Short is fine ("18 months [1]."): small models are at their best when brief.
    """
    text = _MARKER.sub(" ", answer)
    if not any(sum(c.isalpha() for c in w) >= 2 for w in textkit.tokens(text)):
        return True
    visible = text.replace(" ", "")
    if len(visible) > 12 and sum(c.isalpha() for c in visible) < 0.4 * len(visible):
        return True
    return is_looping(answer)
