"""Compare two answer evaluations question by question: status and cited pages.

    python -m tests.bench.compare_runs BEFORE AFTER

Each of BEFORE and AFTER is an ``eval_answers --out`` JSON or a reference summary written by
``--summary`` (``tests/bench/reference/*.jsonl``: one line per question with its status, kind,
cited pages and first reason, small enough to keep in the repository, so a later session on
another machine can compare with it). Prints every question whose status or cited pages
differ, then how many did.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Row = dict[str, Any]


def summary(result: Row) -> Row:
    """One question's outcome, as kept in a reference summary."""
    support = result.get("support") or {}
    return {
        "id": result["id"],
        "answerable": result["answerable"],
        "status": result["status"],
        "kind": result["kind"],
        "pages": sorted({c["page"] for c in result.get("citations", [])}),
        "reason": (support.get("reasons") or [""])[0],
        "question": result["question"],
    }


def load(path: Path) -> dict[str, Row]:
    """Question id -> summary, from an eval JSON (every set in it) or a summary JSONL."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        return {r["id"]: r for r in rows}
    out: dict[str, Row] = {}
    for report in json.loads(text)["sets"].values():
        for r in report["questions"]:
            out[r["id"]] = summary(r)
    return out


def differences(before: dict[str, Row], after: dict[str, Row]) -> list[str]:
    lines = []
    for qid, a in before.items():
        b = after.get(qid)
        if b is None or (a["status"], a["pages"]) == (b["status"], b["pages"]):
            continue
        kind = "A" if a["answerable"] else "U"
        lines.append(
            f"{qid} {kind} {a['status']} {a['pages']} -> {b['status']} {b['pages']}"
            f"  {b['reason'][:70]!r}  {a['question'][:60]}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?")
    parser.add_argument(
        "--summary", type=Path, help="Write BEFORE's per-question summary to this JSONL."
    )
    args = parser.parse_args(argv)
    before = load(args.before)
    if args.summary:
        args.summary.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in before.values()),
            encoding="utf-8",
        )
    if args.after is None:
        return 0
    after = load(args.after)
    lines = differences(before, after)
    print("\n".join(lines) if lines else "no status or cited page changed")
    print(f"{len(lines)} of {len(before)} questions changed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
