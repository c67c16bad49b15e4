"""Conversation history on disk: the completed ``Answer`` dumps, newest last, in one JSON file.

Why JSON of the contract model: the same object the CLI prints with ``--json``, so history
survives restarts and stays readable by people and tools. Lives in the library folder; for
a team library on object storage it stays per user on this desktop (it is one person's
conversation, and the desktop opens that library read-only).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from app.core.config import user_state_dir
from app.core.location import is_remote, location_key
from app.core.models import Answer

logger = logging.getLogger(__name__)

FILE_NAME = "conversation.json"
LIMIT = 200


def history_path(library: Path | str) -> Path:
    if is_remote(library):
        return user_state_dir() / "team-libraries" / location_key(library) / FILE_NAME
    return Path(library) / FILE_NAME


def load_history(library: Path | str) -> list[Answer]:
    path = history_path(library)
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data.get("answers", []) if isinstance(data, dict) else []
    except (OSError, ValueError):
        logger.exception("could not read %s; starting a fresh conversation", path)
        return []
    out: list[Answer] = []
    for item in items:
        try:
            out.append(Answer.model_validate(item))
        except ValueError:
            logger.warning("skipping an unreadable answer in %s", path)
    return out[-LIMIT:]


def save_history(library: Path | str, answers: list[Answer]) -> None:
    """Write atomically (temp file + replace) so a crash never leaves half a file."""
    path = history_path(library)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        payload = {"version": 1, "answers": [a.model_dump(mode="json") for a in answers[-LIMIT:]]}
        tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        logger.exception("could not save the conversation to %s", path)
