"""Character-to-page geometry: which rectangle on which page each piece of a chunk's text came from.

Ingestion records, for every word-piece of a chunk's cleaned text, its character
span in the chunk and its box on the page. From that, any character span of the
chunk (a quote) maps back to exact page rectangles, one per line it covers, even
across line breaks, hyphenation and page breaks. Stored compactly as float32 rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # imported where used: app.core.models, which every layer and the desktop
    import numpy as np  # window's start-up import, imports this module; NumPy costs ~0.2 s

# Row layout: start, end, page (1-based), x0, y0, x1, y1, line key.
_COLS = 8


class Piece(NamedTuple):
    """A run of chunk characters [start, end) drawn inside one box on one page line."""

    start: int
    end: int
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    line: int  # unique per (page, block, line); pieces with the same key share a line


class Rect(NamedTuple):
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class CharMap:
    """Immutable table of :class:`Piece` rows for one chunk."""

    __slots__ = ("_rows",)

    def __init__(self, rows: np.ndarray) -> None:
        import numpy as np

        rows = np.asarray(rows, dtype=np.float32)
        if rows.size == 0:
            rows = rows.reshape(0, _COLS)
        if rows.ndim != 2 or rows.shape[1] != _COLS:
            raise ValueError(f"char map rows must have shape (n, {_COLS}), got {rows.shape}")
        self._rows = rows

    @classmethod
    def from_pieces(cls, pieces: Iterable[Piece]) -> CharMap:
        import numpy as np

        return cls(np.array([tuple(p) for p in pieces], dtype=np.float32).reshape(-1, _COLS))

    @classmethod
    def from_bytes(cls, data: bytes) -> CharMap:
        import numpy as np

        return cls(np.frombuffer(data, dtype=np.float32).reshape(-1, _COLS).copy())

    def to_bytes(self) -> bytes:
        return self._rows.tobytes()

    def __len__(self) -> int:
        return int(self._rows.shape[0])

    def __eq__(self, other: object) -> bool:
        import numpy as np

        return isinstance(other, CharMap) and np.array_equal(self._rows, other._rows)

    def pieces(self) -> list[Piece]:
        return [
            Piece(
                int(r[0]),
                int(r[1]),
                int(r[2]),
                float(r[3]),
                float(r[4]),
                float(r[5]),
                float(r[6]),
                int(r[7]),
            )
            for r in self._rows
        ]

    def page_at(self, offset: int) -> int | None:
        """Page of the character at ``offset`` (or of the nearest piece before it)."""
        if len(self) == 0:
            return None
        starts = self._rows[:, 0]
        i = int(starts.searchsorted(offset, side="right")) - 1
        return int(self._rows[max(i, 0), 2])

    def rects(self, start: int, end: int) -> list[Rect]:
        """Rectangles covering chunk characters [start, end), merged per line, in reading order.

        A piece only partly inside the span is cut proportionally to its character
        count, which is exact for monospaced text and close for proportional fonts.
        """
        if end <= start or len(self) == 0:
            return []
        r = self._rows
        hit = (r[:, 0] < end) & (r[:, 1] > start)
        merged: dict[int, list[float]] = {}
        order: list[int] = []
        for row in r[hit]:
            s, e, page, x0, y0, x1, y1, line = (float(v) for v in row)
            n = max(e - s, 1.0)
            cut0 = max(0.0, (start - s) / n)
            cut1 = min(1.0, (end - s) / n)
            # x0 > x1 marks a right-to-left word: its first character is at the right
            a, b = x0 + (x1 - x0) * cut0, x0 + (x1 - x0) * cut1
            nx0, nx1 = min(a, b), max(a, b)
            key = int(line) * 100_000 + int(page)
            if key not in merged:
                merged[key] = [page, nx0, y0, nx1, y1]
                order.append(key)
            else:
                m = merged[key]
                m[1], m[2], m[3], m[4] = (
                    min(m[1], nx0),
                    min(m[2], y0),
                    max(m[3], nx1),
                    max(m[4], y1),
                )
        return [
            Rect(int(m[0]), round(m[1], 2), round(m[2], 2), round(m[3], 2), round(m[4], 2))
            for m in (merged[k] for k in order)
        ]
