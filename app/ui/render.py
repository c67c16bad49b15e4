"""Presentation of an ``Answer`` as text: HTML with citation anchors, Markdown, plain-word status.

Why: these are pure functions of the contract models, so they are easy to test and the
widgets stay small. Nothing here decides *what* is true; the validator already did that.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from app.core.citing import MARKER, cited_order, closest_passages, is_refusal
from app.core.models import Answer, Citation, Document, DroppedCitation
from app.core.terminal import safe_line
from app.validation.status_model import WITHHELD_LEAD

DROP_REASONS = {
    "out_of_range": "it named a source that does not exist",
    "not_retrieved": "it named a passage that was not found for this question",
    "quote_not_found": "its quoted words were not found in the passage",
    "no_overlap": "its quote does not support the sentence",
    "number_not_in_source": "a number in the sentence is not in the passage",
    "orphan_marker": "a citation number had no quote behind it",
}
# Said apart from the removed citations: nothing is lost when a quote is cited twice.
DUPLICATE_TEXT = "A quote cited twice is shown once."
REPAIRED_TEXT = "The model's first answer failed the checks; this is its second try."


def file_name(path: str) -> str:
    """A document's file name, safe to show (control and bidi characters made visible)."""
    return safe_line(Path(path).name) if path else ""


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` as typed: Qt would render text that looks like HTML
    (a PDF title such as ``<img src=...>``) as rich text, so it is escaped explicitly."""
    lines = [html.escape(safe_line(line)) for line in text.split("\n")]
    return "<qt>" + "<br>".join(lines) + "</qt>"


def understood_text(answer: Answer) -> str:
    """ "Understood as: ..." for a follow-up asked as a standalone question, else ""."""
    if not answer.understood_as:
        return ""
    return f"Understood as: {safe_line(answer.understood_as)}"


def citations_by_n(answer: Answer) -> dict[int, list[Citation]]:
    """The answer's citations by source number; for a refusal, its closest passages."""
    out: dict[int, list[Citation]] = {}
    for c in answer.citations or closest_passages(answer):
        out.setdefault(c.n, []).append(c)
    return out


def display_numbers(answer: Answer) -> dict[int, int]:
    """Source number -> the number shown to the person: 1, 2, 3… in reading order.

    The model numbers sources by retrieval rank, so an answer may cite only [4] and [2];
    people expect the first citation to be 1. Cited sources come first, in the order the
    answer text cites them; the other retrieved sources follow in rank order.
    """
    order = cited_order(answer, {c.n for c in answer.citations})
    order += [s.n for s in sorted(answer.sources, key=lambda s: s.n) if s.n not in order]
    return {n: i + 1 for i, n in enumerate(order)}


def citation_label(c: Citation, shown: int | None = None) -> str:
    """Accessible name of a chip: 'Citation 1: usrguide.pdf, page 3'."""
    return f"Citation {shown or c.n}: {file_name(c.file)}, page {c.page}"


_WORD = re.compile(r"[^\W\d_]{2,}")


def readable_draft(text: str, min_words: int = 3) -> str:
    """``text`` when it already reads as prose, else "" (show "Writing…" instead).

    A small model sometimes starts with numbers or punctuation ("1", "128, 128,") that the
    validator later throws away; such a start is never shown. Once a draft has a few real
    words and is mostly letters, it is streamed as it grows.
    """
    if len(_WORD.findall(text)) < min_words:
        return ""
    visible = [ch for ch in text if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in visible)
    return text if visible and letters / len(visible) >= 0.6 else ""


def quote_preview_html(cits: list[Citation], *, section_color: str = "gray") -> str:
    """Rich-text body of the hover preview: the exact quote(s), then file, page, section."""
    parts = []
    for c in cits:
        where = f"{html.escape(file_name(c.file))} · page {c.page}"
        section = (
            f"<div style='color:{section_color}'>{html.escape(c.section)}</div>"
            if c.section
            else ""
        )
        parts.append(
            f"<p style='margin:0 0 6px 0'><i>“{html.escape(c.quote)}”</i></p>"
            f"<div><b>{where}</b></div>{section}"
        )
    return "<hr>".join(parts)


def answer_html(answer: Answer, *, chip_bg: str, chip_fg: str) -> str:
    """The answer text with every valid ``[n]`` turned into a chip-styled ``cite:n`` anchor.

    Markers whose citation was dropped are removed rather than shown as unbacked chips.
    """
    by_n = citations_by_n(answer)
    shown = display_numbers(answer)
    text = answer.answer.strip()
    out: list[str] = []
    pos = 0
    for m in MARKER.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        n = int(m.group(1))
        if n in by_n:
            # No title attribute: its plain tooltip would cover the rich hover preview.
            out.append(
                f"<a href='cite:{n}' style='text-decoration:none;"
                f"background-color:{chip_bg};color:{chip_fg};font-weight:600;"
                f"font-size:9pt'>&nbsp;{shown.get(n, n)}&nbsp;</a>"
            )
        pos = m.end()
    out.append(html.escape(text[pos:]))
    body = "".join(out)
    paragraphs = [p.replace("\n", "<br>") for p in re.split(r"\n\s*\n", body) if p.strip()]
    return "".join(f"<p style='margin:0 0 8px 0'>{p}</p>" for p in paragraphs) or "<p></p>"


def plural(n: int, word: str, many: str = "") -> str:
    """'1 page', '2 pages' ('1 passage', '3 passages'; ``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def library_summary(docs: list[Document]) -> str:
    """The status bar's count: '3 documents', and how many are not fully ready yet in words
    (a document being embedded is already searchable by keyword)."""
    if not docs:
        return "No documents"
    words = [plural(len(docs), "document")]
    embedding = sum(d.status not in ("ready", "partial") for d in docs)
    partial = sum(d.status == "partial" for d in docs)
    if embedding:
        words.append(f"{embedding} still being embedded (keyword search works)")
    if partial:
        words.append(f"{partial} partly read (OCR unfinished)")
    return " · ".join(words)


def dropped_text(dropped: list[DroppedCitation]) -> str:
    duplicates = [d for d in dropped if d.reason == "duplicate"]
    removed = [d for d in dropped if d.reason != "duplicate"]
    reasons: dict[str, int] = {}
    for d in removed:
        reasons[d.reason] = reasons.get(d.reason, 0) + 1
    details = "; ".join(
        DROP_REASONS.get(r, r.replace("_", " ")) + (f" (×{k})" if k > 1 else "")
        for r, k in reasons.items()
    )
    words = f"{plural(len(removed), 'citation')} removed: {details}." if removed else ""
    return " ".join(w for w in (words, DUPLICATE_TEXT if duplicates else "") if w)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


GREEN_TEXT = "Answered from your documents: every claim is cited and verified."
SUMMARY_GREEN_TEXT = "Summarised from the document: every sentence is its own, cited and verified."


def status_text(answer: Answer) -> tuple[str, str]:
    """(level, plain words) for the status line. Level is GREEN, YELLOW, RED or REFUSAL.

    The words say what the status rests on: GREEN only when the cited evidence covers
    the question; YELLOW says what is missing; a refusal says why.
    """
    v = answer.validation
    reasons = v.support.reasons if v.support is not None else []
    if is_refusal(answer):
        # The card (and the Markdown) already shows the answer text: a reason it says is
        # not said again under it.
        said = _words(answer.answer)
        why = [r for r in reasons if _words(r) not in said]
        if not why and not said:
            why = ["no answer could be given."]
        msg = f"Not answered: {why[0]}" if why else "Not answered."
        if closest_passages(answer):
            msg += " Open the closest passages to check for yourself."  # chips above, list below in Markdown
        return "REFUSAL", " ".join([msg, dropped_text(v.dropped)]).strip()
    quoted = answer.kind == "extractive"
    if v.status == "GREEN":
        msg = GREEN_TEXT
        if quoted:
            msg = "Answered from your documents, in their own words (quoted)."
        if answer.kind == "summary":
            msg = SUMMARY_GREEN_TEXT
    elif v.status == "YELLOW":
        why = reasons or [
            f for f in v.flags if not f.startswith(("The model's own answer", "A summary:"))
        ]
        if why and why[0].startswith(WITHHELD_LEAD):  # not lacking: not vouched for
            msg = f"{why[0]} Check the citations before relying on it."
        else:
            msg = "Partly answered. " + (
                why[0] if why else "Check the citations before relying on it."
            )
    else:
        msg = "Citations could not be verified; treat this answer with caution."
    extras = [dropped_text(v.dropped)]
    if v.repaired:
        extras.append(REPAIRED_TEXT)
    return v.status, " ".join([msg, *[e for e in extras if e]])


STATUS_TOOLTIPS = {
    "GREEN": (
        "Every quote was found word for word in the passage it cites, no sentence says more "
        "than its quote, and Footnote's status model judged the evidence very likely to "
        "answer your question. That judgement is an estimate, not proof: read the quote "
        "before you rely on it."
    ),
    "YELLOW": (
        "Every quote shown was found word for word in the passage it cites, but Footnote "
        "cannot vouch that the evidence answers your question; the status line says why. "
        "Check the citations before you rely on the answer."
    ),
    "RED": "Some citations could not be found in the passages they name.",
    "REFUSAL": (
        "Footnote found no answer it could stand behind. The closest passages are shown so "
        "you can check for yourself."
    ),
}
"""What each status rests on, for the hover text of the status line (the README's statuses
paragraph in short)."""


SUMMARY_TOOLTIP = (
    "Every sentence of the summary is the document's own, found word for word in the passage "
    "it cites."
)


def status_tooltip(answer: Answer) -> str:
    """The hover text of ``answer``'s status line: what its status (:func:`status_text`)
    rests on."""
    level, _ = status_text(answer)
    if answer.kind == "summary" and level == "GREEN":
        return SUMMARY_TOOLTIP
    return STATUS_TOOLTIPS.get(level, "")


def _secs(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


def timings_text(timings: dict[str, float]) -> str:
    """Short human summary: total time, and when the first words appeared."""
    total = timings.get("total")
    if total is None:
        total = sum(v for k, v in timings.items() if not k.endswith("_tokens"))
    if not total:
        return ""
    first = timings.get("first_token")
    return _secs(total) + (f" · first words after {_secs(first)}" if first else "")


def timings_tooltip(timings: dict[str, float]) -> str:
    lines = []
    for k, v in timings.items():
        name = k.replace("_", " ")
        lines.append(f"{name}: {int(v)}" if k.endswith("_tokens") else f"{name}: {_secs(v)}")
    return "\n".join(lines)


def answer_markdown(answer: Answer) -> str:
    """Markdown with ``[^n]`` footnotes giving file, page and the exact quote."""
    by_n = citations_by_n(answer)
    shown = display_numbers(answer)

    def sub(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f"[^{shown.get(n, n)}]" if n in by_n else ""

    body = MARKER.sub(sub, answer.answer.strip())
    lines = [f"**Q:** {answer.question}", "", body]
    if answer.understood_as:
        lines[1:1] = ["", f"_{understood_text(answer)}_"]
    if answer.kind == "extractive":
        lines += ["", "_Extractive answer: sentences quoted from the documents._"]
    elif answer.kind == "summary":
        lines += ["", "_Summary: each section in the document's own sentences._"]
    level, words = status_text(answer)
    if is_refusal(answer):
        lines += ["", f"_{words}_"]
        closest = closest_passages(answer)
        if closest:
            lines += ["", "Closest passages:"]
            lines += [
                f"- {file_name(c.file)}, page {c.page}"
                + (f", {c.section}" if c.section else "")
                + f": “{c.quote}”"
                for c in closest
            ]
        return "\n".join(lines) + "\n"
    lines += ["", f"_{level}: {words}_"]
    if by_n:
        lines.append("")
        for n in sorted(by_n, key=lambda k: shown.get(k, k)):
            quotes = " … ".join(f"“{c.quote}”" for c in by_n[n])
            c0 = by_n[n][0]
            lines.append(f"[^{shown.get(n, n)}]: {file_name(c0.file)}, page {c0.page}: {quotes}")
    return "\n".join(lines) + "\n"
