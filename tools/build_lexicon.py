"""Build Footnote's word lexicons (``resources/lexicon/*.tsv.gz``) from FreeDict.

The cross-language search (``app.core.lexicon``) looks a question's words up in a
bilingual word list. The lists are cut from the FreeDict dictionaries Debian packages
(``dict-freedict-deu-eng``, ``-eng-deu``, ``-fra-eng``, ``-eng-fra``; GPL, see
``resources/lexicon/LICENSE``):

    apt-get download dict-freedict-deu-eng dict-freedict-eng-deu \\
        dict-freedict-fra-eng dict-freedict-eng-fra
    for f in dict-freedict-*.deb; do dpkg-deb -x "$f" x; done
    python -m tools.build_lexicon x/usr/share/dictd

Kept of each entry: a one-word headword (lower-cased) and its translations in the order the
dictionary gives them, tags (``<n>``, ``[Br.]``) and notes left out, at most
``MAX_TRANSLATIONS``. A headword's Snowball stem (``app.core.textkit.stem``) is a key too,
written ``~stem``, so "imprimées" finds "imprimer": rebuild the lists when the stemmer
changes.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections.abc import Iterator
from pathlib import Path

from app.core.textkit import stem

PAIRS = {"de-en": "deu-eng", "en-de": "eng-deu", "fr-en": "fra-eng", "en-fr": "eng-fra"}
MAX_TRANSLATIONS = 6
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_TAGS = re.compile(r"<[^>]*>|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|/[^/]*/")
_WORD = re.compile(r"^[^\W\d_]+$")  # what app.core.textkit.TOKEN reads as one word
_STOP_LINE = ("synonym", "see:", "note:", '"')


def _b64(s: str) -> int:
    n = 0
    for c in s:
        n = n * 64 + _B64.index(c)
    return n


def entries(folder: Path, name: str) -> Iterator[tuple[str, list[str]]]:
    """(headword, translations) of every entry of FreeDict's ``name`` dictionary."""
    data = gzip.decompress((folder / f"freedict-{name}.dict.dz").read_bytes())
    for line in (folder / f"freedict-{name}.index").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0].startswith("00database"):
            continue
        start, size = _b64(parts[1]), _b64(parts[2])
        text = data[start : start + size].decode("utf-8", "replace").splitlines()
        if not text:
            continue
        head = text[0].split(" /", 1)[0].strip()
        out: list[str] = []
        for raw in text[1:]:
            s = raw.strip()
            if not s or s.lower().startswith(_STOP_LINE):
                break
            for piece in re.split(r"[,;]", _TAGS.sub(" ", s)):
                # Abbreviations ("sth.", "jdm.", "p.") and lone letters say nothing a page
                # would repeat.
                piece = " ".join(
                    w
                    for w in piece.replace("…", " ").split()
                    if len(w.strip(".")) > 1 and not w.endswith(".")
                )
                if piece and not any(ch.isdigit() for ch in piece) and len(piece.split()) <= 3:
                    out.append(piece)
        yield head, out


def _add(have: list[str], translations: list[str]) -> None:
    """Append the translations ``have`` lacks, up to ``MAX_TRANSLATIONS`` in all."""
    for t in translations:
        if t not in have and len(have) < MAX_TRANSLATIONS:
            have.append(t)


def build(folder: Path, name: str, source_lang: str) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for head, translations in entries(folder, name):
        key = head.lower()
        if _WORD.match(key) and translations:
            _add(table.setdefault(key, []), translations)
    stems: dict[str, list[str]] = {}
    for key, translations in table.items():
        s = stem(key, source_lang)
        if s != key and s not in table:
            _add(stems.setdefault("~" + s, []), translations)
    table.update(stems)
    return table


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m tools.build_lexicon")
    p.add_argument("dictd", type=Path, help="The folder of FreeDict's .index / .dict.dz files.")
    p.add_argument("--out", type=Path, default=Path("resources/lexicon"))
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for pair, name in PAIRS.items():
        table = build(args.dictd, name, pair.split("-")[0])
        lines = "".join(f"{k}\t{'|'.join(v)}\n" for k, v in sorted(table.items()))
        path = args.out / f"{pair}.tsv.gz"
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(lines.encode("utf-8"))
        print(f"{path}: {len(table)} keys, {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
