"""Small dialogs: keyboard shortcuts and About."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QVBoxLayout, QWidget

from app import __version__
from app.core.resources import DEFAULT_CHAT_MODEL_NAME, DEFAULT_EMBEDDER_NAME

SHORTCUTS: list[tuple[str, str]] = [
    ("Ctrl+O", "Add documents…"),
    ("Ctrl+Shift+O", "Add folder… (once, or kept in sync)"),
    ("Ctrl+N", "New conversation (follow-up questions start afresh)"),
    ("Ctrl+,", "Settings"),
    ("Ctrl+Q", "Quit"),
    ("Enter", "Ask the question"),
    ("Shift+Enter", "New line in the question"),
    ("Esc", "Stop a running answer"),
    ("Ctrl+L", "Go to the question box"),
    ("Ctrl+F", "Filter the library"),
    ("Delete", "Remove the selected document (asks first)"),
    ("Ctrl+Shift+C", "Copy the selected answer (else the last) as Markdown"),
    ("Ctrl+Shift+E", "Export the whole conversation as Markdown or HTML"),
    ("Ctrl+1", "Show or hide the library and sources"),
    ("Ctrl+2", "Show or hide the evidence viewer"),
    ("Ctrl++ / Ctrl+-", "Zoom the PDF in / out (or Ctrl+wheel)"),
    ("Ctrl+0", "Fit the PDF to the viewer width"),
    ("F1", "This list"),
]


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = "".join(
            f"<tr><td style='padding:3px 18px 3px 0'><b>{k}</b></td><td>{v}</td></tr>"
            for k, v in SHORTCUTS
        )
        label = QLabel(f"<table>{rows}</table>")
        label.setTextFormat(Qt.TextFormat.RichText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(label)
        lay.addWidget(buttons)


def show_about(parent: QWidget) -> None:
    QMessageBox.about(
        parent,
        "About Footnote",
        f"<h3>Footnote {__version__}</h3>"
        "<p>Ask questions about your own PDFs, offline, with proven citations.</p>"
        "<p>Every quote is checked against the document before it is shown; answers "
        "that cannot be backed are refused rather than guessed.</p>"
        f"<p>Chat model: {DEFAULT_CHAT_MODEL_NAME} (or your own GGUF file)<br>"
        f"Embedding model: {DEFAULT_EMBEDDER_NAME}</p>"
        "<p>Nothing leaves this computer.</p>",
    )
