"""The import panel says a file failed the moment the service reports it, not at the end."""

from __future__ import annotations

import pytest

from app.core.models import IngestResult
from app.core.progress import FileDone, FileProgress, Progress, Stage
from app.ui.import_panel import ImportPanel

pytestmark = pytest.mark.gui


def test_a_rejected_file_says_so_at_once_and_keeps_it(qtbot, tmp_path) -> None:
    a, b = tmp_path / "bad.pdf", tmp_path / "good.pdf"
    for p in (a, b):
        p.write_bytes(b"%PDF-1.4")
    panel = ImportPanel()
    qtbot.addWidget(panel)
    panel.start([a, b])
    panel.on_progress(Progress(Stage.FILE, 0, 2, file=str(a)))
    panel.on_progress(FileProgress(Stage.PARSE, 1, 1, file=str(a), index=0, count=2))
    assert "Reading pages 1/1" in panel.rows[str(a)].state.text()
    error = "bad.pdf is damaged: page 1 cannot be read."
    panel.on_progress(
        FileDone(Stage.DONE, 1, 1, file=str(a), index=0, count=2, status="failed", error=error)
    )
    row = panel.rows[str(a)]
    assert "Failed:" in row.state.text() and "damaged" in row.state.text()
    assert not row.bar.isVisibleTo(panel)
    # Later progress of the batch never turns it back into "Reading pages".
    panel.on_progress(FileProgress(Stage.PARSE, 1, 3, file=str(a), index=0, count=2))
    assert "Failed:" in row.state.text()
    panel.on_progress(FileProgress(Stage.PARSE, 1, 3, file=str(b), index=1, count=2))
    assert "Reading pages 1/3" in panel.rows[str(b)].state.text()
    panel.finish(
        [
            IngestResult(file=str(a), status="failed", error=error),
            IngestResult(file=str(b), status="added", pages=3, chunks=4),
        ]
    )
    assert "Failed:" in row.state.text()
    assert "Added: 3 pages" in panel.rows[str(b)].state.text()
