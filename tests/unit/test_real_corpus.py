"""The real-document corpus (issue 29): its manifest, its questions, its folds and the
cross-validation that fits a lever on some documents and scores it on others.

The PDFs themselves live outside the repository (``make eval SET=real`` fetches them); the one
test that reads them runs only where they are cached, and the sealed questions are only counted,
never printed."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from app.validation.status_model import (
    FEATURES,
    FEATURES_WITHOUT_JUDGEMENT,
    MODEL_FILE,
    StatusModel,
)
from tests.bench.crossval import (
    GreenFloor,
    StatusModelLever,
    choose_thresholds,
    closing_line,
    cross_validate,
    format_cv,
    redecide,
    right,
)
from tests.bench.eval_metrics import Outcome
from tests.bench.real import corpus
from tests.bench.real.corpus import Document, RealQuestion, folds, load_manifest

pytestmark = pytest.mark.unit

DOCS = load_manifest()
DEV = corpus.load_real_questions(corpus.QUESTIONS, DOCS)
SEALED_BY_SET = {n: corpus.load_real_questions(f, DOCS) for n, f in corpus.SEALED_FILES.items()}
SEALED = [q for qs in SEALED_BY_SET.values() for q in qs]  # every sealed set's questions


def test_the_manifest_has_forty_documents_of_eight_kinds_in_three_languages() -> None:
    assert len(DOCS) >= 40
    assert len({d.kind for d in DOCS}) >= 8
    assert len({d.language for d in DOCS}) >= 3
    assert len({d.sha256 for d in DOCS}) == len(DOCS)  # no file twice under two names
    assert sum(d.pages for d in DOCS if d.kind == "book") >= 600  # long books (300+ pages)
    for d in DOCS:
        assert d.file.endswith(".pdf")
        assert d.licence and d.source.package and d.source.version


def test_no_document_comes_from_a_source_reserved_for_unseen_checks() -> None:
    reserved = ("texlive", "tex-", "ctan", "reportlab", "ghostscript", "pymupdf", "pdfium")
    for d in DOCS:
        where = f"{d.source.package} {d.source.path}".lower()
        assert not any(r in where for r in reserved), d.file
        assert "/test" not in d.source.path, d.file  # no PDF library's test files


def test_the_sealed_sets_are_whole_families_each_with_its_own_questions() -> None:
    by_set = {n: [d for d in DOCS if d.sealed and d.sealed_set == n] for n in SEALED_BY_SET}
    first, later = by_set[1], [d for n, ds in by_set.items() if n > 1 for d in ds]
    # the first was a fifth of the documents it was drawn from (those before the later sets)
    assert 0.18 <= len(first) / (len(DOCS) - len(later)) <= 0.3
    for n, sealed in by_set.items():
        if n > 1:  # each later set: new documents of several packages
            assert len(sealed) >= 10 and len({d.family for d in sealed}) >= 5
        families = {d.family for d in sealed}
        assert all(d in sealed for d in DOCS if d.family in families)  # no family straddles it
        others = {d.family for m, ds in by_set.items() if m != n for d in ds}
        assert not families & others
        assert {q.document for q in SEALED_BY_SET[n]} == {d.file for d in sealed}
    assert {q.document for q in DEV} == {d.file for d in DOCS if not d.sealed}


def test_only_a_sealed_document_names_a_sealed_set() -> None:
    d = DOCS[0].model_dump()
    with pytest.raises(ValueError, match="sealed_set is for sealed documents"):
        Document.model_validate({**d, "sealed": False, "sealed_set": 2})
    assert Document.model_validate({**d, "sealed": True, "sealed_set": 2}).sealed_set == 2


def test_the_question_sets_have_the_mix_the_issue_asks_for() -> None:
    assert len(DEV) >= 600
    every = [*DEV, *SEALED]
    by_doc = {d.file: d for d in DOCS}
    unanswerable = [q for q in every if not q.answerable]
    assert len(unanswerable) >= 0.3 * len(every)
    assert sum(bool(q.near_miss) for q in unanswerable) > 0.5 * len(unanswerable)
    assert sum(q.style != "plain" for q in every) >= len(every) / 3
    foreign = [q for q in every if q.language != "en" or by_doc[q.document].language != "en"]
    assert len(foreign) >= 0.1 * len(every)
    assert len({q.id for q in every}) == len(every)  # one id space: sealed ids never clash


def test_a_bad_line_is_refused_with_its_line_number(tmp_path: Path) -> None:
    good = DEV[0].model_dump(mode="json")
    bad = {**good, "id": "z999", "language": "xx"}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"(?s)q\.jsonl:2: .*language"):
        corpus.load_real_questions(path, DOCS)
    unanswerable = {**good, "answerable": False, "page": None, "evidence": None, "also": []}
    path.write_text(json.dumps(unanswerable) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="near miss"):
        corpus.load_real_questions(path, DOCS)


def test_folds_keep_families_whole_and_are_balanced_and_stable() -> None:
    split = folds(DOCS, 5)
    assert set(split) == {d.file for d in DOCS if not d.sealed}
    for family in {d.family for d in DOCS if not d.sealed}:
        assert len({split[d.file] for d in DOCS if d.family == family}) == 1
    sizes = Counter(split.values())
    assert sorted(sizes) == [0, 1, 2, 3, 4]
    assert max(sizes.values()) - min(sizes.values()) <= 2
    assert folds(list(reversed(DOCS)), 5) == split  # the file's order does not matter


def _doc(name: str, family: str, *, sealed: bool = False) -> Document:
    return Document(
        file=name,
        kind="manual",
        language="en",
        pages=1,
        source={"package": family, "version": "1", "path": f"usr/share/{name}"},
        sha256="0" * 64,
        licence="GPL",
        family=family,
        sealed=sealed,
    )


def test_folds_refuse_too_few_families() -> None:
    with pytest.raises(ValueError, match="cannot fill"):
        folds([_doc("a.pdf", "a"), _doc("b.pdf", "a"), _doc("c.pdf", "c")], 3)


def _outcome(doc: str, n: int, *, status: str, score: float, right: bool) -> Outcome:
    return Outcome(
        id=f"x{n:03d}",
        doc=doc,
        question="q",
        answerable=True,
        gold_page=1,
        gold_rank=1 if right else None,
        retrieved=["x.pdf p1-1"],
        mode="answer",
        kind="generated",
        status=status,
        support={"score": score},
        citations=[{"on_gold_page": right, "verbatim": True}],
    )


class Recorder:
    """A lever that remembers which documents each fit saw."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[set[str]] = []

    def fit(self, train: Sequence[Outcome]) -> Any:
        self.seen.append({o.doc for o in train})
        return len(self.seen)

    def apply(self, params: Any, outcome: Outcome) -> Outcome:
        return outcome


def test_cross_validation_never_fits_on_the_fold_it_scores() -> None:
    fold_of = {"a.pdf": 0, "b.pdf": 1, "c.pdf": 2}
    outcomes = [
        _outcome(doc, i, status="GREEN", score=0.7, right=True)
        for i, doc in enumerate(["a.pdf", "b.pdf", "c.pdf", "a.pdf"])
    ]
    lever = Recorder()
    report = cross_validate(outcomes, fold_of, 3, lever)
    assert lever.seen == [{"b.pdf", "c.pdf"}, {"a.pdf", "c.pdf"}, {"a.pdf", "b.pdf"}]
    assert [f["documents"] for f in report["folds"]] == [["a.pdf"], ["b.pdf"], ["c.pdf"]]
    assert report["pooled"]["questions"] == 4
    with pytest.raises(ValueError, match="outside the folds"):
        cross_validate(
            [*outcomes, _outcome("s.pdf", 9, status="GREEN", score=1, right=True)], fold_of, 3
        )


def test_the_green_floor_is_fitted_for_precision_and_demotes_below_it() -> None:
    train = [
        _outcome("a.pdf", 1, status="GREEN", score=0.60, right=False),
        _outcome("a.pdf", 2, status="GREEN", score=0.65, right=False),
        *(
            _outcome("a.pdf", 10 + i, status="GREEN", score=0.7 + i / 100, right=True)
            for i in range(20)
        ),
    ]
    lever = GreenFloor(precision=0.95)
    floor = lever.fit(train)
    assert floor == pytest.approx(0.65)  # 20 right of 21 at 0.65 and above: 95.2%
    low = _outcome("b.pdf", 99, status="GREEN", score=0.62, right=True)
    assert lever.apply(floor, low).status == "YELLOW"
    assert low.status == "GREEN"  # the outcome itself is not changed
    assert (
        lever.apply(floor, _outcome("b.pdf", 98, status="GREEN", score=0.9, right=True)).status
        == "GREEN"
    )
    assert lever.fit([_outcome("a.pdf", 1, status="GREEN", score=0.9, right=False)]) == float("inf")


def test_the_closing_line_has_the_issue_s_shape() -> None:
    outcomes = [
        _outcome("a.pdf", 1, status="GREEN", score=0.9, right=True),
        _outcome("b.pdf", 2, status="YELLOW", score=0.3, right=False),
    ]
    report = cross_validate(outcomes, {"a.pdf": 0, "b.pdf": 1}, 2)
    line = closing_line("real", report["pooled"], documents=2, kinds=1, languages=1)
    assert line == (
        "real: 2 documents (1 kinds, 1 languages), 2 questions (0 unanswerable); "
        "page recall@5 0.500; GREEN precision 100.0% (coverage 50.0%); "
        "unanswerable refused -; answerable refused 0.0%"
    )
    assert "pooled" in format_cv(report)


@pytest.mark.skipif(
    not all((corpus.CACHE / "corpus" / d.file).is_file() for d in DOCS),
    reason="the real corpus is not fetched here (make eval SET=real fetches it)",
)
def test_every_evidence_is_on_its_page_only() -> None:
    folder = corpus.CACHE / "corpus"
    assert corpus.evidence_problems_real(DEV, folder) == []
    # The sealed sets: counted, never shown.
    for sealed in SEALED_BY_SET.values():
        assert len(corpus.evidence_problems_real(sealed, folder)) == 0


def test_real_question_converts_to_the_shared_format() -> None:
    q: RealQuestion = DEV[0]
    shared = q.as_question()
    assert (shared.id, shared.doc, shared.answerable) == (q.id, q.document, q.answerable)


@pytest.mark.skipif(
    not (shutil.which("dpkg-deb") and shutil.which("apt-get")), reason="needs dpkg-deb"
)
def test_fetch_cuts_the_file_out_of_its_package_and_checks_its_sha256(tmp_path: Path) -> None:
    """A real .deb built here with dpkg-deb, already in the cache: no network is needed."""
    import gzip
    import hashlib
    import subprocess

    pdf = b"%PDF-1.4\n% a stand-in: fetch checks bytes, not PDF syntax\n"
    root = tmp_path / "pkg"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: footnote-test-doc\nVersion: 1:1.0-1\nArchitecture: all\n"
        "Maintainer: Footnote <footnote@localhost>\nDescription: test\n",
        encoding="utf-8",
    )
    docdir = root / "usr" / "share" / "doc" / "footnote-test-doc"
    docdir.mkdir(parents=True)
    (docdir / "manual.pdf.gz").write_bytes(gzip.compress(pdf))
    cache = tmp_path / "cache"
    (cache / "debs").mkdir(parents=True)
    deb = cache / "debs" / "footnote-test-doc_1%3a1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--build", str(root), str(deb)], check=True, capture_output=True)

    def doc(sha: str) -> Document:
        return _doc("manual.pdf", "footnote-test-doc").model_copy(
            update={
                "sha256": sha,
                "source": corpus.Source(
                    package="footnote-test-doc",
                    version="1:1.0-1",
                    path="usr/share/doc/footnote-test-doc/manual.pdf.gz",
                ),
            }
        )

    folder = corpus.fetch([doc(hashlib.sha256(pdf).hexdigest())], cache)
    assert (folder / "manual.pdf").read_bytes() == pdf
    (folder / "manual.pdf").unlink()
    with pytest.raises(corpus.FetchError, match="the manifest says"):
        corpus.fetch([doc("1" * 64)], cache)
    assert not (folder / "manual.pdf").exists()  # wrong bytes are never left in the corpus


def test_the_baseline_reference_covers_the_development_questions() -> None:
    """tests/bench/reference/real.jsonl: main 27f7772's statuses, for compare_runs."""
    from tests.bench import compare_runs

    rows = compare_runs.load(Path(compare_runs.__file__).with_name("reference") / "real.jsonl")
    assert set(rows) == {q.id for q in DEV}
    assert not {q.id for q in SEALED} & set(rows)  # sealed statuses are never kept


def test_the_conversations_are_follow_ups_and_standalone_ones_over_development_documents() -> None:
    from tests.bench.eval_conversations import load_conversations

    cases = load_conversations()
    assert len(cases) >= 60
    kinds = Counter(c.kind for c in cases)
    assert kinds["follow-up"] >= 40 and kinds["standalone"] >= 10
    assert {len(c.turns) for c in cases} == {2, 3}
    sealed = {d.file for d in DOCS if d.sealed}
    assert not {c.document for c in cases} & sealed


@pytest.mark.skipif(
    not all((corpus.CACHE / "corpus" / d.file).is_file() for d in DOCS),
    reason="the real corpus is not fetched here (make eval SET=real fetches it)",
)
def test_every_conversation_turn_s_evidence_is_on_its_page_only() -> None:
    from tests.bench.eval_conversations import HELDOUT_CONVERSATIONS, load_conversations

    turns = [
        RealQuestion(
            id=c.id,
            document=c.document,
            language="en",
            style="plain",
            question=t.question if len(t.question) >= 8 else f"{t.question} (turn)",
            answerable=True,
            page=t.page,
            evidence=t.evidence,
        )
        for c in [*load_conversations(), *load_conversations(HELDOUT_CONVERSATIONS)]
        for t in c.turns
    ]
    assert corpus.evidence_problems_real(turns, corpus.CACHE / "corpus") == []


def test_the_held_out_conversations_are_over_other_development_documents() -> None:
    from tests.bench.eval_conversations import HELDOUT_CONVERSATIONS, load_conversations

    held = load_conversations(HELDOUT_CONVERSATIONS)
    kinds = Counter(c.kind for c in held)
    assert kinds["follow-up"] >= 30 and kinds["standalone"] >= 10
    assert not {c.document for c in held} & {c.document for c in load_conversations()}
    assert not {c.id for c in held} & {c.id for c in load_conversations()}


def _judged(doc: str, n: int, *, focus: float, right: bool, answerable: bool = True) -> Outcome:
    """An answer the status model judged, its one telling signal ``focus``."""
    feats = {name: 0.0 for name in FEATURES} | {"focus_coverage": focus, "verified": 1.0}
    o = _outcome(doc, n, status="YELLOW", score=focus, right=right)
    o.answerable = answerable
    o.support = {"score": focus, "features": feats}
    return o


def test_the_status_model_lever_learns_the_signal_and_picks_both_thresholds() -> None:
    train = [
        *(_judged("a.pdf", i, focus=0.6 + i / 100, right=True) for i in range(30)),
        *(
            _judged("a.pdf", 100 + i, focus=i / 100, right=False, answerable=False)
            for i in range(30)
        ),
    ]
    lever = StatusModelLever()
    model = lever.fit(train)
    assert 0.0 < model.refuse_below <= model.green_at < 1.0
    good = lever.apply(model, _judged("b.pdf", 500, focus=0.9, right=True))
    bad = lever.apply(model, _judged("b.pdf", 501, focus=0.05, right=False, answerable=False))
    assert good.status == "GREEN" and good.citations
    assert bad.kind == "refusal" and bad.status == "REFUSED" and not bad.citations
    assert bad.judged  # the refused answer keeps what it had cited, for the next fit
    # the cross-validation report of this lever is written as JSON by make eval SET=real
    report = cross_validate([*train, good, bad], {"a.pdf": 0, "b.pdf": 1}, 2, lever)
    shown = json.loads(json.dumps(report))["folds"][0]["params"]
    assert set(shown) == {"green_at", "refuse_below"}


def test_both_status_models_are_written_and_read_back_with_the_judge_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``train_verdict --write`` ships the model that weighs the judgement, naming the chat
    model it was fitted with, and the one fitted without it, with thresholds of its own."""
    from tests.bench import train_verdict

    def judged_row(n: int, *, focus: float, judgement: float, right: bool) -> Outcome:
        o = _judged("a.pdf" if n % 2 else "b.pdf", n, focus=focus, right=right)
        assert o.support is not None
        o.support["features"] |= {"judgement": judgement, "has_judgement": 1.0}
        return o

    # the judgement tells right from wrong better than the focus does
    rows = [judged_row(i, focus=0.3 + i / 200, judgement=0.8, right=True) for i in range(40)]
    rows += [judged_row(100 + i, focus=i / 100, judgement=0.2, right=False) for i in range(40)]
    unjudged = FEATURES_WITHOUT_JUDGEMENT
    fitted = [
        train_verdict.Fitted(lever.fit(rows), {"cv": {}})
        for lever in (StatusModelLever(), StatusModelLever(features=unjudged))
    ]
    monkeypatch.setattr(train_verdict, "resources_dir", lambda: tmp_path)
    train_verdict.write(
        fitted[0], fitted[1], "Some-Model.gguf", "some-embedder", [("real", o) for o in rows], rows
    )
    with_j = StatusModel.load(tmp_path / MODEL_FILE)
    without_j = StatusModel.load(tmp_path / MODEL_FILE, judged=False)
    assert with_j.judge == "Some-Model.gguf" and with_j.weighs_judgement
    assert with_j.embedder == without_j.embedder == "some-embedder"
    assert without_j.judge is None and set(without_j.features) == set(unjudged)
    assert (with_j.green_at, without_j.green_at) == (
        fitted[0].model.green_at,
        fitted[1].model.green_at,
    )
    row = {"focus_coverage": 0.5, "verified": 1.0, "has_judgement": 1.0}
    yes, no = row | {"judgement": 0.8}, row | {"judgement": 0.2}
    assert with_j.probability(yes) > with_j.probability(no)
    assert without_j.probability(yes) == without_j.probability(no)


def test_an_answer_without_a_judgement_trains_only_the_model_without_one() -> None:
    """The app decides such an answer by the model fitted without the judgement; counted as
    a judgement of 0 it would teach the other model that a low judgement means wrong."""
    rows = [_judged("a.pdf", i, focus=0.6 + i / 100, right=True) for i in range(30)]
    rows += [_judged("a.pdf", 100 + i, focus=i / 100, right=False) for i in range(30)]
    for i, o in enumerate(rows):
        assert o.support is not None
        if i % 3:
            o.support["features"] |= {"judgement": 0.5, "has_judgement": 1.0}
        else:  # a third of the answers, right and wrong, have no judgement
            del o.support["features"]["judgement"]
    with_j = StatusModelLever().fit(rows)
    unjudged = FEATURES_WITHOUT_JUDGEMENT
    without_j = StatusModelLever(features=unjudged).fit(rows)
    judgement = with_j.features.index("judgement")
    assert with_j.low[judgement] == 0.5  # no row without one was read as 0
    assert without_j.features == unjudged


def test_a_refused_answer_is_answered_again_when_a_model_accepts_it() -> None:
    o = _judged("b.pdf", 7, focus=0.9, right=True)
    o.mode, o.kind, o.status = "refuse", "refusal", "REFUSED"
    o.judged, o.citations = o.citations, []
    model = StatusModelLever().fit(
        [
            *(_judged("a.pdf", i, focus=0.7 + i / 200, right=True) for i in range(20)),
            *(_judged("a.pdf", 50 + i, focus=i / 100, right=False) for i in range(20)),
        ]
    )
    again = redecide(o, model)
    assert again.kind == "extractive" and again.citations and not again.judged
    assert right(again)


def test_thresholds_are_chosen_for_precision_and_for_answerable_refusals() -> None:
    rows = [_judged("a.pdf", i, focus=0, right=i >= 5) for i in range(100)]
    probs = [i / 100 for i in range(100)]
    green_at, refuse_below = choose_thresholds(probs, rows, precision=0.95, answerable_refused=0.10)
    assert green_at == 0.0  # 95 right of 100: every GREEN reaches 95%
    assert refuse_below == 0.0  # min(refuse_below, green_at)
    rows = [_judged("a.pdf", i, focus=0, right=i >= 50) for i in range(100)]
    green_at, refuse_below = choose_thresholds(probs, rows, precision=0.95, answerable_refused=0.10)
    assert green_at == pytest.approx(0.48)  # from 0.48 up: 50 right of 52 = 96.2%
    assert refuse_below == pytest.approx(0.10)  # 10 of 100 answerable below


def test_greens_threshold_reaches_the_precision_on_each_source_on_its_own() -> None:
    """The real corpus and the development sets (``set:file`` documents) each reach 95% above
    GREEN's threshold; pooled, the easier source would pull it below the harder one's."""
    probs = [i / 100 for i in range(100)]
    real = [_judged("a.pdf", i, focus=0, right=i >= 50) for i in range(100)]  # 95% from 0.48
    dev = [_judged("manuals:b.pdf", i, focus=0, right=i >= 5) for i in range(100)]  # from 0.0
    both = [*real, *dev]
    green_at, refuse_below = choose_thresholds(
        probs + probs, both, precision=0.95, answerable_refused=0.10
    )
    assert green_at == pytest.approx(0.48)
    pooled, _ = choose_thresholds(
        probs + probs, both, precision=0.95, answerable_refused=0.10, per_source=False
    )
    assert pooled < green_at
    # the refusal threshold is still the pooled one: 10% of all answerable questions below
    assert (
        refuse_below
        == choose_thresholds(
            probs + probs, both, precision=0.95, answerable_refused=0.10, per_source=False
        )[1]
    )


def test_the_lever_chooses_thresholds_on_answers_held_out_of_its_inner_fits() -> None:
    """Four documents of twenty answers each: every answer's probability for the thresholds
    comes from a model fitted without its own document, as ``train_verdict --write`` chooses
    the shipped thresholds; with one document to fit on, in-sample."""
    rows = [
        _judged(f"{d}.pdf", 100 * k + i, focus=(i + k) / 30, right=i >= 8 + k)
        for k, d in enumerate("abcd")
        for i in range(20)
    ]
    lever = StatusModelLever(inner_folds=4)
    held = lever._held_out(rows)
    assert held is not None and len(held) == len(rows)
    for i, o in enumerate(rows):
        without = lever._fitted([r for r in rows if r.doc != o.doc])
        assert held[i] == pytest.approx(without.probability(o.support["features"]))
    in_sample = lever._fitted(rows)
    assert held != [in_sample.probability(o.support["features"]) for o in rows]
    assert StatusModelLever(inner_folds=0)._held_out(rows) is None
    assert lever._held_out([r for r in rows if r.doc == "a.pdf"]) is None


def test_train_verdict_names_the_embedder_of_the_runs(tmp_path: Path) -> None:
    """The file names the embedder whose similarities it was fitted on: the runs' own, or the
    embedded one for a run that names none; runs of two embedders cannot train one file."""
    from app.core.resources import DEFAULT_EMBEDDER_NAME, default_embedder_path
    from tests.bench.train_verdict import embedder_of

    def run(name: str, config: dict[str, str]) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"config": config, "sets": {}}), encoding="utf-8")
        return path

    old = run("old", {"model": "embedded default"})
    named = run("named", {"embedder_name": "bge-small-en-v1.5"})
    folder = run("folder", {"embedder": str(default_embedder_path())})
    assert embedder_of([old]).startswith(DEFAULT_EMBEDDER_NAME)
    assert embedder_of([named]) == "bge-small-en-v1.5"
    assert embedder_of([folder]).startswith(default_embedder_path().name)  # chosen by folder
    with pytest.raises(SystemExit, match="different embedders"):
        embedder_of([old, named])


def test_each_real_run_asks_its_own_documents_and_a_sealed_one_runs_whole() -> None:
    from tests.bench import eval_answers

    dev = eval_answers.documents_of("real", DOCS)
    assert {d.file for d in dev} == {q.document for q in DEV}
    asked = len(dev)
    assert set(eval_answers.SEALED_SETS.values()) == set(SEALED_BY_SET)
    for name, n in eval_answers.SEALED_SETS.items():
        docs = eval_answers.documents_of(name, DOCS)
        assert {d.file for d in docs} == {q.document for q in SEALED_BY_SET[n]}
        asked += len(docs)
    assert asked == len(DOCS)
    for name in eval_answers.SEALED_SETS:
        with pytest.raises(SystemExit):
            eval_answers.parse_args(["--set", name, "--limit", "5"])


def test_a_learning_curve_by_documents_draws_whole_documents() -> None:
    import numpy as np

    from tests.bench.train_verdict import draw_documents

    group = np.array(["a", "a", "b", "b", "b", "c", "d", "d"])
    train = np.array([0, 1, 2, 3, 4, 6, 7])  # "c" is held out
    rng = np.random.default_rng(0)
    for share in (0.25, 0.5, 1.0):
        kept = draw_documents(train, group, share, rng)
        drawn = set(group[kept])
        assert len(drawn) == max(int(share * 3), 2)
        assert "c" not in drawn
        assert sorted(kept) == [i for i in train if group[i] in drawn]  # whole documents
