"""Look and feel derived from the system palette: icons tinted to the text colour, status colours
chosen for contrast in light and dark mode, and the application style sheet.

Why: the app must follow the user's light/dark setting, so nothing is hard-coded except the
status colours (green/amber/red), which get a light and a dark variant.
"""

from __future__ import annotations

import logging
from functools import cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.core.resources import resources_dir

logger = logging.getLogger(__name__)

STATUS = {
    # level: (light-mode colour, dark-mode colour)
    "GREEN": ("#1a7f37", "#3fb950"),
    "YELLOW": ("#9a6700", "#d29922"),
    "RED": ("#cf222e", "#f85149"),
    "REFUSAL": ("#6e40c9", "#a371f7"),
    "INFO": ("#0969da", "#58a6ff"),
}


def palette() -> QPalette:
    return QGuiApplication.palette()


def is_dark() -> bool:
    return palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5


def status_color(level: str) -> QColor:
    light, dark = STATUS.get(level, STATUS["INFO"])
    return QColor(dark if is_dark() else light)


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """Blend ``a`` toward ``b`` by ``t`` (0..1)."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


def chip_colors() -> tuple[str, str]:
    """(background, foreground) of citation chips: a soft tint of the highlight colour."""
    pal = palette()
    hl = pal.color(QPalette.ColorRole.Highlight)
    base = pal.color(QPalette.ColorRole.Base)
    bg = mix(base, hl, 0.28 if is_dark() else 0.16)
    fg = mix(hl, pal.color(QPalette.ColorRole.Text), 0.15 if is_dark() else 0.35)
    if is_dark():
        fg = fg.lighter(150)
    return bg.name(), fg.name()


def muted_color() -> str:
    pal = palette()
    return mix(pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base), 0.4).name()


@cache
def _svg(name: str) -> str:
    path = resources_dir() / "icons" / f"{name}.svg"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        logger.warning("missing icon %s", path)
        return ""


_ICONS: dict[tuple[str, str], QIcon] = {}


def icon(name: str, color: QColor | str | None = None, size: int = 24) -> QIcon:
    """An SVG icon from resources/icons tinted with ``color`` (default: the text colour).

    Rendered at several sizes (and at 2x) so it stays crisp on high-DPI screens.
    """
    col = QColor(color) if color is not None else palette().color(QPalette.ColorRole.WindowText)
    key = (name, col.name())
    if key in _ICONS:
        return _ICONS[key]
    svg = _svg(name).replace("#COLOR", col.name())
    ic = QIcon()
    _ICONS[key] = ic
    if not svg:
        return ic
    renderer = QSvgRenderer(QByteArray(svg.encode()))
    for px in (16, 20, 24, 32, 48, 64, 96):
        img = QImage(px, px, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(p, QRectF(0, 0, px, px))
        p.end()
        ic.addPixmap(QPixmap.fromImage(img))
    _ = size
    return ic


def stylesheet() -> str:
    """resources/styles/app.qss with palette-derived colours filled in."""
    try:
        qss = (resources_dir() / "styles" / "app.qss").read_text(encoding="utf-8")
    except OSError:
        logger.warning("missing style sheet")
        return ""
    pal = palette()
    base = pal.color(QPalette.ColorRole.Base)
    window = pal.color(QPalette.ColorRole.Window)
    text = pal.color(QPalette.ColorRole.Text)
    hl = pal.color(QPalette.ColorRole.Highlight)
    chip_bg, chip_fg = chip_colors()
    values = {
        "@card": mix(window, base, 0.6).name() if not is_dark() else mix(window, base, 0.5).name(),
        "@border": mix(window, text, 0.18).name(),
        "@muted": muted_color(),
        "@accent": hl.name(),
        "@accentText": pal.color(QPalette.ColorRole.HighlightedText).name(),
        "@chipBg": chip_bg,
        "@chipFg": chip_fg,
        "@dropBg": mix(base, hl, 0.08).name(),
        "@question": mix(base, hl, 0.10).name(),
        "@panelHead": mix(window, text, 0.04).name(),
    }
    for key in sorted(values, key=len, reverse=True):
        qss = qss.replace(key, values[key])
    return qss
