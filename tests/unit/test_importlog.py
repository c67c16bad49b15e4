"""The import log (app/core/importlog.py): what a process imported and mapped, written once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core import importlog

pytestmark = pytest.mark.unit


def test_import_log_lists_mapped_shared_objects_only() -> None:
    maps = (
        "7f0-7f1 r-xp 00000000 08:01 1 /opt/footnote/_internal/torch/lib/libc10.so\n"
        "7f1-7f2 r--p 00000000 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f2-7f3 r--p 00000000 08:01 3 /opt/footnote/_internal/models/x.gguf\n"
        "7f3-7f4 rw-p 00000000 00:00 0 [heap]\n"
        "7f4-7f5 r--p 00000000 08:01 4 /tmp/gone.so (deleted)\n"
    )
    assert importlog.mapped_libraries(maps) == [
        "/opt/footnote/_internal/torch/lib/libc10.so",
        "/tmp/gone.so",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    ]


def test_import_log_is_written_once_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlog, "_state", {"installed": False, "written": False})
    monkeypatch.delenv(importlog.ENV_VAR, raising=False)
    assert importlog.write() is None
    monkeypatch.setenv(importlog.ENV_VAR, str(tmp_path / "log"))
    path = importlog.write()
    assert path is not None and path.parent == tmp_path / "log"
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert "app.core.importlog" in rec["modules"] and rec["frozen"] is False
    assert importlog.write() is None  # once per process
