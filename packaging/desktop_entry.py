"""Footnote's freedesktop.org desktop entry, for the .deb (make_deb.py) and the tarball's install.sh.

Why generated: the MIME types a file manager offers "Open with Footnote" for must be exactly the
documents Footnote reads, and those are listed once, in ``app/core/formats.py`` (``MIME_TYPES``,
by extension). That file has no imports, so it is read here by path: packing needs none of the
app's dependencies. Standard library only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ROOT / "app" / "core" / "formats.py"


def formats_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("footnote_formats", FORMATS)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mime_types() -> list[str]:
    """Every MIME type of every kind of document Footnote reads, PDF first, without repeats."""
    seen: dict[str, None] = {}
    for types in formats_module().MIME_TYPES.values():
        seen.update(dict.fromkeys(types))
    return list(seen)


def _quote(path: str) -> str:
    """A path as one argument of ``Exec`` (the spec's quoting: double quotes, escaped ``"`$\\``)."""
    if not any(c in path for c in " \t\n\"'\\><~|&;$*?#()`"):
        return path
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in path)
    return f'"{escaped}"'


def desktop_entry(command: str) -> str:
    """The ``footnote.desktop`` text for a launcher at ``command`` (an absolute path).

    No kind of file becomes Footnote's by default: ``MimeType`` puts Footnote under "Open with".
    """
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Version=1.0\n"
        "Name=Footnote\n"
        "GenericName=PDF Questions\n"
        "Comment=Ask questions about your own PDFs, offline, with proven citations\n"
        f"Exec={_quote(command)} %F\n"
        f"TryExec={command}\n"
        "Icon=footnote\n"
        "Terminal=false\n"
        "Categories=Office;Viewer;\n"  # one main category: listed once in the menu
        "Keywords=PDF;citation;question;answer;search;\n"
        f"MimeType={';'.join(mime_types())};\n"
        "StartupNotify=true\n"
        "StartupWMClass=Footnote\n"
    )
