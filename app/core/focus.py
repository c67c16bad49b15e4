"""What a question asks for (its focus), apart from what it is about (its topic).

"What is the operating temperature range of the ADSP-21161N EZ-KIT Lite board?" is about
the board (the topic, named all over its manual) and asks for the operating temperature
range (the focus). Evidence that names the board and nothing of a temperature does not
answer it, however well the topic matches: the support check needs the focus, by stem,
variant or meaning, in the cited evidence (:mod:`app.validation.support`), and the search
may weigh it above the topic.

The focus is read from the shape of the ask, not from the library: the noun phrase a
"what/which" asks for ("the setting for line wrapping"), the thing a "how many" counts,
the attribute a "how long/old/big" asks after, the action a "how do I" asks a way to do,
the verb a "who/when/where/why" asks about, the predicate of a yes/no question. English,
German and French; a question of another shape has no focus (an empty one), and the
support check then weighs every concept as before. Pure functions, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core import textkit
from app.core.asking import asking_part, topic
from app.core.textkit import STOPS_EXTRA, detect_language

HOW_ATTRIBUTE = {
    "long": ("long", "length", "duration", "time"),
    "old": ("old", "age", "year"),
    "big": ("big", "size", "large"),
    "large": ("large", "size"),
    "small": ("small", "size"),
    "often": ("often", "frequency", "every"),
    "far": ("far", "distance"),
    "fast": ("fast", "speed"),
    "heavy": ("heavy", "weight"),
    "tall": ("tall", "height"),
    "high": ("high", "height"),
    "wide": ("wide", "width"),
    "deep": ("deep", "depth"),
    "early": ("early", "time"),
    "late": ("late", "time"),
    "soon": ("soon", "time"),
    "hot": ("hot", "temperature"),
    "cold": ("cold", "temperature"),
}
""""How ADJ" asks for an attribute; a passage states it by the adjective or its noun ("How
heavy is the bike?" -> "Weight of the bike: 23.4 kg")."""

_EN_AUX = (
    r"is|are|was|were|be|been|'s|do|does|did|can|could|should|would|will|shall|may|might"
    r"|must|has|have|had"
)
_EN_PREP = (
    r"of|for|in|on|at|to|with|about|from|by|into|onto|over|under|between|per|when|if|that"
    r"|which|who|where|while|during|after|before|so|than|as|via|without|within|against"
)
_EN_SUBJ = r"i|you|we|they|he|she|it|one|people|someone|anyone|a\s+user|users?"
_DET = r"(?:the|a|an|this|that|these|those|its|their|his|her|my|our|your|any|each|every)\s+"

_EN_WHAT_IS = re.compile(
    rf"(?ix)\b(?:what|which)(?:'s|\s+(?:{_EN_AUX}))\s+(?:{_DET})?"
    rf"(?P<np>(?:(?!(?:{_EN_PREP}|{_EN_AUX})\b)[\w'\-]+\s*){{1,5}})"
)
_EN_WHAT_NP = re.compile(
    rf"(?ix)\b(?:what|which|whose)\s+(?:kind\s+of\s+|type\s+of\s+|sort\s+of\s+)?"
    rf"(?P<np>(?:(?!(?:{_EN_AUX}|{_EN_PREP}|{_EN_SUBJ})\b)[\w'\-]+\s+){{1,4}})"
    rf"(?:{_EN_AUX}|{_EN_SUBJ})\b"
)
_EN_HOW_MANY = re.compile(
    rf"(?ix)\bhow\s+(?:many|much)\s+(?P<np>(?:(?!(?:{_EN_PREP}|{_EN_AUX}|{_EN_SUBJ})\b)[\w'\-]+\s*){{1,3}})"
)
_EN_HOW_ADJ = re.compile(rf"(?i)\bhow\s+(?P<adj>{'|'.join(HOW_ATTRIBUTE)})\b")
_EN_HOW_DO = re.compile(
    rf"(?ix)\bhow\s+(?:{_EN_AUX})\s+(?:{_EN_SUBJ})\s+(?P<vp>(?:[\w'\-\\]+\s*){{1,4}})"
)
_EN_HOW_TO = re.compile(r"(?ix)\bhow\s+to\s+(?P<vp>(?:[\w'\-\\]+\s*){1,4})")
_EN_WH_VERB = re.compile(rf"(?ix)\b(?:who|when|where|why)\s+(?:(?P<aux>{_EN_AUX})\s+)?(?P<rest>.+)")
_EN_WHICH_VERB = re.compile(
    rf"(?ix)\b(?:what|which)\s+(?P<np>(?:(?!(?:{_EN_AUX}|{_EN_PREP}|{_EN_SUBJ})\b)[\w'\-]+\s+){{1,3}}?)"
    rf"(?P<verb>[a-z]+s)\s+(?P<rest>.+)"
)
_PRONOUN = re.compile(rf"(?i)^\W*(?:{_EN_SUBJ})\s+")
_LATER_VERB = re.compile(rf"(?i)\b(?:{_EN_AUX}|be|get|got)\s+(?P<rest>.+)")
_EN_YES_NO = re.compile(rf"(?ix)^\W*(?:{_EN_AUX}|is\s+there|are\s+there)\s+(?P<rest>.+)")

_DE_WAS_IST = re.compile(
    r"(?ix)\b(?:was|welche[rsnm]?)\s+(?:ist|sind|war|waren|bedeutet|heißt)\s+"
    r"(?:der|die|das|den|dem|ein|eine|einen)?\s*(?P<np>(?:[\w\-]+\s*){1,3})"
)
_DE_WIE_VIELE = re.compile(
    r"(?i)\bwie\s+(?:viele?|hoch|lang|alt|groß|schwer|oft|weit)\s+(?P<np>(?:[\w\-]+\s*){1,2})"
)
_FR_QUEL = re.compile(
    r"(?ix)\b(?:quel(?:le)?s?|qu'est-ce\s+que)\s+(?:est|sont)?\s*(?:le|la|les|l')?\s*"
    r"(?P<np>(?:[\w\-]+\s*){1,3})"
)


@dataclass(frozen=True)
class Focus:
    """What a question asks for (``words``: content words as written, in order) and the
    shape of the ask that found them ("what", "how many", "how adj", "how do", "wh",
    "yes/no"; "" when none was found)."""

    words: tuple[str, ...] = ()
    shape: str = ""
    alternatives: tuple[str, ...] = ()
    """Other words that state the same focus ("weight" for "how heavy")."""


def _content(text: str, lang: str, limit: int = 4) -> tuple[str, ...]:
    stops = textkit.stop_words(lang) | textkit.stop_words() | STOPS_EXTRA
    out: list[str] = []
    for w in re.findall(r"\\?[^\W_][\w'\-]*", text):
        if w.lower() in stops or w.isdigit() or len(w) < 3:
            continue
        out.append(w)
        if len(out) == limit:
            break
    return tuple(out)


def question_focus(question: str, lang: str | None = None) -> Focus:
    """The focus of ``question`` (see the module docstring); an empty :class:`Focus` when
    its shape is none of those read here."""
    ask = asking_part(topic(question)).strip()
    lang = lang or detect_language(ask)
    if lang == "de":
        return _german(ask)
    if lang == "fr":
        m = _FR_QUEL.search(ask)
        return Focus(_content(m.group("np"), "fr", 2), "what") if m else Focus()
    return _english(ask)


def _english(ask: str) -> Focus:
    m = _EN_HOW_MANY.search(ask)
    if m:
        return Focus(_content(m.group("np"), "en", 2), "how many")
    m = _EN_HOW_ADJ.search(ask)
    if m:
        adj = m.group("adj").lower()
        return Focus((adj,), "how adj", HOW_ATTRIBUTE[adj][1:])
    m = _EN_HOW_DO.search(ask) or _EN_HOW_TO.search(ask)
    if m:
        return Focus(_content(m.group("vp"), "en", 2), "how do")
    m = _EN_WHAT_IS.search(ask)
    if m:
        words = _content(m.group("np"), "en", 3)
        if words:
            return Focus(words, "what")
    m = _EN_WHAT_NP.search(ask)
    if m:
        words = _content(m.group("np"), "en", 3)
        if words:
            return Focus(words, "what")
    m = _EN_WHICH_VERB.search(ask)
    if m:  # "Which natbib option stops names breaking?": what the thing asked for does
        head = _content(m.group("np"), "en", 3)[-1:]
        words = head + _content(m.group("rest"), "en", 2)
        if words:
            return Focus(words, "what")
    m = _EN_WH_VERB.search(ask)
    if m:  # "Who wrote the manual?", "When was the club founded?": the verb asked about
        rest = m.group("rest")
        if not m.group("aux"):  # "Who wrote ...": the verb comes first
            return Focus(_content(rest, "en", 1), "wh")
        if _PRONOUN.match(rest):  # "Where can I buy tickets?"
            return Focus(_content(_PRONOUN.sub("", rest, count=1), "en", 2), "wh")
        words = _content(rest, "en", 8)  # "When was the club founded?": the last word
        return Focus(words[-1:], "wh") if words else Focus()
    m = _EN_YES_NO.match(ask)
    if m:  # the predicate after the subject: "Can one multicols be placed inside another?"
        rest = m.group("rest")
        if _PRONOUN.match(rest):  # "Can I get a printed copy?"
            return Focus(_content(_PRONOUN.sub("", rest, count=1), "en", 2), "yes/no")
        later = _LATER_VERB.search(rest)
        words = _content(later.group("rest") if later else rest, "en", 6)
        words = words if later else words[1:]
        return Focus(words[:2], "yes/no") if words else Focus()
    return Focus()


def _german(ask: str) -> Focus:
    m = _DE_WIE_VIELE.search(ask)
    if m:
        return Focus(_content(m.group("np"), "de", 2), "how many")
    m = _DE_WAS_IST.search(ask)
    if m:
        return Focus(_content(m.group("np"), "de", 2), "what")
    return Focus()
