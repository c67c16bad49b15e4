"""The embedded chat model's own judgement, read from its logits (a status-model signal)."""

from __future__ import annotations

from app.generation.llama_model import LlamaChatModel

QUERY = 'Do the passages answer the question "{q}"? Answer yes or no.'


def _messages(passage: str, question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You answer questions from the numbered passages."},
        {"role": "user", "content": f"[1] {passage}\n\nQuestion: {question}"},
    ]


def test_the_judgement_is_a_probability_and_reuses_the_processed_prompt() -> None:
    model = LlamaChatModel()
    messages = _messages("The bike weighs 23.4 kg with its battery.", "How heavy is the bike?")
    prompt = model.tokenize_chat(messages)
    model.cache_prefix(messages[:1])
    first = model.judge(messages, "It weighs 23.4 kg [1].", QUERY.format(q="How heavy is it?"))
    assert first is not None and 0.0 < first < 1.0
    # the prompt is in the cache now: asking again evaluates only the reply and the query,
    # and the same tokens give the same judgement
    held = model._llm.n_tokens
    assert held > len(prompt)
    again = model.judge(messages, "It weighs 23.4 kg [1].", QUERY.format(q="How heavy is it?"))
    assert again == first
    other = model.judge(messages, "It weighs 23.4 kg [1].", QUERY.format(q="Who built it?"))
    assert other is not None and other != first


def test_a_judgement_of_the_prompt_evaluates_only_the_query_after_it() -> None:
    """What the ask service asks: after answering, the prompt is in the cache, so judging
    whether the passages answer the question evaluates the query's tokens alone."""
    model = LlamaChatModel()
    messages = _messages("The bike weighs 23.4 kg with its battery.", "How heavy is the bike?")
    model.cache_prefix(messages)  # the whole prompt, as answering leaves it in the cache
    query = QUERY.format(q="How heavy is the bike?")
    query_tokens = len(model._llm.tokenize(query.encode("utf-8"), add_bos=False))
    evaluated: list[int] = []
    real_eval = model._llm.eval

    def counting_eval(tokens):
        evaluated.append(len(tokens))
        return real_eval(tokens)

    model._llm.eval = counting_eval
    try:
        p = model.judge(messages, None, query)
    finally:
        model._llm.eval = real_eval
    assert p is not None and 0.0 < p < 1.0
    assert len(evaluated) == 1 and evaluated[0] <= query_tokens + 12, (evaluated, query_tokens)
    with_reply = model.judge(messages, "It weighs 23.4 kg [1].", query)
    assert with_reply is not None and with_reply != p  # the reply is read when given
