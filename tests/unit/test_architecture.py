"""The layering in DEVELOPERS.md, enforced: import-linter contracts from pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.unit
def test_import_contracts_hold() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is a dev dependency; `make test` installs it"
    proc = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.unit
@pytest.mark.slow
def test_types_check() -> None:
    """mypy over the Qt-free packages, configured in pyproject.toml (strict on core, validation
    and store; the override list there is a ratchet that may only shrink)."""
    exe = shutil.which("mypy", path=str(Path(sys.executable).parent))
    assert exe, "mypy is a dev dependency; `make test` installs it"
    proc = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.unit
def test_core_does_not_import_heavy_libraries() -> None:
    """`footnote docs` must stay fast: importing the core or the CLI entry never loads torch/llama."""
    code = (
        "import sys, app.core.models, app.core.config, app.core.resources, app.cli.main;"
        "heavy = [m for m in ('torch', 'llama_cpp', 'sentence_transformers', 'PySide6') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
