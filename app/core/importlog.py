"""What a process imported and which shared libraries it loaded, written as it ends.

Why: the installer leaves out what the app never loads (packaging/README.md), and only a
record of real runs of the *bundle* can show what that is: a frozen executable ignores
PYTHONVERBOSE and ``-X importtime``. With ``FOOTNOTE_IMPORT_LOG=DIR`` set, every Footnote
process (window, command line, parse worker, import process) writes
``DIR/imports-<pid>.json`` when it exits: its arguments, ``sys.modules`` and the shared
objects mapped into it (``/proc/self/maps``; none elsewhere). Unset, nothing is written.
``packaging/package_test.py`` sets it and ``packaging/bundle_report.py`` reads the files.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

ENV_VAR = "FOOTNOTE_IMPORT_LOG"
_state = {"installed": False, "written": False}


def install() -> None:
    """Write the record at exit when ``FOOTNOTE_IMPORT_LOG`` is set (``leave`` writes it too,
    since ``os._exit`` skips ``atexit``)."""
    if os.environ.get(ENV_VAR) and not _state["installed"]:
        _state["installed"] = True
        atexit.register(write)


def mapped_libraries(maps: str | None = None) -> list[str]:
    """Paths of the shared objects mapped into this process (``/proc/self/maps``)."""
    if maps is None:
        try:
            maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
    found = set()
    for line in maps.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            name = parts[5].removesuffix(" (deleted)")
            if name.endswith(".so") or ".so." in Path(name).name:
                found.add(name)
    return sorted(found)


def record() -> dict[str, object]:
    return {
        "pid": os.getpid(),
        "argv": list(sys.argv),
        "frozen": bool(getattr(sys, "frozen", False)),
        "modules": sorted(sys.modules),
        "libraries": mapped_libraries(),
    }


def write() -> Path | None:
    """Write this process's record once; never raises (a process must be able to leave)."""
    folder = os.environ.get(ENV_VAR)
    if not folder or _state["written"]:
        return None
    _state["written"] = True
    path = Path(folder) / f"imports-{os.getpid()}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record()), encoding="utf-8")
    except (OSError, ValueError):
        return None
    return path
