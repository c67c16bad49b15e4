"""The scripts in packaging/ loaded by path for tests: the folder's name would clash with the
`packaging` library that pip and setuptools bring."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "packaging"


def load(name: str, path: Path | None = None) -> ModuleType:
    """``packaging/<name>.py`` (or ``path``) as module ``footnote_pkg_<name>``; the folder is
    put on ``sys.path`` first, for the scripts that import each other."""
    if str(PKG) not in sys.path:
        sys.path.insert(0, str(PKG))
    spec = importlib.util.spec_from_file_location(
        f"footnote_pkg_{name}", path or PKG / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
