"""GBNF grammars for the model's answer, derived from the pydantic ``RawAnswer`` model.

Why an explicit grammar instead of ``response_format``: llama-cpp-python 0.3.36 silently
ignores ``{"type": "json_schema"}``, silently falls back to generic JSON for schemas it
cannot convert, and its generic string rule admits raw control characters. Here the
grammar is written from the same pydantic models that parse the output
(:func:`app.generation.parsing.parse_raw_answer`), so schema, grammar and parser cannot
drift apart, and the grammar carries constraints a JSON schema cannot express:

* ``source`` can only be a number that was actually shown to the model;
* each ``quote`` can only be one of the sentences shown for *that* source (an alternation
  of literal, JSON-escaped sentences), so even a tiny model cannot invent evidence.
  ``free_quotes=True`` admits any bounded string instead, for large models; the
  validator then does the checking;
* inline markers in the answer are limited to shown sources, and every answer segment
  ends with a marker, so text cannot trail off uncited;
* every field is bounded (answer length, number of citations, quote length), so
  generation always terminates even when the model would loop; a sentence can only
  end (``. ! ?``) next to a citation marker, so
  the answer is at most ``answer_segments`` cited sentences ("... [1]." or "... . [1]");
* with ``evidence`` (citations chosen by the ranker, for very small models) the mode,
  the citations and the markers that end each segment (every evidence source, "[1][3]") are
  fixed literals and the model only writes the answer text.

The JSON layout is fixed (``json.dumps`` default separators), which saves the model
from spending tokens on whitespace choices and makes the output easy to stream.
"""

from __future__ import annotations

import json
import logging
import typing
from collections.abc import Sequence

from app.core.answer_spec import ANSWER_FIRST as ANSWER_FIRST  # re-exported
from app.core.answer_spec import CITATIONS_FIRST, GrammarSpec
from app.core.models import RawAnswer, RawCitation

logger = logging.getLogger(__name__)

# Characters allowed in free text: no quote, backslash, control characters or square
# brackets (brackets only appear as grammar-made citation markers).
_TEXT_CHAR = r'[^"\\\x00-\x1f\x7f\[\]]'
# Answer text: ". ! ?" only as a decimal point ("4.2") or where a sentence ends, and a
# sentence ends only next to a citation marker (see ``segment``).
_ANSWER_UNIT = r'[^"\\\x00-\x1f\x7f\[\].!?] | "." [0-9]'
_FREE_QUOTE_CHAR = r'[^"\\\x00-\x1f\x7f]'


def mode_values() -> tuple[str, ...]:
    """The admissible ``mode`` values, read from the pydantic model (single source of truth)."""
    return tuple(typing.get_args(RawAnswer.model_fields["mode"].annotation))


def gbnf_literal(text: str) -> str:
    """Quote ``text`` as a GBNF string literal matching exactly those characters.

    ASCII printables stay as they are (with ``"`` and ``\\`` escaped); everything else,
    including control characters and non-ASCII, becomes a ``\\u``/``\\U`` code point
    escape, which llama.cpp's grammar parser reads as the character itself.
    """
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o <= 0xFFFF:
            out.append(f"\\u{o:04X}")
        else:
            out.append(f"\\U{o:08X}")
    out.append('"')
    return "".join(out)


def json_string(text: str) -> str:
    """The JSON encoding of ``text`` the model must produce (raw UTF-8, escaped specials)."""
    return json.dumps(text, ensure_ascii=False)


def _key(name: str) -> str:
    """GBNF literal for ``"name": `` (JSON key, colon and the default single space)."""
    return gbnf_literal(json.dumps(name) + ": ")


def build_grammar(spec: GrammarSpec) -> str:
    """Return the GBNF grammar text for ``spec`` (root rule ``root``)."""
    cite_fields = list(RawCitation.model_fields)
    if cite_fields != ["source", "quote"]:  # the rules below spell these two out
        raise RuntimeError(f"RawCitation fields changed: {cite_fields}")
    modes = mode_values()
    if set(modes) != {"answer", "refuse"}:
        raise RuntimeError(f"RawAnswer.mode values changed: {modes}")

    numbers = sorted(spec.quotes)
    rules: dict[str, str] = {}

    # --- the "answer" object -----------------------------------------------------
    parts_answer: list[str] = []
    parts_refuse: list[str] = []
    for i, field in enumerate(spec.order):
        sep = gbnf_literal(", ") if i else ""
        if field == "mode":
            parts_answer.append(f"{sep} {_key('mode')} {gbnf_literal(json_string('answer'))}")
            parts_refuse.append(f"{sep} {_key('mode')} {gbnf_literal(json_string('refuse'))}")
        elif field == "citations":
            parts_answer.append(f"{sep} {_key('citations')} citations")
            parts_refuse.append(f"{sep} {_key('citations')} {gbnf_literal('[]')}")
        elif field == "answer":
            parts_answer.append(f"{sep} {_key('answer')} answer-text")
            parts_refuse.append(f"{sep} {_key('answer')} refusal-text")
    rules["root"] = "answer-obj" if spec.evidence else "answer-obj | refuse-obj"
    rules["answer-obj"] = '"{" ' + " ".join(parts_answer) + ' "}"'
    if not spec.evidence:
        rules["refuse-obj"] = '"{" ' + " ".join(parts_refuse) + ' "}"'

    # --- citations -------------------------------------------------------------------
    if spec.evidence:
        rules["citations"] = gbnf_literal(evidence_json(spec.evidence))
    else:
        more = spec.max_citations - 1
        rules["citations"] = (
            f'"[" citation ({gbnf_literal(", ")} citation){{0,{more}}} "]"'
            if more
            else '"[" citation "]"'
        )
        alts = []
        for n in numbers:
            quote_rule = "free-quote" if spec.free_quotes else f"quote-{n}"
            alts.append(f"{gbnf_literal(f'{n}, ')} {_key('quote')} {quote_rule}")
        rules["citation"] = f'"{{" {_key("source")} (' + " | ".join(alts) + ') "}"'
        if spec.free_quotes:
            rules["free-quote"] = f'"\\"" quote-char{{1,{spec.quote_chars}}} "\\""'
            rules["quote-char"] = _FREE_QUOTE_CHAR
        else:
            for n in numbers:
                lits = " | ".join(quote_literals(spec.quotes[n]))
                rules[f"quote-{n}"] = f'"\\"" ({lits})'

    # --- answer text: segments that each end with citation markers ----------------------
    rules["answer-text"] = '"\\"" answer-body'
    rules.update(_answer_rules(spec, marker_numbers(spec)))
    if not spec.evidence:
        rules["refusal-text"] = f'"\\"" text-char{{0,{spec.refusal_chars}}} "\\""'
        rules["text-char"] = _TEXT_CHAR

    text = _render(rules)
    logger.debug("grammar: %d rules, %d chars", len(rules), len(text))
    return text


def _answer_rules(spec: GrammarSpec, numbers: Sequence[int]) -> dict[str, str]:
    """Rules for the answer string's content and its closing quote (``answer-body``).

    With fixed ``evidence`` every segment ends with the markers of all its sources ("[1][3]"):
    the answer rests on the evidence as a whole, so each cited quote gets its chip in the
    text instead of the model choosing which to mark (it often marked only the first)."""
    rules = {
        "answer-body": f'segment{{1,{spec.answer_segments}}} "\\""',
        "segment": (
            f'answer-unit{{1,{spec.segment_chars}}} (markers end-punct? | end-punct " "? markers)'
        ),
        "markers": f"marker{{1,{spec.max_markers}}}",
        "marker": '"[" source-number "]"',
        "source-number": " | ".join(gbnf_literal(str(n)) for n in numbers),
        "end-punct": "[.!?]",
        "answer-unit": _ANSWER_UNIT,
    }
    if spec.evidence:
        rules["markers"] = gbnf_literal("".join(f"[{n}]" for n in numbers))
        del rules["marker"], rules["source-number"]
    return rules


def marker_numbers(spec: GrammarSpec) -> list[int]:
    """Source numbers an answer marker may name: the evidence's, else every shown source."""
    return sorted({n for n, _ in spec.evidence}) or sorted(spec.quotes)


def _render(rules: dict[str, str]) -> str:
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"


def phase_grammars(spec: GrammarSpec) -> dict[str, str]:
    """Small grammars for :class:`app.generation.decoder.StructuredDecoder`, one per choice.

    Each covers what the model chooses between two pieces of forced JSON, including
    the terminator that ends the phase (a closing quote, a comma, a space). Together
    with the forced text they produce exactly the language of :func:`build_grammar`.
    """
    numbers = sorted(spec.quotes)
    out = {
        "mode": _render({"root": " | ".join(gbnf_literal(m + '"') for m in mode_values())}),
        "source": _render(
            {"root": "(" + " | ".join(gbnf_literal(str(n)) for n in numbers) + ') ","'}
        ),
        "more": _render({"root": gbnf_literal('}, {"source": ') + " | " + gbnf_literal("}], ")}),
        "answer": _render({"root": "answer-body", **_answer_rules(spec, marker_numbers(spec))}),
    }
    if spec.free_quotes:
        out["free-quote"] = _render(
            {"root": f'quote-char{{1,{spec.quote_chars}}} "\\""', "quote-char": _FREE_QUOTE_CHAR}
        )
    else:
        for n in numbers:
            out[f"quote-{n}"] = _render({"root": " | ".join(quote_literals(spec.quotes[n]))})
    return out


def evidence_json(evidence: Sequence[tuple[int, str]]) -> str:
    """The citations array for fixed evidence, exactly as json.dumps writes it."""
    return json.dumps([{"source": n, "quote": q.strip()} for n, q in evidence], ensure_ascii=False)


def quote_literals(sentences: Sequence[str]) -> list[str]:
    """GBNF literals for a quote's JSON content and closing quote, one per distinct sentence."""
    seen: list[str] = []
    for s in sentences:
        if s.strip():
            lit = gbnf_literal(json_string(s.strip())[1:])
            if lit not in seen:
                seen.append(lit)
    return seen


def answer_json(raw: RawAnswer, order: Sequence[str] = CITATIONS_FIRST) -> str:
    """Serialise ``raw`` exactly as the grammar lays it out (used in tests and examples)."""
    data = raw.model_dump()
    return json.dumps({k: data[k] for k in order}, ensure_ascii=False)
