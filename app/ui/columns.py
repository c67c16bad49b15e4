"""Which side columns the window shows: as many as fit next to the conversation, never clipped.

Why: at 800×600 three columns squeeze the conversation to a strip where text is cut mid-word.
The conversation always stays; the library (with sources) and the evidence viewer are shown
when they fit at their narrowest useful width, the one the person wanted most recently first
(clicking a chip wants the viewer; starting an import wants the library). View-menu actions
show the state and bring a hidden column back.
"""

from __future__ import annotations

import logging

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

logger = logging.getLogger(__name__)

# Narrowest useful width of each column, in pixels.
MIN_WIDTH = {"left": 230, "conversation": 340, "viewer": 340}
# The empty viewer (only a hint) is shown only on windows at least this wide.
EMPTY_VIEWER_WIDTH = 1100
HANDLE = 2


class Columns:
    """Fits the side columns ``left`` and ``viewer`` to the window's width."""

    def __init__(
        self,
        window: QWidget,
        panels: dict[str, QWidget],
        actions: dict[str, QAction],
        viewer_empty: object,  # () -> bool
    ) -> None:
        self.window = window
        self.panels = panels
        self.actions = actions
        self.viewer_empty = viewer_empty
        self.priority = ["left", "viewer"]  # most recently wanted first
        self.hidden_by_user: set[str] = set()
        self.viewer_requested = False  # an empty viewer is shown only when asked for
        for name, widget in panels.items():
            widget.setMinimumWidth(MIN_WIDTH[name])

    def want(self, name: str, on: bool) -> None:
        """Show (taking the room from the other side column if needed) or hide a column."""
        if name == "viewer":
            self.viewer_requested = on
        if on:
            self.hidden_by_user.discard(name)
            self.priority.remove(name)
            self.priority.insert(0, name)
        else:
            self.hidden_by_user.add(name)
        self.fit()

    def fit(self) -> None:
        avail = self.window.width()
        used = MIN_WIDTH["conversation"]
        for name in self.priority:
            wanted = name not in self.hidden_by_user
            if name == "viewer" and self.viewer_empty() and not self.viewer_requested:  # type: ignore[operator]
                wanted = wanted and avail >= EMPTY_VIEWER_WIDTH
            show = wanted and used + MIN_WIDTH[name] + HANDLE <= avail
            if show:
                used += MIN_WIDTH[name] + HANDLE
            widget = self.panels[name]
            if widget.isVisibleTo(widget.parentWidget()) != show:
                widget.setVisible(show)
            act = self.actions[name]
            act.blockSignals(True)
            act.setChecked(show)
            act.blockSignals(False)
