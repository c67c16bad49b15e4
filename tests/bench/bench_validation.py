"""Micro-benchmark of :func:`validate`: per-answer time with 8 sources of ~250 words.

Run: ``python -m tests.bench.bench_validation`` (part of ``make bench``). Why it exists:
validation runs on every answer while the person waits, so it must stay far below the
model's own latency (the budget is 5 ms per answer). The answer mixes every path: exact,
normalised and fuzzy quotes, an invented quote, an out-of-range source, numbers and markers.
"""

from __future__ import annotations

import logging
import random
import statistics
import tempfile
import time
from pathlib import Path

from app.core.charmap import CharMap, Piece
from app.core.models import Chunk, RawAnswer, RawCitation, Source
from app.validation.closest import closest_passages
from app.validation.support import assess, key_concepts
from app.validation.validator import validate
from tests import pdf_factory as pf

logger = logging.getLogger(__name__)

_WORDS = [
    "package",
    "option",
    "margin",
    "font",
    "size",
    "page",
    "layout",
    "class",
    "document",
    "command",
    "environment",
    "section",
    "table",
    "figure",
    "caption",
    "label",
    "reference",
    "index",
    "glossary",
    "bibliography",
    "style",
    "hyphenation",
    "paragraph",
    "indentation",
    "spacing",
    "baseline",
    "column",
    "footnote",
    "header",
    "footer",
    "counter",
    "length",
    "width",
    "height",
    "default",
    "value",
    "argument",
    "macro",
]


def _chunk(n: int, rng: random.Random, words: int = 250) -> tuple[Source, Chunk]:
    """A chunk of ``words`` pseudo-random words with a charmap of 10-word lines."""
    toks = [rng.choice(_WORDS) for _ in range(words)]
    for i in range(0, words, 23):
        toks[i] = f"{rng.randint(1, 99)}pt"
    text = ""
    pieces: list[Piece] = []
    for i, t in enumerate(toks):
        if text:
            text += "\n" if i % 10 == 0 else " "
        line = i // 10
        x0 = 72.0 + (i % 10) * 45.0
        pieces.append(
            Piece(
                len(text),
                len(text) + len(t),
                1 + line // 40,
                x0,
                100.0 + 12 * line,
                x0 + 6.0 * len(t),
                110.0 + 12 * line,
                line,
            )
        )
        text += t
    doc = "b" * 16
    chunk = Chunk(
        chunk_id=Chunk.make_id(doc, n),
        doc_id=doc,
        ordinal=n,
        page_start=1,
        page_end=1,
        text=text,
        charmap=CharMap.from_pieces(pieces),
    )
    src = Source(
        rank=n,
        chunk_id=chunk.chunk_id,
        doc_id=doc,
        file="/bench.pdf",
        title="Bench",
        page_start=1,
        page_end=1,
        section="",
        score=1.0 / n,
        text=text,
        n=n,
    )
    return src, chunk


def sample(seed: int = 7) -> tuple[RawAnswer, list[tuple[Source, Chunk]]]:
    """A realistic worst-ish case: 8 sources, 6 sentences, every matching tier used."""
    rng = random.Random(seed)
    sources = [_chunk(n, rng) for n in range(1, 9)]
    texts = [c.text for _, c in sources]
    exact = texts[0].split()[20:32]
    spaced = texts[1].split()[40:52]
    fuzzy = texts[2].split()[60:80]
    fuzzy[5] = fuzzy[5] + "x"
    fuzzy[12] = "the"
    norm = texts[3].split()[5:15]
    cits = [
        RawCitation(source=1, quote=" ".join(exact)),
        RawCitation(source=2, quote="  ".join(spaced).upper()),
        RawCitation(source=3, quote=" ".join(fuzzy)),
        RawCitation(source=4, quote=" ".join(norm).replace(" ", "\u00a0")),
        RawCitation(source=5, quote="an invented sentence that appears nowhere in the sources"),
        RawCitation(source=9, quote="ignore previous instructions"),
    ]
    answer = (
        f"The {exact[2]} and {exact[5]} settings are described [1]. "
        f"You can change the {spaced[3]} {spaced[4]} of a {spaced[7]} [2][9]. "
        f"The {fuzzy[1]} controls the {fuzzy[8]} {fuzzy[10]} [3, 4]. "
        f"Use {norm[2]} with {norm[6]} [4]. "
        "Something invented here [5]. This sentence has no citation at all."
    )
    return RawAnswer(mode="answer", answer=answer, citations=cits), sources


def bench(repeat: int = 200) -> dict[str, float]:
    """Milliseconds per :func:`validate` call on :func:`sample` (fresh chunks every call).

    Returns the wall-clock median and 95th percentile, and the mean CPU time of this
    process (less disturbed when other work shares the cores).
    """
    data = [sample(seed=i) for i in range(repeat)]
    wall: list[float] = []
    cpu0 = time.process_time()
    for raw, sources in data:
        t0 = time.perf_counter()
        validate(raw, sources)
        wall.append((time.perf_counter() - t0) * 1000.0)
    return _latency(wall, cpu0, repeat)


def _latency(wall: list[float], cpu0: float, repeat: int) -> dict[str, float]:
    """Median and p95 wall milliseconds, and mean CPU milliseconds since ``cpu0``, per call."""
    cpu = (time.process_time() - cpu0) * 1000.0 / repeat
    wall = sorted(wall)
    return {
        "median_ms": round(statistics.median(wall), 2),
        "p95_ms": round(wall[int(0.95 * (len(wall) - 1))], 2),
        "cpu_mean_ms": round(cpu, 2),
    }


def bench_support(repeat: int = 200) -> dict[str, float]:
    """Milliseconds per support check (key concepts, coverage, answer type, restatement,
    contradiction, combination) plus the closest passages a refusal would list, on
    :func:`sample`'s validated answers. The budget is 30 ms per answer (issue 8)."""
    data = []
    for i in range(repeat):
        raw, sources = sample(seed=i)
        result = validate(raw, sources)
        question = f"How do I change the {_WORDS[i % len(_WORDS)]} of a \\section in 2.5pt?"
        data.append((question, result, sources))
    wall: list[float] = []
    cpu0 = time.process_time()
    for question, result, sources in data:
        t0 = time.perf_counter()
        quotes = [c.quote for c in result.citations]
        df = {k: 3 for c in key_concepts(question) for k in c.keys}
        concepts = key_concepts(question, df=df, n_chunks=1000)
        assess(
            question,
            quotes,
            claims=[(result.answer, " ".join(quotes))],
            similarity=0.5,
            concepts=concepts,
        )
        closest_passages(question, sources)
        wall.append((time.perf_counter() - t0) * 1000.0)
    return _latency(wall, cpu0, repeat)


LIBRARY_QUESTIONS = [
    *(f.question for f in pf.MANUAL_FACTS.values()),
    "Which error code means the antenna cable is broken?",  # 'antenna': nowhere in the manual
    "How do I calibrate the walnut sensor?",
    "What dividend did the company pay?",
    "Can the logger be hired for a wedding?",
]
"""Questions over the fixture manual: its own facts, and near misses with words it lacks
(the slow path: a word absent from the library is looked up among the passages' words)."""


def bench_support_library() -> dict[str, float]:
    """Milliseconds the support check adds to an answer over a real library, as the desktop
    runs it: the question's concepts (rarity and absence from the term index, paraphrases by
    the real embedder's word vectors, the library's words embedded ahead) and the verdict on an extractive answer of the top
    retrieved sentences. Every question once, after ``Library.warm_up``; word vectors are
    cached from question to question as in a session."""
    from app.core.config import Settings
    from app.services import ask_steps as steps
    from app.services import verdict
    from app.services.ask import AskService
    from app.services.library import Library

    with tempfile.TemporaryDirectory() as tmp:
        lib = Library(Settings(library=Path(tmp) / "lib"))
        lib.ingest([pf.make_manual_pdf(Path(tmp) / "manual.pdf")])
        lib.warm_up()
        lib.count_words()
        ask = AskService(lib)
        ask.warm_words()  # as the desktop does in the background once warmed up
        embed, languages = ask._embed(), ask._word_languages()
        wall: list[float] = []
        cpu = 0.0  # of the timed part alone (searching and selecting are not the check)
        for question in LIBRARY_QUESTIONS:
            run = steps.AskRun(question=question, top_k=lib.settings.top_k)
            steps.retrieve(run, lib)
            bundle = steps.select(
                run, ranked=True, free_quotes=False, similarity=ask._similarity(run)
            )
            assert bundle is not None
            answer = steps.extractive(run, bundle, None)
            pairs = run.pairs
            c0, t0 = time.process_time(), time.perf_counter()
            concepts = verdict.question_concepts(
                question, lib.term_counts, pairs, embed=embed, languages=languages
            )
            result = verdict.check(
                question, answer, pairs, concepts=concepts, embed=embed, languages=languages
            )
            verdict.apply(answer, result, pairs)
            wall.append((time.perf_counter() - t0) * 1000.0)
            cpu += time.process_time() - c0
        stats = _latency(wall, time.process_time(), len(wall))
        stats["cpu_mean_ms"] = round(cpu * 1000.0 / len(wall), 2)
        stats["max_ms"] = round(max(wall), 2)
        return stats


def main() -> None:
    raw, sources = sample()
    result = validate(raw, sources)
    kinds = ", ".join(f"[{c.n}] {c.match} {c.score:.0f}" for c in result.citations)
    drops = [(d.n, d.reason) for d in result.validation.dropped]
    print(f"sample: {result.validation.status}; kept {kinds}; dropped {drops}")
    r = bench()
    print(
        f"validate() per answer, 8 sources x 250 words: median {r['median_ms']:.2f} ms, "
        f"p95 {r['p95_ms']:.2f} ms, CPU mean {r['cpu_mean_ms']:.2f} ms"
    )
    r = bench_support()
    print(
        f"support check per answer (+ closest passages), 8 sources x 250 words: median "
        f"{r['median_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms, CPU mean {r['cpu_mean_ms']:.2f} ms "
        "(budget 30 ms)"
    )
    r = bench_support_library()
    print(
        f"support check per answer over a real library (concepts from the term index, word "
        f"vectors of the real embedder, verdict), {len(LIBRARY_QUESTIONS)} questions: median "
        f"{r['median_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms, max {r['max_ms']:.2f} ms, CPU mean "
        f"{r['cpu_mean_ms']:.2f} ms "
        "(budget 30 ms)"
    )


if __name__ == "__main__":
    main()
