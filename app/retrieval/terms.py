"""How many chunks of the library contain a word: rarity, and absence.

The support check weighs a question's concepts by rarity (a word in every chunk tells
nothing) and refuses at once when a key concept occurs nowhere in the library. Two ways
answer "how many chunks contain this word", with the same matching (the keyword index's
own: lower case, accents folded, English Snowball stems, tokens up to 40 characters):

* :func:`document_frequencies`: one capped query per word to the full-text index. Nothing
  to build, but each query costs a few milliseconds (~35 ms a question over the manuals);
* :class:`TermIndex`: every chunk's words counted once, in memory, then kept in step with
  the store (new documents are added; a removed one is taken out). A lookup costs
  microseconds. Building it reads every chunk once (0.2 s for 500 chunks; 11 s of CPU and
  ~55 MB for 100,000 chunks of ~1,100 characters, measured with the eval libraries' texts),
  so a long-running front end builds it while warming up (``Library.count_words``) and a
  one-shot command asks the full-text index instead. It keeps each document's own counts
  too (12 bytes a word of a document), so a document removed, here or by another process
  sharing the library, is taken out without reading anything again.
"""

from __future__ import annotations

import logging
import threading
import time
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, Protocol

from app.core.scripts import cjk_terms
from app.core.textkit import TOKEN, stem

logger = logging.getLogger(__name__)

DF_CAP = 1000
"""Counts stop at this many chunks: beyond it a word is common anyway."""
MAX_TOKEN = 40
"""Longer tokens are not indexed (the keyword index's ``max_token_length``)."""


class TextIndex(Protocol):
    """What counting by query needs of a store: its BM25 search."""

    def text_search(
        self, query: str, k: int, doc_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]: ...


class TermSource(Protocol):
    """What a :class:`TermIndex` needs of a store: its chunks' keyword texts and a version
    that changes with every write."""

    def chunks_version(self) -> int: ...

    def doc_id_column(self, table: Literal["chunks", "vectors"]) -> list[str]: ...

    def keyword_texts(self, doc_ids: Sequence[str]) -> list[tuple[str, str]]: ...


def document_frequencies(
    index: TextIndex,
    words: Iterable[str],
    *,
    doc_ids: Sequence[str] | None = None,
    cap: int = DF_CAP,
) -> dict[str, int]:
    """Lower-cased word -> number of chunks (up to ``cap``) whose text contains it.

    The index matches by its own stemmer, so "watermarks" counts chunks with "watermark".
    Only plain words are asked (letters and digits); anything else counts as 0.
    """
    return _each_word(words, lambda w: len(index.text_search(w, cap, doc_ids)))


def _each_word(words: Iterable[str], count: Callable[[str], int]) -> dict[str, int]:
    """Lower-cased word -> ``count(word)``; 0 for anything but a plain word (letters and
    digits), which neither way of counting asks about."""
    return {
        w: count(w) if TOKEN.fullmatch(w) else 0 for w in dict.fromkeys(x.lower() for x in words)
    }


_FOLD_EXTRA = str.maketrans(
    {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ł": "l", "þ": "th"}
)


def fold(word: str) -> str:
    """``word`` lower-cased without accents ("Größe" -> "grosse"), as the keyword index
    folds it."""
    w = word.lower()
    if w.isascii():
        return w
    w = unicodedata.normalize("NFKD", w.translate(_FOLD_EXTRA))
    return "".join(ch for ch in w if not unicodedata.combining(ch))


class TermIndex:
    """Chunks per word stem of the whole library, in memory. Thread-safe.

    ``refresh`` brings it in step with the store: unchanged version, nothing to do; new
    documents, their chunks are read and added; a document gone (removed here or by another
    process), its own counts are taken out; one grown or shrunk otherwise (rewritten by
    another process), taken out and read again. ``forget`` takes a document out before it
    is removed in this process.
    """

    def __init__(self, source: TermSource) -> None:
        self.source = source
        self._lock = threading.Lock()
        self._df: Counter[str] = Counter()
        self._docs: dict[str, int] = {}  # doc_id -> chunks counted
        self._own: dict[str, tuple[tuple[str, ...], array[int]]] = {}  # doc_id -> its counts
        self._version: int | None = None
        self._stems: dict[str, str] = {}

    @property
    def chunks(self) -> int:
        return sum(self._docs.values())

    def _key(self, token: str) -> str:
        key = self._stems.get(token)
        if key is None:
            key = self._stems[token] = stem(fold(token), "en")
        return key

    def _keys(self, text: str) -> set[str]:
        return {self._key(t) for t in set(TOKEN.findall(text.lower())) if len(t) <= MAX_TOKEN}

    def _add(self, rows: Iterable[tuple[str, str]]) -> None:
        """Count the chunks ``rows`` (doc_id, keyword text) in, and each document's own."""
        per_doc: dict[str, Counter[str]] = {}
        chunks: Counter[str] = Counter()
        for doc_id, text in rows:
            chunks[doc_id] += 1
            per_doc.setdefault(doc_id, Counter()).update(self._keys(text))
        for doc_id, own in per_doc.items():
            self._df.update(own)
            self._own[doc_id] = (tuple(own), array("I", own.values()))
            self._docs[doc_id] = chunks[doc_id]

    def _take_out(self, doc_id: str) -> None:
        keys, counts = self._own.pop(doc_id, ((), array("I")))
        df = self._df
        for key, n in zip(keys, counts, strict=True):
            left = df[key] - n
            if left > 0:
                df[key] = left
            else:
                del df[key]  # no chunk has the word any more
        self._docs.pop(doc_id, None)

    def refresh(self) -> None:
        """Bring the counts in step with the store (cheap when nothing changed)."""
        with self._lock:
            version = self.source.chunks_version()
            if version == self._version:
                return
            t0 = time.perf_counter()
            stored = Counter(self.source.doc_id_column("chunks"))
            gone = [d for d, n in self._docs.items() if stored.get(d) != n]
            for d in gone:
                self._take_out(d)
            new = [d for d in stored if d not in self._docs]
            if new:
                self._add(self.source.keyword_texts(new))
            self._version = version
            logger.info(
                "term index: %d documents (%d new, %d out), %d chunks, %d stems in %.0f ms",
                len(self._docs),
                len(new),
                len(gone),
                self.chunks,
                len(self._df),
                (time.perf_counter() - t0) * 1000,
            )

    def forget(self, doc_id: str) -> None:
        """Take ``doc_id``'s chunks out of the counts (call before removing it)."""
        with self._lock:
            if doc_id not in self._docs:
                return
            self._take_out(doc_id)
            self._version = None  # check again: should the removal fail, it is counted anew

    def words(self, limit: int) -> list[str]:
        """Up to ``limit`` of the library's words as written (lower case), those in the most
        chunks first: the words a retrieved passage most likely holds."""
        with self._lock:
            df = self._df
            ranked = sorted(
                ((n, w) for w, key in self._stems.items() if (n := df.get(key, 0)) > 0),
                key=lambda x: (-x[0], x[1]),
            )
            return [w for _, w in ranked[:limit]]

    def counts(self, words: Iterable[str], *, cap: int = DF_CAP) -> tuple[dict[str, int], int]:
        """Like :func:`document_frequencies` (same keys, same matching, same cap), and the
        number of chunks counted. Call :meth:`refresh` first to see the latest writes."""

        def count(w: str) -> int:  # a CJK word is asked as its character pairs: any of them
            parts = TOKEN.findall(cjk_terms(w))
            return min(cap, max((self._df.get(self._key(p), 0) for p in parts), default=0))

        with self._lock:
            return _each_word(words, count), self.chunks
