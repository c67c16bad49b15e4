"""The answer grammar, checked by llama.cpp's own grammar engine (not by string inspection).

``LlamaGrammar.from_string`` does no checking in llama-cpp-python 0.3.36, so every test
here parses the grammar with ``llama_sampler_init_grammar`` and feeds candidate outputs
token by token through the grammar sampler, using the embedded model's vocabulary
(loaded vocab-only: no weights, a fraction of a second).
"""

from __future__ import annotations

import ctypes
import json
import math

import pytest

from app.core.models import RawAnswer, RawCitation
from app.core.resources import default_chat_model_path
from app.generation.grammar import (
    ANSWER_FIRST,
    CITATIONS_FIRST,
    GrammarSpec,
    answer_json,
    build_grammar,
    gbnf_literal,
    mode_values,
    phase_grammars,
)
from app.generation.llama_model import grammar_error
from app.generation.parsing import parse_raw_answer

pytestmark = pytest.mark.unit

llama_cpp = pytest.importorskip("llama_cpp")

TRICKY = [
    'He said "stop" and left.',
    "A path C:\\temp\\new is used.",
    "Caf\u00e9 cr\u00e8me costs 3 \u20ac \u2013 cheap \U0001f600.",
    "Tabs\tand {braces} and [brackets] and <angle> and #hash.",
]
PLAIN = ["The pump delivers 40 litres per minute.", "It weighs 3 kg."]


@pytest.fixture(scope="module")
def vocab_llm() -> object:
    return llama_cpp.Llama(
        model_path=str(default_chat_model_path()), vocab_only=True, verbose=False
    )


def accepts(llm: object, grammar: str, text: str) -> bool:
    """True if the grammar admits ``text`` exactly (every token, then end of output)."""
    vocab = llm._model.vocab  # type: ignore[attr-defined]
    smpl = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    assert smpl, "grammar does not parse"
    try:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)  # type: ignore[attr-defined]
        for tok in [*tokens, llama_cpp.llama_vocab_eos(vocab)]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(tok, 0.0, 0.0))
            arr = llama_cpp.llama_token_data_array(
                data=ctypes.cast(data, llama_cpp.llama_token_data_p),
                size=1,
                selected=-1,
                sorted=False,
            )
            llama_cpp.llama_sampler_apply(smpl, ctypes.byref(arr))
            if math.isinf(data[0].logit):
                return False
            if tok != llama_cpp.llama_vocab_eos(vocab):
                llama_cpp.llama_sampler_accept(smpl, tok)
        return True
    finally:
        llama_cpp.llama_sampler_free(smpl)


def _raw(
    cites: list[tuple[int, str]], answer: str = "The pump delivers 40 litres [1]."
) -> RawAnswer:
    return RawAnswer(
        mode="answer",
        answer=answer,
        citations=[RawCitation(source=n, quote=q) for n, q in cites],
    )


SPEC = GrammarSpec(quotes={1: PLAIN, 3: TRICKY})


def test_grammar_compiles_in_llama_cpp(vocab_llm: object) -> None:
    vocab = vocab_llm._model.vocab  # type: ignore[attr-defined]
    specs = [
        SPEC,
        GrammarSpec(quotes={1: PLAIN, 3: TRICKY}, free_quotes=True),
        GrammarSpec(quotes={1: PLAIN, 3: TRICKY}, order=ANSWER_FIRST),
        GrammarSpec(quotes={2: PLAIN}, evidence=((2, PLAIN[0]),), answer_segments=1),
        GrammarSpec(quotes={n: PLAIN for n in range(1, 13)}, max_citations=1),
    ]
    for spec in specs:
        assert grammar_error(vocab, build_grammar(spec)) is None
        for text in phase_grammars(spec).values():
            assert grammar_error(vocab, text) is None
    assert grammar_error(vocab, "root ::= (") is not None


def test_literal_escaping_round_trips(vocab_llm: object) -> None:
    for s in TRICKY:
        assert accepts(vocab_llm, f"root ::= {gbnf_literal(s)}", s)
        assert not accepts(vocab_llm, f"root ::= {gbnf_literal(s)}", s + "x")


def test_admits_shown_quotes_with_tricky_characters(vocab_llm: object) -> None:
    g = build_grammar(SPEC)
    for order in (CITATIONS_FIRST,):
        for q in TRICKY:
            out = answer_json(_raw([(3, q)], "It is cheap [3]."), order)
            assert accepts(vocab_llm, g, out), out
            assert parse_raw_answer(out).citations[0].quote == q
    two = answer_json(_raw([(1, PLAIN[0]), (3, TRICKY[1])], "Both [1][3]. Done [1]!"))
    assert accepts(vocab_llm, g, two)


def test_rejects_unretrieved_sources_and_invented_quotes(vocab_llm: object) -> None:
    g = build_grammar(SPEC)
    cases = [
        _raw([(2, PLAIN[0])]),  # source 2 was not shown
        _raw([(1, TRICKY[0])]),  # a real sentence, but of another source
        _raw([(1, "The pump delivers 45 litres per minute.")]),  # invented
        _raw([(1, PLAIN[0][:-1])]),  # truncated quote
        _raw([(1, PLAIN[0])], "The pump delivers 40 litres [4]."),  # marker of no source
        _raw([(1, PLAIN[0])], "The pump delivers 40 litres."),  # uncited sentence
        _raw([(1, PLAIN[0])], "Fine [1]. Then more text without a marker."),  # trailing
        _raw([(1, PLAIN[0])] * 4),  # more than max_citations
        _raw([]),  # an answer needs a citation
    ]
    for raw in cases:
        assert not accepts(vocab_llm, g, answer_json(raw)), raw
    assert not accepts(vocab_llm, g, answer_json(_raw([(1, PLAIN[0])]), ANSWER_FIRST))
    assert not accepts(vocab_llm, g, '{"mode": "answer", "citations": [], "answer": "x\\n [1]"}')


def test_refusal_and_bounds(vocab_llm: object) -> None:
    g = build_grammar(SPEC)
    refusal = json.dumps({"mode": "refuse", "citations": [], "answer": "Not in the sources."})
    assert accepts(vocab_llm, g, refusal)
    assert set(mode_values()) == {"answer", "refuse"}
    long = "word " * 40
    assert not accepts(vocab_llm, g, answer_json(_raw([(1, PLAIN[0])], long + "[1].")))
    ok = GrammarSpec(quotes={1: PLAIN}, segment_chars=300)
    assert accepts(vocab_llm, build_grammar(ok), answer_json(_raw([(1, PLAIN[0])], long + "[1].")))


def test_free_quotes_admit_any_bounded_string(vocab_llm: object) -> None:
    spec = GrammarSpec(quotes={1: PLAIN, 3: TRICKY}, free_quotes=True, quote_chars=50)
    g = build_grammar(spec)
    assert accepts(vocab_llm, g, answer_json(_raw([(1, "anything at all, even invented")])))
    assert not accepts(vocab_llm, g, answer_json(_raw([(2, "anything")])))  # still shown only
    assert not accepts(vocab_llm, g, answer_json(_raw([(1, "x" * 51)])))


def test_ranked_evidence_fixes_the_citations(vocab_llm: object) -> None:
    spec = GrammarSpec(quotes={1: PLAIN, 3: TRICKY}, evidence=((3, TRICKY[0]),))
    g = build_grammar(spec)
    assert accepts(vocab_llm, g, answer_json(_raw([(3, TRICKY[0])], "He said stop [3].")))
    assert not accepts(vocab_llm, g, answer_json(_raw([(1, PLAIN[0])], "He said stop [1].")))
    assert not accepts(vocab_llm, g, answer_json(_raw([(3, TRICKY[0])], "He said stop [1].")))


def test_ranked_evidence_marks_every_cited_source(vocab_llm: object) -> None:
    """With two sources of evidence the answer carries both markers, in order, so that each
    quote has its chip; the model cannot mark only one of them."""
    evidence = ((1, PLAIN[0]), (3, TRICKY[0]))
    spec = GrammarSpec(quotes={1: PLAIN, 3: TRICKY}, evidence=evidence, answer_segments=1)
    cited = list(evidence)
    for g in (build_grammar(spec), None):
        for text, ok in [
            ("It pumps 40 litres [1][3].", True),
            ("It pumps 40 litres. [1][3]", True),
            ("It pumps 40 litres [1].", False),
            ("It pumps 40 litres [3].", False),
            ("It pumps 40 litres [3][1].", False),
            ("It pumps 40 litres [1][3][1].", False),
        ]:
            if g is None:  # the decoder's phase grammar for the answer text
                piece = json.dumps(text)[1:]
                assert accepts(vocab_llm, phase_grammars(spec)["answer"], piece) is ok, text
            else:
                assert accepts(vocab_llm, g, answer_json(_raw(cited, text))) is ok, text
    one_source = GrammarSpec(quotes={1: PLAIN}, evidence=((1, PLAIN[0]), (1, PLAIN[1])))
    both = [(1, PLAIN[0]), (1, PLAIN[1])]
    assert accepts(vocab_llm, build_grammar(one_source), answer_json(_raw(both, "Both [1].")))
    assert not accepts(vocab_llm, build_grammar(one_source), answer_json(_raw(both, "[1][1].")))


def test_spec_checks_its_input() -> None:
    with pytest.raises(ValueError):
        GrammarSpec(quotes={})
    with pytest.raises(ValueError):
        GrammarSpec(quotes={0: PLAIN})
    with pytest.raises(ValueError):
        GrammarSpec(quotes={1: ["  "]})
    with pytest.raises(ValueError):
        GrammarSpec(quotes={1: PLAIN}, order=("mode", "answer"))
    with pytest.raises(ValueError):
        GrammarSpec(quotes={1: PLAIN}, evidence=((2, "x"),))


def test_phase_grammars_cover_the_decoder_pieces(vocab_llm: object) -> None:
    """The structured decoder's sampled pieces, between its forced text, are each admitted by
    their phase grammar, and the assembled text by the full grammar."""
    g = phase_grammars(SPEC)
    raw = _raw([(1, PLAIN[1]), (3, TRICKY[0])], "It weighs 3 kg [1]. He said stop. [3]")
    pieces = {
        "mode": 'answer"',
        "source": "1,",
        "quote-1": json.dumps(PLAIN[1])[1:],
        "more": '}, {"source": ',
        "quote-3": json.dumps(TRICKY[0])[1:],
        "answer": 'It weighs 3 kg [1]. He said stop. [3]"',
    }
    for key, piece in pieces.items():
        assert accepts(vocab_llm, g[key], piece), (key, piece)
    assert accepts(vocab_llm, g["more"], "}], ")
    assert not accepts(vocab_llm, g["source"], "2,")
    assert not accepts(vocab_llm, g["quote-1"], json.dumps(TRICKY[0])[1:])
    assert accepts(vocab_llm, build_grammar(SPEC), answer_json(raw))
