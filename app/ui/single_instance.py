"""One window per library: a second launch hands its PDFs to the running window and exits.

Why: a file manager's "Open with Footnote" starts a new process for every file. Two windows
on one library would fight over its write lock; handing the files over (QLocalServer /
QLocalSocket, a per-user, per-library socket name) imports them where the person already is.
The message is one line of JSON: ``{"files": [...]}``; the server answers ``ok``.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

logger = logging.getLogger(__name__)

TIMEOUT_MS = 1500


def server_name(library: Path) -> str:
    """A socket name unique to this user and library folder."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "user"
    digest = hashlib.sha1(str(Path(library).expanduser().resolve()).encode()).hexdigest()[:12]
    return f"footnote-{user}-{digest}"


def hand_over(name: str, files: list[Path]) -> bool:
    """Send ``files`` to a running Footnote; True when it took them."""
    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(TIMEOUT_MS):
        return False
    payload = json.dumps({"files": [str(Path(f).resolve()) for f in files]}) + "\n"
    sock.write(payload.encode())
    if not sock.waitForBytesWritten(TIMEOUT_MS):
        return False
    ok = sock.waitForReadyRead(TIMEOUT_MS) and bytes(sock.readAll().data()).strip() == b"ok"
    sock.disconnectFromServer()
    return ok


class InstanceServer(QObject):
    """Listens for later launches; emits the files they were given (maybe none)."""

    files_received = Signal(list)  # list[Path]

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        if self.server.listen(self.name):
            return True
        # A socket left by a crashed process: nobody answered hand_over, so take it over.
        QLocalServer.removeServer(self.name)
        ok = self.server.listen(self.name)
        if not ok:
            logger.warning("single-instance server not started: %s", self.server.errorString())
        return ok

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            buf = bytearray()

            def read(sock: QLocalSocket = sock, buf: bytearray = buf) -> None:
                buf.extend(bytes(sock.readAll().data()))
                if b"\n" in buf:
                    self._handle(bytes(buf), sock.write)
                    sock.flush()
                    sock.disconnectFromServer()

            sock.readyRead.connect(read)
            sock.disconnected.connect(sock.deleteLater)

    def _handle(self, data: bytes, reply: Callable[[bytes], object]) -> None:
        try:
            files = [Path(f) for f in json.loads(data.decode()).get("files", [])]
        except (ValueError, AttributeError):
            logger.warning("ignoring a malformed message from another launch")
            reply(b"error\n")
            return
        reply(b"ok\n")
        logger.info("another launch handed over %d file(s)", len(files))
        self.files_received.emit(files)
