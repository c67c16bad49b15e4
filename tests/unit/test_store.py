"""Store on a real LanceDB in tmp_path, fed hand-built ParsedDocuments (no PDF parsing)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.core.charmap import CharMap, Piece
from app.core.errors import ReadOnlyLibraryError, StoreError
from app.core.models import Chunk, Document, ParsedDocument, Section
from app.store import SCHEMA_VERSION, Store
from app.store import store as store_mod
from app.store.lock import WriterLock
from app.store.rows import chunk_table
from app.store.schema import META, Meta, read_meta, write_meta

pytestmark = pytest.mark.unit

DIM = 8


def make_doc(
    doc_id: str,
    file: str,
    texts: list[str],
    *,
    title: str = "A Manual",
    sections: list[str] | None = None,
) -> ParsedDocument:
    sections = sections or [""] * len(texts)
    chunks = [
        Chunk(
            chunk_id=Chunk.make_id(doc_id, i),
            doc_id=doc_id,
            ordinal=i,
            page_start=i + 1,
            page_end=i + 2,
            section=sections[i],
            text=t,
            charmap=CharMap.from_pieces(
                [Piece(0, len(t), i + 1, 72.0, 100.0 + i, 300.0, 112.0, i)]
            ),
        )
        for i, t in enumerate(texts)
    ]
    doc = Document(doc_id=doc_id, file=file, title=title, pages=len(texts) + 1, status="indexed")
    return ParsedDocument(
        document=doc, chunks=chunks, sections=[Section(title="1 Intro", level=1, page=1)]
    )


def unit_vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "lib")


def test_add_and_read_back_roundtrips_every_field(store: Store) -> None:
    parsed = make_doc("a" * 16, "/docs/a.pdf", ["alpha text", "beta text"], sections=["", "2 Beta"])
    assert store.add_document(parsed) == []
    doc = store.get_document("a" * 16)
    assert doc is not None
    assert (doc.file, doc.title, doc.pages, doc.chunks, doc.status) == (
        "/docs/a.pdf",
        "A Manual",
        3,
        2,
        "indexed",
    )
    assert doc.ingested_at is not None
    chunks = store.get_chunks([parsed.chunks[1].chunk_id, "nope:00000", parsed.chunks[0].chunk_id])
    assert [c.chunk_id for c in chunks] == [parsed.chunks[1].chunk_id, parsed.chunks[0].chunk_id]
    assert chunks[0].text == "beta text" and chunks[0].section == "2 Beta"
    assert chunks[0].charmap == parsed.chunks[1].charmap
    assert chunks[0].charmap.rects(0, 4)[0].page == 2
    assert [c.ordinal for c in store.chunks_of("a" * 16)] == [0, 1]
    assert store.sections("a" * 16)[0].title == "1 Intro"
    assert [d.doc_id for d in store.find_by_path("/docs/a.pdf")] == ["a" * 16]


def test_text_search_indexes_titles_and_sections_and_filters(store: Store) -> None:
    store.add_document(
        make_doc(
            "a" * 16,
            "/a.pdf",
            ["the pump needs oil", "nothing here"],
            sections=["", "4 Calibration"],
        )
    )
    store.add_document(make_doc("b" * 16, "/b.pdf", ["the pump is red"], title="Gardening Guide"))
    store.optimize()
    assert store.text_search("calibration", 5)[0][0] == "a" * 16 + ":00001"
    assert store.text_search("gardening", 5)[0][0] == "b" * 16 + ":00000"
    pump = store.text_search("pump", 5)
    assert {c for c, _ in pump} == {"a" * 16 + ":00000", "b" * 16 + ":00000"}
    assert all(s > 0 for _, s in pump)
    assert [c for c, _ in store.text_search("pump", 5, ["b" * 16])] == ["b" * 16 + ":00000"]
    assert store.text_search("pump", 5, []) == []
    assert store.text_search("   ", 5) == []
    # Special characters are taken literally, not as query syntax.
    assert store.text_search('pump" AND (oil:', 5)


def test_rows_added_after_optimize_are_still_found(store: Store) -> None:
    store.add_document(make_doc("a" * 16, "/a.pdf", ["first words"]))
    store.optimize()
    store.add_document(make_doc("b" * 16, "/b.pdf", ["zanzibar appears later"]))
    assert [c for c, _ in store.text_search("zanzibar", 3)] == ["b" * 16 + ":00000"]


def test_vectors_search_filter_and_ready(store: Store) -> None:
    parsed = make_doc("a" * 16, "/a.pdf", ["x", "y", "z"])
    store.add_document(parsed)
    store.add_document(make_doc("b" * 16, "/b.pdf", ["w"]))
    with pytest.raises(StoreError):
        store.add_vectors("a" * 16, ["a" * 16 + ":00000"], unit_vec(0)[None])
    assert store.set_embedder("fake", DIM) is False
    ids = [c.chunk_id for c in parsed.chunks]
    store.add_vectors("a" * 16, ids, np.stack([unit_vec(i) for i in range(3)]))
    store.add_vectors("b" * 16, ["b" * 16 + ":00000"], unit_vec(1)[None])
    hits = store.vector_search(unit_vec(1), 2)
    assert {h[0] for h in hits} == {ids[1], "b" * 16 + ":00000"}
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [h[0] for h in store.vector_search(unit_vec(1), 5, ["a" * 16])][0] == ids[1]
    assert store.embedded_chunk_ids("a" * 16) == set(ids)
    with pytest.raises(StoreError):
        store.add_vectors("a" * 16, ids, np.zeros((3, DIM + 1), dtype=np.float32))
    store.mark_ready("a" * 16)
    assert [d.doc_id for d in store.pending_embeddings()] == ["b" * 16]


def test_changing_embedder_drops_vectors_and_requeues(store: Store) -> None:
    store.add_document(make_doc("a" * 16, "/a.pdf", ["x"]))
    store.set_embedder("fake", DIM)
    store.add_vectors("a" * 16, ["a" * 16 + ":00000"], unit_vec(0)[None])
    store.mark_ready("a" * 16)
    assert store.set_embedder("fake", DIM) is False
    assert store.set_embedder("other", 4) is True
    assert store.count_vectors() == 0
    assert [d.doc_id for d in store.pending_embeddings()] == ["a" * 16]
    reopened = Store(store.location)
    assert (reopened.meta.embedder, reopened.meta.dim) == ("other", 4)


def test_replace_by_path_swaps_document_and_drops_old_rows(store: Store) -> None:
    store.add_document(make_doc("a" * 16, "/same.pdf", ["old one", "old two"]))
    store.set_embedder("fake", DIM)
    store.add_vectors("a" * 16, ["a" * 16 + ":00000"], unit_vec(0)[None])
    assert store.add_document(make_doc("c" * 16, "/same.pdf", ["new one"])) == ["a" * 16]
    assert [d.doc_id for d in store.documents()] == ["c" * 16]
    assert store.count_chunks() == 1 and store.count_vectors() == 0
    assert store.text_search("old", 5) == []
    with pytest.raises(StoreError):
        store.add_document(make_doc("c" * 16, "/elsewhere.pdf", ["dup"]))


def test_remove(store: Store) -> None:
    store.add_document(make_doc("a" * 16, "/a.pdf", ["x", "y"]))
    store.add_document(make_doc("b" * 16, "/b.pdf", ["z"]))
    assert store.remove("a" * 16) is True
    assert store.remove("a" * 16) is False
    assert [d.doc_id for d in store.documents()] == ["b" * 16]
    assert store.count_chunks() == 1


def test_reopen_sweeps_uncommitted_and_incomplete_documents(tmp_path: Path) -> None:
    s = Store(tmp_path / "lib")
    s.add_document(make_doc("a" * 16, "/a.pdf", ["kept", "kept too"]))
    s.add_document(make_doc("b" * 16, "/b.pdf", ["damaged"]))
    s.set_embedder("fake", DIM)
    s.add_vectors("a" * 16, ["a" * 16 + ":00000"], unit_vec(0)[None])
    s.mark_ready("a" * 16)  # claims ready with 1 of 2 vectors
    # What a crash leaves: chunks and vectors written, commit marker never written ...
    orphan = make_doc("d" * 16, "/d.pdf", ["orphan words"])
    s._chunks.add(chunk_table("T", orphan.chunks))
    s.add_vectors("d" * 16, ["d" * 16 + ":00000"], unit_vec(2)[None])
    # ... and a committed document that lost a chunk (damaged table).
    s._chunks.delete(f"chunk_id = '{'b' * 16}:00000'")

    reopened = Store(tmp_path / "lib")
    assert [d.doc_id for d in reopened.documents()] == ["a" * 16]
    assert reopened.count_chunks() == 2
    assert reopened.text_search("orphan", 5) == []
    assert reopened.count_vectors() == 1  # a's partial vector kept, d's orphan gone
    assert reopened.get_document("a" * 16).status == "indexed"  # the rest is re-embedded


def test_add_vectors_is_idempotent_per_chunk(tmp_path: Path) -> None:
    """Two writers embedding the same document add each chunk's vector once."""
    s = Store(tmp_path / "lib")
    s.add_document(make_doc("a" * 16, "/a.pdf", ["one", "two", "three"]))
    s.set_embedder("fake", DIM)
    ids = [f"{'a' * 16}:{i:05d}" for i in range(3)]
    vecs = np.stack([unit_vec(i) for i in range(3)])
    s.add_vectors("a" * 16, ids[:2], vecs[:2])
    s.add_vectors("a" * 16, ids, vecs)  # the second writer: only the third is new
    s.add_vectors("a" * 16, [ids[0], ids[0]], vecs[:2])
    assert s.count_vectors() == 3
    assert s.embedded_chunk_ids("a" * 16) == set(ids)


def test_reopen_dedupes_doubled_vectors_and_keeps_the_document_ready(tmp_path: Path) -> None:
    """What two writers of an older Footnote left: every vector twice. The sweep keeps one
    per chunk (it once deleted them all and sent the document back to "indexed")."""
    s = Store(tmp_path / "lib")
    s.add_document(make_doc("a" * 16, "/a.pdf", ["one", "two"]))
    s.set_embedder("fake", DIM)
    ids = [f"{'a' * 16}:{i:05d}" for i in range(2)]
    vecs = np.stack([unit_vec(i) for i in range(2)])
    for _ in range(2):
        s._vectors.add(s._vector_table("a" * 16, ids, vecs))
    s.mark_ready("a" * 16)
    assert s.count_vectors() == 4
    reopened = Store(tmp_path / "lib")
    assert reopened.count_vectors() == 2
    assert reopened.embedded_chunk_ids("a" * 16) == set(ids)
    assert reopened.get_document("a" * 16).status == "ready"
    [(hit, score)] = reopened.vector_search(unit_vec(1), 1)
    assert hit == ids[1] and score > 0.99


def test_schema_version_is_checked(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    db = Store(lib)._db
    assert read_meta(db, "lib").schema_version == SCHEMA_VERSION
    write_meta(db, Meta(schema_version=SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match="newer version of Footnote"):
        Store(lib)
    db.open_table(META).update(where="key = 'schema_version'", values={"value": "x"})
    with pytest.raises(StoreError, match="cannot be read"):
        Store(lib)
    db.drop_table(META)
    with pytest.raises(StoreError, match="no Footnote meta table"):
        Store(lib)


def test_a_meta_table_without_rows_is_a_library_in_the_making(tmp_path: Path) -> None:
    """What a reader sees while the first writer creates the library, or after that writer
    crashed between creating the table and writing its rows (Footnote before 2026-11-24
    made those two commits; two first ingests at once failed on it)."""
    import lancedb

    from app.store.schema import META_SCHEMA

    lib = tmp_path / "lib"
    lib.mkdir()
    lancedb.connect(str(lib)).create_table(META, schema=META_SCHEMA)
    with pytest.raises(StoreError, match="no Footnote library at .* yet"):
        Store(lib, read_only=True)
    s = Store(lib)
    assert s.meta.schema_version == SCHEMA_VERSION
    assert read_meta(s._db, "lib") == Meta()
    assert Store(lib, read_only=True).meta == Meta()


def test_a_meta_table_without_a_first_version_is_created_anew(tmp_path: Path) -> None:
    """LanceDB lists a table once its folder exists, before its first version is committed."""
    lib = tmp_path / "lib"
    (lib / f"{META}.lance" / "data").mkdir(parents=True)
    with pytest.raises(StoreError, match="no Footnote library at .* yet"):
        Store(lib, read_only=True)
    assert Store(lib).meta == Meta()
    assert read_meta(Store(lib)._db, "lib") == Meta()


def test_meta_json_of_an_older_library_moves_into_the_store(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    s = Store(lib)
    s.set_embedder("fake", DIM)
    s._db.drop_table(META)
    (lib / "meta.json").write_text(
        json.dumps({"schema_version": SCHEMA_VERSION, "embedder": "fake", "dim": DIM})
    )
    reopened = Store(lib)
    assert (reopened.meta.embedder, reopened.meta.dim) == ("fake", DIM)
    assert not (lib / "meta.json").exists()
    assert read_meta(reopened._db, "lib").embedder == "fake"


def test_read_only_store_refuses_writes_and_needs_an_existing_library(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no Footnote library"):
        Store(tmp_path / "none", read_only=True)
    Store(tmp_path / "lib").add_document(make_doc("a" * 16, "/a.pdf", ["kept"]))
    ro = Store(tmp_path / "lib", read_only=True)
    assert [d.doc_id for d in ro.documents()] == ["a" * 16]
    with pytest.raises(ReadOnlyLibraryError, match="read-only"):
        ro.add_document(make_doc("b" * 16, "/b.pdf", ["no"]))
    with pytest.raises(ReadOnlyLibraryError):
        ro.remove("a" * 16)
    assert ro.set_embedder("fake", DIM) is False  # nothing embedded yet: nothing to refuse


def test_unwritable_library_folder_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot create the library folder"):
        Store(blocker / "lib")


def test_ann_index_is_built_past_threshold(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_mod, "ANN_THRESHOLD", 512)
    rng = np.random.default_rng(0)
    n = 600
    texts = [f"passage {i}" for i in range(n)]
    parsed = make_doc("e" * 16, "/e.pdf", texts)
    store.add_document(parsed)
    store.set_embedder("fake", DIM)
    vecs = rng.normal(size=(n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store.add_vectors("e" * 16, [c.chunk_id for c in parsed.chunks], vecs)
    assert not store.has_vector_index()
    store.optimize()
    assert store.has_vector_index()
    hits = store.vector_search(vecs[123], 5)
    assert hits[0][0] == parsed.chunks[123].chunk_id
    # The retriever asks for 40 candidates; the index must not reject k > ef / refine_factor.
    many = store.vector_search(vecs[7], 40)
    assert len(many) == 40 and many[0][0] == parsed.chunks[7].chunk_id


def test_writer_lock_is_exclusive_across_processes(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    code = (
        "import sys, time; from pathlib import Path; from app.store.lock import WriterLock\n"
        "with WriterLock(Path(sys.argv[1])).hold():\n"
        "    print('locked', flush=True); time.sleep(30)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(lib)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        lock = WriterLock(lib, timeout_s=0.3)
        with lock.try_hold() as got:
            assert got is False
        with pytest.raises(StoreError, match="Another Footnote process"), lock.hold():
            pass
    finally:
        proc.kill()  # like kill -9: the OS releases the lock
        proc.wait()
    deadline = time.monotonic() + 5
    while True:
        with WriterLock(lib).try_hold() as got:
            if got or time.monotonic() > deadline:
                break
    assert got


def test_crash_right_after_an_update_commit_keeps_the_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Die between the commit (documents row swapped) and deleting the old rows."""
    lib = tmp_path / "lib"
    s = Store(lib)
    s.add_document(make_doc("a" * 16, "/same.pdf", ["old words"]))

    real_delete = Store._delete_rows

    def die(self: Store, doc_id: str) -> None:
        if doc_id == "a" * 16:  # deleting the replaced document's rows
            raise KeyboardInterrupt  # stands in for the process dying here
        real_delete(self, doc_id)

    with monkeypatch.context() as m:
        m.setattr(Store, "_delete_rows", die)
        with pytest.raises(KeyboardInterrupt):
            s.add_document(make_doc("c" * 16, "/same.pdf", ["new words"]))
    assert s.count_chunks() == 2  # the old chunks are still there, but uncommitted
    reopened = Store(lib)
    assert [d.doc_id for d in reopened.documents()] == ["c" * 16]
    assert [c.text for c in reopened.chunks_of("c" * 16)] == ["new words"]
    assert reopened.count_chunks() == 1
    assert reopened.text_search("old", 5) == []


def test_sql_literals_are_quoted_in_one_place(store: Store) -> None:
    from app.store import sql

    assert sql.literal("O'Brien.pdf") == "'O''Brien.pdf'"
    assert sql.is_in("doc_id", ["a", "b'c"]) == "doc_id IN ('a', 'b''c')"
    assert list(sql.in_batches("doc_id", ["a", "b", "c"], 2)) == [
        "doc_id IN ('a', 'b')",
        "doc_id IN ('c')",
    ]
    assert list(sql.in_batches("doc_id", [], 2)) == []
    tricky = "/papers/O'Brien' OR '1'='1.pdf"
    store.add_document(make_doc("q" * 16, tricky, ["quoted path text"]))
    assert [d.doc_id for d in store.find_by_path(tricky)] == ["q" * 16]
    assert store.find_by_path("/papers/O") == []


def test_delete_orphans_takes_the_writer_lock(tmp_path: Path) -> None:
    store = Store(tmp_path / "lib")
    store.lock = WriterLock(store.path, timeout_s=0.3)
    other = WriterLock(store.path)  # another writer (its own file descriptor)
    with other.hold(), pytest.raises(StoreError, match="writing to the library"):
        store.delete_orphans(["x" * 16])
    store.delete_orphans(["x" * 16])  # free again


def test_chunk_vectors_reads_a_documents_vectors_back_in_chunk_order(store: Store) -> None:
    a, b = "a" * 16, "b" * 16
    store.add_document(make_doc(a, "/docs/a.pdf", ["one", "two", "three"]))
    store.add_document(make_doc(b, "/docs/b.pdf", ["other"]))
    assert store.chunk_vectors(a)[0] == []  # no embedder recorded yet
    store.set_embedder("test", DIM)
    ids = [Chunk.make_id(a, i) for i in (2, 0)]  # stored out of order, chunk 1 not embedded
    store.add_vectors(a, ids, np.stack([unit_vec(2), unit_vec(0)]))
    store.add_vectors(b, [Chunk.make_id(b, 0)], np.stack([unit_vec(5)]))
    got_ids, vecs = store.chunk_vectors(a)
    assert got_ids == [Chunk.make_id(a, 0), Chunk.make_id(a, 2)]
    assert vecs.shape == (2, DIM) and vecs.dtype == np.float32
    assert np.array_equal(vecs[0], unit_vec(0)) and np.array_equal(vecs[1], unit_vec(2))
    assert store.chunk_vectors("c" * 16)[0] == []
    assert store.chunk_vectors("c" * 16)[1].shape == (0, DIM)


def test_chunks_of_without_charmaps(store: Store) -> None:
    a = "a" * 16
    store.add_document(make_doc(a, "/docs/a.pdf", ["one", "two"]))
    chunks = store.chunks_of(a, charmap=False)
    assert [c.text for c in chunks] == ["one", "two"]
    assert all(c.charmap is None for c in chunks)
    assert all(c.charmap is not None for c in store.chunks_of(a))


def test_many_small_documents_are_compacted_before_lookups_slow_down(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One-chunk documents never make 3,000 chunks wait for the BM25 index, but each is a
    # fragment that every lookup by id opens: a burst of them is compacted every few.
    monkeypatch.setattr(store_mod, "COMPACT_AT_FRAGMENTS", 5)
    ids = [f"{i:016x}" for i in range(5)]
    for i, doc_id in enumerate(ids[:4]):
        store.add_document(make_doc(doc_id, f"/notes/{i}.pdf", [f"note {i}"]))
    assert store.small_fragments() == 4
    assert not store.maybe_optimize()
    store.add_document(make_doc(ids[4], "/notes/4.pdf", ["note 4"]))
    assert store.maybe_optimize()
    assert store.small_fragments() <= 1
    assert sorted(d.doc_id for d in store.documents()) == ids
    assert all(store.get_document(doc_id) is not None for doc_id in ids)
    assert [c for c, _ in store.text_search("note", 10)]


def test_sentence_vectors_round_trip_and_go_with_their_document(tmp_path: Path) -> None:
    s = Store(tmp_path / "lib")
    s.add_document(make_doc("a" * 16, "/a.pdf", ["one. two.", "three."]))
    assert s.stored_sentences(["a" * 16 + ":00000"]) == {}  # none yet: search falls back
    s.set_embedder("fake", DIM)
    first, second = "a" * 16 + ":00000", "a" * 16 + ":00001"
    two = np.stack([unit_vec(0), unit_vec(1)])
    s.add_sentence_vectors("a" * 16, [(first, [11, 12], two), (second, [], np.zeros((0, DIM)))])
    s.add_sentence_vectors("a" * 16, [(first, [13], unit_vec(5)[None])])  # already there
    got = s.stored_sentences([first, second, "missing:00000"])
    assert got[first][0] == [11, 12] and np.allclose(got[first][1], two)
    assert got[second][0] == [] and got[second][1].shape == (0, DIM)  # known, but no sentence
    assert set(s.sentence_vectors([first])) == {first}
    assert s.sentence_chunk_ids([first, second]) == {first, second}
    s.optimize()  # builds the chunk_id index of the sentences table
    assert np.allclose(Store(tmp_path / "lib").sentence_vectors([first])[first], two)
    with pytest.raises(StoreError, match="sentence vectors"):
        s.add_sentence_vectors("a" * 16, [("a" * 16 + ":00002", [1, 2], unit_vec(0)[None])])
    s.remove("a" * 16)
    assert s.stored_sentences([first]) == {}


def test_a_new_embedder_drops_sentence_vectors_and_the_sweep_their_orphans(
    tmp_path: Path,
) -> None:
    s = Store(tmp_path / "lib")
    s.add_document(make_doc("a" * 16, "/a.pdf", ["x"]))
    s.set_embedder("fake", DIM)
    chunk = "a" * 16 + ":00000"
    s.add_sentence_vectors("a" * 16, [(chunk, [1], unit_vec(0)[None])])
    # What a crash leaves: sentence vectors of a document whose commit never happened.
    s.add_sentence_vectors("d" * 16, [("d" * 16 + ":00000", [2], unit_vec(1)[None])])
    reopened = Store(tmp_path / "lib")
    assert reopened.doc_id_column("sentences") == ["a" * 16]
    assert reopened.set_embedder("other", 4) is True
    assert reopened.stored_sentences([chunk]) == {}
