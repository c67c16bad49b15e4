"""The event loop keeps turning while a large PDF ingests and an answer generates, offline.

A 10 ms QTimer records the largest gap between its ticks; the work must really run on the
worker threads (a blocking call on the GUI thread shows up as a gap of seconds).
The library and model are warmed first, so the measurement covers steady work, not the
one-off import of torch.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from PySide6.QtCore import Qt, QTimer

from tests.gui.conftest import drop_files, wait_ingested, wait_ready

pytestmark = [pytest.mark.gui, pytest.mark.slow]

MAX_LAG_MS = 100.0

# An idle process that only sleeps 10 ms at a time and records its worst oversleep: the
# scheduling noise of this machine during the test (other processes on 2 shared cores).
CONTROL = """
import sys, time
out, last, worst = sys.argv[1], time.perf_counter(), 0.0
while True:
    time.sleep(0.01)
    now = time.perf_counter()
    gap = (now - last) * 1000
    last = now
    if gap > worst:
        worst = gap
        with open(out, "w") as f:
            f.write(str(worst))
"""


class LagMeter:
    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.max_gap_ms = 0.0
        self.ticks = 0
        self.t0 = self.last
        self.spikes: list[tuple[float, int]] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = (now - self.last) * 1000
        if gap > 50:
            self.spikes.append((round(now - self.t0, 2), round(gap)))
        self.max_gap_ms = max(self.max_gap_ms, gap)
        self.last = now
        self.ticks += 1

    def stop(self) -> None:
        self.timer.stop()


def test_event_loop_lag_and_no_network(qtbot, window, gui_pdfs, no_network, tmp_path) -> None:
    drop_files(window, [gui_pdfs["manual"]])
    wait_ingested(qtbot, window)
    wait_ready(qtbot, window, 1)  # embedder and model loaded: steady state from here

    noise_file = tmp_path / "control-max-gap.txt"
    control = subprocess.Popen([sys.executable, "-c", CONTROL, str(noise_file)])
    meter = LagMeter()
    meter.start()
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
    meter.timer.timeout.connect(
        lambda: overlap.append(True) if ingest.running and card.raw and not overlap else None
    )
    qtbot.waitUntil(lambda: window.ingest_job is None, timeout=300_000)
    meter.stop()
    control.kill()
    control.wait()
    noise = float(noise_file.read_text()) - 10 if noise_file.exists() else 0.0
    if window.conversation.running:
        window.cancel_answer()
    qtbot.waitUntil(lambda: not window.conversation.running, timeout=180_000)

    assert window.imports.results and window.imports.results[0].status == "added"
    assert overlap, "the answer streamed while the report was being ingested"
    assert meter.ticks > 100
    print(
        f"max event-loop gap: {meter.max_gap_ms:.1f} ms over {meter.ticks} ticks; "
        f"machine scheduling noise (idle control process): {noise:.1f} ms; "
        f"gaps over 50 ms (s, ms): {meter.spikes}"
    )
    # What Footnote adds must stay under 100 ms; the machine's own noise (measured, not
    # guessed) is allowed on top, so a busy CI box does not fail the test by itself.
    assert meter.max_gap_ms < MAX_LAG_MS + max(0.0, noise), (
        f"GUI blocked for {meter.max_gap_ms:.0f} ms (machine noise {noise:.0f} ms)"
    )
    assert no_network == [], f"network use attempted: {no_network}"
