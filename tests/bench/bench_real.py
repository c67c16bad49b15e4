"""``bench_ingest --real``: whole-process ingestion of real PDFs beside the yardstick (issue 32).

Runs, each a fresh process with its models loaded by itself (see ``ingest_runs``):

- ``full``: ``footnote ingest FILES --json`` into a new library: fully embedded;
- ``keyword``: the same with ``--no-embed``: keyword-searchable;
- ``yardstick``: ``tests.bench.yardstick`` on the same files;
- ``ocr``: ``footnote ingest SCAN --no-embed`` of a generated scan, two OCR workers.

With ``--compare-ref REF`` every ingest run is made by both checkouts back to back (the order
alternates between rounds), so the two are compared within the same minutes of load; the
yardstick is the same code for both. Prints, per checkout, the medians over ``--repeat``
rounds and the per-stage profile of the full ingest (its ``timings_ms``), then the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
from pathlib import Path
from typing import Any

from tests.bench.ingest_runs import (
    ROOT,
    Measured,
    add_worktree,
    describe,
    ingest_cmd,
    make_scan,
    measure,
    remove_worktree,
    tmpdir,
    yardstick_cmd,
)
from tests.bench.real.corpus import CACHE

TARGETS = {
    "ratio_to_yardstick": 0.75,  # at most
    "embedded_pages_per_s": 15.0,
    "keyword_pages_per_s": 100.0,
    "peak_rss_mb": 1500.0,  # under
    "ocr_pages_per_s": 1.0,
}
PHASES = ("index", "embed", "total", "open_library")


def _pages(m: Measured) -> int:
    if "pages" in m.out:  # the yardstick
        return int(m.out["pages"])
    return sum(r["pages"] for r in m.out.get("results", []) if r["status"] != "failed")


def _ocr_pages(m: Measured) -> int:
    return sum(int(r.get("ocr_pages", 0)) for r in m.out.get("results", []))


def _line(m: Measured, pages: int) -> str:
    rate = f"{pages / m.wall_s:6.1f} pages/s" if m.wall_s else ""
    failed = [r["file"] for r in m.out.get("results", []) if r["status"] == "failed"]
    bad = f"  rc={m.rc} FAILED {len(failed)}: {failed[:3]}" if m.rc or failed else ""
    return (
        f"  {m.label:34s} {m.wall_s:8.1f} s wall {m.cpu_s:8.1f} s CPU {rate}"
        f"  RSS {m.peak_rss_mb:6.0f} MB  load {m.load[0]:.1f}->{m.load[1]:.1f}{bad}"
    )


def run_real(args: argparse.Namespace) -> int:
    corpus: Path = args.corpus or CACHE / "corpus"
    files = sorted(corpus.glob("*.pdf"))[: args.files]
    if not files:
        raise SystemExit(f"No PDFs in {corpus}: python -m tests.bench.real.corpus fetches them.")
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    out_path: Path = args.out
    if out_path.name == "bench_ingest.json":
        out_path = out_path.with_name("bench_ingest_real.json")
    work = tmpdir()
    checkouts: list[tuple[str, Path]] = [(f"this checkout {describe('HEAD')}", ROOT)]
    worktrees: list[Path] = []
    print(
        f"Real-world ingestion: {len(files)} PDFs from {corpus}; {os.cpu_count()} cores, load "
        f"average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    runs: list[Measured] = []
    try:
        if args.compare_ref:
            worktrees.append(add_worktree(args.compare_ref, work))
            checkouts.append((f"ref {describe(args.compare_ref)}", worktrees[-1]))
        scan = None
        if "ocr" not in skip:
            scan = make_scan(work / "scan.pdf", args.ocr_pages, args.ocr_dpi)
        for rnd in range(args.repeat):
            order = checkouts if rnd % 2 == 0 else checkouts[::-1]
            if "yardstick" not in skip:
                m = measure("yardstick", yardstick_cmd(files), ROOT)
                runs.append(m)
                print(_line(m, _pages(m)), flush=True)
            for kind in ("full", "keyword"):
                if kind in skip:
                    continue
                for name, root in order:
                    lib = work / f"lib-{len(runs)}"
                    m = measure(
                        f"{kind}: {name}", ingest_cmd(files, lib, embed=kind == "full"), root
                    )
                    shutil.rmtree(lib, ignore_errors=True)
                    runs.append(m)
                    print(_line(m, _pages(m)), flush=True)
            if scan is not None:
                for name, root in order:
                    lib = work / f"lib-{len(runs)}"
                    env = {"FOOTNOTE_OCR_WORKERS": "2"}
                    m = measure(f"ocr: {name}", ingest_cmd([scan], lib, embed=False), root, env)
                    shutil.rmtree(lib, ignore_errors=True)
                    runs.append(m)
                    print(_line(m, _pages(m)), flush=True)
    finally:
        for wt in worktrees:
            remove_worktree(wt)
        shutil.rmtree(work, ignore_errors=True)
    report = summarise(runs, [name for name, _ in checkouts])
    report["files"] = [f.name for f in files]
    report["runs"] = [m.as_dict() for m in runs]
    report["targets"] = TARGETS
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    print_report(report)
    print(f"\nWrote {out_path}")
    return 0


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def summarise(runs: list[Measured], names: list[str]) -> dict[str, Any]:
    """Medians per checkout; the ratio pairs each full run with its round's yardstick."""
    yard = [m for m in runs if m.label == "yardstick"]
    out: dict[str, Any] = {"checkouts": {}}
    if yard:
        out["yardstick"] = {
            "wall_s": _median([m.wall_s for m in yard]),
            "pages_per_s": _median([_pages(m) / m.wall_s for m in yard]),
            "pieces": yard[0].out.get("pieces"),
            "embed_s": _median([m.out.get("embed_s", 0.0) for m in yard]),
            "peak_rss_mb": max(m.peak_rss_mb for m in yard),
        }
    for name in names:
        full = [m for m in runs if m.label == f"full: {name}"]
        kw = [m for m in runs if m.label == f"keyword: {name}"]
        ocr = [m for m in runs if m.label == f"ocr: {name}"]
        row: dict[str, Any] = {}
        if full:
            ratios = []
            for i, m in enumerate(full):
                if i < len(yard) and yard[i].wall_s:
                    ratios.append(m.wall_s / yard[i].wall_s)
            row.update(
                full_wall_s=_median([m.wall_s for m in full]),
                embedded_pages_per_s=_median([_pages(m) / m.wall_s for m in full]),
                ratio_to_yardstick=_median(ratios),
                full_cpu_s=_median([m.cpu_s for m in full]),
                peak_rss_mb=max(m.peak_rss_mb for m in full),
                pages=_pages(full[0]),
                chunks=sum(r["chunks"] for r in full[0].out.get("results", [])),
                ocr_pages_in_corpus=_ocr_pages(full[0]),
                profile=full[-1].out.get("timings_ms", {}),
            )
        if kw:
            row.update(
                keyword_wall_s=_median([m.wall_s for m in kw]),
                keyword_pages_per_s=_median([_pages(m) / m.wall_s for m in kw]),
                keyword_cpu_s=_median([m.cpu_s for m in kw]),
                keyword_profile=kw[-1].out.get("timings_ms", {}),
            )
        if ocr:
            n = _ocr_pages(ocr[0])
            stage = [m.out.get("timings_ms", {}).get("ocr") for m in ocr]
            row.update(
                ocr_pages=n,
                ocr_process_pages_per_s=_median([n / m.wall_s for m in ocr]),
                ocr_pages_per_s=_median([n / (ms / 1000) for ms in stage if ms]),
            )
        out["checkouts"][name] = row
    return out


def print_report(report: dict[str, Any]) -> None:
    names = list(report["checkouts"])
    rows = report["checkouts"]
    print()
    for name in names:
        r = rows[name]
        prof = r.get("profile") or {}
        stages = {k: v for k, v in prof.items() if k not in PHASES}
        if not stages:
            continue
        pages = r.get("pages") or 1
        whole = (r.get("full_wall_s") or 0) * 1000 or prof.get("total", 1.0)
        print(f"Stage profile of the full ingest, {name} ({pages} pages, wall ms summed):")
        for k, v in stages.items():
            print(
                f"  {k:14s} {v:10.0f} ms  {100 * v / whole:5.1f} % of the process  "
                f"{v / pages:7.2f} ms/page"
            )
        for k in PHASES:
            if k in prof:
                print(f"  [{k}] {prof[k]:.0f} ms")
    y = report.get("yardstick") or {}
    if y:
        print(
            f"\nYardstick: {y['wall_s']} s whole process ({y['pages_per_s']} pages/s; "
            f"{y['pieces']} pieces, embedding {y['embed_s']} s), peak RSS {y['peak_rss_mb']} MB"
        )
    print()
    header = "".join(f"{n[:30]:>32s}" for n in names)
    print(f"  {'':34s}{header}   target")
    lines = [
        ("whole process, fully embedded (s)", "full_wall_s", ""),
        ("pages/s fully embedded", "embedded_pages_per_s", ">= 15"),
        ("ratio to the yardstick", "ratio_to_yardstick", "<= 0.75"),
        ("CPU s, fully embedded", "full_cpu_s", ""),
        ("pages/s keyword-searchable", "keyword_pages_per_s", ">= 100"),
        ("peak RSS MB (fully embedded)", "peak_rss_mb", "< 1500"),
        ("OCR pages/s (OCR stage)", "ocr_pages_per_s", ">= 1"),
        ("OCR pages/s (whole process)", "ocr_process_pages_per_s", ""),
        ("pages read by OCR in the corpus", "ocr_pages_in_corpus", ""),
    ]
    for label, key, target in lines:
        cells = "".join(f"{str(rows[n].get(key, '-')):>32s}" for n in names)
        print(f"  {label:34s}{cells}   {target}")
