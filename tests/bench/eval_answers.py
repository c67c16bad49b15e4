"""``make eval``: answer quality, grounding and latency of Footnote over the benchmark corpus.

Builds (or reuses, with --library) a library from the corpus PDFs named in
tests/bench/questions.jsonl, asks every question through ``AskService.ask`` exactly as the CLI and
GUI do, and reports retrieval recall, citation accuracy, refusals, validation outcomes and
latency. Prints a compact table and writes bench-results/eval.json.

    python -m tests.bench.eval_answers [--corpus DIR] [--limit N] [--model GGUF] [--top-k K]
                                       [--library DIR] [--retrieval-only] [--ids q001,q007]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.resources import REPO_ROOT
from tests.bench.eval_metrics import (
    Outcome,
    evidence_rank,
    format_table,
    gold_rank,
    outcome_from_answer,
    summarize,
)
from tests.bench.question_set import DEFAULT_CORPUS, QUESTIONS_PATH, Question, load_questions

logger = logging.getLogger(__name__)

DEFAULT_OUT = REPO_ROOT / "bench-results" / "eval.json"
WARM_UP_QUESTION = "What is this document about?"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tests.bench.eval_answers",
        description="Evaluate retrieval, citations, refusals and latency on the question set.",
    )
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="Folder with the PDFs.")
    p.add_argument("--questions", type=Path, default=QUESTIONS_PATH, help="Question JSONL file.")
    p.add_argument("--limit", type=int, default=None, help="Ask N questions, spread evenly.")
    p.add_argument("--ids", default=None, help="Comma-separated question ids to ask.")
    p.add_argument("--model", type=Path, default=None, help="GGUF chat model (default embedded).")
    p.add_argument("--top-k", type=int, default=None, help="Sources per question (default 8).")
    p.add_argument(
        "--library", type=Path, default=None, help="Library folder to build or reuse (kept)."
    )
    p.add_argument(
        "--retrieval-only", action="store_true", help="Skip generation; report retrieval only."
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Where to write the JSON.")
    p.add_argument("-v", "--verbose", action="store_true", help="Log debug output to stderr.")
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    return args


def select(questions: Sequence[Question], limit: int | None, ids: str | None) -> list[Question]:
    """The questions to ask: named ids, else ``limit`` spread evenly (keeps the doc/answerable mix)."""
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        by_id = {q.id: q for q in questions}
        unknown = [i for i in wanted if i not in by_id]
        if unknown:
            raise SystemExit(f"unknown question ids: {', '.join(unknown)}")
        return [by_id[i] for i in wanted]
    if limit is None or limit >= len(questions):
        return list(questions)
    step = len(questions) / limit
    return [questions[int(i * step)] for i in range(limit)]


@contextlib.contextmanager
def library_dir(path: Path | None) -> Iterator[Path]:
    """The given folder (kept for reuse), else a temporary one removed afterwards."""
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="footnote-eval-") as tmp:
        yield Path(tmp) / "library"


def build_library(library: Any, pdfs: Sequence[Path]) -> dict[str, str]:
    """Ingest (or find unchanged) every PDF and embed; return file name -> doc_id."""
    t0 = time.perf_counter()
    results = library.ingest(list(pdfs))
    failed = [r for r in results if r.status == "failed"]
    if failed:
        raise SystemExit(
            "ingestion failed: " + "; ".join(f"{Path(r.file).name}: {r.error}" for r in failed)
        )
    library.embed_pending()
    statuses = ", ".join(f"{Path(r.file).name} {r.status}" for r in results)
    print(f"library ready in {time.perf_counter() - t0:.1f}s ({statuses})", file=sys.stderr)
    return {Path(r.file).name: r.doc_id for r in results}


def run_question(
    q: Question, library: Any, ask: Any, *, doc_id: str | None, top_k: int, search_k: int
) -> Outcome:
    """Search, then ask; record everything needed for the summary. Errors are recorded, not raised."""
    o = Outcome(id=q.id, doc=q.doc, question=q.question, answerable=q.answerable, gold_page=q.page)
    try:
        hits, _ = library.search(q.question, top_k=search_k)
        o.retrieved = [f"{Path(h.file).name} p{h.page_start}-{h.page_end}" for h in hits]
        if q.answerable:
            o.gold_rank = gold_rank(hits, doc_id, q.page)
            o.evidence_rank = evidence_rank(hits, q.evidence)
        if ask is None:
            return o
        answer = ask.ask(q.question, top_k=top_k)
        ids = sorted({c.chunk_id for c in answer.citations})
        texts = {c.chunk_id: c.text for c in library.chunks(ids)} if ids else {}
        outcome_from_answer(o, answer, gold_doc_id=doc_id, chunk_texts=texts)
    except Exception as exc:  # one broken question must not hide the other results
        logger.exception("question %s failed", q.id)
        o.error = f"{type(exc).__name__}: {exc}"
    return o


def _progress_line(i: int, n: int, o: Outcome, wall_s: float) -> str:
    rank = "-" if not o.answerable else (o.gold_rank or "miss")
    if o.error:
        what = f"ERROR {o.error[:60]}"
    elif o.mode is None:
        what = ""
    else:
        hit = sum(c["on_gold_page"] for c in o.citations)
        what = f"{o.kind or o.mode} {o.status} cites {len(o.citations)} (gold {hit})"
    return f"[{i:>3}/{n}] {o.id} {'A' if o.answerable else 'U'} rank {rank} {what} {wall_s:.1f}s"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    all_questions = load_questions(args.questions)
    questions = select(all_questions, args.limit, args.ids)
    docs = sorted({q.doc for q in all_questions})
    missing = [d for d in docs if not (args.corpus / d).is_file()]
    if missing:
        print(f"missing from {args.corpus}: {', '.join(missing)}", file=sys.stderr)
        return 2

    from app.services.library import Library  # heavy imports only once arguments are fine

    started = datetime.now(UTC)
    with library_dir(args.library) as lib_path:
        overrides: dict[str, Any] = {"library": lib_path, "model": args.model}
        if args.top_k is not None:
            overrides["top_k"] = args.top_k
        settings = Settings(**overrides)
        top_k = settings.top_k
        library = Library(settings)
        t0 = time.perf_counter()
        doc_ids = build_library(library, [args.corpus / d for d in docs])
        library_s = time.perf_counter() - t0

        ask = None
        warm_s = 0.0
        model_name = ""
        if not args.retrieval_only:
            from app.services.ask import AskService

            ask = AskService(library, settings)
            t0 = time.perf_counter()
            warm = ask.ask(WARM_UP_QUESTION, top_k=top_k)  # loads the model; not in the figures
            model_name = warm.model
            warm_s = time.perf_counter() - t0
            print(f"model warm-up {warm_s:.1f}s", file=sys.stderr)

        outcomes: list[Outcome] = []
        t_run = time.perf_counter()
        interrupted = False
        try:
            for i, q in enumerate(questions, start=1):
                t0 = time.perf_counter()
                o = run_question(
                    q, library, ask, doc_id=doc_ids.get(q.doc), top_k=top_k, search_k=max(5, top_k)
                )
                outcomes.append(o)
                wall = time.perf_counter() - t0
                print(_progress_line(i, len(questions), o, wall), file=sys.stderr)
        except KeyboardInterrupt:  # Ctrl-C: still report what was measured so far
            interrupted = True
            print(f"interrupted after {len(outcomes)} questions", file=sys.stderr)
        run_s = time.perf_counter() - t_run

    summary = summarize(outcomes, ks=(5, top_k))
    config = {
        "started_at": started.isoformat(timespec="seconds"),
        "corpus": str(args.corpus),
        "documents": docs,
        "questions_file": str(args.questions),
        "model": str(args.model) if args.model else "embedded default",
        "model_name": model_name,
        "top_k": top_k,
        "retrieval_only": args.retrieval_only,
        "library": str(args.library) if args.library else "temporary",
        "library_s": round(library_s, 1),
        "warm_up_s": round(warm_s, 1),
        "run_s": round(run_s, 1),
        "interrupted": interrupted,
    }
    report = {"config": config, "summary": summary, "questions": [asdict(o) for o in outcomes]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")

    print(format_table(summary))
    print(f"\n{len(outcomes)} questions in {run_s:.0f}s; JSON written to {args.out}")
    if interrupted:
        return 130
    return 1 if summary["errors"] or summary["citations"]["invalid_shown"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
