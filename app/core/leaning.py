"""Whether a question leans on the turns before it, or stands alone.

A follow-up leans on what was asked before in a few recognisable ways, and this module tells
them apart from a question that names its own subject (pure functions, English and German):

* a word that points back with nothing in the question to point at: "Does *it* work
  offline?", "What is *its* default?", "Is *that* free?", "Which of *these* options ...?",
  "How do I get *there*?", "Which *one* is cheaper?", "Wie viel kostet *es*?";
* a leading "and" / "what about" / "how about" / "what if" ("und", "was ist mit") before a
  few words of its own;
* a word that adds to or sets against something said before ("also", "too", "else",
  "instead", "the same", "auch", "sonst") in a question with few words of its own;
* hardly a word of its own: "Where do I apply?", "What are the requirements?", "Why?".

A question with words of its own and none of these stands alone, and so does one whose
pronoun points inside it ("What is LaTeX and who wrote it?", "I have a dog. Can I bring
it?"), whose "it" is the empty one of "Is it possible to ...?" / "How long does it take to
install Debian on a laptop?", or whose "this" is the document ("What is this report
about?") or a time ("this year"). Strict on purpose: a standalone question taken for a
follow-up is searched with the wrong words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.asking import asking_part, topic
from app.core.textkit import SOURCE_TALK, STOPS_EXTRA, detect_language, stop_words

TOKEN = re.compile(r"[\w\\][\w'\-\\.]*[\w]|[\w]|[,;:.!?()\u2014]")
"""A word as written ("don't", "lsb_release", "\\newcommand", "e.g"), or a mark that ends
a clause."""

MAX_OWN_WORDS = 1
"""A question with at most this many content words of its own, none a name, leans on the
turns before it ("Where do I apply?", "What are the requirements?")."""
MAX_OWN_DEFINITE = 2
"""A question whose own words, at most this many, are one noun phrase that begins with "the"
leans on the turns before it ("What are the side effects?"), unless it names something."""
MAX_OWN_WITH_CUE = 2
"""A question with a leading "and" or an adding word ("also", "too") leans on the turns
before it when it has at most this many content words of its own ("Do children also need a
ticket?"); with more, it names its own subject ("And how many women in Australia ...?")."""
MAX_OWN_POINTING = 3
"""A word that points back ("it", "that one", "its") leans on the turns before it only in a
question with at most this many content words of its own. With more, the question names its
own subject and the word points inside it, however far back ("random q while reading about
gdbm - who actually wrote it?", "I want my invoice numbers to start at 1001 - how do I set
that?"). Among the real corpus's development questions asked after a question about another
document, 26 of 394 were taken for follow-ups without this bound and all had four or more
words of their own; no follow-up of the development conversations with a pointing word had
more than three. (Searching every question with the previous one as well,
``app.services.ask_steps.conversation_search``, makes a follow-up missed here cheap.)"""
MAX_OWN_GENERIC_THEY = 2
""" "they" / "them" / "their" point back in a question with at most this many content words
of its own; with more they are as often the generic "they" ("What do they charge for
parking at the airport?")."""


@dataclass(frozen=True)
class Lean:
    """Why a question leans on the turns before it: ``kind`` ("pronoun", "leading",
    "adding", "few-words") and the ``word`` that told (its index among the question's
    tokens in ``index``, -1 when no one word did)."""

    kind: str
    word: str = ""
    index: int = -1


# --- word classes ----------------------------------------------------------------------------
_BOUNDARY = frozenset(
    """, ; : . ! ? ( ) \u2014 and or but so because if when whenever while then before after
    since unless until whether which who whose where und oder aber weil wenn falls ob
    bevor nachdem""".split()  # noqa: SIM905
)
"""Tokens that end a clause: a pronoun after one may point at a noun before it."""
_AUX = frozenset(
    """is are was were be been am do does did can could should would will shall may might
    must has have had isn't aren't wasn't weren't doesn't don't didn't can't couldn't
    won't wouldn't shouldn't""".split()  # noqa: SIM905
)
_WH = frozenset("what which who whom whose when where why how".split())  # noqa: SIM905
_DETERMINERS = frozenset("the a an my your our his her its their this that these those".split())  # noqa: SIM905
_PREPOSITIONS = frozenset(
    """in of for on at with by from to among under over during between without within about
    after before per into onto than like via""".split()  # noqa: SIM905
)

# English words that point back
_IT = frozenset(["it"])
_THEY = frozenset(["they", "them", "their", "theirs", "themselves"])
_PERSONAL = frozenset(["he", "him", "his", "she", "her", "hers"])
_POSSESSIVE = frozenset(["its", "their", "his", "her"])
_DEMONSTRATIVE = frozenset(["this", "that", "these", "those"])
_NOT_BACK_AFTER_THAT = frozenset(
    """so such now given except provided assuming than""".split()  # noqa: SIM905
)
"""Words after which "that" joins a clause ("so that", "given that")."""
_SAYING = STOPS_EXTRA & SOURCE_TALK | frozenset(
    "know knows think sure mean means ensure check true believe".split()  # noqa: SIM905
)
"""Words a "that" after which joins a clause ("the manual says that ...")."""
_TIME = frozenset(
    """year years week weeks month months day days time times season morning afternoon
    evening night weekend summer winter spring autumn fall semester term quarter century
    decade""".split()  # noqa: SIM905
)
_DOCUMENT = frozenset(
    """document documents paper papers report reports manual manuals guide guides brochure
    brochures booklet booklets book books handbook handbooks leaflet leaflets pdf pdfs
    article articles study studies text texts documentation chapter chapters page pages
    section sections file files faq website site""".split()  # noqa: SIM905
)
"""What "this" names when it is the document at hand ("What is this report about?")."""
_EXISTENTIAL_BE = frozenset(
    "is are was were be been isn't aren't wasn't weren't 's".split()  # noqa: SIM905
)
_ONE_BEFORE = frozenset(
    """which the that this other another each either first second third fourth fifth last
    next previous same new old cheapest cheaper best better fastest faster biggest bigger
    smallest smaller""".split()  # noqa: SIM905
)
"""Words before "one" / "ones" that make it point back ("which one", "the other one")."""
_EMPTY_IT_ADJECTIVE = re.compile(
    r"(?i)^(?:possible|necessary|true|ok|okay|safe|allowed|legal|better|best|worth|worthwhile"
    r"|required|enough|too|likely|normal|important|free|easy|easier|hard|harder|difficult"
    r"|mandatory|advisable|recommended|common|usual|wise|permitted|compulsory|a|an|time)$"
)
_EMPTY_IT_VERB = frozenset(
    """take takes took cost costs matter matters mean means seem seems help helps pay pays
    make makes hurt hurts""".split()  # noqa: SIM905
)
_CLAUSE_AFTER_IT = frozenset(["to", "that", "if", "whether", "for", "when", "zu", "dass", "ob"])

# words that add to or set against something said before
_ADDING = frozenset(
    """also too else instead either another otherwise besides again same
    auch sonst stattdessen ebenfalls genauso gleiche""".split()  # noqa: SIM905
)
_ADDING_PHRASE = re.compile(r"(?i)\bas\s+well\b|\bin\s+that\s+case\b|\bthe\s+rest\b")
_CUES = (
    r"(?:and|but|or|so|plus|also|then|(?:and\s+|but\s+|so\s+)?(?:what|how)\s+about"
    r"|what\s+if|what\s+of|what\s+else|und|aber|oder|also|dann"
    r"|(?:und\s+)?(?:was|wie)\s+(?:ist|sieht\s+es|steht\s+es)\s+(?:es\s+)?mit|und\s+wenn"
    r"|was\s+wenn)(?!\w)"
)
_LEADING = re.compile(rf"(?i)^\W*{_CUES}")
"""A question that begins by going on from the one before: "and ...", "what about ...",
"und ...", "was ist mit ..."."""
_LEADING_TYPED = re.compile(rf"(?i)(?:^|[,;:.!?\u2014])\W*{_CUES}")
"""The same cue where the asker typed it: at the start of a sentence or after a comma."""

# German words that point back
_DE_BACK = frozenset(
    """es sie ihn ihm ihnen ihr ihre ihren ihrem ihrer ihres sein seine seinen seinem seiner
    seines dafür davon dazu damit darauf darüber daran darin dabei dagegen dort dorthin
    dahin das dies diese dieser dieses diesen diesem jene jener jenes""".split()  # noqa: SIM905
)
_DE_DETERMINER_LIKE = frozenset(
    """das dies diese dieser dieses diesen diesem jene jener jenes ihr ihre ihren ihrem ihrer
    ihres sein seine seinen seinem seiner seines""".split()  # noqa: SIM905
)
"""German words that point back alone ("Was kostet das?") but may also begin a noun phrase
("das Ticket", "ihre Preise"): a capitalised noun after them makes them a determiner."""


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def question_language(question: str, previous: str = "") -> str:
    """The language of a question, read as :func:`~app.core.textkit.detect_language` reads
    it, or, for one too short to tell, by the German words only German has ("Und für
    Männer?", "Wie viele Haushalte ...?"); failing both, the language of ``previous`` (the
    question before); English when nothing tells."""
    for text in (question, previous):
        if not text:
            continue
        lang = detect_language(text, default="")
        if lang:
            return lang
        ws = [w.lower() for w in _tokens(text)]
        german = sum(w in _GERMAN_ONLY for w in ws) + sum(ch in "äöüß" for ch in text.lower())
        english = sum(w in stop_words("en") for w in ws)
        if german > english:
            return "de"
        if english:
            return "en"
    return "en"


_GERMAN_ONLY = frozenset(
    """wie viele viel welche welcher welches welchen warum wieso weshalb wann wer und für
    ist sind gibt kann darf muss ich wir nicht auch noch mit bei dem den der das ein eine
    einen zu von im zum zur oder aber wurde wurden werden wird hat haben gilt es sie""".split()  # noqa: SIM905
)
"""Short German words that are no English words ("die", "was", "an" are)."""


def _stops(lang: str) -> frozenset[str]:
    return stop_words(lang) | STOPS_EXTRA


def is_name(token: str, first: bool) -> bool:
    """Whether ``token`` names something: a capitalised word inside a sentence
    ("GoldenDict", "Android"), an acronym, a number, or a term with marks inside
    ("lsb_release", "\\newcommand", ".bashrc")."""
    if any(ch.isdigit() for ch in token) or re.search(r"[_\\.]", token.strip(".")):
        return True
    if len(token) > 1 and token.isupper():
        return True
    return token[:1].isupper() and not first and token.lower() not in ("i", "i'm", "i've", "i'd")


def own_words(question: str, lang: str | None = None) -> list[str]:
    """The words of its own ``question`` asks or tells with: content words (not stop words,
    not the words a question is phrased with, not the words that point back), as written.
    What the asker tells before asking counts ("I have a dog. Can I bring it?")."""
    text = topic(question.strip())
    lang = lang or question_language(asking_part(text))
    stops = _stops(lang)
    out = []
    for tok in _tokens(text):
        low = tok.lower().replace("\u2019", "'").strip("'")
        if not any(ch.isalnum() for ch in low) or low in stops or low in _DE_BACK:
            continue
        if "'" in low and (low.split("'")[0] in stops or low.replace("'", "") in stops):
            continue  # "what's", "isn't"
        if len(low) < 2 and not low.isdigit():
            continue
        out.append(tok)
    return out


def names_in(question: str) -> list[str]:
    """The names and terms ``question`` mentions (see :func:`is_name`); German nouns,
    all capitalised, are not counted."""
    text = asking_part(topic(question.strip()))
    lang = question_language(text)
    toks = _tokens(text)
    out = []
    first = True
    stops = _stops(lang)
    for tok in toks:
        if tok in ",;:.!?()\u2014":
            first = tok in ".!?:"
            continue
        low = tok.lower()
        if (
            low not in stops
            and is_name(tok, first)
            and not (lang == "de" and tok[:1].isupper() and tok[1:].islower())
        ):
            out.append(tok)
        first = False
    return out


# --- the words that point back ---------------------------------------------------------------
def pointing_back(question: str, lang: str | None = None) -> Lean | None:
    """The first word of ``question`` that points back at something said before, with nothing
    before it in the question to point at; None when there is none."""
    whole = question.strip()
    text = asking_part(whole)
    lang = lang or question_language(text)
    stops = _stops(lang)
    # what the question told before its asking part counts as its own words (an antecedent)
    told = whole[: max(0, len(whole) - len(text))] if whole.endswith(text) else ""
    toks = _tokens(text)
    lows = [t.lower() for t in toks]
    own_count = len(own_words(question, lang))
    told_content = any(_nounish(_tokens(told), i, stops) for i in range(len(_tokens(told))))
    for k, (tok, w) in enumerate(zip(toks, lows, strict=True)):
        kind = None
        if lang == "de":
            kind = _german_back(toks, lows, k)
        elif w in _IT:
            kind = None if _empty_it(lows, k, stops) else "pronoun"
        elif w in _THEY:
            kind = "pronoun" if own_count <= MAX_OWN_GENERIC_THEY else None
        elif w in _PERSONAL or w in _POSSESSIVE:
            kind = "pronoun"
        elif w in _DEMONSTRATIVE:
            kind = "demonstrative" if _demonstrative_back(lows, k, stops) else None
        elif w == "there":
            kind = "there" if _there_back(lows, k) else None
        elif w in ("one", "ones"):
            kind = "one" if _one_back(lows, k) else None
        if kind is None:
            continue
        if told_content or _antecedent_before(toks, lows, k, stops):
            continue
        return Lean(kind, tok, k)
    return None


def _nounish(toks: list[str], i: int, stops: frozenset[str]) -> bool:
    """Whether ``toks[i]`` looks like a noun a pronoun may point at: a content word after a
    determiner, a plural-looking content word, or a name."""
    w = toks[i].lower()
    if w in stops or w in _AUX or not any(ch.isalpha() for ch in w) or len(w) < 2:
        return False
    if i > 0 and toks[i - 1].lower() in _DETERMINERS | {"any", "some", "no", "every", "each"}:
        return True
    if is_name(toks[i], i == 0) or (toks[i][:1].isupper() and i > 0):
        return True
    return w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3


def _antecedent_before(toks: list[str], lows: list[str], k: int, stops: frozenset[str]) -> bool:
    """Whether the word at ``k`` may point at a noun the question names before it: across a
    clause boundary for any pronoun ("What is LaTeX and who wrote it?"), or within the
    clause for a possessive ("Does the app store its data locally?", "How do students get
    their tickets?")."""
    w = lows[k]
    possessive = w in _POSSESSIVE or w in ("they", "them")
    crossed = False
    for i in range(k - 1, -1, -1):
        if lows[i] in _BOUNDARY:
            crossed = True
            continue
        if (crossed or possessive) and _nounish(toks, i, stops):
            return True
    return False


def _empty_it(lows: list[str], k: int, stops: frozenset[str]) -> bool:
    """ "it" as the empty subject of "Is it possible to ...", "How long does it take to
    install Debian on a laptop?", "Does it matter which ...": a subject (after an auxiliary
    or before a verb) whose clause follows, with words of its own."""
    before = lows[k - 1] if k > 0 else ""
    after = lows[k + 1 :]
    if after[:1] == ["matter"]:
        return True
    subject = before in _AUX or (after and (after[0] in _AUX or after[0] in _EMPTY_IT_VERB))
    if not subject:
        return False
    for j, w in enumerate(after[:6]):
        if w in _CLAUSE_AFTER_IT:
            rest = [x for x in after[j + 1 :] if x not in stops and any(c.isalpha() for c in x)]
            if len(rest) >= 2:
                return True
        if w in _BOUNDARY:
            break
    # "Is it true?" / "Is it possible?" alone ask about the thing before: not empty
    return False


def _demonstrative_back(lows: list[str], k: int, stops: frozenset[str]) -> bool:
    """ "this" / "that" / "these" / "those" pointing back ("Is that free?", "Does this
    option work on Windows?", "How do I fix this?"), not joining a clause ("true that ...",
    "the file that ..."), not a time ("this year") nor the document at hand ("this
    report")."""
    before = lows[k - 1] if k > 0 else ""
    after = lows[k + 1] if k + 1 < len(lows) else ""
    if after in _TIME or after in _DOCUMENT:
        return False
    if lows[k] != "that" or before in _NOT_BACK_AFTER_THAT:
        return lows[k] != "that"
    if not after or not after[:1].isalnum() or after in _PREPOSITIONS:
        return True  # "does the warranty cover that?", "what is needed for that?"
    if before in _DEMONSTRATIVE | {"the", "a", "an"}:
        return False
    if before in _SAYING:
        return False
    # "true that ...", "the file that ...", "says that ...": a clause joined
    return not before or before in stops or before in _AUX or before in _BOUNDARY


def _there_back(lows: list[str], k: int) -> bool:
    """ "there" as a place said before ("How do I get there?"), not "is there ...?"."""
    before = lows[k - 1] if k > 0 else ""
    after = lows[k + 1] if k + 1 < len(lows) else ""
    if before in _AUX or after in _EXISTENTIAL_BE or after in _AUX or after.startswith("there'"):
        return False
    return k > 0


def _one_back(lows: list[str], k: int) -> bool:
    before = lows[k - 1] if k > 0 else ""
    after = lows[k + 1] if k + 1 < len(lows) else ""
    if after == "of":  # "one of the options": a number
        return False
    return before in _ONE_BEFORE or before.endswith(("est", "er")) and before not in _AUX


def _german_back(toks: list[str], lows: list[str], k: int) -> str | None:
    w = lows[k]
    if w not in _DE_BACK:
        return None
    tok = toks[k]
    before = lows[k - 1] if k > 0 else ""
    after = toks[k + 1] if k + 1 < len(toks) else ""
    if w == "sie" and tok == "Sie" and k > 0:
        return None  # the polite "Sie": the asker
    if w == "es":
        if before == "gibt" or (after.lower() == "gibt") or after.lower() in ("sich",):
            return None
        rest = [t.lower() for t in toks[k + 1 :]]
        if "zu" in rest or "dass" in rest or "ob" in rest:
            return None  # "ist es möglich, ... zu ...": the empty "es"
    if w in _DE_DETERMINER_LIKE and after[:1].isupper():
        return None  # "das Ticket", "ihre Preise", "das Debian-Projekt", "das PDF": a determiner
    if w == "damit" and k > 0 and before in (",",):
        return None  # ", damit ...": "so that"
    if w == "das" and before == ",":
        return None  # ", das ...": a relative clause
    return "pronoun"


# --- leaning -----------------------------------------------------------------------------------
def leaning(question: str, previous: str = "") -> Lean | None:
    """Why ``question`` leans on the turns before it (``previous``: the last question, as
    understood, for the language of a question too short to tell), or None when it stands
    alone."""
    text = asking_part(topic(question.strip()))
    if not text.strip():
        return None
    lang = question_language(text, previous)
    own = own_words(question, lang)
    named = names_in(question)
    back = pointing_back(question, lang)
    if back is not None and len(own) <= MAX_OWN_POINTING:
        return back
    m = _LEADING.match(text)
    if m and not _LEADING_TYPED.search(asking_part(question.strip())):
        m = None  # "What does the report say about X?": "what about" only once talk is out
    if m and len(own) <= MAX_OWN_WITH_CUE:
        return Lean("leading", m.group().strip())
    lows = [t.lower() for t in _tokens(text)]
    adding = next((w for w in lows if w in _ADDING), None)
    if adding is None and _ADDING_PHRASE.search(text):
        adding = _ADDING_PHRASE.search(text).group()  # type: ignore[union-attr]
    if adding and len(own) <= MAX_OWN_WITH_CUE:
        return Lean("adding", adding)
    if named or _defines(text) or _at_hand([t.lower() for t in _tokens(question)]):
        return None
    if len(own) <= MAX_OWN_WORDS:
        return Lean("few-words", own[0] if own else "")
    if len(own) <= MAX_OWN_DEFINITE and _definite_only(lows, [w.lower() for w in own]):
        return Lean("definite", " ".join(own))
    return None


_LIGHT_VERBS = frozenset(
    """take takes took taken cost costs last lasts lasted include includes included involve
    involves require requires required apply applies cover covers covered""".split()  # noqa: SIM905
)
"""Verbs that say little of their own next to the thing they are asked of ("How long does
the process take?", "What does the plan cover?")."""


_PARTICIPLES = frozenset(
    """built made held done written known found paid sold run given taken seen shown sent kept
    set put spent left lost brought bought taught told begun drawn grown chosen broken spoken
    stolen driven won founded""".split()  # noqa: SIM905
)


def _participle(word: str) -> bool:
    return word in _PARTICIPLES or (
        word.endswith("ed") and not word.endswith("eed") and len(word) > 4
    )


def _definite_only(lows: list[str], own: list[str]) -> bool:
    """Whether the question's own words, apart from a light verb, are one noun phrase that
    begins with "the" ("What are the side effects?", "How long does the process take?",
    "What's the minimum age?"): a thing said before, named as known."""
    nouns = [w for w in own if w not in _LIGHT_VERBS]
    if not nouns or len(nouns) > 2:
        return False
    try:
        i = lows.index(nouns[0])
    except ValueError:
        return False
    if lows[i : i + len(nouns)] != nouns or _participle(nouns[-1]):
        return False  # "When was the hall built?": a thing and what was done to it
    while i > 0 and lows[i - 1] in _DEGREE:
        i -= 1  # "the most common type"
    return i > 0 and lows[i - 1] == "the"


_DEGREE = frozenset("most least more less very main same".split())  # noqa: SIM905


_DEFINES = re.compile(
    r"(?ix)^\W*(?:what|who)\s+(?:is|are|was|were|'s)\s+(?:a|an)\s+\S+\W*$"
    r"|^\W*what\s+(?:is|are)\s+\S+\W*$|^\W*what\s+does\s+\S+\s+(?:mean|stand\s+for)\W*$"
    r"|^\W*(?:define|explain)\s+\S+\W*$|^\W*(?:was|wer)\s+(?:ist|sind)\s+(?:ein|eine)?\s*\S+\W*$"
)


def _defines(text: str) -> bool:
    """ "What is a kernel?" / "What does swap mean?": a term of its own asked for, not a
    thing said before ("What is the deadline?")."""
    return bool(_DEFINES.match(text.strip()))


def _at_hand(lows: list[str]) -> bool:
    """ "What is this document about?": the document at hand, not a thing said before."""
    return any(
        w in ("this", "the") and i + 1 < len(lows) and lows[i + 1] in _DOCUMENT
        for i, w in enumerate(lows)
    )
