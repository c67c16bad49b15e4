"""Several processes opening one fresh library at the same instant all get it, whole.

Two first ingests into one new folder used to fail one in five times: the meta table was
created and then written in two commits, and a second process read it in between
(``cannot be read ('schema_version')``), or listed it before its first version existed.
Each round here opens a new library from three processes released by one barrier.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration]

ROUNDS = 20
PROCESSES = 3


def _open_each(paths: list[str], barrier: Any, out: Any) -> None:
    from app.store import Store

    for path in paths:
        barrier.wait(timeout=120)
        try:
            store = Store(path)
            out.put((path, "ok", store.meta.schema_version))
        except Exception as exc:  # noqa: BLE001 - reported to the test, which names it
            out.put((path, f"{type(exc).__name__}: {exc}", None))


def test_a_fresh_library_opened_by_three_processes_at_once(tmp_path: Path) -> None:
    from app.store import SCHEMA_VERSION, Store

    paths = [str(tmp_path / f"lib{i}") for i in range(ROUNDS)]
    ctx = mp.get_context("spawn")  # LanceDB's runtime threads do not survive a fork
    barrier = ctx.Barrier(PROCESSES)
    out = ctx.Queue()
    procs = [ctx.Process(target=_open_each, args=(paths, barrier, out)) for _ in range(PROCESSES)]
    for p in procs:
        p.start()
    results = []
    try:
        for _ in range(ROUNDS * PROCESSES):
            results.append(out.get(timeout=300))
    except queue.Empty:
        pass
    for p in procs:
        p.join(timeout=60)
    failures = [r for r in results if r[1] != "ok"]
    assert not failures, failures
    assert len(results) == ROUNDS * PROCESSES
    assert {r[2] for r in results} == {SCHEMA_VERSION}
    for path in paths:  # and each library is whole afterwards, for a reader too
        reader = Store(path, read_only=True)
        assert reader.meta.schema_version == SCHEMA_VERSION
        assert reader.documents() == []
