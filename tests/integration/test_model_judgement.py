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
