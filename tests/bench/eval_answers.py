"""``make eval``: answer quality, grounding and latency of Footnote over the development sets.

For each development set (``manuals``: the LaTeX manuals; ``mixed``: generated PDFs of other
kinds, see tests/bench/question_set.py) it builds (or reuses, with --library) a library of the
set's PDFs, asks every question through ``AskService.ask`` exactly as the CLI and GUI do, and
reports retrieval recall, citation accuracy, refusals, validation outcomes and latency, one table
per set and a side-by-side table, so a gain on one set cannot hide a loss on the other. Writes
bench-results/eval.json.

    python -m tests.bench.eval_answers [--set manuals|mixed|chatty|heldout|fhs|ebike|maint|talk|talk2|talk3|talk4|talk5|leisure|money|years|all] [--limit N] [--model GGUF]
                                       [--top-k K] [--library DIR] [--retrieval-only]
                                       [--ids q001,m007] [--questions FILE --corpus DIR]
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
from app.validation.status_model import without_judgement
from tests.bench.crossval import (
    StatusModelLever,
    closing_line,
    cross_validate,
    format_cv,
    headline,
    redecide,
)
from tests.bench.eval_metrics import (
    Outcome,
    evidence_rank,
    format_table,
    gold_rank,
    outcome_from_answer,
    summarize,
)
from tests.bench.question_set import DEFAULT_CORPUS, SETS, Question, load_questions
from tests.bench.real import corpus as real_corpus

SEALED_SETS = {f"real-sealed{'' if n == 1 else n}": n for n in real_corpus.SEALED_FILES}
"""The real corpus's sealed sets by run name ("real-sealed", "real-sealed2", …):
``Document.sealed_set`` of their documents."""
REAL_SETS = ("real", *SEALED_SETS)
"""The real-document corpus (tests/bench/real): its development documents, cross-validated by
document family, and its sealed sets, whose questions and statuses are never printed: the
fifth sealed on 2026-11-26, the documents added on 2026-11-29 and ten more added that evening."""

logger = logging.getLogger(__name__)

DEFAULT_OUT = REPO_ROOT / "bench-results" / "eval.json"
WARM_UP_QUESTION = "What is this document about?"


# (label, path into a summary, format) of the figures compared side by side across sets.
COMPARED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("answerable / unanswerable", (), "counts"),
    ("page recall@5", ("retrieval", "recall@5"), "pct"),
    ("evidence recall@5", ("retrieval", "evidence_recall@5"), "pct"),
    ("MRR", ("retrieval", "mrr"), "num"),
    ("right-page citations", ("citations", "right_page"), "pct"),
    ("citation precision", ("citations", "citation_precision"), "pct"),
    ("invalid citations shown", ("citations", "invalid_shown"), "int"),
    ("refused, unanswerable", ("refusal_rate", "unanswerable"), "pct"),
    ("refused, answerable", ("refusal_rate", "answerable"), "pct"),
    ("GREEN share", ("validation", "GREEN"), "pct"),
    ("first token p50 ms", ("latency_ms", "first_token", "p50"), "int"),
    ("total p50 ms", ("latency_ms", "total", "p50"), "int"),
)


def _dig(summary: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = summary
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def format_comparison(summaries: dict[str, dict[str, Any]]) -> str:
    """The key figures of every set in adjacent columns."""
    names = list(summaries)
    lines = [f"  {'':<26}" + "".join(f"{n:>14}" for n in names)]
    for label, path, kind in COMPARED:
        cells = []
        for n in names:
            s = summaries[n]
            v = _dig(s, path)
            if kind == "counts":
                cells.append(f"{s['answerable']} / {s['unanswerable']}")
            elif v is None:
                cells.append("-")
            elif kind == "pct":
                cells.append(f"{100 * v:.1f}%")
            elif kind == "num":
                cells.append(f"{v:.3f}")
            else:
                cells.append(f"{v:,.0f}")
        lines.append(f"  {label:<26}" + "".join(f"{c:>14}" for c in cells))
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tests.bench.eval_answers",
        description="Evaluate retrieval, citations, refusals and latency on the question set.",
    )
    p.add_argument(
        "--set",
        choices=[*SETS, *REAL_SETS, "all"],
        default="all",
        help="Development set(s) to run ('all': every set but the real corpus's).",
    )
    p.add_argument(
        "--cv",
        type=int,
        default=5,
        help="Folds of the real corpus's document-held-out cross-validation (default 5).",
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help=f"Folder with the manuals set's PDFs (default {DEFAULT_CORPUS}), "
        "or with the PDFs of --questions.",
    )
    p.add_argument(
        "--questions",
        type=Path,
        default=None,
        help="Run this question file alone (set 'custom') over --corpus instead of the sets.",
    )
    p.add_argument("--limit", type=int, default=None, help="Ask N questions per set, spread.")
    p.add_argument("--ids", default=None, help="Comma-separated question ids to ask.")
    p.add_argument("--model", type=Path, default=None, help="GGUF chat model (default embedded).")
    p.add_argument(
        "--embedder",
        type=Path,
        default=None,
        help="sentence-transformers folder (default embedded); a library built with another "
        "is embedded again.",
    )
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
    if args.cv < 2:
        p.error("--cv needs at least 2 folds")
    if args.set in SEALED_SETS and (args.ids or args.limit):
        p.error("a sealed set is run whole: no --ids or --limit")
    return args


def select(
    questions: Sequence[Question], limit: int | None, ids: str | None, *, strict: bool = True
) -> list[Question]:
    """The questions to ask: named ids, else ``limit`` spread evenly (keeps the doc/answerable mix).

    With ``strict`` an id not in ``questions`` is an error; otherwise it belongs to another set.
    """
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        by_id = {q.id: q for q in questions}
        unknown = [i for i in wanted if i not in by_id]
        if unknown and strict:
            raise SystemExit(f"unknown question ids: {', '.join(unknown)}")
        return [by_id[i] for i in wanted if i in by_id]
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
    results = library.ingest(list(pdfs)).results
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
    o = Outcome(
        id=q.id,
        doc=q.doc,
        question=q.question,
        answerable=q.answerable,
        gold_page=q.page,
        also_pages=sorted(q.evidence_pages - {q.page}),
    )
    try:
        hits, _ = library.search(q.question, top_k=search_k)
        o.retrieved = [f"{Path(h.file).name} p{h.page_start}-{h.page_end}" for h in hits]
        if q.answerable:
            o.gold_rank = gold_rank(hits, doc_id, q.page)
            o.evidence_rank = evidence_rank(hits, q.evidence)
        if ask is None:
            return o
        answer = ask.ask(q.question, top_k=top_k)
        support = answer.validation.support
        judged = support.judged if support is not None else []
        ids = sorted({c.chunk_id for c in [*answer.citations, *judged]})
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


SetRun = tuple[str, list[Question], Path, list[str]]
"""(name, questions, corpus folder, the PDFs its library holds)."""


def _own_documents(questions: Sequence[Question]) -> list[str]:
    return sorted({q.doc for q in questions})


def set_runs(args: argparse.Namespace) -> list[SetRun]:
    """Every set to run, its generated or fetched corpus ready.

    The real corpus's library holds all its documents, sealed ones included, whichever half is
    asked: as in a person's library, a passage of any document may come closest."""
    if args.questions is not None:  # a custom file: its PDFs are in --corpus
        questions = load_questions(args.questions)
        return [("custom", questions, args.corpus or DEFAULT_CORPUS, _own_documents(questions))]
    if args.set in REAL_SETS:
        docs = real_corpus.load_manifest()
        path = (
            real_corpus.SEALED_FILES[SEALED_SETS[args.set]]
            if args.set in SEALED_SETS
            else real_corpus.QUESTIONS
        )
        questions = [q.as_question() for q in real_corpus.load_real_questions(path, docs)]
        folder = real_corpus.fetch(docs, args.corpus or real_corpus.CACHE)
        return [(args.set, questions, folder, sorted(d.file for d in docs))]
    names = list(SETS) if args.set == "all" else [args.set]
    runs: list[SetRun] = []
    for name in names:
        qs = SETS[name]
        override = args.corpus if name == "manuals" else None
        questions = load_questions(qs.questions)
        runs.append((name, questions, qs.prepare(override), _own_documents(questions)))
    return runs


def run_set(
    name: str,
    all_questions: list[Question],
    corpus: Path,
    lib_path: Path,
    args: argparse.Namespace,
    *,
    docs: Sequence[str],
    quiet: bool = False,
) -> dict[str, Any] | int:
    """Build the set's library of ``docs``, ask its questions; the set's report, or an exit code.

    ``quiet``: print no line about any one question (the sealed set)."""
    questions = select(all_questions, args.limit, args.ids, strict=args.questions is not None)
    if not questions:
        return {}
    missing = [d for d in docs if not (corpus / d).is_file()]
    if missing:
        print(f"{name}: missing from {corpus}: {', '.join(missing)}", file=sys.stderr)
        return 2

    from app.services.library import Library  # heavy imports only once arguments are fine

    print(f"== set {name}: {len(questions)} questions over {len(docs)} PDFs", file=sys.stderr)
    overrides: dict[str, Any] = {"library": lib_path, "model": args.model}
    if args.embedder is not None:
        overrides["embedder"] = args.embedder
    if args.top_k is not None:
        overrides["top_k"] = args.top_k
    settings = Settings(**overrides)
    top_k = settings.top_k
    library = Library(settings)
    t0 = time.perf_counter()
    doc_ids = build_library(library, [corpus / d for d in docs])
    library_s = time.perf_counter() - t0

    ask = None
    warm_s = 0.0
    model_name = ""
    if not args.retrieval_only:
        from app.services.ask import AskService

        ask = AskService(library, settings, always_judge=True)  # every row has it
        t0 = time.perf_counter()
        library.warm_up()  # as the desktop does at start: embedder, retriever,
        library.count_words()  # the term index
        warm = ask.ask(WARM_UP_QUESTION, top_k=top_k)  # loads the model; not in the figures
        t1 = time.perf_counter()
        words = ask.warm_words()  # the desktop does this in the background after warming up
        print(
            f"embedded {words} of the library's words in {time.perf_counter() - t1:.1f}s",
            file=sys.stderr,
        )
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
            if quiet:
                if i % 25 == 0 or i == len(questions):
                    print(f"[{i:>3}/{len(questions)}] asked", file=sys.stderr)
            else:
                print(_progress_line(i, len(questions), o, wall), file=sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C: still report what was measured so far
        interrupted = True
        print(f"interrupted after {len(outcomes)} questions", file=sys.stderr)
    run_s = time.perf_counter() - t_run
    config = {
        "corpus": str(corpus),
        "documents": docs,
        "model_name": model_name,
        "top_k": top_k,
        "library_s": round(library_s, 1),
        "warm_up_s": round(warm_s, 1),
        "run_s": round(run_s, 1),
        "interrupted": interrupted,
    }
    summary = summarize(outcomes, ks=(5, top_k))
    return {"config": config, "summary": summary, "questions": [asdict(o) for o in outcomes]}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    started = datetime.now(UTC)
    runs = set_runs(args)
    if args.ids:
        known = {q.id for _, questions, _, _ in runs for q in questions}
        unknown = [i for i in args.ids.split(",") if i.strip() and i.strip() not in known]
        if unknown:
            raise SystemExit(f"unknown question ids: {', '.join(unknown)}")
    reports: dict[str, dict[str, Any]] = {}
    with library_dir(args.library) as lib_root:
        for name, questions, corpus, docs in runs:
            # One library per set: a set's figures never depend on which other sets ran.
            quiet = name in SEALED_SETS
            folder = lib_root / ("real" if name in REAL_SETS else name)  # one library of all
            result = run_set(name, questions, corpus, folder, args, docs=docs, quiet=quiet)
            if isinstance(result, int):
                return result
            if result:
                reports[name] = result
            if result and result["config"]["interrupted"]:
                break

    config = {
        "started_at": started.isoformat(timespec="seconds"),
        "sets": list(reports),
        "model": str(args.model) if args.model else EMBEDDED,
        "embedder": str(args.embedder) if args.embedder else EMBEDDED,
        "embedder_name": embedder_name(args.embedder),
        "retrieval_only": args.retrieval_only,
        "library": str(args.library) if args.library else "temporary",
    }
    if args.set in REAL_SETS:
        for name, r in reports.items():
            r["real"] = real_figures(name, r, args)
    for name in SEALED_SETS:  # their questions and statuses are not kept where anyone reads them
        if (sealed := reports.get(name)) is not None:
            sealed["questions"] = []
    report = {"config": config, "sets": reports}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")

    for name, r in reports.items():
        print(f"\n=== {name} ({r['config']['run_s']:.0f}s, top-k {r['config']['top_k']}) ===")
        print(format_table(r["summary"]))
        if "real" in r:
            print(r["real"]["text"])
    if len(reports) > 1:
        print("\n=== side by side ===")
        print(format_comparison({n: r["summary"] for n, r in reports.items()}))
    print(f"\nJSON written to {args.out}")
    if any(r["config"]["interrupted"] for r in reports.values()):
        return 130
    bad = any(
        r["summary"]["errors"] or r["summary"]["citations"]["invalid_shown"]
        for r in reports.values()
    )
    return 1 if bad else 0


EMBEDDED = "embedded default"
"""What a run's ``config`` says for a model or embedder it did not choose by path."""


def embedder_name(path: Path | None) -> str:
    """The ``name`` the app gives the embedder of ``path`` (None: the embedded one): what the
    status model file records as the embedder its similarities come from."""
    from app.retrieval import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(path).name


def documents_of(name: str, docs: Sequence[real_corpus.Document]) -> list[real_corpus.Document]:
    """The documents whose questions the real-corpus run ``name`` asks: the development
    documents for "real", a sealed set's own for each of ``SEALED_SETS``."""
    if name in SEALED_SETS:
        return [d for d in docs if d.sealed and d.sealed_set == SEALED_SETS[name]]
    return [d for d in docs if not d.sealed]


def real_figures(name: str, report: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The real corpus's figures: per kind and language, cross-validated by document family
    (development half) or pooled alone (sealed half), and the one closing line."""
    docs = real_corpus.load_manifest()
    by_file = {d.file: d for d in docs}
    asked = documents_of(name, docs)
    outcomes = [Outcome(**q) for q in report["questions"]]
    ks = (5, report["config"]["top_k"])
    out: dict[str, Any] = {}
    lines: list[str] = []
    if name == "real":
        fold_of = real_corpus.folds(docs, args.cv)
        lines.append(f"\n--- document-held-out cross-validation, {args.cv} folds (no lever) ---")
        out["cv"] = cross_validate(outcomes, fold_of, args.cv, None, ks)
        lines.append(format_cv(out["cv"]))
        if not args.retrieval_only:
            lever = StatusModelLever()
            out["cv_status_model"] = cross_validate(outcomes, fold_of, args.cv, lever, ks)
            lines.append(
                f"\n--- the same with the status model refitted without each fold (lever "
                f"{lever.name}: weights and thresholds fitted on the other folds only; the "
                f"rows above use the shipped model, fitted on every fold) ---"
            )
            lines.append(format_cv(out["cv_status_model"]))
        questions = {q.id: q for q in real_corpus.load_real_questions(real_corpus.QUESTIONS, docs)}
        groupings: dict[str, Any] = {
            "document kind": lambda o: by_file[o.doc].kind,
            "document language": lambda o: by_file[o.doc].language,
            "question language": lambda o: questions[o.id].language,
            "question style": lambda o: questions[o.id].style,
            "unanswerable kind": lambda o: (
                None if o.answerable else "near miss" if questions[o.id].near_miss else "off topic"
            ),
        }
        for label, key in groupings.items():
            groups: dict[str, list[Outcome]] = {}
            for o in outcomes:
                if (g := key(o)) is not None:
                    groups.setdefault(g, []).append(o)
            figures = {g: headline(summarize(v, ks)) for g, v in sorted(groups.items())}
            out[f"by {label}"] = figures
            lines.append(f"\n--- by {label} ---")
            lines.extend(
                "  " + closing_line(g, f, retrieval_only=args.retrieval_only)
                for g, f in figures.items()
            )
        pooled = out.get("cv_status_model", out["cv"])["pooled"]
    else:
        pooled = headline(summarize(outcomes, ks))
    if not args.retrieval_only:
        # the same answers decided by the model fitted without the judgement, which decides a
        # server's or another GGUF's answers (status_model.for_chat_model): pooled only
        unjudged = without_judgement()
        out["without_judgement"] = headline(
            summarize([redecide(o, unjudged) for o in outcomes], ks)
        )
        lines.append(
            "\n--- the same answers decided without the chat model's judgement (the model "
            "another chat model's answers are decided by; shipped, fitted on every fold) ---"
        )
        lines.append("  " + closing_line(name, out["without_judgement"], retrieval_only=False))
    kinds = len({d.kind for d in asked})
    languages = len({d.language for d in asked})
    line = closing_line(
        name,
        pooled,
        documents=len(asked),
        kinds=kinds,
        languages=languages,
        retrieval_only=args.retrieval_only,
    )
    lines.append("\n" + line)
    out["line"] = line
    out["text"] = "\n".join(lines)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
