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


@pytest.mark.slow
def test_smoke_import_goes_through_the_import_process(tmp_path: Path) -> None:
    """What packaging/package_test.py checks in the frozen bundle, here from the venv."""
    import importlib.util
    import json

    from tests.pdf_factory import make_manual_pdf

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("pkg_test", root / "packaging/package_test.py")
    assert spec and spec.loader
    package_test = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package_test  # its dataclasses look their module up
    spec.loader.exec_module(package_test)

    logs = tmp_path / "logs"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FOOTNOTE_LOG_DIR=str(logs))
    pdf = make_manual_pdf(tmp_path / "manual.pdf")
    args = ["--smoke", "--smoke-import", str(pdf), "--library", str(tmp_path / "lib")]
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = json.loads(proc.stdout.strip().splitlines()[-1])
    assert package_test.check_gui_import(shown, logs / "footnote.log").startswith("added through")
