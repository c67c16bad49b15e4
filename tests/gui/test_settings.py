"""Settings persist through QSettings; every menu shortcut is listed in the help dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel

from app.generation import RemoteChatModel
from app.ui.dialogs import SHORTCUTS
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings, save_settings
from app.ui.settings_dialog import SettingsDialog
from tests.gguf_factory import llama_meta, write_gguf

pytestmark = pytest.mark.gui


def test_settings_dialog_round_trip_through_qsettings(qtbot, tmp_path: Path) -> None:
    base = load_settings()
    assert base.model is None and base.top_k == 8
    dlg = SettingsDialog(base)
    qtbot.addWidget(dlg)
    assert dlg.model.itemText(0).startswith("SmolLM2"), "the embedded model is always a choice"
    model = write_gguf(tmp_path / "other.gguf", llama_meta("Other model"))
    assert dlg.set_model_path(str(model))
    dlg.top_k.setValue(5)
    dlg.temperature.setValue(0.3)
    dlg.n_ctx.setValue(2048)
    new = dlg.result_settings()
    assert (new.model, new.top_k, new.temperature, new.n_ctx) == (model, 5, 0.3, 2048)
    save_settings(new)
    again = load_settings()
    assert (again.model, again.top_k, again.temperature, again.n_ctx) == (model, 5, 0.3, 2048)
    assert load_settings(library=tmp_path / "cli-lib").library == tmp_path / "cli-lib"


def test_every_menu_shortcut_is_documented(qtbot) -> None:
    win = MainWindow(load_settings())  # not started: no services needed to inspect menus
    qtbot.addWidget(win)
    listed = {k for k, _ in SHORTCUTS}
    menus = [a.menu() for a in win.menuBar().actions() if a.menu() is not None]
    assert len(menus) == 4  # File, View, Edit, Help
    for menu in menus:
        for act in menu.actions():
            key = act.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
            if key:
                assert key in listed, f"{act.text()} ({key}) missing from Help > Keyboard shortcuts"


def test_ocr_can_be_turned_off_and_stays_off(qtbot) -> None:
    base = load_settings()
    assert base.ocr is True  # on by default: scanned PDFs just work
    dlg = SettingsDialog(base)
    qtbot.addWidget(dlg)
    assert dlg.ocr.isChecked()
    dlg.ocr.setChecked(False)
    new = dlg.result_settings()
    assert new.ocr is False
    save_settings(new)
    assert load_settings().ocr is False


def test_the_configured_server_is_the_current_choice_until_a_model_is_picked(
    qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOOTNOTE_LLM_URL", "http://127.0.0.1:9")
    base = load_settings()
    dlg = SettingsDialog(base, local_models=[])
    qtbot.addWidget(dlg)
    assert dlg.model.currentText() == "llama.cpp server at http://127.0.0.1:9"
    assert dlg.result_settings().llm_url == "http://127.0.0.1:9"
    # the whole URL is readable in a wrapped note, not only in a combo box a narrow dialog cuts
    notes = [w.text() for w in dlg.findChildren(QLabel) if w.wordWrap()]
    assert any("The server at http://127.0.0.1:9 is set by FOOTNOTE_LLM_URL" in t for t in notes)
    # a pasted ".../v1" reads as the status bar and the answers name the server
    v1 = SettingsDialog(base.model_copy(update={"llm_url": "http://127.0.0.1:9/v1"}))
    qtbot.addWidget(v1)
    assert v1.model.currentText() == RemoteChatModel("http://127.0.0.1:9/v1").name
    assert v1.model.currentText() == "llama.cpp server at http://127.0.0.1:9"
    dlg.model.setCurrentIndex(dlg.model.findData(""))  # the embedded model, picked
    new = dlg.result_settings()
    assert (new.model, new.llm_url) == (None, None)
    save_settings(new)
    assert load_settings().llm_url == "http://127.0.0.1:9", "never saved: the variable decides"
