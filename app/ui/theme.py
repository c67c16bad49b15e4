"""Look and feel derived from the system palette: icons tinted to the text colour, status colours
chosen for contrast in light and dark mode, and the application style sheet.

Why: the app must follow the user's light/dark setting, so nothing is hard-coded except the
status colours (green/amber/red), which get a light and a dark variant. *View → Appearance*
can also ask for light or dark whatever the system says (:func:`apply_appearance`): the
platform's colour scheme where it honours the request, else Qt's Fusion style with a light
or dark palette. Icons drawn in the text colour follow a change at once.
"""

from __future__ import annotations

import logging
from functools import cache

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QIcon,
    QIconEngine,
    QImage,
    QPainter,
    QPalette,
    QPixmap,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

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
_RENDERED: dict[tuple[str, str, int], QImage] = {}


def _render(name: str, color: str, px: int) -> QImage:
    """The SVG icon ``name`` tinted ``color`` at ``px``×``px`` (cached)."""
    key = (name, color, px)
    if key not in _RENDERED:
        img = QImage(px, px, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(Qt.GlobalColor.transparent)
        svg = _svg(name).replace("#COLOR", color)
        if svg:
            p = QPainter(img)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            QSvgRenderer(QByteArray(svg.encode())).render(p, QRectF(0, 0, px, px))
            p.end()
        _RENDERED[key] = img
    return _RENDERED[key]


class _TextColourIcon(QIconEngine):
    """An icon in the palette's current text colour, looked up when it is painted: switching
    between light and dark re-tints every such icon already on screen."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def _colour(self, mode: QIcon.Mode) -> str:
        group = (
            QPalette.ColorGroup.Disabled
            if mode == QIcon.Mode.Disabled
            else QPalette.ColorGroup.Active
        )
        return palette().color(group, QPalette.ColorRole.WindowText).name()

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        dpr = painter.device().devicePixelRatioF() if painter.device() else 1.0
        px = max(1, round(min(rect.width(), rect.height()) * dpr))
        painter.drawImage(QRectF(rect), _render(self.name, self._colour(mode), px))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        px = max(1, min(size.width(), size.height()))
        return QPixmap.fromImage(_render(self.name, self._colour(mode), px))

    def clone(self) -> QIconEngine:
        return _TextColourIcon(self.name)


def icon(name: str, color: QColor | str | None = None, size: int = 24) -> QIcon:
    """An SVG icon from resources/icons tinted with ``color`` (default: the text colour, as it
    is when the icon is painted).

    Rendered at several sizes (and at 2x) so it stays crisp on high-DPI screens.
    """
    _ = size
    if color is None:
        return QIcon(_TextColourIcon(name))
    col = QColor(color).name()
    key = (name, col)
    if key in _ICONS:
        return _ICONS[key]
    ic = QIcon()
    _ICONS[key] = ic
    if not _svg(name):
        return ic
    for px in (16, 20, 24, 32, 48, 64, 96):
        ic.addPixmap(QPixmap.fromImage(_render(name, col, px)))
    return ic


APPEARANCES = {"system": "Follow the &system", "light": "&Light", "dark": "&Dark"}

# Fusion's colours for a dark window where the platform has no dark theme to give.
DARK_COLOURS = {
    QPalette.ColorRole.Window: "#1f2328",
    QPalette.ColorRole.WindowText: "#e6edf3",
    QPalette.ColorRole.Base: "#161b22",
    QPalette.ColorRole.AlternateBase: "#1f2328",
    QPalette.ColorRole.ToolTipBase: "#2d333b",
    QPalette.ColorRole.ToolTipText: "#e6edf3",
    QPalette.ColorRole.Text: "#e6edf3",
    QPalette.ColorRole.Button: "#2d333b",
    QPalette.ColorRole.ButtonText: "#e6edf3",
    QPalette.ColorRole.Highlight: "#2f81f7",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.PlaceholderText: "#8b949e",
    QPalette.ColorRole.Link: "#58a6ff",
    QPalette.ColorRole.BrightText: "#ff7b72",
}
_DISABLED_DARK = {
    QPalette.ColorRole.WindowText: "#6e7681",
    QPalette.ColorRole.Text: "#6e7681",
    QPalette.ColorRole.ButtonText: "#6e7681",
}


def dark_palette() -> QPalette:
    pal = QPalette()
    for role, colour in DARK_COLOURS.items():
        pal.setColor(role, QColor(colour))
    for role, colour in _DISABLED_DARK.items():
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return pal


_system_style: list[str] = []  # the style the platform chose, before any appearance change


def apply_appearance(mode: str) -> None:
    """Follow the system ("system"), or show Footnote light or dark whatever it says."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    if not _system_style:
        _system_style.append(app.style().name())
    hints = QGuiApplication.styleHints()
    if app.style().name() != _system_style[0]:
        app.setStyle(_system_style[0])
    app.setPalette(QPalette())  # the platform's own again
    if mode not in ("light", "dark"):
        hints.unsetColorScheme()
    else:
        want_dark = mode == "dark"
        hints.setColorScheme(Qt.ColorScheme.Dark if want_dark else Qt.ColorScheme.Light)
        if is_dark() != want_dark:  # the platform does not honour the request: Fusion does
            app.setStyle("Fusion")
            app.setPalette(dark_palette() if want_dark else app.style().standardPalette())
    logger.info("appearance %s: %s", mode, "dark" if is_dark() else "light")
    app.setStyleSheet(stylesheet())


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
