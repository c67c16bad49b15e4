"""The packaged entry point starts, shows its window and exits cleanly with --smoke."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui


def test_smoke_exits_zero_after_window_shown(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    lib = tmp_path / "my-library"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from app.ui.main import main; "
            "sys.exit(main(['--smoke', '--library', sys.argv[1]]))",
            str(lib),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    log = Path(env["FOOTNOTE_LOG_DIR"]) / "footnote.log"
    assert log.is_file() and str(lib) in log.read_text()
