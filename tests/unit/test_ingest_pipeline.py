"""The ingestion pipeline's orchestration: its stage profile, the model loading while files are
parsed, and the work it no longer repeats (optimizing tables nothing wrote to).

Real PDFs (tests/pdf_factory.py), real parsing in the parse worker, a real LanceDB in tmp_path;
a fast fake embedder where the model itself is not what is tested. No figure here is a speed:
the profile's keys and shape are checked, never how long a stage took.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.errors import ModelLoadError
from app.core.progress import Progress, Stage
from app.core.timing import INGEST_STAGES, StageTimes
from app.services.library import Library
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.unit

PARSE_STAGES = {"open", "content_check", "layout", "tables", "ocr_detect", "chunk", "parse_other"}


class SlowLoadingEmbedder(HashEmbedder):
    """Records on which thread, and before which progress event, its model was loaded."""

    def __init__(self, events: list[str], fail: bool = False) -> None:
        super().__init__()
        self.events = events
        self.fail = fail
        self.loaded_on: str | None = None

    @property
    def dim(self) -> int:
        if self.loaded_on is None:
            self.loaded_on = threading.current_thread().name
            self.events.append("model loaded")
        if self.fail:
            raise ModelLoadError("The embedding model folder /nowhere does not exist.")
        return self._dim

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        _ = self.dim
        return super().embed(texts, batch_size=batch_size)


def test_the_profile_names_every_stage_per_file_and_for_the_run(tmp_path: Path) -> None:
    files = [pf.make_manual_pdf(tmp_path / "a.pdf"), pf.make_two_column_pdf(tmp_path / "b.pdf")]
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    outcome = lib.ingest(files)
    for r in outcome.results:
        assert r.status == "added"
        stages = set(r.timings_ms)
        assert PARSE_STAGES | {"hash", "transfer", "store", "embedding", "commit"} <= stages
        assert stages <= set(INGEST_STAGES)
        assert all(ms >= 0 for ms in r.timings_ms.values())
    run = outcome.timings_ms
    assert {"worker_start", "model_load", "bm25", "compaction", "embedding"} <= set(run)
    assert list(run) == [s for s in INGEST_STAGES if s in run]  # in pipeline order
    for stage in ("layout", "store", "embedding"):  # the run's figure sums the files'
        assert run[stage] == pytest.approx(sum(r.timings_ms[stage] for r in outcome.results), 0.01)

    again = lib.ingest(files)  # nothing to do: unchanged files have no parse stages
    assert [r.status for r in again.results] == ["unchanged", "unchanged"]
    assert all(not (PARSE_STAGES & set(r.timings_ms)) for r in again.results)


def test_the_model_loads_while_files_are_parsed(tmp_path: Path) -> None:
    events: list[str] = []
    embedder = SlowLoadingEmbedder(events)
    lib = Library(Settings(library=tmp_path / "lib"), embedder=embedder)
    files = [pf.make_manual_pdf(tmp_path / "a.pdf"), pf.make_paper_pdf(tmp_path / "b.pdf")]

    def progress(p: Progress) -> None:
        if p.stage in (Stage.PARSE, Stage.INDEXED):
            events.append(p.stage.value)

    lib.ingest(files, on_progress=progress)
    assert embedder.loaded_on == "embedder-load"  # not the ingest's own thread
    assert events.index("model loaded") < events.index("indexed")
    assert {d.status for d in lib.documents()} == {"ready"}


def test_no_model_is_loaded_for_a_keyword_only_ingest(tmp_path: Path) -> None:
    embedder = SlowLoadingEmbedder([])
    lib = Library(Settings(library=tmp_path / "lib"), embedder=embedder)
    outcome = lib.ingest([pf.make_manual_pdf(tmp_path / "a.pdf")], embed=False)
    assert [r.status for r in outcome.results] == ["added"]
    assert embedder.loaded_on is None


def test_a_model_that_fails_to_load_ahead_fails_where_it_is_used(tmp_path: Path) -> None:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=SlowLoadingEmbedder([], fail=True))
    outcome = lib.ingest([pf.make_manual_pdf(tmp_path / "a.pdf")])
    assert [r.status for r in outcome.results] == ["added"]  # keyword-searchable all the same
    assert outcome.embed_error and "/nowhere does not exist" in outcome.embed_error
    assert {d.status for d in lib.documents()} == {"indexed"}


def test_a_table_nothing_wrote_to_is_not_optimized_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder())
    lib.ingest([pf.make_manual_pdf(tmp_path / "a.pdf")])
    store = lib.store
    calls: list[str] = []
    for name in ("_chunks", "_documents", "_vectors"):
        table = getattr(store, name)
        real = table.optimize
        monkeypatch.setattr(
            table, "optimize", lambda *a, _n=name, _r=real, **k: (calls.append(_n), _r(*a, **k))[1]
        )
    store.optimize()
    assert calls == []  # the ingest optimized all three last; nothing changed since
    lib.ingest([pf.make_paper_pdf(tmp_path / "b.pdf")], embed=False)
    assert "_chunks" in calls and "_documents" in calls  # written to: optimized
    assert "_vectors" not in calls  # the keyword-only ingest wrote no vector
    calls.clear()
    lib.embed_pending()
    assert "_vectors" in calls and "_chunks" not in calls  # embedding writes no chunk


def test_stage_times_sum_merge_and_report_in_pipeline_order() -> None:
    times = StageTimes({"commit": 1.0})
    times.add("layout", 2.0)
    times.merge({"layout": 0.5, "custom": 3.0})
    with times.stage("open"):
        pass
    report = times.report(1)
    assert list(report) == ["open", "layout", "commit", "custom"]
    assert report["layout"] == 2.5 and report["open"] >= 0
    assert times.total() == pytest.approx(6.5, abs=0.1)
