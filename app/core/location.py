"""Where a library lives: a local folder, or a URI LanceDB understands (s3://, gs://, az://).

Why one small module: the CLI, the settings, the store and the GUI must agree on what is a
URI (never mangled by ``Path``, which turns ``s3://b/p`` into ``s3:/b/p``) and must never
print a secret that someone put into one.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# scheme://... with a scheme of two letters or more (so a Windows drive "C:\" is a path).
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")

LibraryLocation = Path | str


def is_uri(value: object) -> bool:
    """True for ``s3://bucket/prefix`` and the like; False for local paths (and file://)."""
    return isinstance(value, str) and bool(_URI.match(value)) and not value.startswith("file://")


def parse_location(value: str | Path) -> LibraryLocation:
    """A URI stays a string (trailing slash dropped); anything else becomes an expanded Path."""
    if isinstance(value, Path):
        return value.expanduser()
    text = value.strip()
    if text.startswith("file://"):
        return Path(urlsplit(text).path).expanduser()
    if is_uri(text):
        return text.rstrip("/")
    return Path(text).expanduser()


def is_remote(location: LibraryLocation) -> bool:
    return isinstance(location, str) and is_uri(location)


def redact(location: LibraryLocation) -> str:
    """The location as it may appear in logs and messages: no user info, no query string."""
    if not is_remote(location):
        return str(location)
    parts = urlsplit(str(location))
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def location_key(location: LibraryLocation) -> str:
    """A short stable name for per-user files about a library (e.g. the GUI's conversation)."""
    return hashlib.sha256(redact(parse_location(location)).encode("utf-8")).hexdigest()[:16]
