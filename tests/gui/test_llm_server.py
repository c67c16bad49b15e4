"""FOOTNOTE_LLM_URL in the desktop app: the window answers through the configured llama.cpp
server, says so, and a GGUF picked in Settings replaces it.

The server is a real ``llama_cpp.server`` on a local port (tests/llama_server.py); its access
log shows whether an answer went through it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.core.resources import default_chat_model_path
from app.ui.main_window import MainWindow
from app.ui.prefs import load_settings
from app.ui.settings_dialog import SettingsDialog
from tests.gui.conftest import drop_files, wait_ingested, wait_ready
from tests.llama_server import LlamaServer, free_port
from tests.pdf_factory import MANUAL_FACTS

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def served_window(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, llama_server: LlamaServer
) -> Iterator[MainWindow]:
    """The real window, started with FOOTNOTE_LLM_URL pointing at the test server."""
    monkeypatch.setenv("FOOTNOTE_LLM_URL", llama_server.url)
    yield request.getfixturevalue("window")


def _server_name(server: LlamaServer) -> str:
    return f"llama.cpp server at {server.url}"


def test_desktop_answers_through_the_configured_server(
    qtbot, served_window: MainWindow, llama_server: LlamaServer, gui_pdfs: dict[str, Path]
) -> None:
    win = served_window
    assert win.session.settings.llm_url == llama_server.url
    drop_files(win, [gui_pdfs["manual"]])
    wait_ingested(qtbot, win)
    wait_ready(qtbot, win, 1)
    assert win.model_label.text() == f"Model: {_server_name(llama_server)}"
    assert win.session.model_name == _server_name(llama_server)

    before = llama_server.chat_requests()
    box = win.conversation.input
    box.setPlainText(MANUAL_FACTS["filter"].question)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    card = win.conversation.active
    assert card is not None
    qtbot.waitUntil(lambda: not win.conversation.running, timeout=180_000)
    assert card.state == "complete", card.status.text()
    answer = card.answer
    assert answer is not None
    assert answer.model == _server_name(llama_server)
    assert llama_server.chat_requests() > before, "the answer was written by the server"


def test_a_gguf_picked_in_settings_replaces_the_server(
    qtbot, served_window: MainWindow, llama_server: LlamaServer
) -> None:
    win = served_window
    qtbot.waitUntil(lambda: win.session.model_loaded, timeout=120_000)
    dlg = SettingsDialog(win.session.settings, win, local_models=[])
    qtbot.addWidget(dlg)
    assert dlg.model.currentText() == _server_name(llama_server), "the dialog shows the server"
    assert dlg.result_settings().llm_url == llama_server.url, "OK without a change keeps it"

    gguf = default_chat_model_path()
    assert dlg.set_model_path(str(gguf))
    new = dlg.result_settings()
    assert (new.model, new.llm_url) == (gguf, None), "an explicit pick wins over the server"
    with qtbot.waitSignal(
        win.session.model_state, timeout=120_000, check_params_cb=lambda _text, busy: not busy
    ):
        win.apply_settings(new)
    assert win.session.settings.llm_url is None
    assert win.model_label.text() == f"Model: {gguf.name}"
    assert load_settings().llm_url == llama_server.url, "the variable applies again next start"


def test_an_unreachable_server_is_reported_at_start(
    qtbot, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Nothing listens at FOOTNOTE_LLM_URL: the window says so when it starts, not at the
    first answer, and names the server."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("FOOTNOTE_LLM_URL", url)
    win: MainWindow = request.getfixturevalue("window")
    qtbot.waitUntil(lambda: any("Cannot reach" in t for t in win.messages.texts()), timeout=60_000)
    text = next(t for t in win.messages.texts() if "Cannot reach" in t)
    assert text.startswith("The model could not be loaded. ")  # there was none to keep
    assert f"llama.cpp server at {url}" in text
    assert win.model_label.text() == "Model: none loaded"
