"""Generation: prompt, grammar-constrained JSON answers, local and remote chat models.

Heavy imports (llama_cpp) happen inside the model classes, on first use.
"""

from app.generation.factory import chat_model_from_settings, local_chat_model
from app.generation.grammar import GrammarSpec, build_grammar, gbnf_literal
from app.generation.llama_model import LlamaChatModel
from app.generation.parsing import AnswerStreamer, is_degenerate, parse_raw_answer
from app.generation.prompt import PromptBundle, build_prompt, select_sentences
from app.generation.remote import RemoteChatModel, server_label

__all__ = [
    "AnswerStreamer",
    "GrammarSpec",
    "LlamaChatModel",
    "PromptBundle",
    "RemoteChatModel",
    "build_grammar",
    "build_prompt",
    "chat_model_from_settings",
    "gbnf_literal",
    "is_degenerate",
    "local_chat_model",
    "parse_raw_answer",
    "select_sentences",
    "server_label",
]
