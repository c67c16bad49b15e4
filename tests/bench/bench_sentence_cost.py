"""What storing sentence vectors costs at ingestion (issue 31): pages per second fully embedded,
with and without ``Settings.sentence_vectors``, measured in one run.

Each PDF is ingested into two fresh libraries, one per setting, one after the other, the order
alternating from file to file, so a busy moment of a shared machine falls on both alike. The
parse is the same in both; the difference is the sentences' embedding and their table.

    python -m tests.bench.bench_sentence_cost PDF_OR_FOLDER... [--keep DIR]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import tempfile
import time
from pathlib import Path

from app.core.config import Settings
from app.retrieval import SentenceTransformerEmbedder
from app.services.library import Library, expand_paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.bench_sentence_cost")
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--keep", type=Path, default=None)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    files = expand_paths(args.paths)
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    work = args.keep or Path(tempfile.mkdtemp(prefix="footnote-sentcost-"))
    libs = {
        on: Library(
            Settings(library=work / f"sentences-{on}", sentence_vectors=on), embedder=embedder
        )
        for on in (False, True)
    }
    seconds = {False: [0.0, 0.0], True: [0.0, 0.0]}  # index, embed
    pages = 0
    try:
        for i, f in enumerate(files):
            order = (False, True) if i % 2 == 0 else (True, False)
            for on in order:
                t = time.perf_counter()
                out = libs[on].ingest([f], embed=False)
                t1 = time.perf_counter()
                libs[on].embed_pending()
                t2 = time.perf_counter()
                seconds[on][0] += t1 - t
                seconds[on][1] += t2 - t1
            pages += sum(r.pages for r in out.results)
        chunks = libs[True].store.count_chunks()
        sentences = sum(
            len(k)
            for k, _ in libs[True]
            .store.stored_sentences(
                [
                    c.chunk_id
                    for d in libs[True].documents()
                    for c in libs[True].chunks_of(d.doc_id, charmap=False)
                ]
            )
            .values()
        )
        print(f"{len(files)} PDFs, {pages} pages, {chunks} chunks, {sentences} sentences stored")
        for on in (False, True):
            index, embed = seconds[on]
            print(
                f"  sentence vectors {'on ' if on else 'off'}: {pages / (index + embed):.2f} pages/s "
                f"fully embedded (parse + keyword index {index:.1f} s, embedding {embed:.1f} s)"
            )
        print(f"  embedding time on / off: {seconds[True][1] / max(seconds[False][1], 1e-9):.2f}x")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
