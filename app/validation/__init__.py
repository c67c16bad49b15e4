"""Citation validation: pure, fast checks of a model's answer against its retrieved sources."""

from app.validation.normalize import NormText, normalize
from app.validation.report import log_record, repair_prompt
from app.validation.validator import ValidatedAnswer, validate

__all__ = [
    "NormText",
    "ValidatedAnswer",
    "log_record",
    "normalize",
    "repair_prompt",
    "validate",
]
