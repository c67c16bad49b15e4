"""The one place that writes values into LanceDB filter strings (SQL ``WHERE`` clauses).

LanceDB filters are SQL text, so every string value that goes into one (a doc id, a file
path a user chose, a status) is quoted here, with single quotes doubled, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence


def literal(value: str) -> str:
    """A SQL string literal: ``O'Brien.pdf`` -> ``'O''Brien.pdf'``."""
    return "'" + value.replace("'", "''") + "'"


def equals(column: str, value: str) -> str:
    """``column = 'value'``."""
    return f"{column} = {literal(value)}"


def is_in(column: str, values: Iterable[str]) -> str:
    """``column IN ('a', 'b')``; keep lists to a few hundred values (see store.FILTER_BATCH)."""
    return f"{column} IN (" + ", ".join(literal(v) for v in values) + ")"


def in_batches(column: str, values: Sequence[str], size: int) -> Iterator[str]:
    """``column IN (...)`` over ``values``, ``size`` values per filter, in order: a long list
    is asked for (or deleted) a batch at a time."""
    for start in range(0, len(values), size):
        yield is_in(column, values[start : start + size])
