"""Pack dist/Footnote into the Linux installer tarball dist/footnote-<version>-linux-x86_64.tar.gz.

Why a separate step from PyInstaller: the tarball adds what the bundle itself should not carry
(install.sh / uninstall.sh, icons and footnote.desktop.in for the desktop entry) under one
versioned top folder, so a user unpacks it and runs ./install.sh. Standard library only, so it
runs anywhere.

Usage: python packaging/make_tarball.py [--dist dist] [--bundle dist/Footnote]
"""

from __future__ import annotations

import argparse
import io
import logging
import platform
import re
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:  # its sibling desktop_entry.py, also when loaded by path
    sys.path.insert(0, str(HERE))

from desktop_entry import desktop_entry  # noqa: E402

logger = logging.getLogger(__name__)

DESKTOP_TEMPLATE = "footnote.desktop.in"  # install.sh puts the app's path in place of @APP@


def app_version() -> str:
    """``app.__version__`` read from source, so packing needs none of the app's dependencies."""
    text = (ROOT / "app" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if not match:
        raise SystemExit("cannot find __version__ in app/__init__.py")
    return match.group(1)


def tarball_name(version: str) -> str:
    arch = {"amd64": "x86_64"}.get(platform.machine().lower(), platform.machine().lower())
    return f"footnote-{version}-linux-{arch}"


def _mode(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Normalise ownership so the tarball unpacks as the user who unpacks it."""
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def build(bundle: Path, dist: Path, compresslevel: int = 6) -> Path:
    exe = bundle / "Footnote"
    if not exe.is_file():
        raise SystemExit(f"no bundle at {bundle}: run `make package` (PyInstaller) first")
    version = app_version()
    top = tarball_name(version)
    out = dist / f"{top}.tar.gz"
    dist.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    started = time.monotonic()
    with tarfile.open(tmp, "w:gz", compresslevel=compresslevel) as tar:
        tar.add(bundle, arcname=f"{top}/Footnote", filter=_mode)
        for script in ("install.sh", "uninstall.sh"):
            tar.add(HERE / "linux" / script, arcname=f"{top}/{script}", filter=_mode)
        entry = desktop_entry("@APP@").encode("utf-8")
        info = _mode(tarfile.TarInfo(f"{top}/{DESKTOP_TEMPLATE}"))
        info.size, info.mode, info.mtime = len(entry), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(entry))
        for icon in sorted((HERE / "icons").glob("footnote*.*")):
            tar.add(icon, arcname=f"{top}/icons/{icon.name}", filter=_mode)
        readme = HERE / "linux" / "README.txt"
        if readme.is_file():
            tar.add(readme, arcname=f"{top}/README.txt", filter=_mode)
    tmp.replace(out)
    logger.info(
        "wrote %s (%.0f MB) in %.0f s", out, out.stat().st_size / 1e6, time.monotonic() - started
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--bundle", type=Path, default=None)
    parser.add_argument("--compresslevel", type=int, default=6)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out = build(args.bundle or args.dist / "Footnote", args.dist, args.compresslevel)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
