"""Write resources/everyday_words/<lang>.txt: each language's most common words, from wordfreq.

Run by hand, not at build time (wordfreq is not a dependency of Footnote)::

    pip install --target /tmp/wordfreq wordfreq==3.1.1
    PYTHONPATH=/tmp/wordfreq python tools/everyday_words.py

For every language ``app.core.textkit.LANGUAGES`` stems, the first ``COUNT`` words of
``wordfreq.top_n_list`` that are made of letters only, lower case, one per line. wordfreq's
data is licensed CC BY-SA 4.0; the lists keep that licence (resources/everyday_words/LICENSE.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

from wordfreq import top_n_list  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.core.textkit import EVERYDAY_WORDS_COUNT, LANGUAGES  # noqa: E402

OUT = ROOT / "resources" / "everyday_words"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for lang in sorted(LANGUAGES):
        listed = top_n_list(lang, 4 * EVERYDAY_WORDS_COUNT)
        kept = [w for w in listed if w.isalpha()][:EVERYDAY_WORDS_COUNT]
        if len(kept) < EVERYDAY_WORDS_COUNT:
            raise SystemExit(f"{lang}: only {len(kept)} words")
        (OUT / f"{lang}.txt").write_text("\n".join(kept) + "\n", encoding="utf-8")
        print(lang, len(kept), kept[:5], kept[-3:])


if __name__ == "__main__":
    main()
