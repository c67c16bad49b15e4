"""A question's words in another language, from bilingual word lists.

The embedded embedder (all-MiniLM-L6-v2) knows English only, and BM25 matches only the
words a question shares with a page: a German question about an English manual, or an
English question about a German brochure, finds little but the names and numbers both
share. The word lists in ``resources/lexicon`` (cut from FreeDict by
``tools/build_lexicon.py``: German-English, English-German, French-English,
English-French) give each of the question's content words its dictionary translations,
which the search uses as one more query (``app.retrieval.hybrid``).

Word by word on purpose: no model runs, a look-up costs microseconds, and a search only
needs the words a page in the other language would use, not a sentence. A word the lists
do not have is tried by its Snowball stem ("imprimées" -> "imprimer"), then, in German, as
a compound of two words the list has ("Fußbereich" -> "Fuß" + "Bereich"); a word found
nowhere (a name, a command, a number) is kept as it is, since both languages write it the
same way.
"""

from __future__ import annotations

import gzip
import logging
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from app.core.resources import resources_dir
from app.core.textkit import stem, stop_words, words

logger = logging.getLogger(__name__)

PAIRS: dict[str, tuple[str, ...]] = {"en": ("de", "fr"), "de": ("en",), "fr": ("en",)}
"""The languages a question in each language is translated into (the lists shipped)."""

MAX_TRANSLATIONS = 3
"""Translations used per word, in the dictionary's order: the first senses are the
common ones, and every extra word is one more chance to match a page about something
else."""

MIN_COMPOUND_PART = 3
_LINKS = ("", "s", "es", "n", "en", "e")  # German linking elements: "Arbeit-s-speicher"


class WordList:
    """A sorted ``key<TAB>translation|translation`` list, kept as its UTF-8 bytes and
    searched by bisection: the German list (377,000 words) takes ~17 MB so, against ~120 MB
    as a dict, and a look-up ~10 us."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        self._starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)

    def __len__(self) -> int:
        return len(self._starts) if self._data else 0

    def get(self, key: str) -> tuple[str, ...]:
        """The translations listed for ``key``; empty when it is not listed."""
        want = key.encode("utf-8")
        data, starts = self._data, self._starts
        lo, hi = 0, len(self)
        while lo < hi:
            mid = (lo + hi) // 2
            start = int(starts[mid])
            tab = data.index(b"\t", start)
            have = data[start:tab]
            if have == want:
                return tuple(data[tab + 1 : data.index(b"\n", tab)].decode("utf-8").split("|"))
            if have < want:
                lo = mid + 1
            else:
                hi = mid
        return ()


@lru_cache(maxsize=8)
def table(source: str, target: str) -> WordList:
    """The word list from ``source`` into ``target`` (empty when none is shipped): lower-
    case headwords and ``~stem`` keys to their translations, read once (~0.1 s for German,
    the largest; :meth:`app.services.ask.AskService.warm_words` reads the library's ahead)."""
    path = resources_dir() / "lexicon" / f"{source}-{target}.tsv.gz"
    if not path.is_file():
        return WordList(b"")
    words_ = WordList(gzip.decompress(path.read_bytes()))
    logger.info("read the %s-%s word list: %d words", source, target, len(words_))
    return words_


def translations(word: str, source: str, target: str) -> tuple[str, ...]:
    """``word``'s translations from ``source`` into ``target``, commonest first; empty when
    the list has neither the word, its stem nor (German) its two parts."""
    t = table(source, target)
    if not t:
        return ()
    w = word.lower()
    found = _lookup(t, w, source)
    if found:
        return found[:MAX_TRANSLATIONS]
    if source == "de":
        return _compound(w, t)
    return ()


def _lookup(t: WordList, word: str, lang: str) -> tuple[str, ...]:
    """``word``'s entry in ``t``, else its Snowball stem's (``~stem`` keys)."""
    return t.get(word) or t.get("~" + stem(word, lang))


def _compound(word: str, t: WordList) -> tuple[str, ...]:
    """A German compound as its two parts' translations, the longest head that the list has
    first ("seitenzahlenbereich" -> "seitenzahlen" + "bereich")."""
    for cut in range(len(word) - MIN_COMPOUND_PART, MIN_COMPOUND_PART - 1, -1):
        head, tail = word[:cut], word[cut:]
        tail_t = _lookup(t, tail, "de")
        if not tail_t:
            continue
        for link in _LINKS:
            if link and not head.endswith(link):
                continue
            base = head[: len(head) - len(link)] if link else head
            if len(base) < MIN_COMPOUND_PART:
                continue
            head_t = _lookup(t, base, "de")
            if head_t:
                return (head_t[0], tail_t[0])
    return ()


def translate(text: str, source: str, targets: Sequence[str] | None = None) -> str:
    """``text``'s content words in each of ``targets`` (default: every language a list from
    ``source`` is shipped for), translations joined by spaces; words no list has are kept.
    Empty when ``source`` has no list: a question in such a language is searched as asked.
    """
    langs = [t for t in (targets if targets is not None else PAIRS.get(source, ())) if t != source]
    if not langs:
        return ""
    stops = stop_words(source)
    content = [w for w in dict.fromkeys(words(text)) if w not in stops and not w.isdigit()]
    out: list[str] = []
    for target in langs:
        if not table(source, target):
            continue
        target_stops = stop_words(target)
        for w in content:
            found = translations(w, source, target)
            if not found:
                out.append(w)
                continue
            for phrase in found:
                out.extend(x for x in words(phrase) if x not in target_stops)
    return " ".join(dict.fromkeys(out))


def warm(languages: Sequence[str]) -> None:
    """Read now the word lists a question may need over a library written in
    ``languages``: those into any of them (the search translates a question into the
    library's other languages), and those from any of them (the support check looks for a
    concept the library seems to lack among its translations)."""
    for source, targets in PAIRS.items():
        for target in targets:
            if target in languages or source in languages:
                table(source, target)
