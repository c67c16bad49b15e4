"""The real-document corpus (issue 29): its manifest, its questions, fetching and folds.

``documents.toml`` names every PDF by the Debian package, version and path it comes from and by
its sha256; :func:`fetch` gets exactly those bytes on any machine that reaches Debian's archive
(``apt-get download PACKAGE=VERSION``, the member cut out of the ``.deb`` with ``dpkg-deb``) and
keeps them in a cache outside the repository, so the test suite never needs them.

``questions.jsonl`` (development), ``sealed.jsonl`` (the sealed fifth), ``sealed2.jsonl`` (the
documents added on 2026-11-29) and ``sealed3.jsonl`` (ten more added that evening; no one reads
any sealed file) were written by helper sessions that had read neither the verdict nor the
retrieval code nor any other question set; each line names its document (``document``, the
manifest's ``file``) and the language the question is asked in. :func:`folds` splits the development documents into cross-validation folds by family
(all documents of one package together), never the questions of one document.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tests.bench.question_set import AlsoStated, Question, read_jsonl

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "documents.toml"
QUESTIONS = HERE / "questions.jsonl"
SEALED_FILES = {n: HERE / f"sealed{'' if n == 1 else n}.jsonl" for n in (1, 2, 3)}
"""Each sealed set's questions, by ``Document.sealed_set`` (whose ``Literal`` names the same
sets): sealed.jsonl, sealed2.jsonl, sealed3.jsonl."""
CACHE = Path(
    os.environ.get("FOOTNOTE_BENCH_CACHE", Path.home() / ".cache" / "footnote" / "bench-real")
)
LANGUAGES = ("en", "de", "fr", "ko")


class Source(BaseModel):
    """Where a document's bytes come from: a file inside a Debian package."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    package: str
    version: str
    path: str = Field(description="Path inside the package; a .gz member is gunzipped.")


class Document(BaseModel):
    """One ``[[document]]`` table of documents.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(description="File name in the corpus folder (unique).")
    kind: str = Field(description="paper, manual, report, slides, legal, book, leaflet, ...")
    language: str = Field(description="The document's main language (ISO 639-1).")
    pages: int = Field(ge=1)
    source: Source
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    licence: str = Field(description="The licence as the package's copyright file states it.")
    family: str = Field(description="Documents of one family never straddle a fold.")
    sealed: bool = Field(description="In a sealed set: its questions are not read.")
    sealed_set: Literal[1, 2, 3] = Field(
        default=1,
        description="Which sealed set: 1, the fifth sealed on 2026-11-26 (sealed.jsonl); 2, the "
        "documents added on 2026-11-29 (sealed2.jsonl), first run once at the end of that day's "
        "work; 3, ten more documents added that evening (sealed3.jsonl), not yet run. "
        "Development documents keep the default.",
    )

    @model_validator(mode="after")
    def _set_only_when_sealed(self) -> Document:
        if not self.sealed and self.sealed_set != 1:
            raise ValueError(f"{self.file}: sealed_set is for sealed documents")
        return self


Style = Literal["plain", "chatty", "paraphrase"]


class RealQuestion(BaseModel):
    """One line of questions.jsonl / sealed.jsonl: the shared format plus the document's file,
    the question's language, how it is phrased and, when unanswerable, whether it is a near
    miss (same document and topic, a detail the library lacks)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    document: str
    language: str
    style: Style
    question: str = Field(min_length=8)
    answerable: bool
    page: int | None
    evidence: str | None
    also: tuple[AlsoStated, ...] = ()
    near_miss: bool | None = None

    @model_validator(mode="after")
    def _consistent(self) -> RealQuestion:
        if self.language not in LANGUAGES:
            raise ValueError(f"{self.id}: language {self.language!r} not in {LANGUAGES}")
        if self.answerable and self.near_miss is not None:
            raise ValueError(f"{self.id}: near_miss is for unanswerable questions")
        if not self.answerable and self.near_miss is None:
            raise ValueError(f"{self.id}: an unanswerable question says whether it is a near miss")
        self.as_question()  # the shared rules: evidence length, pages, ids
        return self

    def as_question(self) -> Question:
        """The question in the shared format the eval runner and the evidence checker take."""
        return Question(
            id=self.id,
            doc=self.document,
            question=self.question,
            page=self.page,
            evidence=self.evidence,
            answerable=self.answerable,
            also=self.also,
        )


def load_manifest(path: Path = MANIFEST) -> list[Document]:
    """Every document of the manifest; ValueError for a duplicate file name."""
    with path.open("rb") as fh:
        tables = tomllib.load(fh).get("document", [])
    docs = [Document.model_validate(t) for t in tables]
    seen: set[str] = set()
    for d in docs:
        if d.file in seen:
            raise ValueError(f"{path.name}: {d.file} is listed twice")
        seen.add(d.file)
    return docs


def load_real_questions(path: Path, documents: Iterable[Document]) -> list[RealQuestion]:
    """Parse a real-corpus question file; ValueError naming the line for anything wrong."""
    files = {d.file for d in documents}

    def parse(raw: dict[str, Any]) -> RealQuestion:
        q = RealQuestion.model_validate(raw)
        if q.document not in files:
            raise ValueError(f"{q.document} is not in the manifest")
        return q

    return read_jsonl(path, parse)


def folds(documents: Sequence[Document], k: int) -> dict[str, int]:
    """File name -> fold (0..k-1) of every unsealed document, whole families to one fold.

    Families are placed largest first, each on the fold with the fewest documents so far (ties:
    the lower fold), in an order fixed by the sha256 of the family's name, so the split is the
    same on every machine and does not change when an unrelated family is added elsewhere in
    the file.
    """
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    families: dict[str, list[Document]] = {}
    for d in documents:
        if not d.sealed:
            families.setdefault(d.family, []).append(d)
    if len(families) < k:
        raise ValueError(f"{len(families)} families cannot fill {k} folds")

    def order(name: str) -> tuple[int, str]:
        return (-len(families[name]), hashlib.sha256(name.encode()).hexdigest())

    sizes = [0] * k
    out: dict[str, int] = {}
    for name in sorted(families, key=order):
        fold = sizes.index(min(sizes))
        for d in families[name]:
            out[d.file] = fold
        sizes[fold] += len(families[name])
    return out


class FetchError(RuntimeError):
    """A document could not be fetched or its bytes are not the manifest's."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _download(package: str, version: str, debs: Path) -> Path:
    """The package's .deb in ``debs``, downloaded with apt-get when not already there."""
    debs.mkdir(parents=True, exist_ok=True)
    quoted = version.replace(":", "%3a")
    found = sorted(debs.glob(f"{package}_{quoted}_*.deb"))
    if found:
        return found[0]
    cmd = ["apt-get", "download", f"{package}={version}"]
    run = subprocess.run(cmd, cwd=debs, capture_output=True, text=True)
    if run.returncode != 0 and "Unable to locate" in run.stderr + run.stdout:
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
        run = subprocess.run(cmd, cwd=debs, capture_output=True, text=True)
    found = sorted(debs.glob(f"{package}_{quoted}_*.deb"))
    if run.returncode != 0 or not found:
        said = (run.stderr or run.stdout).strip()
        gone = "was not found" in said
        raise FetchError(
            f"apt-get download {package}={version} failed: {said}"
            + (
                "\nThe archive no longer serves this version (a point release replaced it): "
                "update the manifest's version and sha256 and re-check the questions' "
                "evidence with `python -m tests.bench.real.corpus --check`."
                if gone
                else ""
            )
        )
    return found[0]


def _member(deb: Path, path: str) -> bytes:
    """The bytes of one file inside a .deb (``dpkg-deb --fsys-tarfile``), gunzipped if .gz."""
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        data = None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for info in tar:
                if info.name.lstrip("./") == path.lstrip("/"):
                    extracted = tar.extractfile(info)
                    data = extracted.read() if extracted else None
                    break
        proc.stdout.read()  # let dpkg-deb finish writing
    if data is None:
        raise FetchError(f"{deb.name} has no file {path}")
    return gzip.decompress(data) if path.endswith(".gz") else data


def fetch(documents: Sequence[Document], cache: Path = CACHE) -> Path:
    """The folder holding every document's exact bytes, fetching what is missing or wrong."""
    corpus = cache / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    if shutil.which("dpkg-deb") is None or shutil.which("apt-get") is None:
        missing = [d.file for d in documents if not (corpus / d.file).is_file()]
        if missing:
            raise FetchError(
                "the real corpus is fetched from Debian packages; this machine has no "
                f"apt-get/dpkg-deb, and {len(missing)} documents are not cached in {corpus}"
            )
    for d in documents:
        target = corpus / d.file
        if target.is_file() and _sha256(target.read_bytes()) == d.sha256:
            continue
        deb = _download(d.source.package, d.source.version, cache / "debs")
        data = _member(deb, d.source.path)
        if _sha256(data) != d.sha256:
            raise FetchError(
                f"{d.file}: {d.source.package} {d.source.version} {d.source.path} has sha256 "
                f"{_sha256(data)}, the manifest says {d.sha256}"
            )
        with tempfile.NamedTemporaryFile(dir=corpus, delete=False) as tmp:
            tmp.write(data)
        Path(tmp.name).replace(target)
    return corpus


def evidence_problems_real(questions: Sequence[RealQuestion], corpus: Path) -> list[str]:
    """The shared evidence check, plus: each evidence occurs on its own page only, so a
    citation of another page cannot be counted right by a phrase that repeats."""
    from tests.bench.question_set import evidence_on_text, evidence_problems, page_texts

    problems = evidence_problems([q.as_question() for q in questions], corpus)
    for q in questions:
        if not q.answerable or not (corpus / q.document).is_file():
            continue
        texts = page_texts(corpus / q.document)
        stated = [(q.page, q.evidence), *((a.page, a.evidence) for a in q.also)]
        for page, evidence in stated:
            assert evidence is not None
            found = [i + 1 for i, t in enumerate(texts) if evidence_on_text(evidence, t)]
            if len(found) > 1:
                problems.append(f"{q.id}: evidence for p{page} also occurs on pages {found}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.bench.real.corpus [--check]``: fetch the corpus; with --check also
    check the development questions' evidence (the sealed file is checked without printing
    anything but its count of problems)."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m tests.bench.real.corpus")
    p.add_argument("--check", action="store_true", help="Check every question's evidence too.")
    args = p.parse_args(argv)
    docs = load_manifest()
    corpus = fetch(docs)
    print(f"{len(docs)} documents in {corpus}")
    if not args.check:
        return 0
    bad = 0
    for path, sealed in ((QUESTIONS, False), *((f, True) for f in SEALED_FILES.values())):
        qs = load_real_questions(path, docs)
        problems = evidence_problems_real(qs, corpus)
        if not sealed:
            for line in problems:
                print(line)
        print(f"{path.name}: {len(qs)} questions, {len(problems)} evidence problems")
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
