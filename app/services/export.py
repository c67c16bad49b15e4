"""A whole conversation as Markdown or HTML, every citation a footnote (file, page, section,
quote). Used by the desktop's *Edit → Export conversation…* and ``footnote chat --export``.

Footnotes are numbered 1, 2, 3… through the whole conversation in reading order (an answer's
[4] and [2] become the next two numbers); a refusal lists its closest passages instead.
Pure functions of the contract models.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from app.core.citing import MARKER, cited_order, closest_passages, is_refusal
from app.core.models import Answer, Citation

STATUS_WORDS = {
    "GREEN": "Answered from your documents",
    "YELLOW": "Partly answered",
    "RED": "Citations could not be verified",
    "REFUSED": "Not answered",
}
EXPORT_SUFFIXES = (".md", ".markdown", ".html", ".htm")


def _status(answer: Answer) -> str:
    v = answer.validation
    words = STATUS_WORDS["REFUSED"] if is_refusal(answer) else STATUS_WORDS.get(v.status, v.status)
    reasons = v.support.reasons if v.support is not None else []
    if is_refusal(answer) or v.status == "YELLOW":
        why = reasons[0] if reasons else (answer.answer.strip() if is_refusal(answer) else "")
        if why and why not in words:
            words = f"{words}: {why}"
    return words


def _by_n(answer: Answer) -> dict[int, list[Citation]]:
    out: dict[int, list[Citation]] = {}
    for c in answer.citations:
        out.setdefault(c.n, []).append(c)
    return out


def _where(c: Citation) -> str:
    name = Path(c.file).name if c.file else c.doc_id
    return f"{name}, page {c.page}" + (f", {c.section}" if c.section else "")


def conversation_markdown(answers: Sequence[Answer], *, title: str = "Conversation") -> str:
    """Markdown: each question as a heading, its answer with ``[^k]`` footnotes, its status;
    the footnotes (file, page, section, quote) at the end."""
    lines = [f"# {title}", ""]
    notes: list[str] = []
    for i, answer in enumerate(answers, start=1):
        lines += [f"## {i}. {answer.question.strip()}", ""]
        if answer.understood_as:
            lines += [f"_Understood as: {answer.understood_as}_", ""]
        by_n = _by_n(answer)
        numbers: dict[int, int] = {}
        for n in cited_order(answer, by_n):
            numbers[n] = len(notes) + 1
            quotes = " … ".join(f"“{_one_line(c.quote)}”" for c in by_n[n])
            notes.append(f"[^{numbers[n]}]: {_where(by_n[n][0])}: {quotes}")

        def sub(m: re.Match[str], numbers: dict[int, int] = numbers) -> str:
            n = int(m.group(1))
            return f"[^{numbers[n]}]" if n in numbers else ""

        lines += [MARKER.sub(sub, answer.answer.strip()), ""]
        closest = closest_passages(answer)
        if closest:
            lines += ["Closest passages:", ""]
            lines += [f"- {_where(c)}: “{_one_line(c.quote)}”" for c in closest]
            lines.append("")
        lines += [f"_{_status(answer)}_", ""]
    if notes:
        lines += ["---", "", *notes, ""]
    return "\n".join(lines)


def conversation_html(answers: Sequence[Answer], *, title: str = "Conversation") -> str:
    """A standalone HTML page: questions, answers with superscript footnote links, and the
    footnotes (file, page, section, quote) in an ordered list at the end."""
    esc = html.escape
    body: list[str] = [f"<h1>{esc(title)}</h1>"]
    notes: list[str] = []
    for i, answer in enumerate(answers, start=1):
        body.append(f"<section class='turn'><h2>{i}. {esc(answer.question.strip())}</h2>")
        if answer.understood_as:
            body.append(f"<p class='understood'>Understood as: {esc(answer.understood_as)}</p>")
        by_n = _by_n(answer)
        numbers: dict[int, int] = {}
        for n in cited_order(answer, by_n):
            numbers[n] = len(notes) + 1
            k = numbers[n]
            quotes = " … ".join(f"“{esc(_one_line(c.quote))}”" for c in by_n[n])
            notes.append(
                f"<li id='fn{k}'>{esc(_where(by_n[n][0]))}: <q>{quotes}</q> "
                f"<a href='#ref{k}'>↩</a></li>"
            )
        text = answer.answer.strip()
        parts: list[str] = []
        last = 0
        for m in MARKER.finditer(text):
            parts.append(esc(text[last : m.start()]))
            n = int(m.group(1))
            if n in numbers:
                k = numbers[n]
                parts.append(f"<sup id='ref{k}'><a href='#fn{k}'>{k}</a></sup>")
            last = m.end()
        parts.append(esc(text[last:]))
        paragraphs = "".join(parts).split("\n\n")
        body += [f"<p>{p.replace(chr(10), '<br>')}</p>" for p in paragraphs if p.strip()]
        closest = closest_passages(answer)
        if closest:
            items = "".join(
                f"<li>{esc(_where(c))}: <q>{esc(_one_line(c.quote))}</q></li>" for c in closest
            )
            body.append(f"<p>Closest passages:</p><ul>{items}</ul>")
        body.append(f"<p class='status'><em>{esc(_status(answer))}</em></p></section>")
    if notes:
        body.append(f"<hr><ol class='footnotes'>{''.join(notes)}</ol>")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{esc(title)}</title><style>"
        "body{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.5}"
        ".understood,.status{color:#555}sup a{text-decoration:none}"
        "</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def export_conversation(answers: Sequence[Answer], path: Path) -> None:
    """Write ``answers`` to ``path`` as HTML (``.html``/``.htm``) or Markdown (else)."""
    html_out = path.suffix.lower() in (".html", ".htm")
    text = conversation_html(answers) if html_out else conversation_markdown(answers)
    path.write_text(text, encoding="utf-8")


def _one_line(text: str) -> str:
    return " ".join(text.split())
