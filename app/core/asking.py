"""What a question asks, apart from what the asker tells and says around it.

People type questions the way they talk: "I'm bringing my niece along, she's nine, so I
was wondering what a child's ticket costs?". The support check must look for the ticket,
not for the niece or the wondering, and the search must not be pulled toward them either
(``app.retrieval.hybrid``). These pure functions, used by both, find the asking sentences
(:func:`asking_part`) and take the asker's talk out of a question (:func:`topic`): the
phrases that introduce an ask ("any idea", "quick question", "weißt du"), asides ("I
think", "does the paper say") and what the asker tells of themselves before the ask in the
same sentence. English and German; a question in another language is read whole.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?:(?<=[^\W_)\]'\"\u2019\u201d%][.!?:;\u2026])|(?<=\.\.\.))\s+")
"""Where a sentence ends: a mark after a word (not "the ! and @ column specifiers")."""
_PART_END = re.compile(r"[.!?:;\u2026]+$")
"""The marks that end one sentence of a question ("?", "...", ":")."""


def asking_part(question: str) -> str:
    """The sentences of ``question`` that ask (end with "?"), without the ones that tell the
    situation ("My knees aren't great these days, so before we go: how many stairs ...?");
    the whole question when none or every one of them asks."""
    parts = [p for p in _SENTENCE_END.split(question.strip()) if p.strip()]
    asking = [p for p in parts if p.rstrip().endswith("?")]
    if not asking or len(asking) == len(parts):
        return question
    return " ".join(asking)


_TALK_DOC = (
    r"paper|report|manual|guide|brochure|booklet|book|document|handbook|leaflet|standard"
    r"|study|article|pdf|documentation|text"
)
ASKER_INTRO = re.compile(
    rf"""(?ix)(?<!\w)(?:
        any\s+ideas?
      | (?:i|we)(?:'m|'re|\s+am|\s+are|\s+was|\s+were)?\s+(?:just\s+|really\s+|honestly\s+)?
        (?:wondering|curious)(?:\s+about)?
      | i\s+wonder
      | (?:do|does)\s+(?:you|anyone|anybody)\s+(?:happen\s+to\s+)?know
      | (?:can|could|would)\s+(?:you|anyone|someone|somebody)\s+(?:please\s+)?tell\s+me
      | i(?:'d|\s+would)\s+(?:like|love)\s+to\s+know
      | quick\s+question(?:\s+about\s+the\s+(?:{_TALK_DOC}))?
      | (?:just\s+)?out\s+of\s+curiosity
      | wei(?:ß|ss)t\s+du(?:\s+(?:zufällig|vielleicht))?
      | wisst\s+ihr
      | ich\s+frag(?:e)?\s+mich
      | kurze\s+frage
      | kurz\s+gefragt
      | sag(?:en\s+sie|t)?\s+(?:mir\s+)?mal
      | (?:kannst|könntest|können|könnten)\s+(?:du|sie|ihr)\s+mir\s+(?:bitte\s+|mal\s+)?sagen
    )(?!\w)[\s,:;.\u2026-]*"""
)
"""What an asker says to introduce a question, not what the question is about ("any idea",
"I was wondering", "quick question", "weißt du", "ich frag mich", "sag mal", "können Sie mir
sagen"): the words before it in its sentence tell the situation ("I'm skimming this paper for
a class and I was wondering, how many ...")."""
ASKER_ASIDE = re.compile(
    rf"""(?ix)(?<!\w)(?:
        i\s+mean
      | i\s+(?:think|guess|suppose|believe|reckon)
      | do\s+you\s+know
      | (?:do|does|did)\s+(?:they|it|the\s+(?:{_TALK_DOC})|this\s+(?:{_TALK_DOC}))\s+
        (?:say|mention|explain|tell\s+(?:me|us))(?:\s+anywhere)?
      | ich\s+(?:glaube|denke|hab(?:e)?\s+gehört)
      | keine\s+ahnung
    )(?!\w)"""
)
"""Asides inside a question that are the asker's talk ("I think", "do you know", "does the
paper say", "do they say anywhere"): left out wherever they stand."""


_ASK_WORD = (
    r"how|what|which|when|where|who|whom|whose|why|is|are|was|were|do|does|did|can|could"
    r"|should|would|will|may|must|has|have|had|wie|was|welche[rsnm]?|wann|wo|wer|warum|ob"
    r"|kann|darf|muss|ist|sind|gibt"
)
ASK_START = re.compile(
    rf"(?i)(?:[,;\u2014]\s*(?:(?:so|and|but|und|aber|also)\s+)?|\s(?:so|und\s+also)\s+)"
    rf"(?=(?:{_ASK_WORD})\s+\w)"
)
"""Where an ask begins inside a sentence that began by telling ("We don't have a car at the
moment, so is there any bus ...?")."""
_ASKS_FIRST = re.compile(rf"(?i)^\W*(?:{_ASK_WORD})(?!\w)")
_CONDITION = re.compile(
    r"(?i)^\W*(?:if|when|whenever|once|since|because|while|although|apart|besides|after"
    r"|before|until|unless|wenn|falls|weil|obwohl|nachdem|bevor|sobald|außer)(?!\w)"
)
"""A clause that begins so is a condition of the ask ("Apart from paying for what we use,
is there ...?", "Wenn wir Strom einspeisen, wie viele Jahre ...?"), not a situation told."""
_ASKER = re.compile(
    r"(?i)(?<!\w)(?:i|i'm|i've|i'd|we|we're|we've|my|our|me|us"
    r"|ich|wir|mein\w*|unser\w*|mir|mich|uns)(?!\w)"
)
"""The asker speaking of themselves (what a situation told is told with)."""


def topic(question: str) -> str:
    """``question`` without the asker's talk: asides and introducing phrases are taken out,
    and what an asker tells of themselves before the ask in the same sentence becomes a
    sentence of its own that tells the situation ("I'm skimming this paper for a class and
    I was wondering, how many docks ...?" -> "I'm skimming this paper for a class and. how
    many docks ...?"; "We don't have a car, so is there a bus ...?" -> "We don't have a
    car. is there a bus ...?"), so that :func:`asking_part` tells them apart. A question
    without talk is returned as it is."""
    out = []
    changed = False
    for part in (p for p in _SENTENCE_END.split(question.strip()) if p.strip()):
        end = _PART_END.search(part)
        stop = end.group() if end else ""
        body = part[: len(part) - len(stop)]
        intros = [m for m in ASKER_INTRO.finditer(body) if len(body[m.end() :].split()) >= 2]
        if intros:
            head, body = body[: intros[-1].start()], body[intros[-1].end() :]
            out.append(_tidy(_untalked(head), "."))
            changed = True
        elif stop.startswith("?") and not _ASKS_FIRST.match(body):
            starts = list(ASK_START.finditer(body))
            head = body[: starts[0].start()] if starts else ""
            if head and _ASKER.search(head) and not _CONDITION.match(head):
                body = body[starts[0].end() :]
                out.append(_tidy(_untalked(head), "."))
                changed = True
        changed = changed or bool(ASKER_INTRO.search(body) or ASKER_ASIDE.search(body))
        out.append(_tidy(_untalked(body), stop or "."))
    told = " ".join(p for p in out if p)
    return told if changed and told else question


def _untalked(text: str) -> str:
    """``text`` with every introducing phrase and aside taken out (where they stood: spaces)."""
    return ASKER_ASIDE.sub(" ", ASKER_INTRO.sub(" ", text))


def _tidy(text: str, stop: str) -> str:
    """``text`` as a sentence ending in ``stop``, without the commas and spaces that taking
    words out of it left ("Homes and businesses, " -> "Homes and businesses."); "" when no
    word is left."""
    text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2014")
    text = re.sub(r"\s+,", ",", text)
    return text + stop if any(ch.isalnum() for ch in text) else ""
