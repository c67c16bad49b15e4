"""The team library's single writer commits many documents at once (``--ray``'s driver).

Documents are prepared by the Ray actor body (``IngestWorker``) in this process, without Ray and
with a fast fake embedder; the driver's group commit writes them into a real LanceDB in tmp_path.
A group is one commit (one marker for all its documents); a group that cannot be written whole
is written one document at a time, and nothing is lost either way. The real cluster is exercised
by tests/integration/test_team_ray.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.ingest import ParseOptions
from app.services import cluster as cluster_mod
from app.services.cluster import IngestWorker, Prepared, RayIngest
from app.services.library import Library
from app.store import Store
from tests import pdf_factory as pf
from tests.fakes import HashEmbedder
from tests.store_invariants import assert_store_consistent

pytestmark = pytest.mark.unit


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    return [
        pf.make_manual_pdf(tmp_path / "a-manual.pdf"),
        pf.make_long_table_pdf(tmp_path / "b-table.pdf"),
        pf.make_paper_pdf(tmp_path / "c-paper.pdf"),
    ]


def _prepared(files: list[Path]) -> list[tuple[int, Prepared]]:
    worker = IngestWorker(None, 1, ParseOptions())
    worker._embedder = HashEmbedder()  # the actor's model, without loading one
    return [(i, worker.prepare(i, f.name, f.read_bytes())) for i, f in enumerate(files)]


def _job(tmp_path: Path) -> RayIngest:
    return RayIngest(Library(Settings(library=tmp_path / "lib"), embedder=HashEmbedder()))


def test_many_documents_are_one_commit(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _job(tmp_path)
    store = job.library.store
    calls: list[int] = []
    real = store.add_documents
    monkeypatch.setattr(
        store, "add_documents", lambda items: (calls.append(len(items)), real(items))[1]
    )
    broken = Prepared(3, error="broken.pdf is damaged.", error_code="corrupt_pdf")
    results = job._commit_group([*_prepared(files), (3, broken)], [*files, tmp_path / "broken.pdf"])
    assert calls == [3]  # three documents, one write
    assert [results[i].status for i in range(4)] == ["added", "added", "added", "failed"]
    assert results[3].error_code == "corrupt_pdf"
    docs = store.documents()
    assert len(docs) == 3 and {d.status for d in docs} == {"ready"}
    assert store.count_vectors() == store.count_chunks() == sum(results[i].chunks for i in range(3))
    assert {d.file for d in docs} == {str(f) for f in files}
    assert_store_consistent(store)


def test_a_group_replaces_what_it_updates(tmp_path: Path, files: list[Path]) -> None:
    job = _job(tmp_path)
    (known,) = job.library.ingest(files[:1], embed=False).results  # indexed, no vectors yet
    prepared = _prepared(files)
    results = job._commit_group(prepared, files)
    assert results[0].status == "added" and results[0].doc_id == known.doc_id  # replaced whole
    assert {d.status for d in job.library.documents()} == {"ready"}

    edited = pf.make_manual_pdf(files[0], title="Zephyr 3000 Field Manual, second edition")
    ((i, again),) = _prepared([edited])
    results = job._commit_group([(i, again)], [edited])
    assert results[0].status == "updated"  # a new version at the same path
    assert len(job.library.documents()) == 3
    assert_store_consistent(job.library.store)


def test_a_group_that_cannot_be_written_whole_is_written_one_by_one(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _job(tmp_path)
    store = job.library.store
    copy = tmp_path / "copy-of-a.pdf"
    copy.write_bytes(files[0].read_bytes())  # the same content twice: one id for two files
    prepared = _prepared([*files, copy])
    results = job._commit_group(prepared, [*files, copy])
    assert [results[i].status for i in range(4)] == ["added"] * 4  # none lost
    assert len(store.documents()) == 3  # the copy's content is one document
    assert_store_consistent(store)


def test_a_write_failing_mid_group_leaves_no_half_document(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documents rows are the commit marker: a failure after the chunks and vectors of the
    whole group were written, before the marker, leaves rows the next open sweeps away."""
    job = _job(tmp_path)
    store = job.library.store
    store.set_embedder("hash-64", 64)
    items = []
    for i, p in _prepared(files):
        assert p.parsed is not None
        doc = p.parsed.document.model_copy(update={"file": str(files[i])})
        items.append((p.parsed.model_copy(update={"document": doc}), p.vectors))

    class Boom(RuntimeError):
        pass

    def fail(*args: object, **kwargs: object) -> object:
        raise Boom("disk full")

    monkeypatch.setattr(store._documents, "merge_insert", fail)
    with pytest.raises(Boom):
        store.add_documents(items)
    assert store.documents() == [] and store.count_chunks() > 0  # rows without a marker
    monkeypatch.undo()
    reopened = Store(tmp_path / "lib")  # the crash sweep
    assert reopened.count_chunks() == 0 and reopened.count_vectors() == 0
    assert_store_consistent(reopened)
    assert len(reopened.add_documents(items)) == 3  # and the group goes in whole next time
    assert {d.status for d in reopened.documents()} == {"ready"}
    assert_store_consistent(reopened)


def test_the_driver_commits_when_a_group_is_full_or_has_waited(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _job(tmp_path)
    seen: list[int] = []
    group = cluster_mod._Group(job, files, {}, lambda p: seen.append(p.done))
    monkeypatch.setattr(cluster_mod, "GROUP_DOCS", 2)
    prepared = _prepared(files)
    group.add(*prepared[0])
    assert not group.due()
    group.add(*prepared[1])
    assert group.due()  # full
    group.commit()
    assert group.commits == 1 and seen == [1, 2]
    monkeypatch.setattr(cluster_mod, "GROUP_SECONDS", 0.0)
    group.add(*prepared[2])
    assert group.due()  # has waited long enough
    group.commit()
    group.commit()  # nothing waiting: no commit
    assert group.commits == 2 and seen == [1, 2, 3]
    assert group.pages == sum(r.pages for r in group.results.values())
    assert len(job.library.documents()) == 3
