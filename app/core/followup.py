"""Follow-up questions understood by rules: "How old are most of them?" after "Roughly how
many men in Australia find out they have breast cancer each year?" becomes "How old are most
of the men in Australia who find out they have breast cancer each year?".

The embedded 135M model cannot rewrite a question itself, so :class:`RuleRewriter` does it
from the previous turn's question (as understood, so chains of follow-ups work): its *focus*
(what it asks about: "the men in Australia who find out ...") and its *topic* (its words
without the asking ones). Whether a question leans on the turns before it at all is
:func:`app.core.leaning.leaning`'s to tell; one that stands alone is left untouched (None),
as is every question of a conversation's first turn. One that leans is rewritten by the
first rule that fits:

* a bare question word ("why?", "how so?", "when?"): the previous question asked that way;
* an ellipsis ("and for men?", "what about the second option?", "and in 2020?", "und für
  Männer?"): the previous question with the new part put in place of the one it replaces;
* a pronoun that points back ("them", "it", "their price", "is that"): replaced by the
  focus when that is a noun phrase that agrees with it;
* anything else (English or German): the question as typed, with the previous question's
  subject carried over: "Where do I apply (about the parental leave payment)?", "Does this
  option need a network (about the options for installing Debian)?". The person sees it as
  "Understood as", and the search and the support check get the context.

A question that carried the subject over passes it on to the next follow-up, so the subject
of a conversation survives a chain of short questions. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.asking import asking_part, topic
from app.core.leaning import TOKEN, Lean, leaning, names_in, own_words, question_language
from app.core.protocols import Turn
from app.core.textkit import STOPS_EXTRA, content_words, stem, stop_words

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
_BACK = frozenset(["they", "them", "it", "he", "him", "she", "these", "those", "this", "that"])
_POSSESSIVE = frozenset(["their", "its", "his", "her"])
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


class RuleRewriter:
    """:class:`~app.core.protocols.QuestionRewriter` by rules (English; see the module)."""

    def rewrite(self, question: str, history: Sequence[Turn]) -> str | None:
        return rewrite_followup(question, history)


def rewrite_followup(question: str, history: Sequence[Turn]) -> str | None:
    """The standalone form of ``question`` after ``history``, or None when it stands alone."""
    if not history or not question.strip():
        return None
    previous, carried = _anchor(history)
    if not previous:
        return None
    asked = question.strip()
    lean = leaning(asked, previous)
    if lean is None:
        return None
    lang = question_language(asked, previous)
    out = None
    if lang == "en":
        for rule in (_bare, _ellipsis):
            out = rule(asked, previous)
            if out:
                break
        else:
            out = _pronoun(asked, previous, lean)
    elif lang == "de":
        out = _ellipsis_de(asked, previous)
    if out:
        out = _with_context(_sentence(out), carried, lang)
    else:
        out = carry(asked, previous, carried, lang)
    return None if out is None or _same(out, asked) else out


MIN_ANCHOR_WORDS = 2
"""A question that carried the conversation's subject over and has fewer content words of
its own than this ("Is that free (about the hall)?") is no anchor for the next follow-up:
the question it leaned on is."""


def _anchor(history: Sequence[Turn]) -> tuple[str, str]:
    """The question a follow-up is understood with (plain, and what it carried over): the
    last one, unless it was a follow-up carried over with hardly a word of its own ("Why
    (about ...)?"): then the one before it that was not."""
    for turn in reversed(history):
        body, carried = _carried(_plain(turn.meant))
        if body and (not carried or len(own_words(body)) >= MIN_ANCHOR_WORDS):
            return body, carried
    return _carried(_plain(history[-1].meant))


def carry(question: str, previous: str, carried: str = "", lang: str = "en") -> str | None:
    """``question`` with what ``previous`` (a plain question) asked about carried over, for a
    follow-up no rule can rewrite into a sentence of its own: "Where do I apply (about the
    parental leave payment)?". ``carried``: what ``previous`` itself carried over. None when
    there is nothing to carry."""
    about = context(previous, carried)
    if not about:
        return None
    text = asking_part(topic(question.strip())).strip().rstrip(" ?!.")
    return _with_context(_sentence(text), about, lang)


def context(previous: str, carried: str = "") -> str:
    """What ``previous`` (a plain question) asked about, to carry over to a follow-up.

    What ``previous`` carried over itself, when it did: the subject of the conversation
    ("Is there a deadline (about the parental leave payment)?" -> "the parental leave
    payment"). Else its focus as a noun phrase, with the names it mentions that the focus
    leaves out ("the platforms, GoldenDict"), or as an activity ("Can I install Debian from a
    USB stick?" -> "installing Debian from a USB stick"); for a question in another language
    than English, its words after the asking ones."""
    previous = previous.strip().rstrip(" ?!.")
    if carried:
        return carried
    if question_language(previous) != "en":
        return _after_asking(previous)
    about = _noun_focus(previous) or _activity(previous)
    if not _content(about):
        about = _clause_start(_topic_phrase(_words(previous)))
    if not _content(about):
        return ""
    missing = [n for n in names_in(previous) if _low(n) not in about.lower()]
    if missing:
        about = f"{about}, {' '.join(missing)}"
    return about


_NP_START = _DETERMINERS | frozenset(
    ["some", "any", "each", "every", "all", "most", "many", "much", "no", "both", "other"]
)


def _noun_focus(previous: str) -> str:
    """:func:`focus` of ``previous`` when it is a noun phrase ("the men in Australia who
    ...", "GoldenDict", "the warranty on the battery"), else ""."""
    phrase = focus(previous)
    words = _words(phrase)
    if words and _low(words[0]) in _COPULA:
        words = words[1:]
    if not words or not _content(" ".join(words)):
        return ""
    first, lw = words[0], _low(words[0])
    nounish = (
        lw in _NP_START
        or lw in _PEOPLE
        or (first[:1].isupper() and lw not in _CLAUSE_LEAD and lw not in _WH)
        or any(ch.isdigit() for ch in first)
    )
    return " ".join(words) if nounish else ""


def _activity(previous: str) -> str:
    """What ``previous`` asks about doing, as an activity: "Can I install Debian from a USB
    stick?" -> "installing Debian from a USB stick", "Who can apply for the rebate?" ->
    "applying for the rebate"; "" when it asks about no doing."""
    words = _words(previous)
    i = 0
    while i < len(words) and (_low(words[i]) in _WH or _low(words[i]) in _AUX):
        i += 1
    if i == 0:
        return ""
    if i < len(words) and _low(words[i]) in _SUBJECT_PRONOUNS:
        i += 1
    while i < len(words) and _low(words[i]) in _AUX | {"not", "to", "able", "be", "allowed"}:
        i += 1
    if i >= len(words) or not words[i].isalpha() or not words[i].islower():
        return ""
    verb = _low(words[i])
    if verb in stop_words("en") or verb.endswith(("ing", "ed")) or verb in _DETERMINERS:
        return ""
    return " ".join([_gerund(verb), *words[i + 1 :]])


_VOWELS = "aeiou"


def _gerund(verb: str) -> str:
    """The -ing form of an English verb ("install" -> "installing", "use" -> "using", "set"
    -> "setting", "apply" -> "applying")."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if (
        3 <= len(verb) <= 4
        and sum(ch in _VOWELS for ch in verb) == 1
        and verb[-1] not in _VOWELS + "wxy"
        and verb[-2] in _VOWELS
        and verb[-3] not in _VOWELS
    ):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def _with_context(question: str, about: str, lang: str = "en") -> str:
    """``question`` with ``about`` carried over ("Does it work offline (about GoldenDict)?";
    in another language than English without the "about"), unless it names all of it
    already."""
    if not about or set(_content(about)) <= set(_content(question)):
        return question
    body = question.rstrip(" ?!.")
    lead = "about " if lang == "en" else ""
    return f"{body} ({lead}{about})?"


_CARRIED = re.compile(r"\s*\((?:about\s+)?(?P<about>[^()]+)\)\s*$")


def _carried(question: str) -> tuple[str, str]:
    """A plain question split into itself and what it carried over ("Where do I apply" and
    "the parental leave payment" from "Where do I apply (about the parental leave
    payment)")."""
    m = _CARRIED.search(question)
    if not m or not question[: m.start()].strip():
        return question, ""
    return question[: m.start()].strip(), m.group("about").strip()


def _content(text: str) -> list[str]:
    """The stems of ``text``'s content words."""
    return [stem(w) for w in content_words(text, "en") + content_words(text, "de")]


_CLAUSE_LEAD = frozenset(
    ["i", "we", "you", "one", "if", "when", "whether", "is", "are", "was", "were", "do", "does"]
)


def _clause_start(text: str) -> str:
    """``text`` without the asker and auxiliaries it may start with ("I need a permit" ->
    "need a permit", "if the printer shows E3" -> "the printer shows E3")."""
    words = _words(text)
    i = 0
    while i < len(words) - 1 and _low(words[i]) in _CLAUSE_LEAD | _AUX:
        i += 1
    return " ".join(words[i:])


def _after_asking(question: str) -> str:
    """``question``'s words after the asking ones and the verb it starts with ("Wie viele
    Männer in Australien ...?" -> "Männer in Australien ...", "Was kostet eine Tageskarte
    für Erwachsene?" -> "eine Tageskarte für Erwachsene"): in German, nouns are capitalised
    and the verb comes second."""
    lang = question_language(question)
    stops = stop_words(lang) | STOPS_EXTRA
    words = _words(question)
    i = 0
    while i < len(words) - 1 and _low(words[i]) in stops and _low(words[i]) not in _DE_ARTICLES:
        i += 1
    while (
        lang == "de"
        and 0 < i < len(words) - 1
        and words[i].islower()
        and _low(words[i]) not in _DE_ARTICLES
    ):
        i += 1  # the verb after the asking word: "kostet", "erkranken"
    return " ".join(words[i:])


_DE_ARTICLES = frozenset(
    """der die das den dem des ein eine einen einem einer eines mein meine unser unsere
    kein keine""".split()  # noqa: SIM905
)


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
    if not body or (body[0] in _COPULA and first in _WH):  # "what are the options"
        return None  # carried over: "Why (about the options for installing Debian)?"
    if first in ("what", "which") and any(_low(w) == "do" for w in body[1:]):
        return None  # "what should I do if ...": no "why" of it reads
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
    # a thing the previous question named ("the second option" after "... the options for X",
    # "section titles" after "... do with chapter titles")
    head = stem(_low(xw[-1]))
    for i, w in enumerate(pw):
        if stem(_low(w)) == head and _low(w) not in stop_words("en"):
            if not _listed(pw, i):
                start = i
                while (
                    start > 0
                    and _low(pw[start - 1]) not in _STOP_NP
                    and pw[start - 1][:1].islower()
                ):
                    start -= 1
                if (
                    start > 0
                    and _low(pw[start - 1]) in _DETERMINERS
                    and _low(xw[0]) in _DETERMINERS
                ):
                    start -= 1
                return " ".join([*pw[:start], *xw, *pw[i + 1 :]])
            verb = "are" if _low(xw[-1]).endswith("s") and not _low(xw[-1]).endswith("ss") else "is"
            ask = (m.group("ask") or "what").lower()
            lead = "What" if ask == "what" or ask == "how" else ask.capitalize()
            tail = " ".join(pw[i + 1 :])
            return f"{lead} {verb} {x}{' ' + tail if tail else ''}"
    joined = f"{prep} {x}" if prep else x
    return f"{previous}, {joined}" if not m.group("ask") else f"{previous}, and what about {joined}"


_ELLIPSIS_DE = re.compile(
    r"(?ix)^\W*(?:(?:und|aber|oder)\s+)?(?:(?:was|wie)\s+(?:ist\s+(?:es\s+)?|sieht\s+es\s+"
    r"|steht\s+es\s+)mit\s+|(?:und|aber|oder)\s+)(?P<prep>(?:für|in|im|bei|mit|von|ab|unter"
    r"|über|nach|an|am)\s+)?(?P<x>[^?]+?)\s*\?*\s*$"
)
_PEOPLE_DE = frozenset(
    """männer frauen kinder erwachsene jugendliche senioren seniorinnen rentner rentnerinnen
    studenten studierende schüler schülerinnen mitglieder eltern familien mann frau kind
    erwachsener jungen mädchen babys patienten patientinnen""".split()  # noqa: SIM905
)


def _ellipsis_de(asked: str, previous: str) -> str | None:
    """ "und für Männer?" / "was ist mit 2021?": the previous German question with the people
    or the year put in place of its own; None (carried over instead) for anything else."""
    m = _ELLIPSIS_DE.match(asked)
    if not m:
        return None
    x = m.group("x").strip(" ,")
    xw = _words(x)
    if not xw or len(xw) > MAX_ELLIPSIS_WORDS:
        return None
    year = _YEAR.search(x)
    if year and _YEAR.search(previous):
        return _YEAR.sub(year.group(), previous, count=1)
    pw = _words(previous)
    for i, w in enumerate(pw):
        for v in xw:
            if _low(v) in _PEOPLE_DE and _low(w) in _PEOPLE_DE and _low(v) != _low(w):
                return " ".join([*pw[:i], v, *pw[i + 1 :]])
    return None


def _listed(pw: list[str], i: int) -> bool:
    """Whether ``pw[i]`` is what a "what are the ..." question lists ("What are the options
    for installing Debian": "options")."""
    lead = [_low(w) for w in pw[:i]]
    return (
        bool(lead)
        and lead[0] in ("what", "which")
        and len(lead) <= 3
        and any(w in _COPULA for w in lead[1:2])
    )


_STOP_NP = _AUX | _PREPOSITIONS | _WH | _DETERMINERS


def _pronoun(asked: str, previous: str, lean: Lean) -> str | None:
    """The word that points back (``lean``) replaced by the previous question's focus: "Does
    it have parking?" -> "Does the hall have parking?"; "What is their average age?" -> "What
    is the average age of the men ...". A demonstrative before a noun ("this option") and
    the other words that point back are left to :func:`carry`."""
    if lean.kind not in ("pronoun", "demonstrative") or lean.index < 0:
        return None
    text = asking_part(asked.strip())  # as pointing_back read it
    tokens = list(TOKEN.finditer(text))
    if lean.index >= len(tokens):
        return None
    t = tokens[lean.index]
    w = t.group().lower()
    nxt = tokens[lean.index + 1].group().lower() if lean.index + 1 < len(tokens) else "?"
    if lean.kind == "demonstrative" and not (
        nxt in _AUX or nxt in _PREPOSITIONS or not nxt[:1].isalnum()
    ):
        return None  # "this option", "is that free": carried over instead
    referent = _referent(previous, w)
    if not referent:
        return None
    stops = stop_words("en")
    words = [x for x in tokens if x.group()[:1].isalnum()]
    before, after = text[: t.start()], text[t.end() :]
    if w in _POSSESSIVE and not (w == "her" and _object_her(words, words.index(t))):
        follow = tokens[lean.index + 1 : lean.index + 4]
        noun: list[re.Match[str]] = []
        for x in follow:
            if x.group().lower() in stops or not x.group()[:1].isalnum():
                break
            noun.append(x)
        if noun:
            thing = text[noun[0].start() : noun[-1].end()]
            return f"{before}the {thing} of {referent}{text[noun[-1].end() :]}"
        return f"{before}{referent}'s{after}"
    return f"{before}{referent}{after}"


_SINGULAR_BACK = frozenset(["it", "its", "this", "that"])
_PLURAL_BACK = frozenset(["they", "them", "their", "these", "those"])


def _plural_phrase(previous: str) -> str:
    """The last plural noun phrase ``previous`` names ("chapter titles" in "What does the
    memoir class do with chapter titles?"), "" when none."""
    words = _words(previous)
    stops = stop_words("en")
    for i in range(len(words) - 1, 0, -1):
        w = _low(words[i])
        if w in stops or w in STOPS_EXTRA or not words[i].islower() or not _plural(w):
            continue
        start = i
        while start > 1 and words[start - 1].islower() and _low(words[start - 1]) not in _STOP_NP:
            start -= 1
        if start > 0 and _low(words[start - 1]) in _DETERMINERS:
            start -= 1
        return " ".join(words[start : i + 1])
    return ""


def _referent(previous: str, word: str) -> str:
    """What ``word`` (a pronoun) stands for after ``previous``: its focus when that is a noun
    phrase; for "it" after a question whose focus is plural, the thing of it ("the symptoms
    of breast cancer" -> "breast cancer") or a name it mentions ("Which platforms does
    GoldenDict run on?" -> "GoldenDict"); "" when there is no such noun phrase."""
    referent = _noun_focus(previous)
    if not referent:
        return ""
    if word in _PLURAL_BACK and not _plural(referent):
        return _plural_phrase(previous) or _pluralised(referent)
    if word in _SINGULAR_BACK and _plural(referent):
        words = _words(referent)
        of = next((i for i, w in enumerate(words) if _low(w) == "of"), -1)
        if 0 < of < len(words) - 1 and not _plural(" ".join(words[of + 1 :])):
            return " ".join(words[of + 1 :])
        names = [n for n in names_in(previous) if _low(n) not in referent.lower()]
        if names:
            return names[0]
    return referent


def _pluralised(phrase: str) -> str:
    """``phrase`` with its head made plural, for a plural pronoun that stands for it ("they"
    after "How do I declare an option in a class file?" -> "options in a class file"); as it
    is when its head is a name, a number or a word English does not pluralise by rule."""
    words = _words(phrase)
    head = next(
        (i - 1 for i, w in enumerate(words) if i and _low(w) in _PREPOSITIONS | {"who", "that"}),
        len(words) - 1,
    )
    noun = words[head] if 0 <= head < len(words) else ""
    if not noun.isalpha() or not noun.islower() or noun in _PEOPLE:
        return phrase
    if re.search(r"[^aeiou]y$", noun):
        plural = noun[:-1] + "ies"
    elif noun.endswith(("s", "x", "z", "ch", "sh")):
        plural = noun + "es"
    else:
        plural = noun + "s"
    start = 1 if _low(words[0]) in ("a", "an") and head > 0 else 0
    return " ".join([*words[start:head], plural, *words[head + 1 :]])


def _plural(phrase: str) -> bool:
    """Whether a noun phrase's head (its last word before a preposition or "who"/"that")
    looks plural ("the platforms", "the men in Australia")."""
    head = ""
    for w in _words(phrase):
        lw = _low(w)
        if lw in _PREPOSITIONS or lw in ("who", "that", "which"):
            break
        head = lw
    return (
        head in _PEOPLE
        and not head.endswith(("man", "child", "adult"))
        or (head.endswith("s") and not head.endswith(("ss", "us", "is")))
    )


def _object_her(tokens: list[re.Match[str]], k: int) -> bool:
    """ "her" as an object ("ask her"), not a possessive ("her age")."""
    return k + 1 >= len(tokens)


_LEADING_CUE = re.compile(r"(?i)^(?:and|but|so|und|aber|et|mais)\s+(?=\w)")
"""A conjunction that tied the typed follow-up to the turn before ("And how are they
processed?"); the question as understood stands alone, so it goes."""


def _sentence(text: str) -> str:
    """``text`` as a question: a leading "and"/"but" dropped, spaces tidied, capitalised, one
    final "?"."""
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    text = _LEADING_CUE.sub("", text)
    text = re.sub(r"\s+([,;:?])", r"\1", text)
    text = text.rstrip(" ?.!") + "?"
    return text[:1].upper() + text[1:]


def _same(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return re.sub(r"\W+", " ", s).strip().lower()

    return norm(a) == norm(b)
