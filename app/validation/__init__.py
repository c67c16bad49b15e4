"""Citation validation: pure, fast checks of a model's answer against its retrieved sources.

Use::

    from app.validation import validate, log_record, repair_prompt

    result = validate(raw_answer, pairs)          # pairs: [(Source, Chunk)] of THIS request
    logger.info("%s", log_record(raw_answer, pairs, result))
    if result.validation.status == "RED":         # retry once with what was wrong
        hint = repair_prompt([s.n for s, _ in pairs], result.validation.dropped)

``result.answer`` carries only markers of surviving citations ("[1][3]" form);
``result.citations`` quote the chunk's exact text with its span, page and rectangles;
``result.unmentioned`` lists valid citations no marker names. No I/O anywhere:
``python -m tests.bench.bench_validation`` measures the per-answer time.
"""

from app.validation.locate import ChunkIndex, Match, locate
from app.validation.markers import Marker, find_markers, rewrite
from app.validation.normalize import NormText, normalize
from app.validation.report import log_record, repair_prompt
from app.validation.validator import ValidatedAnswer, validate

__all__ = [
    "ChunkIndex",
    "Marker",
    "Match",
    "NormText",
    "ValidatedAnswer",
    "find_markers",
    "locate",
    "log_record",
    "normalize",
    "repair_prompt",
    "rewrite",
    "validate",
]
