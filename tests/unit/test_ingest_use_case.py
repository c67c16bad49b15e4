"""``Library.ingest``, the one ingestion use case, and its child-process runner.

Real PDFs, real parsing and a real LanceDB in tmp_path; a fast fake embedder where the
embedding model itself is not what is tested. Pins down the typed progress events (the
per-file counts the GUI shows), the two phases, embedding failures and cancellation.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.errors import StoreError
from app.core.progress import CancelToken, FileDone, FileProgress, Progress, Stage
from app.services import library as library_mod
from app.services.ingest_process import ingest_in_child
from app.services.library import Library
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.unit


class BrokenEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        raise RuntimeError("embedder exploded")


@pytest.fixture
def two_pdfs(tmp_path: Path) -> list[Path]:
    return [
        pf.make_manual_pdf(tmp_path / "a-manual.pdf"),
        pf.make_two_column_pdf(tmp_path / "b-columns.pdf"),
    ]


def test_stages_are_typed_and_unknown_ones_rejected() -> None:
    assert Progress("embed", 1, 2).stage is Stage.EMBED
    assert Stage.EMBED == "embed"  # still compares with its plain value
    with pytest.raises(ValueError):
        Progress("chunk", 0, 1)  # a stage nothing emits
    p = FileProgress(Stage.PARSE, 2, 5, file="x.pdf", index=1, count=3)
    assert pickle.loads(pickle.dumps(p)) == p  # crosses the process boundary intact


def test_events_give_per_file_counts_then_embed_phase(tmp_path: Path, two_pdfs: list[Path]) -> None:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    events: list[Progress] = []
    outcome = lib.ingest([tmp_path], on_progress=events.append)

    assert [r.status for r in outcome.results] == ["added", "added"]
    assert not outcome.cancelled and outcome.embed_error is None
    chunks = {r.file: r.chunks for r in outcome.results}
    pages = {r.file: r.pages for r in outcome.results}
    assert outcome.embedded_chunks == sum(chunks.values())
    assert outcome.index_ms > 0 and outcome.embed_ms > 0

    stages = [e.stage for e in events]
    indexed_at = stages.index(Stage.INDEXED)
    assert stages.count(Stage.INDEXED) == 1
    assert Stage.EMBED not in stages[:indexed_at]  # phase 1 entirely before phase 2
    assert {Stage.PARSE, Stage.INDEX, Stage.FILE} & set(stages[indexed_at:]) == set()

    files = [e for e in events if e.stage is Stage.FILE]
    assert [(e.done, e.total) for e in files] == [(0, 2), (1, 2), (2, 2)]

    per_file = [e for e in events if isinstance(e, FileProgress)]
    for e in per_file:
        assert e.count == 2 and e.file == str(two_pdfs[e.index].resolve())
    parse = [e for e in per_file if e.stage is Stage.PARSE]
    assert {e.file: e.total for e in parse} == pages  # a file's own pages, not the batch's
    embed_file = [e for e in per_file if e.stage is Stage.EMBED]
    last = {e.file: (e.done, e.total) for e in embed_file}
    assert last == {f: (n, n) for f, n in chunks.items()}  # a file's own passages

    overall = [e for e in events if e.stage is Stage.EMBED and not isinstance(e, FileProgress)]
    assert overall[0].done == 0 and overall[-1].done == overall[-1].total == sum(chunks.values())
    assert all(d.status == "ready" for d in lib.documents())


def test_embed_false_stops_after_keyword_index(tmp_path: Path) -> None:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    events: list[Progress] = []
    outcome = lib.ingest(
        [pf.make_manual_pdf(tmp_path / "m.pdf")], on_progress=events.append, embed=False
    )
    assert outcome.results[0].status == "added" and outcome.embedded_chunks == 0
    assert events[-1].stage is Stage.INDEXED
    assert lib.documents()[0].status == "indexed" and lib.store.count_vectors() == 0


def test_embedding_failure_is_reported_and_documents_stay_searchable(tmp_path: Path) -> None:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=BrokenEmbedder())
    outcome = lib.ingest([pf.make_manual_pdf(tmp_path / "m.pdf")])
    assert outcome.results[0].status == "added"
    assert outcome.embed_error is not None and "embedder exploded" in outcome.embed_error
    assert not outcome.cancelled
    assert lib.documents()[0].status == "indexed"
    assert lib.store.text_search("calibration", 3), "still keyword-searchable"


def test_cancel_in_embed_phase_then_an_empty_run_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_mod, "EMBED_BATCH", 2)
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    cancel = CancelToken()

    def stop_after_4(p: Progress) -> None:
        if p.stage is Stage.EMBED and p.done >= 4:
            cancel.cancel()

    outcome = lib.ingest(
        [pf.make_manual_pdf(tmp_path / "m.pdf")], on_progress=stop_after_4, cancel=cancel
    )
    [r] = outcome.results
    assert outcome.cancelled and r.status == "added" and outcome.embedded_chunks == 0
    assert lib.store.count_vectors() == 4 and lib.documents()[0].status == "indexed"
    rest = lib.ingest([])  # what the GUI runs to finish an interrupted session
    assert rest.results == [] and rest.embedded_chunks == r.chunks - 4
    assert lib.documents()[0].status == "ready"


def test_a_library_that_cannot_be_opened_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the library folder should be")
    pdf = pf.make_manual_pdf(tmp_path / "m.pdf")
    lib = Library(Settings(library=blocker / "lib"), embedder=HashEmbedder())
    with pytest.raises(StoreError, match="Cannot create the library folder"):
        lib.ingest([pdf])


def test_child_process_runs_the_same_use_case(tmp_path: Path, two_pdfs: list[Path]) -> None:
    settings = Settings(library=tmp_path / "lib")
    events: list[Progress] = []
    outcome = ingest_in_child(settings, two_pdfs, on_progress=events.append, embed=False)
    assert [r.status for r in outcome.results] == ["added", "added"] and not outcome.cancelled
    assert any(
        isinstance(e, FileProgress) and e.stage is Stage.PARSE and e.index == 1 for e in events
    )
    assert events[-1].stage is Stage.INDEXED
    docs = Library(settings, embedder=HashEmbedder()).documents()
    assert sorted(d.file for d in docs) == sorted(str(p.resolve()) for p in two_pdfs)


def test_child_process_cancelled_before_start_writes_nothing(
    tmp_path: Path, two_pdfs: list[Path]
) -> None:
    settings = Settings(library=tmp_path / "lib")
    cancel = CancelToken()
    cancel.cancel()
    outcome = ingest_in_child(settings, two_pdfs, cancel=cancel)
    assert outcome.cancelled and outcome.results == []
    assert Library(settings, embedder=HashEmbedder()).documents() == []


def test_each_file_reports_its_outcome_as_soon_as_it_is_through(tmp_path: Path) -> None:
    """A rejected file is known at once (the window says so), not when the whole batch ends."""
    good = pf.make_manual_pdf(tmp_path / "good.pdf")
    bad = pf.make_corrupt_pdf(tmp_path / "bad.pdf")
    later = pf.make_two_column_pdf(tmp_path / "later.pdf")
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    events: list[Progress] = []
    lib.ingest([bad, good, later], on_progress=events.append, embed=False)
    done = [e for e in events if isinstance(e, FileDone)]
    assert [(Path(e.file).name, e.status) for e in done] == [
        ("bad.pdf", "failed"),
        ("good.pdf", "added"),
        ("later.pdf", "added"),
    ]
    assert done[0].error and "damaged" in done[0].error
    # The failure is reported before the next file starts being read.
    first_done = events.index(done[0])
    good_parse = next(
        i for i, e in enumerate(events) if e.stage is Stage.PARSE and e.file == str(good)
    )
    assert first_done < good_parse
    assert pickle.loads(pickle.dumps(done[0])) == done[0]
