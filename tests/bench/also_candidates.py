"""Candidates for a question's ``also`` pages: other pages of its PDF that may state its evidence.

    python -m tests.bench.also_candidates [--set manuals|mixed|all] [--min-cosine 0.7]
        [--min-overlap 0.6]

A manual often says one thing twice ("\\setlongtables is no longer needed" in the user guide,
"Since Version 4.01 \\setlongtables does nothing" in the commented code), and an answer that
cites the second place cites the evidence as surely as one citing the first. To list those
places the same way for every question, and never only where an answer missed, this prints
for each answerable question the sentences on its PDF's other pages whose embedding cosine to
the evidence is at least ``--min-cosine`` or which hold at least ``--min-overlap`` of its
content stems. A person then keeps a candidate as an ``also`` entry only when it states the
answer the evidence states (tests/bench/README.md has the rule and the decisions); the
evidence checker then verifies every kept entry like the evidence itself.
"""

from __future__ import annotations

import argparse
import re

from app.core import textkit
from app.retrieval.embedder import SentenceTransformerEmbedder
from tests.bench.question_set import SETS, load_questions, normalize, page_texts

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.also_candidates")
    p.add_argument("--set", choices=[*SETS, "all"], default="all")
    p.add_argument("--min-cosine", type=float, default=0.7)
    p.add_argument("--min-overlap", type=float, default=0.6)
    p.add_argument("--per-question", type=int, default=4)
    args = p.parse_args(argv)
    embedder = SentenceTransformerEmbedder()
    for name in list(SETS) if args.set == "all" else [args.set]:
        qs = SETS[name]
        folder = qs.prepare()
        for q in load_questions(qs.questions):
            if not q.answerable or q.evidence is None:
                continue
            lang = textkit.detect_language(q.evidence)
            stems = set(textkit.content_stems(q.evidence, lang))
            cands: list[tuple[int, str, float]] = []
            for i, text in enumerate(page_texts(folder / q.doc), start=1):
                if i == q.page:
                    continue
                for s in _SENTENCE_END.split(normalize(text)):
                    if 15 <= len(s) <= 400:
                        own = set(textkit.content_stems(s, lang))
                        cands.append((i, s, len(stems & own) / max(1, len(stems))))
            if not cands:
                continue
            vecs = embedder.embed([q.evidence, *(s for _, s, _ in cands)])
            sims = vecs[1:] @ vecs[0]
            hits = [
                (page, s, overlap, float(cos))
                for (page, s, overlap), cos in zip(cands, sims, strict=True)
                if cos >= args.min_cosine or overlap >= args.min_overlap
            ]
            hits.sort(key=lambda h: -h[3])
            kept = q.evidence_pages - {q.page}
            for page, s, overlap, cos in hits[: args.per_question]:
                mark = "also" if page in kept else "    "
                print(
                    f"{q.id} {mark} p{q.page}->p{page} cosine {cos:.2f} overlap {overlap:.2f}"
                    f" | evidence: {q.evidence} | candidate: {s}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
