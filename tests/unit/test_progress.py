"""CancelToken composition: a child sees its parents' cancel, never the other way round."""

from __future__ import annotations

import threading

import pytest

from app.core.errors import Cancelled
from app.core.progress import CancelToken

pytestmark = pytest.mark.unit


def test_child_is_cancelled_with_its_parent_but_not_the_reverse() -> None:
    outer = CancelToken()
    child = CancelToken.any_of(outer)
    child.cancel()
    assert child.cancelled and not outer.cancelled
    outer2 = CancelToken()
    child2 = CancelToken(outer2)
    assert not child2.cancelled
    outer2.cancel()
    assert child2.cancelled
    with pytest.raises(Cancelled):
        child2.raise_if_cancelled()  # the caller's token counts, not only the child's own


def test_any_of_several_and_none() -> None:
    a, b = CancelToken(), CancelToken()
    either = CancelToken.any_of(a, None, b)
    assert not either.cancelled
    b.cancel()
    assert either.cancelled and not a.cancelled
    lone = CancelToken.any_of(None)
    assert not lone.cancelled
    lone.raise_if_cancelled()
    lone.cancel()
    assert lone.cancelled


def test_nested_parents_propagate_across_threads() -> None:
    root = CancelToken()
    leaf = CancelToken.any_of(CancelToken.any_of(root))
    seen = threading.Event()

    def worker() -> None:
        while not leaf.cancelled:
            pass
        seen.set()

    t = threading.Thread(target=worker)
    t.start()
    root.cancel()
    t.join(timeout=5)
    assert seen.is_set()
