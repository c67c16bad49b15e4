"""The evaluation question set: schema, loading, and evidence checking against the corpus PDFs.

Shared by ``tests.bench.eval_answers`` (the ``make eval`` runner) and the unit test that guards the
JSONL file, so both judge questions and evidence by exactly the same rules.

Evidence matching is deliberately literal: a question's ``evidence`` must occur in the text of the
named physical page after whitespace is collapsed and line-end hyphens are removed. That keeps the
gold labels honest (a human can find the words on that page) while tolerating PDF line breaking.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

logger = logging.getLogger(__name__)

QUESTIONS_PATH = Path(__file__).with_name("questions.jsonl")
DEFAULT_CORPUS = Path("/work/shared/corpus")
MIN_EVIDENCE_WORDS = 5
MAX_EVIDENCE_WORDS = 20

_ID_RE = re.compile(r"^q\d{3}$")
_LINE_END_HYPHEN = re.compile(r"(\w)-[ \t]*\n\s*(\w)")
_SPACE = re.compile(r"\s+")


class Question(BaseModel):
    """One line of questions.jsonl. Unanswerable questions carry no page and no evidence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="'q' followed by three digits, unique in the file.")
    doc: str = Field(description="Corpus PDF file name the question is about (e.g. clsguide.pdf).")
    question: str = Field(min_length=8, description="What a user would type.")
    page: int | None = Field(description="1-based physical page holding the evidence.")
    evidence: str | None = Field(description="Short exact string from that page.")
    answerable: bool

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        if not _ID_RE.match(self.id):
            raise ValueError(f"id {self.id!r} must look like q001")
        if not self.doc.endswith(".pdf"):
            raise ValueError(f"{self.id}: doc must name a PDF file")
        if self.answerable:
            if self.page is None or self.page < 1:
                raise ValueError(f"{self.id}: answerable questions need a page >= 1")
            if not self.evidence:
                raise ValueError(f"{self.id}: answerable questions need evidence")
            words = len(self.evidence.split())
            if not MIN_EVIDENCE_WORDS <= words <= MAX_EVIDENCE_WORDS:
                raise ValueError(
                    f"{self.id}: evidence has {words} words; "
                    f"keep it {MIN_EVIDENCE_WORDS}-{MAX_EVIDENCE_WORDS}"
                )
        elif self.page is not None or self.evidence is not None:
            raise ValueError(f"{self.id}: unanswerable questions have page and evidence null")
        return self


def load_questions(path: Path = QUESTIONS_PATH) -> list[Question]:
    """Parse the JSONL file; raise ValueError naming the line for any bad or duplicate entry."""
    questions: list[Question] = []
    seen: set[str] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = Question.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValueError) as exc:
            raise ValueError(f"{path.name}:{lineno}: {exc}") from exc
        if q.id in seen:
            raise ValueError(f"{path.name}:{lineno}: duplicate id {q.id}")
        seen.add(q.id)
        questions.append(q)
    return questions


def normalize(text: str, *, dehyphenate: bool = True) -> str:
    """Collapse whitespace; optionally join words split by a hyphen at a line end."""
    if dehyphenate:
        text = _LINE_END_HYPHEN.sub(r"\1\2", text)
    return _SPACE.sub(" ", text).strip()


def evidence_on_text(evidence: str, page_text: str) -> bool:
    """True when the evidence occurs in the page text, with or without de-hyphenation.

    Both variants are tried because a real compound (``mixed-case``) can also fall at a line end.
    """
    needle = normalize(evidence, dehyphenate=False)
    if needle in normalize(page_text):
        return True
    kept = _SPACE.sub(" ", re.sub(r"-[ \t]*\n\s*", "-", page_text)).strip()
    return needle in kept


@lru_cache(maxsize=16)
def page_texts(pdf: Path) -> tuple[str, ...]:
    """Raw text of every page of a PDF (PyMuPDF), cached: the checker reads each file once."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return tuple(page.get_text() for page in doc)


def evidence_problems(questions: Iterable[Question], corpus: Path) -> list[str]:
    """Human-readable problems for every answerable question whose evidence is not on its page."""
    problems: list[str] = []
    for q in questions:
        if not q.answerable:
            continue
        pdf = corpus / q.doc
        if not pdf.is_file():
            problems.append(f"{q.id}: {q.doc} not found in {corpus}")
            continue
        texts = page_texts(pdf)
        assert q.page is not None and q.evidence is not None
        if q.page > len(texts):
            problems.append(f"{q.id}: page {q.page} > {len(texts)} pages in {q.doc}")
            continue
        if not evidence_on_text(q.evidence, texts[q.page - 1]):
            found = [i + 1 for i, t in enumerate(texts) if evidence_on_text(q.evidence, t)]
            problems.append(f"{q.id}: evidence not on {q.doc} p{q.page} (found on pages {found})")
    return problems


def main() -> int:
    """``python -m tests.bench.question_set [CORPUS]``: check the question file against a corpus."""
    import sys

    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CORPUS
    questions = load_questions()
    problems = evidence_problems(questions, corpus)
    for p in problems:
        print(p)
    answerable = sum(q.answerable for q in questions)
    print(f"{len(questions)} questions ({answerable} answerable), {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
