"""Render packaging/icons/footnote.svg into the icon files each platform's installer needs.

Why a script: Linux menus want PNGs of several sizes (plus the SVG), Windows wants a .ico and
macOS a .icns. PyInstaller can only convert icons with Pillow, which Footnote does not install,
so we render with Qt's SVG renderer (already a dependency) and write the two containers
ourselves: both formats may simply embed PNG images. The outputs are committed; re-run after
changing the SVG:  .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import logging
import os
import struct
import sys
from pathlib import Path

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
SVG = HERE / "icons" / "footnote.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)
# .icns element types that hold PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render_png(size: int) -> bytes:
    """The SVG rendered to a square PNG of ``size`` pixels, with transparency."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNGs (supported since Windows Vista)."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, blobs = b"", b""
    for s in sizes:
        data = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256 in the directory entry
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns whose elements are PNGs."""
    body = b"".join(
        kind + struct.pack(">I", 8 + len(pngs[s])) + pngs[s]
        for s, kind in ICNS_TYPES.items()
        if s in pngs
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication(sys.argv[:1])
    pngs = {s: render_png(s) for s in PNG_SIZES}
    for s in PNG_SIZES:
        (HERE / "icons" / f"footnote-{s}.png").write_bytes(pngs[s])
    (HERE / "windows").mkdir(exist_ok=True)
    (HERE / "macos").mkdir(exist_ok=True)
    (HERE / "windows" / "footnote.ico").write_bytes(ico(pngs))
    (HERE / "macos" / "footnote.icns").write_bytes(icns(pngs))
    logger.info("wrote icons for %s sizes", len(pngs))
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    raise SystemExit(main())
