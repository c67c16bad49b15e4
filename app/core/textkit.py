"""One text toolkit for every layer: words, stop words, stems and a text's language.

Retrieval, the prompt, the validator and the support check all need to compare words
("pages" ~ "page", "declare" ~ "declaration") and to ignore words that carry no topic.
They used to keep three stop-word lists, two hand-written stemmers and four word
patterns that drifted apart; this module is the single copy, built on maintained data:

* stems come from the Snowball stemmers (``snowballstemmer``, which uses the C
  ``PyStemmer`` when it is installed), so German, French and the other Snowball
  languages stem as well as English;
* stop words come from the ``stop-words`` package pinned at 2018.7.23, whose English
  and German lists are the Snowball project's own (function words only: 174 English
  words). Later releases grew the English list to 1,333 words that include content
  words ("computer", "date", "area", "information") which a question's key concept
  may well be, so they would hide exactly what must be matched.

The few words added here are Footnote's own, named for what they are: words people
put in questions without asking about them (:data:`QUESTION_FILLER`), and words a
model uses to talk *about* sources rather than their content (:data:`SOURCE_TALK`).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

import snowballstemmer
from stop_words import StopWordError, get_stop_words

from app.core.resources import resources_dir

logger = logging.getLogger(__name__)

TOKEN = re.compile(r"[^\W_]+")
"""A word: a run of letters and digits. Apostrophes, hyphens, backslashes and ``@`` split
words, so tokens are always safe to hand to a full-text query parser."""

DEFAULT_LANGUAGE = "en"
LANGUAGES: dict[str, str] = {
    "da": "danish",
    "de": "german",
    "en": "english",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nl": "dutch",
    "nb": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
}
"""Languages with both a Snowball stemmer and a stop-word list (ISO code -> Snowball name)."""

QUESTION_FILLER = frozenset(
    """can could may might must shall will would also just now please tell explain describe
    give list name show use used uses using want way get make know supposed ought gonna gotta
    wanna
    darf dürfen möchte bitte erkläre erklären beschreibe beschreiben gib nenne nennen zeige
    zeigen verwende verwenden benutze benutzen bekomme bekommt bekommen kriege kriegst kriegt
    kriegen krieg mach mache macht sag sage sagt sagen weiß wissen""".split()  # noqa: SIM905
)
"""Words a question is phrased with rather than asking about ("How can I use ...", "Darf ich
...", "bekomme ich"), modal verbs and their like ("am I supposed to", "ought to"): English, and
their German counterparts where the German stop-word list lacks them (the everyday "kriegen"
for "bekommen", "mach" and "sag" as "make" and "tell" are)."""

SOURCE_TALK = frozenset(
    """according answer answers cite cited cites document documents example given mention
    mentioned mentions note noted notes passage passages provided quote quoted say says said
    source sources state stated states text""".split()  # noqa: SIM905
)
"""Words a model uses to talk about its sources ("according to the document")."""

ASKING_WORDS = frozenset(
    """many much long large big small wide high tall old often far way ways
    happen happens difference different possible possibly exactly actually really need needs
    needed something anything thing things work works one ones ok okay correct right wrong
    good best better instead rather usually typically generally every several various
    certain like follows following simply basically thus hence therefore reason reasons
    roughly approximately
    viel viele wann wie wo wer welche welcher welches warum wieso weshalb weswegen woran
    wozu womit wodurch worauf worum wofür wovon gibt lange groß hoch oft weit
    brauche brauch braucht brauchen nötig notwendig möglich ungefähr etwa genau eigentlich wirklich
    normalerweise meist meistens besser beste richtig falsch""".split()  # noqa: SIM905
)
"""Words that say what kind of answer is wanted, not what it is about ("how many", "why ...
for several reasons", "wie lange", "ungefähr"). The lists apply to questions in every
language, so German words that are English words too ("alt", "gut") are left out."""
CHAT_WORDS = frozenset(
    """hi hello hey thanks thank cheers sorry ugh oh ah hmm wow btw
    someone somebody anyone anybody everyone everybody nobody somewhere anywhere everywhere
    nowhere everything nothing us got gotten pretty quite fairly somewhat enough still
    maybe perhaps probably lots bunch stuff
    hallo moin servus danke jemand jemanden jemandem irgendwer irgendwas irgendwo irgendwie
    irgendwann bisschen ziemlich vielleicht wohl halt eben mal ja schon kram zeug nix
    """.split()  # noqa: SIM905
)
"""Words of chat rather than of a topic: greetings, thanks and apologies ("Hi, sorry if this is
a dumb question"), indefinite pronouns ("someone told me"), "us", hedges and degree words
("pretty much", "still", "maybe"), quantities people talk in ("a bunch of") and their German
counterparts ("ein bisschen", "halt", "ja wohl"). Closed classes of words that name no topic;
those that may in a document ("bit", "loads", "tons", "heaps") are left out."""
STOPS_EXTRA = QUESTION_FILLER | SOURCE_TALK | ASKING_WORDS | CHAT_WORDS
CITATION_MARKERS = re.compile(r"\[\s*\d+(?:\s*[-,;\u2013]\s*\d+)*\s*\]")
"""An answer's citation markers: "[3]", "[1, 2]", "[2-4]"."""


def tokens(text: str) -> list[str]:
    """The words of ``text`` as written (letters and digits only), in order."""
    return TOKEN.findall(text)


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``, in order."""
    return [w.lower() for w in TOKEN.findall(text)]


@lru_cache(maxsize=32)
def stop_words(lang: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """The stop words of ``lang`` (an ISO code), lower case, contractions split like
    :data:`TOKEN` splits them ("don't" also gives "don"). Unknown languages: English."""
    name = LANGUAGES.get(lang, LANGUAGES[DEFAULT_LANGUAGE])
    try:
        listed = get_stop_words(name)
    except StopWordError:  # a broken install: say so once, keep working without the list
        logger.exception("no stop-word list for %s", name)
        listed = []
    out: set[str] = set()
    for entry in listed:
        parts = words(entry)
        if len(parts) == 1:
            out.add(parts[0])
        elif parts:  # "don't": "don" and "dont", but not the lone "t"
            out.update(p for p in parts if len(p) > 1)
            out.add("".join(parts))
    return frozenset(out)


EVERYDAY_WORDS_COUNT = 500
"""How many of a language's most common words :func:`everyday_words` lists."""


@lru_cache(maxsize=32)
def everyday_words(lang: str) -> frozenset[str]:
    """The EVERYDAY_WORDS_COUNT most common words of ``lang`` in general use ("top", "left",
    "pay", "Platz", "Geld"), lower case, from wordfreq's frequency lists
    (resources/everyday_words/<lang>.txt, written by tools/everyday_words.py; CC BY-SA 4.0).
    Empty for a language without a list. Words this common are too general to tell, by
    their absence from a library, that it cannot answer: it says the same otherwise ("the
    top of the tower" where the brochure has "the lantern gallery"). Not the library's own
    most frequent words (``AskLibrary.common_words``), which the word warm-up embeds."""
    path = resources_dir() / "everyday_words" / f"{lang}.txt"
    try:
        return frozenset(path.read_text(encoding="utf-8").split())
    except OSError:
        logger.warning("no list of common words for %s at %s", lang, path)
        return frozenset()


@lru_cache(maxsize=32)
def _stemmer(lang: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(LANGUAGES.get(lang, LANGUAGES[DEFAULT_LANGUAGE]))


_DE_ZU_INFINITIVE = re.compile(
    r"^(ab|an|auf|aus|bei|ein|fest|her|hin|los|mit|nach|vor|weg|zurück|zusammen)zu([a-zäöüß]{3,}en)$"
)
"""A German separable verb's infinitive with "zu" ("anzumelden", "einzuspeisen"): the
Snowball stemmer keeps the infix, so it would not meet "anmelden", "Einspeisung"."""


@lru_cache(maxsize=65536)
def stem(word: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """The Snowball stem of ``word`` in ``lang`` ("pages" -> "page", "configuration" ->
    "configur"); numbers and words with digits stay as they are, lower-cased."""
    w = word.lower()
    if not w.isalpha():
        return w
    if lang == "de" and (m := _DE_ZU_INFINITIVE.match(w)):
        w = m[1] + m[2]  # "auszurichten" is "ausrichten" with "zu" inside
    return str(_stemmer(lang).stemWord(w))


_DE_ENDINGS = ("e", "en", "er", "ern", "es", "s", "ens")
_DE_E_ENDINGS = ("n", "r", "rn", "s")  # after a final e: "Etappe" -> "Etappen"
_DE_UMLAUT_ENDINGS = ("e", "en", "er", "ern")
_DE_LAST_VOWEL = re.compile(r"(au|a|o|u)(?=[^aeiouäöü]*$)")
_UMLAUT = {"au": "äu", "a": "ä", "o": "ö", "u": "ü"}


def inflected_forms(word: str, lang: str) -> list[str]:
    """Longer forms of ``word`` the stemmer cannot take back to it from ``word`` alone, in
    languages that inflect by endings (German only, for now): "bild" -> "bilder", "bildern",
    ...; "kennwort" -> "kennwörter"; "weglasse" -> "weglassen". A library that has only
    "Bilder" has the concept "Bild"; its keyword index, which stems as English does, does
    not find it by "bild". Lower-cased; empty for other languages."""
    w = word.lower()
    if lang != "de" or not w.isalpha() or len(w) < 3:
        return []
    forms = [w + e for e in (_DE_E_ENDINGS if w.endswith("e") else _DE_ENDINGS)]
    umlauted = _DE_LAST_VOWEL.sub(lambda m: _UMLAUT[m.group(1)], w, count=1)
    if umlauted != w:
        forms += [umlauted + e for e in _DE_UMLAUT_ENDINGS]
    return forms


def is_content(word: str, stops: frozenset[str]) -> bool:
    """Whether a lower-cased word carries content: not a stop word, and not a lone letter."""
    return word not in stops and (len(word) >= 2 or word.isdigit())


def content_words(
    text: str, lang: str = DEFAULT_LANGUAGE, *, extra: Iterable[str] = ()
) -> list[str]:
    """Lower-cased content words of ``text`` in order (stop words of ``lang`` and ``extra``,
    and one-letter words, left out)."""
    stops = stop_words(lang) | frozenset(extra) if extra else stop_words(lang)
    return [w for w in words(text) if is_content(w, stops)]


def content_stems(
    text: str, lang: str = DEFAULT_LANGUAGE, *, extra: Iterable[str] = ()
) -> list[str]:
    """Stems of the content words of ``text``, in order (duplicates kept)."""
    return [stem(w, lang) for w in content_words(text, lang, extra=extra)]


MIN_LANGUAGE_HITS = 2
"""Fewer stop-word hits than this say nothing about a language: assume the default."""


def detect_language(text: str, *, default: str = DEFAULT_LANGUAGE) -> str:
    """The language of ``text`` by which language's stop words it uses most.

    Simple on purpose: function words are the most frequent words of any language, so
    counting them separates German from English even in a one-line question. Ties and
    texts with too few hits give ``default``.
    """
    ws = [w for w in words(text) if len(w) > 1]  # lone letters are in many lists
    if not ws:
        return default
    counts = {lang: sum(w in stop_words(lang) for w in ws) for lang in LANGUAGES}
    best = max(counts, key=lambda lang: (counts[lang], lang == default))
    if counts[best] < MIN_LANGUAGE_HITS or counts[best] <= counts.get(default, 0):
        return default
    return best


LANGUAGE_MIN_SHARE = 0.2
"""A vocabulary is (partly) in a language when it holds at least this share of the stop
words only that language lists (:func:`own_stop_words`): "und", "nicht", "wird" for German,
"the", "which" for English. Measured on the bench PDFs' words: the language a text is
written in 0.29 (a three-page brochure) to 0.76, English words inside German manuals
0.36-0.43, any other language at most 0.14 (Danish in the Debian FAQ)."""


@lru_cache(maxsize=1)
def own_stop_words() -> dict[str, frozenset[str]]:
    """Each language's stop words that no other language lists ("die", "in" and "also"
    are words of several: they tell no language apart)."""
    lists = {lang: stop_words(lang) for lang in LANGUAGES}
    return {
        lang: words_ - frozenset().union(*(w for other, w in lists.items() if other != lang))
        for lang, words_ in lists.items()
    }


def languages_in(vocabulary: Collection[str]) -> list[str]:
    """The languages a body of text is written in, judged by its distinct lower-case words
    (a library's words: ["de", "en"] for English manuals with a German brochure)."""
    have = set(vocabulary)
    return [
        lang
        for lang, own in own_stop_words().items()
        if own and len(own & have) >= LANGUAGE_MIN_SHARE * len(own)
    ]


def restates(sentence: str, question: str, lang: str = "en") -> bool:
    """Whether ``sentence`` says nothing beyond the question: no content word of its own."""
    own = set(content_stems(CITATION_MARKERS.sub(" ", sentence), lang, extra=STOPS_EXTRA))
    if not own:
        return True
    asked = set(content_stems(question, lang, extra=STOPS_EXTRA))
    asked |= {stem(w, lang) for w in words(question)}
    return own <= asked


def _script(ch: str) -> str:
    """ "latin" for Latin letters, else the first word of the letter's Unicode name
    ("HANGUL", "CJK", "CYRILLIC", "GREEK", "ARABIC")."""
    if ch.isascii() or "LATIN" in unicodedata.name(ch, ""):
        return "latin"
    return unicodedata.name(ch, "other").split(" ")[0]


def main_script(text: str) -> str:
    """The script most of ``text``'s letters are written in ("latin", "HANGUL", "CJK", ...)."""
    counts: dict[str, int] = {}
    for ch in text:
        if ch.isalpha():
            s = _script(ch)
            counts[s] = counts.get(s, 0) + 1
    return max(counts, key=lambda s: counts[s]) if counts else "latin"


LANGUAGE_SCRIPTS: dict[str, frozenset[str]] = {
    "ko": frozenset({"HANGUL"}),
    "ja": frozenset({"HIRAGANA", "KATAKANA", "CJK"}),
    "zh": frozenset({"CJK"}),
    "ru": frozenset({"CYRILLIC"}),
    "uk": frozenset({"CYRILLIC"}),
    "el": frozenset({"GREEK"}),
    "ar": frozenset({"ARABIC"}),
    "he": frozenset({"HEBREW"}),
}
"""The scripts a language is written in (as :func:`main_script` names them), where it is not
the Latin alphabet."""


def written_in(word: str, languages: Collection[str] | None) -> bool:
    """Whether every letter of ``word`` is in the script of one of ``languages`` (None: any): a word
    an embedder that knows only English could place ("Versicherung" could be, 삼성 cannot:
    all-MiniLM-L6-v2 reads Hangul as unknown word pieces)."""
    if languages is None:
        return True
    scripts = _scripts_of(frozenset(languages))
    if word.isascii():  # most words a check compares, at a fraction of the letter-by-letter cost
        return "latin" in scripts or not any(ch.isalpha() for ch in word)
    return all(_script(ch) in scripts for ch in word if ch.isalpha())


@lru_cache(maxsize=16)
def _scripts_of(languages: frozenset[str]) -> frozenset[str]:
    """The scripts ``languages`` are written in (:data:`LANGUAGE_SCRIPTS`, else Latin), worked
    out once: :func:`written_in` asks for every word a support check compares."""
    return frozenset(s for lang in languages for s in LANGUAGE_SCRIPTS.get(lang, ("latin",)))


def other_language(question: str, passages: Sequence[str]) -> bool:
    """Whether ``passages`` (the nearest ones) are written in another language or script
    than ``question``: an English question about a German, French or Korean document. A
    word of the question missing there may be there translated ("Samsung" as 삼성,
    "topology" as "Topologie"), so its absence proves nothing."""
    text = "\n".join(passages)
    if not text.strip():
        return False
    if main_script(question) != main_script(text):
        return True
    return detect_language(question) != detect_language(text)


MULTILINGUAL_MARKS = ("multilingual", "labse", "xlm-r", "bge-m3", "paraphrase-xlm")
"""Words in a sentence-transformers model's name that say it was trained on many languages
("paraphrase-multilingual-MiniLM-L12-v2", "LaBSE", "bge-m3")."""


def word_languages(embedder_name: str) -> frozenset[str] | None:
    """The languages whose single words the embedder's vectors know: every language (None)
    for a multilingual model, else English, as for the embedded all-MiniLM-L6-v2 and most
    sentence-transformers models."""
    name = embedder_name.lower()
    if any(mark in name for mark in MULTILINGUAL_MARKS):
        return None
    return frozenset({"en"})
