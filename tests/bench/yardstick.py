"""The yardstick of ingestion speed: the least work that embeds all of a corpus's text.

    python -m tests.bench.yardstick FILE.pdf ... [--piece-chars 1000]

PyMuPDF's plain text of every page (``page.get_text()``), each document's text cut into
1,000-character pieces, one all-MiniLM-L6-v2 vector per piece (sentence-transformers'
``encode`` with its own defaults: 256 tokens, batches of 32, all pieces in one call so they are
sorted by length once), the model loaded by this process. No layout, no chunking, no index, no
storage. ``footnote ingest`` does all of that and more, so its whole-process time divided by this
one's, measured in the same run, says what the rest costs (issue 32: at most 0.75).

``--bfloat16`` runs the same work with the matrix products in bfloat16 (``torch.autocast``), as
Footnote's embedder does on a CPU that has them natively: not the issue's yardstick, but what
says how much of Footnote's lead over it is that precision rather than less work.

Prints one JSON object: pages, pieces, characters and the seconds of each step.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

T_START = time.perf_counter()


def pieces_of(text: str, size: int) -> list[str]:
    """``text`` cut into consecutive pieces of ``size`` characters (the last one shorter);
    pieces of whitespace only are left out."""
    return [p for i in range(0, len(text), size) if (p := text[i : i + size]).strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--piece-chars", type=int, default=1000)
    ap.add_argument("--bfloat16", action="store_true", help="matrix products in bfloat16")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    t0 = time.perf_counter()
    from sentence_transformers import SentenceTransformer

    from app.core.resources import default_embedder_path

    model = SentenceTransformer(str(default_embedder_path()), device="cpu", local_files_only=True)
    model.encode(["warm up"])
    t1 = time.perf_counter()

    import pymupdf

    pages = chars = 0
    pieces: list[str] = []
    for f in args.files:
        with pymupdf.open(f) as doc:
            text = "".join(page.get_text() for page in doc)
            pages += doc.page_count
        chars += len(text)
        pieces += pieces_of(text, args.piece_chars)
    t2 = time.perf_counter()
    import contextlib

    import torch

    products = (
        torch.autocast("cpu", dtype=torch.bfloat16) if args.bfloat16 else contextlib.nullcontext()
    )
    with products:
        model.encode(pieces, batch_size=32, show_progress_bar=False, convert_to_numpy=True)
    t3 = time.perf_counter()
    json.dump(
        {
            "pages": pages,
            "pieces": len(pieces),
            "products": "bfloat16" if args.bfloat16 else "float32",
            "chars": chars,
            "imports_s": round(t0 - T_START, 2),
            "model_load_s": round(t1 - t0, 2),
            "extract_s": round(t2 - t1, 2),
            "embed_s": round(t3 - t2, 2),
            "process_s": round(t3 - T_START, 2),
        },
        sys.stdout,
    )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
