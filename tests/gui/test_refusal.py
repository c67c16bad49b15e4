"""A refusal in the window: it says why, and its closest passages are chips that open the viewer
at the highlighted passage, so the person can check for themselves."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import drop_files, wait_ingested, wait_ready

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_refusal_chips_open_the_closest_passages(qtbot, window, gui_pdfs) -> None:
    manual: Path = gui_pdfs["manual"]
    drop_files(window, [manual])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)

    box = window.conversation.input
    box.setPlainText("Who painted the Mona Lisa?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = window.conversation.active
    assert card is not None
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=180_000)
    answer = card.answer
    assert answer is not None and answer.kind == "refusal"
    # The reason is said once: as the card's text, or on the status line if not there.
    said = f"{card.body.toPlainText()} {card.status.text()}"
    assert "Mona" in said and "closest passages" in card.status.text()
    support = answer.validation.support
    assert support is not None and support.closest

    assert card.chips, "the refusal's closest passages are chips"
    chip = card.chips[0]
    n = int(chip.property("citation_n"))
    passage = next(c for c in support.closest if c.n == n)
    assert chip.accessibleName().startswith(f"Closest passage {n}: {manual.name}, page")

    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    viewer = window.viewer
    qtbot.waitUntil(lambda: viewer.current_doc is not None, timeout=5000)
    assert viewer.current_doc.resolve() == manual.resolve()
    assert viewer.current_page == passage.rects[0][0] == passage.page
    assert viewer.highlight_rects == [tuple(r) for r in passage.rects]
