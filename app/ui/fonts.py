"""Fonts for the scripts Footnote indexes, so a Korean or Chinese title is not drawn as boxes.

Why: Footnote ingests and finds Chinese, Japanese, Korean and Arabic text, but a desktop
without a CJK font (a fresh Debian has none) drew such titles and passages as empty boxes.
Qt falls back through fontconfig to any installed font that has a character; set-up installs
Debian's ``fonts-noto-cjk`` (as it installs the OCR language data). Where that is missing,
fonts in Footnote's own ``resources/fonts`` folder or the usual system folders are
registered with Qt, and what still cannot be drawn is logged with the command that fixes it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QTextLayout

from app.core.resources import resources_dir

logger = logging.getLogger(__name__)

SAMPLES = {
    "Korean": "\ud55c\uad6d\uc5b4 \uc548\ub0b4\uc11c",  # 한국어 안내서
    "Chinese": "\u4e2d\u6587\u6587\u6863",  # 中文文档
    "Japanese": "\u65e5\u672c\u8a9e\u306e\u6587\u66f8",  # 日本語の文書
    "Arabic": "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",  # العربية
}
FIX = "sudo apt-get install fonts-noto-cjk"
_SYSTEM_DIRS = (
    "/usr/share/fonts/opentype/noto",
    "/usr/share/fonts/truetype/noto",
    "/usr/share/fonts/truetype/nanum",
    "/usr/share/fonts/truetype/unfonts-core",
    "/usr/share/fonts/opentype/ipafont-gothic",
    "/usr/share/fonts/truetype/wqy",
    "/usr/share/fonts/truetype/arphic",
)
_NAMES = ("cjk", "nanum", "unbatang", "undotum", "ipag", "wqy", "uming", "ukai")


def uncovered(text: str, font: QFont | None = None) -> str:
    """The characters of ``text`` that Qt would draw as a box in ``font`` (the application's
    by default), after its font fallback."""
    layout = QTextLayout(text, font or QFont())
    layout.beginLayout()
    line = layout.createLine()
    layout.endLayout()
    if not line.isValid():
        return ""
    fonts = [run.rawFont() for run in layout.glyphRuns()]
    return "".join(
        c
        for c in text
        if not c.isspace() and not any(f.supportsCharacter(ord(c)) for f in fonts if f.isValid())
    )


def missing_scripts(font: QFont | None = None) -> list[str]:
    """Scripts Footnote indexes whose sample text has characters no installed font draws."""
    return [name for name, sample in SAMPLES.items() if uncovered(sample, font)]


def _preference(p: Path) -> tuple[bool, bool, str]:
    """Regular sans faces first: the first font that covers a script is the one drawn."""
    name = p.name.lower()
    return ("regular" not in name, "sans" not in name, name)


def _font_files(dirs: list[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if not d.is_dir():
            continue
        for p in sorted(d.rglob("*"), key=_preference):
            if p.suffix.lower() in (".ttf", ".otf", ".ttc") and (
                d.name == "fonts" or any(n in p.name.lower() for n in _NAMES)
            ):
                out.append(p)
    return out


def ensure_script_fonts(extra_dirs: list[Path] | None = None) -> list[str]:
    """Register fallback fonts when a script Footnote indexes has no font; returns the
    scripts still missing (logged with the command that installs them)."""
    missing = missing_scripts()
    if not missing:
        return []
    dirs = [*(extra_dirs or []), resources_dir() / "fonts", *map(Path, _SYSTEM_DIRS)]
    for path in _font_files(dirs):
        if QFontDatabase.addApplicationFont(str(path)) >= 0:
            logger.info("registered %s for %s text", path.name, ", ".join(missing))
        missing = missing_scripts()
        if not missing:
            return []
    logger.warning(
        "no font draws %s text; such titles and passages show as boxes (install: %s)",
        ", ".join(missing),
        FIX,
    )
    return missing
