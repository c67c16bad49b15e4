"""The event loop keeps turning while a large PDF ingests and an answer generates, offline.

The work must really run in the background: the window's timer keeps ticking while the report
is imported and the answer streams at the same time, and nothing touches the network. How long
the loop stalls is a figure, not a test: `make bench` prints it (tests/bench/bench_gui_lag.py).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer

from tests.gui.conftest import drop_files, wait_ingested, wait_ready

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_ingest_and_answer_run_in_the_background_offline(
    qtbot, window, gui_pdfs, no_network
) -> None:
    drop_files(window, [gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)  # embedder and model loaded: steady state from here

    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    drop_files(window, [gui_pdfs["large"]])
    ingest = window.ingest_job
    assert ingest is not None
    box = window.conversation.input
    box.setPlainText("How often must the air filter be cleaned?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = window.conversation.active
    assert card is not None
    # Both workers busy at once: parsing/embedding the long report and generating.
    overlap: list[bool] = []
    timer.timeout.connect(
        lambda: overlap.append(True) if ingest.running and card.raw and not overlap else None
    )
    ticks_at_drop = len(ticks)
    qtbot.waitUntil(lambda: window.ingest_job is None, timeout=300_000)
    timer.stop()
    if window.conversation.running:
        window.cancel_answer()
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=180_000)

    assert window.imports.results and window.imports.results[0].status == "added"
    assert overlap, "the answer streamed while the report was being ingested"
    assert len(ticks) - ticks_at_drop > 100, "the event loop kept turning during the work"
    assert no_network == [], f"network use attempted: {no_network}"
