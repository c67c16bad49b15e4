"""Settings dialog: chat model (the embedded default is always a choice; the llama.cpp server
named by FOOTNOTE_LLM_URL too, when set), embedder folder, answer parameters and the library
folder.

Why it returns a new ``Settings`` instead of applying itself: the main window applies changes
off the GUI thread (loading a model takes seconds) and reverts on failure.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.config import Settings
from app.core.location import parse_location
from app.core.resources import DEFAULT_CHAT_MODEL_NAME, DEFAULT_EMBEDDER_NAME
from app.generation import server_label
from app.generation.gguf_header import NotGGUFError, read_gguf
from app.generation.local_models import LocalModel, find_local_models
from app.ui.prefs import recent_models
from app.ui.theme import status_color

logger = logging.getLogger(__name__)


TOOLTIP_ROLE = 3
SERVER = "llm_url:"  # item data of the llama.cpp server entry (model items hold a path or "")

HINTS = {
    "top_k": "More passages can find more; a small model is easily confused by many.",
    "temperature": "0 gives the same wording every time; higher varies it and errs more. "
    "0–0.3 suits answers from documents.",
    "n_ctx": "How much text the model reads at once. Larger needs more memory and cannot "
    "exceed what the model was trained for.",
    "library": "Footnote opens (or starts) the library in this folder. Nothing is moved or "
    "copied: the current library stays where it is.",
    "ocr": "Pages without a text layer (scans, photos of pages) are read offline by "
    "Tesseract, about 1 to 4 seconds a page. Off: such PDFs are refused.",
}


class SettingsDialog(QDialog):
    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        local_models: list[LocalModel] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(560)
        self.base = settings

        self.model = QComboBox()
        self.model.setAccessibleName("Chat model")
        # Long model names must not widen the dialog past a small screen; the list shows them.
        self.model.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.model.setMinimumContentsLength(22)
        self.model.addItem(DEFAULT_CHAT_MODEL_NAME, "")
        seen = {""}
        for path in ([str(settings.model)] if settings.model else []) + recent_models():
            if path not in seen:
                seen.add(path)
                self.model.addItem(Path(path).name, path)
                self.model.setItemData(self.model.count() - 1, path, TOOLTIP_ROLE)
        self.local_models = find_local_models() if local_models is None else local_models
        for m in self.local_models:
            if str(m.path) not in seen:
                seen.add(str(m.path))
                self.model.addItem(f"{m.info.summary}  ({m.source})", str(m.path))
                self.model.setItemData(self.model.count() - 1, str(m.path), TOOLTIP_ROLE)
        current = str(settings.model or "")
        if settings.llm_url:  # in use whatever ``model`` says, until a pick here replaces it
            self.model.insertItem(0, server_label(settings.llm_url), SERVER)
            self.model.setItemData(0, f"{settings.llm_url} (FOOTNOTE_LLM_URL)", TOOLTIP_ROLE)
            current = SERVER
        self.model.setCurrentIndex(max(0, self.model.findData(current)))
        browse_model = QPushButton("Choose GGUF…")
        browse_model.clicked.connect(self._pick_model)
        self.model_error = QLabel("")
        self.model_error.setWordWrap(True)
        self.model_error.setStyleSheet(f"color: {status_color('RED').name()};")
        self.model_error.setVisible(False)

        self.embedder = QLineEdit(str(settings.embedder or ""))
        self.embedder.setPlaceholderText(DEFAULT_EMBEDDER_NAME)
        self.embedder.setAccessibleName("Embedding model folder")
        self.embedder.setClearButtonEnabled(True)
        browse_emb = QPushButton("Choose folder…")
        browse_emb.clicked.connect(self._pick_embedder)

        self.top_k = QSpinBox()
        self.top_k.setRange(1, 50)
        self.top_k.setValue(settings.top_k)
        self.top_k.setAccessibleName("Passages per question")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setValue(settings.temperature)
        self.temperature.setAccessibleName("Temperature")
        self.n_ctx = QSpinBox()
        self.n_ctx.setRange(512, 131072)
        self.n_ctx.setSingleStep(512)
        self.n_ctx.setValue(settings.n_ctx)
        self.n_ctx.setSuffix(" tokens")
        self.n_ctx.setAccessibleName("Context size")

        self.ocr = QCheckBox("Read scanned pages (OCR)")
        self.ocr.setChecked(settings.ocr)
        self.ocr.setAccessibleName("Read scanned pages with OCR")

        self.library = QLineEdit(str(settings.library))
        self.library.setAccessibleName("Library folder")
        self.library.setToolTip(
            "A folder, or a team library on object storage such as s3://bucket/prefix "
            "(credentials from the usual AWS_* variables or profile files)."
        )
        browse_lib = QPushButton("Choose folder…")
        browse_lib.clicked.connect(self._pick_library)

        form = QFormLayout()
        found = len(self.local_models)
        where = (
            f" {found} found on this computer {'are' if found != 1 else 'is'} listed."
            if found
            else ""
        )
        form.addRow("Chat model:", _row(self.model, browse_model))
        found_note = _note("A GGUF file. The embedded model is always available." + where)
        found_note.setToolTip(
            "Searched: LM Studio, GPT4All, Ollama, the Hugging Face cache and Footnote's "
            "model folders."
        )
        notes = QWidget()
        notes_lay = QVBoxLayout(notes)
        notes_lay.setContentsMargins(0, 0, 0, 0)
        notes_lay.setSpacing(2)
        notes_lay.addWidget(self.model_error)
        notes_lay.addWidget(found_note)
        if settings.llm_url:
            notes_lay.addWidget(
                _note(
                    f"The server at {settings.llm_url} is set by FOOTNOTE_LLM_URL. A model "
                    "chosen here replaces it until Footnote starts again."
                )
            )
        form.addRow("", notes)
        form.addRow("Embedding model:", _row(self.embedder, browse_emb))
        form.addRow(
            "",
            _note(
                "A sentence-transformers folder. Empty = the embedded model. "
                "Changing it re-opens the library. With another model no answer is marked "
                "GREEN: the statuses are calibrated for the embedded one."
            ),
        )
        form.addRow("Passages per question (top-k):", self.top_k)
        form.addRow("", _note(HINTS["top_k"]))
        form.addRow("Temperature:", self.temperature)
        form.addRow("", _note(HINTS["temperature"]))
        form.addRow("Context size:", self.n_ctx)
        form.addRow("", _note(HINTS["n_ctx"]))
        form.addRow("Library folder:", _row(self.library, browse_lib))
        form.addRow("", _note(HINTS["library"]))
        for w, key in ((self.top_k, "top_k"), (self.temperature, "temperature"),
                       (self.n_ctx, "n_ctx"), (self.library, "library")):  # fmt: skip
            w.setToolTip(HINTS[key])
        form.addRow("Scanned PDFs:", self.ocr)
        form.addRow("", _note(HINTS["ocr"]))
        self.ocr.setToolTip(HINTS["ocr"])
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)

    def showEvent(self, e: object) -> None:  # noqa: N802 - Qt override
        """Tall enough for the wrapped hints (a form layout does not grow for them itself)."""
        super().showEvent(e)  # type: ignore[arg-type]
        need = self.layout().totalHeightForWidth(self.width())
        screen = self.screen()
        limit = screen.availableGeometry().height() - 40 if screen else need
        if need > self.height():
            self.resize(self.width(), min(need, limit))

    def _pick_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose a GGUF model", "", "GGUF models (*.gguf);;All files (*)"
        )
        if path:
            self.set_model_path(path)

    def set_model_path(self, path: str) -> bool:
        """Select ``path`` if it is a readable GGUF model; else say why and keep the choice."""
        try:
            info = read_gguf(path)
        except NotGGUFError as exc:
            self.model_error.setText(f"Not used: {exc}. Choose a .gguf model file.")
            self.model_error.setVisible(True)
            return False
        self.model_error.setVisible(False)
        idx = self.model.findData(path)
        if idx < 0:
            self.model.addItem(info.summary, path)
            idx = self.model.count() - 1
            self.model.setItemData(idx, path, TOOLTIP_ROLE)
        self.model.setCurrentIndex(idx)
        return True

    def _pick_embedder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Choose an embedding model folder")
        if path:
            self.embedder.setText(path)

    def _pick_library(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, "Choose the library folder", self.library.text()
        )
        if path:
            self.library.setText(path)

    def result_settings(self) -> Settings:
        """The dialog's choices. Choosing a GGUF or the embedded model clears ``llm_url``:
        an explicit pick wins over the server."""
        choice = self.model.currentData() or None
        server = choice == SERVER
        model = str(self.base.model or "") if server else choice
        emb = self.embedder.text().strip() or None
        lib = parse_location(self.library.text().strip() or str(self.base.library))
        # A new library gets the desktop's default again (a team library opens read-only).
        read_only = self.base.read_only if lib == self.base.library else None
        return self.base.model_copy(
            update={
                "model": Path(model) if model else None,
                "llm_url": self.base.llm_url if server else None,
                "embedder": Path(emb) if emb else None,
                "top_k": self.top_k.value(),
                "temperature": round(self.temperature.value(), 2),
                "n_ctx": self.n_ctx.value(),
                "library": lib,
                "read_only": read_only,
                "ocr": self.ocr.isChecked(),
            }
        )


def _row(*widgets: QWidget) -> QWidget:
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    for i, x in enumerate(widgets):
        lay.addWidget(x, 1 if i == 0 else 0)
    return w


def _note(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("mutedLabel")
    label.setWordWrap(True)
    return label
