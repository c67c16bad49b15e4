"""Team-library figures: ingestion through Ray (1 and 2 workers) vs the plain command, and
search latency against a local S3-compatible server (moto) at 10k chunks.

    python -m tests.bench.bench_team [--docs 8] [--pages 6] [--chunks 10000] [--queries 40]
        [--skip-ray] [--skip-local]

FOOTNOTE_REMOTE_REFRESH_S=0 makes the S3 reader re-check table versions on every query (the
local default) instead of every 5 s.

Everything runs on this machine: a local Ray cluster (``ray.init(num_cpus=2)``), moto in
server mode on 127.0.0.1. Figures are printed with the machine's load average, because on a
shared 2-core box they move with what else runs; compare the rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.core.models import Chunk, Document, ParsedDocument
from app.services.library import Library
from tests.bench.common import pct
from tests.integration.test_crash import WORDS as CRASH_WORDS
from tests.integration.test_crash import make_big_pdf

WORDS = CRASH_WORDS[:33]  # the content words of the crash test's vocabulary


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} CPUs"


def make_folder(root: Path, docs: int, pages: int) -> Path:
    folder = root / "pdfs"
    folder.mkdir()
    for i in range(docs):
        make_big_pdf(folder / f"report{i:02d}.pdf", seed=100 + i, pages=pages)
    return folder


def bench_ingest(folder: Path, root: Path, pages: int) -> dict[str, object]:
    from app.services.cluster import RayIngest, start_ray

    out: dict[str, object] = {}
    lib = Library(Settings(library=root / "plain"))
    lib.embedder.embed(["warm up"])  # like a worker, the plain run starts with a loaded model
    t0 = time.perf_counter()
    results = lib.ingest([folder]).results
    s = time.perf_counter() - t0
    assert all(r.status == "added" for r in results)
    out["plain"] = {"seconds": round(s, 1), "pages_per_s": round(pages / s, 2)}

    ray, started = start_ray(None, 2)
    try:
        for workers in (1, 2):
            job = RayIngest(Library(Settings(library=root / f"ray{workers}")), workers=workers)
            t0 = time.perf_counter()
            results = job.run([folder])
            s = time.perf_counter() - t0
            assert all(r.status == "added" for r in results), results
            st = job.stats
            worker_s = float(st["worker_seconds"])
            out[f"ray_{workers}"] = {
                "seconds": round(s, 1),
                "pages_per_s": round(pages / s, 2),
                "per_worker_pages_per_s": round(pages / worker_s, 2) if worker_s else None,
                "commit_s_per_doc": round(float(st["commit_seconds"]) / len(results), 3),
                "worker_s": round(worker_s, 1),
            }
    finally:
        if started:
            ray.shutdown()
    return out


def synthetic_doc(
    i: int, chunks: int, dim: int, rng: random.Random
) -> tuple[ParsedDocument, np.ndarray]:
    doc_id = f"{i:016x}"
    doc = Document(
        doc_id=doc_id, file=f"/bench/doc{i}.pdf", title=f"Report {i}", pages=chunks // 3 + 1
    )
    items = []
    for n in range(chunks):
        text = " ".join(rng.choice(WORDS) for _ in range(120)) + f" code R{i}-{n}."
        items.append(
            Chunk(
                chunk_id=Chunk.make_id(doc_id, n),
                doc_id=doc_id,
                ordinal=n,
                page_start=n // 3 + 1,
                page_end=n // 3 + 1,
                section=f"Section {n // 10}",
                text=text,
            )
        )
    vecs = np.asarray([rng.gauss(0, 1) for _ in range(chunks * dim)], dtype=np.float32).reshape(
        chunks, dim
    )
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return ParsedDocument(document=doc, chunks=items, sections=[]), vecs


def bench_search(uri: str, total_chunks: int, queries: int) -> dict[str, object]:
    lib = Library(Settings(library=uri))
    emb = lib.embedder
    store = lib.store
    store.set_embedder(emb.name, emb.dim)
    rng = random.Random(7)
    per_doc = 100
    t0 = time.perf_counter()
    for i in range(total_chunks // per_doc):
        parsed, vecs = synthetic_doc(i, per_doc, emb.dim, rng)
        store.add_document(parsed, vectors=vecs)
    store.optimize()
    build_s = time.perf_counter() - t0
    store.close()
    reader = Library(Settings(library=uri, read_only=True), embedder=emb)
    reader.warm_up()
    qs = [
        f"{rng.choice(WORDS)} {rng.choice(WORDS)} code R{rng.randrange(90)}-{rng.randrange(100)}"
        for _ in range(queries)
    ]
    totals, searches = [], []
    for q in qs:
        hits, t = reader.search(q, top_k=8)
        assert hits
        totals.append(t["total"])
        searches.append(t["search"])
    return {
        "chunks": store.count_chunks(),
        "build_s": round(build_s, 1),
        "search_ms_p50": pct(searches, 50),
        "search_ms_p95": pct(searches, 95),
        "total_ms_p50": pct(totals, 50),
        "total_ms_p95": pct(totals, 95),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--docs", type=int, default=8)
    p.add_argument("--pages", type=int, default=6)
    p.add_argument("--chunks", type=int, default=10_000)
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--skip-ray", action="store_true")
    p.add_argument("--skip-local", action="store_true")
    args = p.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    report: dict[str, object] = {"machine": load()}
    with tempfile.TemporaryDirectory(prefix="bench-team-") as tmp:
        root = Path(tmp)
        if not args.skip_ray:
            folder = make_folder(root, args.docs, args.pages)
            report["ingest"] = bench_ingest(folder, root, args.docs * args.pages)
            print(json.dumps(report, indent=1), flush=True)

        from moto.server import ThreadedMotoServer

        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        host, port = server.get_host_and_port()
        os.environ.update(
            AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1",
            AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ALLOW_HTTP="true",
        )  # fmt: skip
        import boto3

        boto3.client("s3", endpoint_url=f"http://{host}:{port}").create_bucket(Bucket="bench-team")
        try:
            report["search_s3"] = bench_search("s3://bench-team/lib", args.chunks, args.queries)
            if not args.skip_local:
                report["search_local"] = bench_search(
                    str(root / "local-10k"), args.chunks, args.queries
                )
        finally:
            server.stop()
    report["machine_after"] = load()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
