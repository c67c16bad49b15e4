"""What a question asks for, what an answer says of its own, and the status model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.focus import question_focus
from app.core.resources import DEFAULT_CHAT_MODEL_NAME, DEFAULT_EMBEDDER_NAME
from app.core.textkit import other_language
from app.validation.answer_checks import reverses_polarity, unsupported_words
from app.validation.status_model import (
    FEATURES,
    JUDGEMENT_FEATURES,
    MODEL_FILE,
    StatusModel,
    features,
    for_chat_model,
    for_models,
    shipped,
    without_judgement,
)
from app.validation.support import assess


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        (
            "What is the operating temperature range of the ADSP-21161N EZ-KIT Lite board?",
            ("operating", "temperature", "range"),
        ),
        ("How many men in Australia find out they have breast cancer each year?", ("men",)),
        ("How heavy is the bike?", ("heavy",)),
        ("When was the club founded?", ("founded",)),
        ("Who wrote the GnuCash guide?", ("wrote",)),
        ("Where can I buy tickets?", ("buy", "tickets")),
        ("What fare did the operator charge?", ("fare",)),
        ("Does the bike have a warranty?", ("warranty",)),
        ("Can I get a printed copy of these notes?", ("printed", "copy")),
        (
            "Which natbib option stops the author names of a citation from being broken?",
            ("option", "author", "names"),
        ),
        ("Wie viele Mitarbeiter hat die Firma?", ("Mitarbeiter",)),
    ],
)
def test_the_focus_is_what_the_question_asks_for_not_its_topic(
    question: str, focus: tuple[str, ...]
) -> None:
    assert question_focus(question).words == focus


def test_a_how_adjective_focus_is_also_stated_by_its_noun() -> None:
    f = question_focus("How heavy is the bike?")
    assert "weight" in f.alternatives


def test_a_question_of_no_known_shape_has_no_focus() -> None:
    assert question_focus("Tell me everything.").words == ()


def test_the_topic_alone_does_not_cover_the_focus() -> None:
    q = "What is the operating temperature range of the ADSP-21161N EZ-KIT Lite board?"
    topic_only = assess(
        q, ["This chapter describes the hardware design of the ADSP-21161N EZ-KIT Lite board."]
    )
    answered = assess(
        q, ["The ADSP-21161N EZ-KIT Lite board operates at temperatures from 0 to 70 degrees."]
    )
    assert topic_only.focus_coverage == 0.0
    assert any("temperature" in r for r in topic_only.reasons)
    assert answered.focus_coverage is not None and answered.focus_coverage > 0.5


def test_a_noun_naming_the_kind_of_answer_is_covered_by_that_kind() -> None:
    """ "In which year ...?" asks for a year: a passage giving one ("In 1965 ...") answers
    it without saying "year", and no reason may claim otherwise. A passage with no year
    still misses it."""
    q = "In which year did Monod and Scherrer present their Critical Power model?"
    answered = assess(q, ["In 1965 Monod and Scherrer presented a Critical Power Model."])
    assert answered.focus_coverage != 0.0
    assert not any("year" in r for r in answered.reasons)
    unanswered = assess(q, ["Monod and Scherrer presented a Critical Power Model."])
    assert unanswered.focus_coverage == 0.0 or any("year" in r for r in unanswered.reasons)


def test_words_an_answer_says_of_its_own_are_found() -> None:
    quote = (
        "Lobular carcinoma in situ (LCIS) means abnormal cells in the lobules. This is not cancer."
    )
    said = (
        "Lobular carcinoma in situ (LCIS) is a type of cancer that develops in breast tissue [1]."
    )
    novel = unsupported_words(said, quote, "What does LCIS mean and is it cancer?")
    assert {"type", "develops", "tissue"} <= set(novel)
    assert reverses_polarity(said, quote)
    assert unsupported_words("The bike weighs 23.4 kg [1].", "Weight of the bike: 23.4 kg") == []


def test_an_answer_saying_what_its_quote_does_not_is_a_signal_of_the_check() -> None:
    q = "What does LCIS mean and is it cancer?"
    quote = (
        "Lobular carcinoma in situ (LCIS) means abnormal cells in the lobules. This is not cancer."
    )
    said = "LCIS is a type of cancer that develops in breast tissue [1]."
    check = assess(q, [quote], claims=[(said, quote)])
    assert check.unsupported_share > 0.3 and check.reversed_polarity


def test_another_script_or_language_is_told_apart() -> None:
    assert other_language("Who makes the phone?", ["삼성 전자는 한국의 회사입니다"])
    assert other_language(
        "Can I get a printed copy of these notes?", ["Sei X ein topologischer Raum und U offen."]
    )
    assert not other_language("How heavy is the bike?", ["The bike weighs 23 kg."])


def _model(green_at: float = 0.8, refuse_below: float = 0.3) -> StatusModel:
    coef = tuple(2.0 if n == "focus_coverage" else 0.0 for n in FEATURES)
    return StatusModel(
        features=FEATURES,
        mean=tuple(0.5 if n == "focus_coverage" else 0.0 for n in FEATURES),
        scale=tuple(0.25 if n == "focus_coverage" else 1.0 for n in FEATURES),
        coef=coef,
        intercept=0.0,
        green_at=green_at,
        refuse_below=refuse_below,
    )


def test_the_status_follows_the_probability_and_needs_verified_quotes_for_green() -> None:
    m = _model()
    full = {"focus_coverage": 1.0}
    none = {"focus_coverage": 0.0}
    assert m.probability(full) > 0.95 and m.probability(none) < 0.05
    assert m.status(m.probability(full), verified=True) == "GREEN"
    assert m.status(m.probability(full), verified=False) == "YELLOW"
    assert m.status(m.probability(none), verified=True) == "REFUSE"
    assert m.status(0.5, verified=True) == "YELLOW"


def test_reasons_are_ordered_by_the_signal_that_pulled_hardest() -> None:
    m = _model()
    reasons = [
        "The cited passages don't mention ‘x’.",
        "The cited passages don't say anything about ‘range’.",
    ]
    assert m.weakest({"focus_coverage": 0.0}, reasons)[0] == reasons[1]


def test_a_model_round_trips_through_its_readable_file(tmp_path: Path) -> None:
    m = _model()
    data = {
        "features": list(FEATURES),
        "weights": {
            n: {"weight": w, "mean": a, "scale": s}
            for n, w, a, s in zip(FEATURES, m.coef, m.mean, m.scale, strict=True)
        },
        "intercept": 0.0,
        "thresholds": {"green_at": 0.8, "refuse_below": 0.3},
    }
    path = tmp_path / MODEL_FILE
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = StatusModel.load(path)
    assert loaded.probability({"focus_coverage": 0.9}) == pytest.approx(
        m.probability({"focus_coverage": 0.9})
    )


def test_the_shipped_model_weighs_every_signal_the_check_gives() -> None:
    model = shipped()
    assert model.features == FEATURES
    assert 0.0 <= model.refuse_below <= model.green_at <= 1.0
    check = assess("How heavy is the bike?", ["Weight of the bike: 23.4 kg"])
    x = features(check, generated=False, verified=True, cited_ranks=[1], n_citations=1)
    assert set(x) == set(FEATURES) - {"judgement"}  # no judgement given: none in the row
    assert 0.0 < model.probability(x) < 1.0
    judged = features(check, generated=False, verified=True, judgement=0.3)
    assert set(judged) == set(FEATURES) and judged["has_judgement"] == 1.0


def test_the_judgement_is_weighed_only_for_the_chat_model_it_was_fitted_with() -> None:
    """Another GGUF reads P("yes") on a scale of its own and a server gives none: their
    answers are judged by the model fitted without the judgement, with its own thresholds."""
    judged, unjudged = shipped(), without_judgement()
    assert judged.weighs_judgement and judged.judge == DEFAULT_CHAT_MODEL_NAME
    assert not unjudged.weighs_judgement and unjudged.judge is None
    assert set(unjudged.features) == set(FEATURES) - set(JUDGEMENT_FEATURES)
    assert 0.0 <= unjudged.refuse_below <= unjudged.green_at <= 1.0
    assert for_chat_model(DEFAULT_CHAT_MODEL_NAME) is judged
    for other in ("Llama-3.2-3B-Instruct-Q4_K_M.gguf", "llama.cpp server at localhost:8080", None):
        assert for_chat_model(other) is unjudged
    # a judgement given to the model fitted without one changes nothing
    check = assess("How heavy is the bike?", ["Weight of the bike: 23.4 kg"])
    rows = [features(check, generated=False, verified=True, judgement=j) for j in (0.01, 0.99)]
    assert unjudged.probability(rows[0]) == unjudged.probability(rows[1])


def test_green_is_withheld_over_a_library_of_another_embedder() -> None:
    """The model was fitted on the embedded embedder's similarities; over another's, its
    probability stops telling right from wrong at the top (paraphrase-MiniLM-L3-v2: GREEN
    87-89% precise at every threshold), so no answer is GREEN, and the model says why."""
    from app.retrieval import SentenceTransformerEmbedder

    fitted_on = shipped().embedder
    # exactly the name the app gives its default embedder (a change of its token cap renames
    # it): else every answer over a default library would lose GREEN
    assert fitted_on == SentenceTransformerEmbedder().name
    assert fitted_on.startswith(DEFAULT_EMBEDDER_NAME)
    assert without_judgement().embedder == fitted_on
    for chat in (DEFAULT_CHAT_MODEL_NAME, "Llama-3.2-3B-Instruct-Q4_K_M.gguf", None):
        assert for_models(chat, fitted_on) is for_chat_model(chat)
        assert for_models(chat, None) is for_chat_model(chat)  # keyword search: no similarity
        other = for_models(chat, "bge-small-en-v1.5")
        assert other.withheld and "bge-small-en-v1.5" in other.withheld
        assert other.coef == for_chat_model(chat).coef  # the same model, the same refusals
        assert other.refuse_below == for_chat_model(chat).refuse_below
        assert other.status(1.0, True) == "YELLOW" and other.status(0.0, True) == "REFUSE"
        assert for_chat_model(chat).status(1.0, True) == "GREEN"


def test_an_older_file_names_no_embedder_and_withholds_nothing(tmp_path: Path) -> None:
    data = json.loads(json.dumps(shipped().to_dict()))
    path = tmp_path / MODEL_FILE
    path.write_text(json.dumps(data), encoding="utf-8")
    model = StatusModel.load(path)
    assert model.embedder is None and not model.withheld


def test_a_missing_judgement_pulls_neither_way() -> None:
    """Counted as its mean in training, not as a value at one end of its range: a server's
    answer once counted as the most confident "yes" seen, and GREEN's precision fell to
    79% (tests/bench/README.md, 2026-11-29)."""
    model = shipped()
    check = assess("How heavy is the bike?", ["Weight of the bike: 23.4 kg"])

    def row(judgement: float | None = None) -> dict[str, float]:
        return features(
            check,
            generated=False,
            verified=True,
            cited_ranks=[1],
            n_citations=1,
            judgement=judgement,
        )

    assert model.contributions(row())["judgement"] == 0.0
    i = model.features.index("judgement")
    assert model.probability(row()) == pytest.approx(model.probability(row(model.mean[i])))
    lo, hi = row(model.low[i]), row(model.high[i])
    assert model.probability(lo) < model.probability(row()) < model.probability(hi)


def test_a_file_of_one_model_gives_it_without_the_judgement_too(tmp_path: Path) -> None:
    """An older file, with no model fitted without the judgement: that model is its only
    one with the judgement's pull left out."""
    m = shipped()
    data = {
        "features": list(m.features),
        "weights": {
            n: {"weight": w, "mean": a, "scale": s}
            for n, w, a, s in zip(m.features, m.coef, m.mean, m.scale, strict=True)
        },
        "intercept": m.intercept,
        "thresholds": {"green_at": 0.9, "refuse_below": 0.3},
    }
    path = tmp_path / MODEL_FILE
    path.write_text(json.dumps(data), encoding="utf-8")
    judged, unjudged = StatusModel.load(path), StatusModel.load(path, judged=False)
    assert judged.judge is None  # no chat model named: no judgement is trusted
    assert "judgement" not in unjudged.features and unjudged.green_at == 0.9
    row = {"coverage": 0.7, "judgement": 0.9}
    assert unjudged.probability(row) == pytest.approx(judged.probability({"coverage": 0.7}))


def test_the_judgement_is_needed_only_where_it_could_move_the_status() -> None:
    from app.validation.status_model import StatusModel

    model = StatusModel(
        features=("coverage", "judgement", "has_judgement"),
        mean=(0.5, 0.5, 1.0),
        scale=(0.25, 0.25, 1.0),
        coef=(2.0, 1.0, 0.0),
        intercept=0.0,
        green_at=0.9,
        refuse_below=0.2,
        low=(0.0, 0.2, 1.0),
        high=(1.0, 0.8, 1.0),
    )
    clear = {"coverage": 1.0}  # GREEN whatever the model says: p >= 0.94 at its lowest
    borderline = {"coverage": 0.85}  # GREEN only if the model says yes
    hopeless = {"coverage": 0.0}  # refused whatever it says
    assert not model.needs_judgement(clear, verified=True)
    assert model.needs_judgement(borderline, verified=True)
    assert not model.needs_judgement(hopeless, verified=True)
    # an unverified answer is never GREEN: between YELLOW and YELLOW it decides nothing
    assert not model.needs_judgement(borderline, verified=False)
