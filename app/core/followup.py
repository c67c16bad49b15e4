"""Follow-up questions understood by rules: "How old are most of them?" after "Roughly how
many men in Australia find out they have breast cancer each year?" becomes "How old are most
of the men in Australia who find out they have breast cancer each year?".

The embedded 135M model cannot rewrite a question itself, so :class:`RuleRewriter` does it
from the previous turn's question (as understood, so chains of follow-ups work): its *focus*
(what it asks about: "the men in Australia who find out ...") and its *topic* (its words
without the asking ones). Four kinds of follow-up are recognised, in English:

* a pronoun that points back ("them", "it", "their price"): replaced by the focus;
* an ellipsis ("and for men?", "what about the second option?", "and in 2020?"): the
  previous question with the new part put in place of the one it replaces;
* a bare question word ("why?", "how so?", "when?"): the previous question asked that way;
* nothing else: a question with words of its own is left untouched (None), as is every
  question of a conversation's first turn.

Conservative on purpose: a standalone question that is rewritten searches for the wrong
thing, while a follow-up left alone is at worst answered as before. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.asking import asking_part, topic
from app.core.protocols import Turn
from app.core.textkit import stem, stop_words

_WORD = re.compile(r"[\w\\][\w'\-\\.]*[\w]|[\w]")
_AUX = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
    ]
)
_COPULA = frozenset(["is", "are", "was", "were"])
_SUBJECT_PRONOUNS = frozenset(["i", "we", "you", "one"])
_PREPOSITIONS = frozenset(
    [
        "in",
        "of",
        "for",
        "on",
        "at",
        "with",
        "by",
        "from",
        "to",
        "among",
        "under",
        "over",
        "during",
        "between",
        "without",
        "within",
        "about",
        "after",
        "before",
        "per",
    ]
)
_DETERMINERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "my",
    ]
)
_HEDGES = re.compile(
    r"(?i)^\W*(?:(?:and|but|so|ok|okay|also|roughly|approximately|about|around|exactly|"
    r"really|just|then)\b[\s,]*)+"
)
_PEOPLE = frozenset(
    [
        "men",
        "women",
        "boys",
        "girls",
        "children",
        "kids",
        "adults",
        "males",
        "females",
        "seniors",
        "students",
        "teachers",
        "patients",
        "babies",
        "infants",
        "teenagers",
        "adolescents",
        "members",
        "residents",
        "visitors",
        "staff",
        "employees",
        "pensioners",
        "retirees",
        "parents",
        "families",
        "owners",
        "tenants",
        "users",
        "people",
        "man",
        "woman",
        "child",
        "adult",
    ]
)
_ORDINALS = frozenset(
    [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "last",
        "next",
        "previous",
        "other",
    ]
)
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")

# pronouns that point back, and the possessive ones ("their price" -> "the price of ...")
_BACK = frozenset(["they", "them", "it", "he", "him", "she", "these", "those"])
_POSSESSIVE = frozenset(["their", "its", "his", "her"])
_EXPLETIVE_IT = re.compile(
    r"(?i)\b(?:is|was|isn't|wasn't|would|will)\s+it\s+(?:be\s+)?(?:possible|necessary|"
    r"true|ok|okay|safe|allowed|legal|better|best|worth|required|enough|too|a\s+good|"
    r"likely|normal|important|free|open)\b|\bit(?:'s|\s+is|\s+was)\s+(?:possible|"
    r"necessary|true|safe|allowed|required|enough|too|likely|normal|important)\b|"
    r"\bit\s+takes?\b|\bdoes\s+it\s+matter\b|\bhow\s+long\s+does\s+it\s+take\b"
)
_THAT_END = re.compile(r"(?i)\b(?:that|this)\s*[?.!]*\s*$")
_ELLIPSIS = re.compile(
    r"(?ix)^\W*(?:(?:and|but|or|so)\s+)?(?:(?P<ask>what|how)\s+about\s+|"
    r"(?:and|but|or)\s+)(?P<prep>(?:for|in|with|on|at|during|among|under|over|without|"
    r"from|to|by)\s+)?(?P<x>[^?]+?)\s*\?*\s*$"
)
_ELLIPSIS_LEAD = re.compile(r"(?i)^\W*(?:(?:and|but|or|so)\s+|(?:what|how)\s+about\s+)")
_BARE = re.compile(
    r"(?ix)^\W*(?:(?:and|but|so)\s+)?(?P<wh>why|how|when|where|who)"
    r"(?P<tail>\s+(?:not|so|come|exactly|then|is\s+that|was\s+that|is\s+it|does\s+it"
    r"|do\s+they|did\s+they))?\s*[?!.]*\s*$"
)
MAX_ELLIPSIS_WORDS = 5
"""An ellipsis ("and for women over 50?") names at most this many words of its own."""
MAX_OWN_CONTENT = 3
"""A question with a pronoun and this many content words of its own stands alone ("How do
I install packages and keep them updated?")."""


class RuleRewriter:
    """:class:`~app.core.protocols.QuestionRewriter` by rules (English; see the module)."""

    def rewrite(self, question: str, history: Sequence[Turn]) -> str | None:
        return rewrite_followup(question, history)


def rewrite_followup(question: str, history: Sequence[Turn]) -> str | None:
    """The standalone form of ``question`` after ``history``, or None when it stands alone."""
    if not history or not question.strip():
        return None
    previous = _plain(history[-1].meant)
    if not previous:
        return None
    asked = question.strip()
    for rule in (_bare, _ellipsis, _pronoun):
        out = rule(asked, previous)
        if out:
            out = _sentence(out)
            return None if _same(out, asked) else out
    return None


# --- the previous question: plain form, focus and topic --------------------------------------
def _plain(question: str) -> str:
    """The asking part of ``question`` without talk, hedges and the final mark."""
    text = asking_part(topic(question.strip()))
    text = _HEDGES.sub("", text).strip()
    return text.rstrip(" ?!.").strip()


def _words(text: str) -> list[str]:
    return text.split()


def _low(word: str) -> str:
    return word.strip(",;:()\"'").lower()


def _noun_phrase(words: list[str], *, counted: bool) -> tuple[list[str], list[str]]:
    """Split ``words`` into a leading noun phrase (with one prepositional phrase: "men in
    Australia") and the rest. ``counted``: the phrase follows "how many", so it ends at its
    first plural-looking word ("breast cancer cases are ...")."""
    np: list[str] = []
    i = 0
    while i < len(words):
        w = _low(words[i])
        if w in _AUX or (w in _PREPOSITIONS and np):
            break
        np.append(words[i])
        i += 1
        if counted and (w in _PEOPLE or (w.endswith("s") and not w.endswith("ss"))):
            break
        if len(np) >= 4:
            break
    if i < len(words) and _low(words[i]) in _PREPOSITIONS and np:
        j = i + 1
        if j < len(words) and _low(words[j]) in _DETERMINERS:
            j += 1
        k = j
        while k < len(words) and words[k][:1].isupper():  # a capitalised run: "New South Wales"
            k += 1
        if k == j and j < len(words) and _low(words[j]) not in _AUX:
            k = j + 1
        if k > j:
            np, i = np + words[i:k], k
    return np, words[i:]


def _subject(words: list[str]) -> list[str]:
    """The subject at the start of a yes/no question's words, kept short (the rest may be
    its predicate: "the hall | wheelchair accessible"): a determiner and one word, or a run
    of capitalised words ("New South Wales"), or one word."""
    i = 1 if words and _low(words[0]) in _DETERMINERS else 0
    j = i
    while j < len(words) and (words[j][:1].isupper() or "-" in words[j]):
        j += 1
    if j == i:
        j = min(i + 1, len(words))
    return words[:j]


def _with_the(np: list[str]) -> str:
    text = " ".join(np)
    return text if np and _low(np[0]) in _DETERMINERS else f"the {text}"


def _relative(np: list[str]) -> str:
    head = _low(np[0]) if np else ""
    return "who" if any(_low(w) in _PEOPLE for w in np[:2]) or head in _PEOPLE else "that"


def focus(previous: str) -> str:
    """What ``previous`` (a plain question) asks about, as a noun phrase to put in place of
    a pronoun: "the men in Australia who find out they have breast cancer each year"."""
    words = _words(previous)
    if not words:
        return ""
    first = _low(words[0])
    second = _low(words[1]) if len(words) > 1 else ""
    if first == "how" and second in ("many", "much") and len(words) > 2 and _low(words[2]) in _AUX:
        # "how much does a ticket cost": as "what does ..."
        words, first, second = words[1:], "how", _low(words[2])
    if first == "how" and second in ("many", "much"):
        np, rest = _noun_phrase(words[2:], counted=second == "many")
        if not np:
            return _topic_phrase(words)
        if rest and _low(rest[0]) in _AUX and len(rest) > 1 and _low(rest[1]) == "there":
            rest = rest[2:]
        phrase = _with_the(np)
        return f"{phrase} {_relative(np)} {' '.join(rest)}" if rest else phrase
    if first in _WH and second in _AUX:
        rest = words[2:]
        if second in _COPULA or not rest:
            return " ".join(rest) or _topic_phrase(words)
        if _low(rest[0]) in _SUBJECT_PRONOUNS and len(rest) > 2:
            return " ".join(rest[2:])  # "how do I declare an option in a class" -> its object
        before = []
        for w in rest:
            if _low(w) in _PREPOSITIONS:
                break
            before.append(w)
        if len(before) > 1:  # "what does the X command do" -> "the X command"
            return " ".join(before[:-1])
        return " ".join(rest)
    if first in ("what", "which") and len(words) > 2:
        np, _ = _noun_phrase(words[1:], counted=False)
        if np:
            return _with_the(np)
    if first in _AUX and len(words) > 2:  # "is the hall accessible"
        np = _subject(words[1:])
        if np and _low(np[0]) not in _SUBJECT_PRONOUNS:
            return " ".join(np)
    return _topic_phrase(words)


def _topic_phrase(words: list[str]) -> str:
    """The previous question's words after its question word and auxiliaries."""
    i = 0
    while i < len(words) and (_low(words[i]) in _AUX or _low(words[i]) in _WH):
        i += 1
    if i < len(words) and _low(words[i]) in ("many", "much", "long", "often", "far", "old"):
        i += 1
    return " ".join(words[i:])


_WH = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])


# --- the rules -------------------------------------------------------------------------------
def _bare(asked: str, previous: str) -> str | None:
    """ "why?" / "how so?" / "when?": the previous question asked with that word."""
    m = _BARE.match(asked)
    if not m:
        return None
    wh = m.group("wh").lower()
    negated = bool(m.group("tail")) and m.group("tail").strip().lower() == "not"
    words = _words(previous)
    first = _low(words[0])
    second = _low(words[1]) if len(words) > 1 else ""
    if first in _WH and second in _AUX:
        body = words[1:]
    elif first == "how" and second in ("many", "much"):
        np, rest = _noun_phrase(words[2:], counted=second == "many")
        aux_first = bool(rest) and _low(rest[0]) in _AUX
        body = [rest[0], *np, *rest[1:]] if aux_first else ["do", *np, *rest]
    elif first in _AUX:
        body = [first, *words[1:]]
    else:
        body = []
    if not body or (body[0] in _COPULA and first in _WH):  # "what are the options": kept whole
        return f"{wh.capitalize()}: {previous}?"
    if negated:
        subject = _subject(body[1:])
        body = [body[0], *subject, "not", *body[1 + len(subject) :]]
    return f"{wh.capitalize()} {' '.join(body)}"


def _ellipsis(asked: str, previous: str) -> str | None:
    """ "and for men?" / "what about the second option?": the previous question with the new
    part in the place of the one it stands for."""
    m = _ELLIPSIS.match(asked)
    if not m or not _ELLIPSIS_LEAD.match(asked):
        return None
    x = m.group("x").strip(" ,")
    prep = (m.group("prep") or "").strip().lower()
    xw = _words(x)
    if not xw or len(xw) > MAX_ELLIPSIS_WORDS or _low(xw[0]) in _AUX | _WH:
        return None
    if _low(xw[0]) in _BACK | _POSSESSIVE:
        return None  # "and them?": the pronoun rule's
    pw = _words(previous)
    # a year for a year
    year = _YEAR.search(x)
    if year and _YEAR.search(previous):
        return _YEAR.sub(year.group(), previous, count=1)
    # people for people ("women" -> "men"), an ordinal for an ordinal
    for i, w in enumerate(pw):
        lw = _low(w)
        for j, v in enumerate(xw):
            lv = _low(v)
            if lv in _PEOPLE and lw in _PEOPLE and lv != lw:
                return " ".join([*pw[:i], *xw[j:], *pw[i + 1 :]])
            if lv in _ORDINALS and lw in _ORDINALS and lv != lw:
                return " ".join([*pw[:i], v, *pw[i + 1 :]])
    # the same preposition: its object replaced ("in Australia" -> "in Germany")
    if prep:
        for i, w in enumerate(pw[:-1]):
            if _low(w) == prep:
                np, rest = _noun_phrase(pw[i + 1 :], counted=False)
                if np:
                    return " ".join([*pw[: i + 1], *xw, *rest])
    # a thing the previous question named ("the second option" after "... the options for X")
    head = stem(_low(xw[-1]))
    for i, w in enumerate(pw):
        if stem(_low(w)) == head and _low(w) not in stop_words("en"):
            verb = "are" if _low(xw[-1]).endswith("s") and not _low(xw[-1]).endswith("ss") else "is"
            ask = (m.group("ask") or "what").lower()
            lead = "What" if ask == "what" or ask == "how" else ask.capitalize()
            tail = " ".join(pw[i + 1 :])
            return f"{lead} {verb} {x}{' ' + tail if tail else ''}"
    joined = f"{prep} {x}" if prep else x
    return f"{previous}, {joined}" if not m.group("ask") else f"{previous}: what about {joined}"


def _pronoun(asked: str, previous: str) -> str | None:
    """A pronoun that points back, replaced by the previous question's focus."""
    text = asking_part(topic(asked))
    if _EXPLETIVE_IT.search(text):
        text = _EXPLETIVE_IT.sub(" ", text)
    tokens = list(_WORD.finditer(text))
    stops = stop_words("en")
    hit = None
    for k, t in enumerate(tokens):
        w = t.group().lower()
        if w in _BACK or w in _POSSESSIVE:
            hit = k
            break
    that_end = hit is None and _THAT_END.search(text)
    if hit is None and not that_end:
        return None
    own = [
        t.group()
        for t in tokens
        if t.group().lower() not in stops and t.group().lower() not in _BACK | _POSSESSIVE
    ]
    if len(own) >= MAX_OWN_CONTENT:
        return None
    if hit is not None and _points_inside(tokens, hit, stops):
        return None
    referent = focus(previous)
    if not referent:
        return None
    if hit is None:  # "how much is that?"
        m = _THAT_END.search(text)
        return f"{text[: m.start()]}{referent}" if m else None
    t = tokens[hit]
    w = t.group().lower()
    before, after = text[: t.start()], text[t.end() :]
    if w in _POSSESSIVE and not (w == "her" and _object_her(tokens, hit)):
        follow = [x for x in tokens[hit + 1 : hit + 4]]
        noun: list[re.Match[str]] = []
        for x in follow:
            if x.group().lower() in stops:
                break
            noun.append(x)
        if noun:
            thing = text[noun[0].start() : noun[-1].end()]
            return f"{before}the {thing} of {referent}{text[noun[-1].end() :]}"
        return f"{before}{referent}'s{after}"
    return f"{before}{referent}{after}"


def _object_her(tokens: list[re.Match[str]], k: int) -> bool:
    """ "her" as an object ("ask her"), not a possessive ("her age")."""
    return k + 1 >= len(tokens)


def _points_inside(tokens: list[re.Match[str]], k: int, stops: frozenset[str]) -> bool:
    """The pronoun points at a thing the question itself names before an "and" ("What is
    LaTeX and who wrote it?")."""
    seen_content = False
    for t in tokens[:k]:
        w = t.group().lower()
        if w == "and" and seen_content:
            return True
        if w not in stops:
            seen_content = True
    return False


def _sentence(text: str) -> str:
    """``text`` as a question: spaces tidied, capitalised, one final "?"."""
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    text = re.sub(r"\s+([,;:?])", r"\1", text)
    text = text.rstrip(" ?.!") + "?"
    return text[:1].upper() + text[1:]


def _same(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return re.sub(r"\W+", " ", s).strip().lower()

    return norm(a) == norm(b)
