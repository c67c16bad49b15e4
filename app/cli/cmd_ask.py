"""`footnote ask QUESTION`: an answer from your documents, with validated citations.

Without --json the answer streams to the terminal as the model writes it, then each
surviving citation is listed as ``[n] file, p. X, section: "quote"`` followed by the
validation status. If validation changed the text (markers removed, a repair retry,
an extractive fallback), the checked answer is printed again: only that one is proven.
`--json` prints the Answer object; `--batch FILE` asks one question per line with the
model loaded once and prints JSON Lines.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli import common
from app.core.config import Settings
from app.core.errors import Cancelled, FootnoteError
from app.core.models import Answer
from app.core.progress import DRAFT_NOTE, CancelToken
from app.core.terminal import safe_line, safe_text

if TYPE_CHECKING:
    from app.services.ask import AskService

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", nargs="?", metavar="QUESTION", help="What to ask.")
    common.add_library_option(parser)
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="GGUF",
        help="Chat model file (default: the embedded SmolLM2-135M).",
    )
    parser.add_argument(
        "--llm-url",
        default=None,
        metavar="URL",
        help="Use an OpenAI-compatible llama.cpp server instead of a local model.",
    )
    common.add_scope_options(
        parser,
        top_k_help="Sources to retrieve (default 8).",
        doc_help="Only use this document (repeatable).",
    )
    parser.add_argument(
        "--free-quotes",
        action="store_true",
        help="Let the model quote freely instead of picking whole shown sentences "
        "(for large models; the validator still checks every quote).",
    )
    common.add_json_option(parser)
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="Ask each line of FILE ('-' = stdin); prints one JSON object per line.",
    )


def _settings(args: argparse.Namespace) -> Settings:
    return common.settings_from_args(args, model=args.model, llm_url=args.llm_url or None)


def run(args: argparse.Namespace) -> int:
    if (args.question is None) == (args.batch is None):
        common.error("give either a QUESTION or --batch FILE (not both).")
        return common.EXIT_USAGE
    if args.question is not None and not args.question.strip():
        common.error("the question is empty.")
        return common.EXIT_USAGE
    if not common.top_k_is_valid(args):
        return common.EXIT_USAGE
    if args.model is not None and args.llm_url:
        common.error("use either --model or --llm-url, not both.")
        return common.EXIT_USAGE
    try:
        questions = [args.question] if args.batch is None else common.read_batch(args.batch)
    except OSError as exc:
        common.error(f"cannot read the batch file {args.batch}: {exc.strerror}.")
        return common.EXIT_USAGE

    from app.services.ask import AskService
    from app.services.library import Library

    settings = _settings(args)
    try:
        library = Library(settings)
        service = AskService(library, settings, free_quotes=args.free_quotes)
        if args.model is not None:
            service.load_model(args.model)  # a bad file fails here, clearly
        with common.cancel_on_sigint() as cancel:
            if args.batch is not None:
                for q in questions:
                    answer = service.ask(q, doc_ids=args.doc_ids, top_k=args.top_k, cancel=cancel)
                    common.print_json(answer_json(answer), indent=None)
                return common.EXIT_OK
            if args.json:
                answer = service.ask(
                    questions[0], doc_ids=args.doc_ids, top_k=args.top_k, cancel=cancel
                )
                common.print_json(answer_json(answer))
                return common.EXIT_OK
            return _ask_interactive(service, questions[0], args, cancel)
    except Cancelled:
        print("\nCancelled.", file=sys.stderr)
        return 130
    except FootnoteError as exc:
        return common.report_error(exc)


def answer_json(answer: Answer) -> dict[str, Any]:
    """The `--json` object: the Answer as JSON (rects as [page, x0, y0, x1, y1] lists)."""
    return answer.model_dump(mode="json")


def support_line(answer: Answer) -> str | None:
    """The line under an answer's status saying what it rests on: the support check's score,
    the status model's estimate that the quotes answer the question, the question's words the
    quotes cover and, unless the answer is GREEN, those they lack. A GREEN answer claims
    nothing lacking (the status model weighed the words the check missed: "the default
    prompt string" answered by "PS2 The secondary prompt string" misses only "default"), so
    its line does not list them as missing; ``--json`` keeps them."""
    support = answer.validation.support
    if support is None:
        return None
    line = f"Support {support.score:.2f}"
    if support.probability is not None and answer.kind != "refusal":
        line += f", estimated {support.probability:.0%} likely to answer the question"
    if support.covered:
        line += ": covers " + ", ".join(support.covered)
    if support.missing and answer.validation.status != "GREEN":
        line += "; missing " + ", ".join(support.missing)
    return line


def _write_support(out: Any, answer: Answer) -> None:
    """What the support check found, and a refusal's closest passages to check by hand."""
    support = answer.validation.support
    line = support_line(answer)
    if support is None or line is None:
        return
    out.write(line + "\n")
    for reason in support.reasons:
        if reason not in answer.validation.flags:
            out.write(f"  ! {safe_line(reason)}\n")
    if support.closest:
        out.write("\nClosest passages:\n")
    for c in support.closest:
        section = f", {c.section}" if c.section else ""
        quote = " ".join(c.quote.split())  # a table's rows or a list: one line here
        out.write(safe_line(f'  {Path(c.file).name}, p. {c.page}{section}: "{quote}"') + "\n")


def _ask_interactive(
    service: AskService, question: str, args: argparse.Namespace, cancel: CancelToken
) -> int:
    out = sys.stdout
    streamed: list[str] = []

    def on_token(piece: str) -> None:
        if not streamed:  # on stderr, as the desktop says it: not the answer until checked
            print(DRAFT_NOTE, file=sys.stderr, flush=True)
        streamed.append(piece)
        out.write(safe_text(piece))
        out.flush()

    answer: Answer = service.ask(
        question, doc_ids=args.doc_ids, top_k=args.top_k, on_token=on_token, cancel=cancel
    )
    text = "".join(streamed).strip()
    if text:
        out.write("\n")
    if answer.answer.strip() != text:
        label = {
            "generated": "Checked answer",
            "extractive": "From the sources (the model's answer could not be verified)",
            "summary": "Summary (the document's own sentences, each cited)",
            "refusal": "No answer",
        }[answer.kind]
        if text:
            out.write(f"\n{label}:\n")
        out.write(safe_text(answer.answer.strip()) + "\n")
    if answer.citations:
        out.write("\n")
    for c in answer.citations:
        section = f", {safe_line(c.section)}" if c.section else ""
        name = safe_line(Path(c.file).name)
        out.write(f'[{c.n}] {name}, p. {c.page}{section}: "{safe_line(c.quote)}"\n')
    v = answer.validation
    # A refusal is its own status ("not answered"), never GREEN or YELLOW.
    status = "NOT ANSWERED" if answer.kind == "refusal" else v.status
    line = f"\n{status}: {len(answer.citations)} citation(s) verified"
    if v.dropped:
        reasons = ", ".join(sorted({d.reason for d in v.dropped}))
        line += f", {len(v.dropped)} dropped ({reasons})"
    if v.repaired:
        line += ", repaired"
    t = answer.timings_ms
    line += f"; {answer.kind}; {t.get('total', 0) / 1000:.1f} s"
    out.write(line + "\n")
    for flag in v.flags:
        out.write(f"  ! {safe_line(flag)}\n")
    _write_support(out, answer)
    out.flush()
    return common.EXIT_OK
