"""The Linux installer: install.sh / uninstall.sh from the versioned tarball, in a temp HOME.

Two cases share one check:
- the real tarball from ``make package`` (dist/footnote-<version>-linux-x86_64.tar.gz), whose
  installed binary must answer ``docs --json`` with no network and an empty environment;
  skipped when no tarball has been built;
- a tarball packed by the real ``make_tarball.py`` around a tiny stand-in executable, so the
  install/uninstall scripts are checked on every test run, in seconds.
Both install into a temp HOME, check the files, the desktop entry and the icon, run the
installed command, uninstall, and require that nothing is left behind.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.packaging_modules import load

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"


make_tarball = load("make_tarball")
package_test = load("package_test")


def _real_tarball() -> Path | None:
    name = make_tarball.tarball_name(make_tarball.app_version())
    path = DIST / f"{name}.tar.gz"
    return path if path.is_file() else None


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _env(home: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def install_check_uninstall(tarball: Path, tmp_path: Path, *, timeout: float) -> dict[str, object]:
    """Install ``tarball`` into a temp HOME, check it, run ``docs --json``, uninstall.

    Returns the parsed ``docs --json`` output of the installed command.
    """
    unpack, home = tmp_path / "unpack", tmp_path / "home"
    unpack.mkdir(parents=True)
    home.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        tar.extractall(unpack, filter="tar")
    (top,) = list(unpack.iterdir())
    assert top.name == tarball.name.removesuffix(".tar.gz")
    for f in ("install.sh", "uninstall.sh", "Footnote/Footnote", "icons/footnote.svg"):
        assert (top / f).is_file(), f"{f} missing from the tarball"
    before = _tree(home)

    proc = subprocess.run(
        ["sh", str(top / "install.sh")],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    app_dir = home / ".local/share/footnote"
    exe = app_dir / "Footnote"
    assert os.access(exe, os.X_OK)
    assert (app_dir / "uninstall.sh").is_file()
    link = home / ".local/bin/footnote"
    assert link.is_symlink() and link.resolve() == exe.resolve()
    assert (home / ".local/share/icons/hicolor/scalable/apps/footnote.svg").is_file()
    assert (home / ".local/share/icons/hicolor/256x256/apps/footnote.png").is_file()

    desktop = home / ".local/share/applications/footnote.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(desktop, encoding="utf-8")
    d = entry["Desktop Entry"]
    assert d["Type"] == "Application" and d["Name"] == "Footnote" and d["Icon"] == "footnote"
    assert d["Exec"] == f'"{exe}" %F'
    assert "application/pdf" in d["MimeType"].split(";")
    # "Open with Footnote" on the other documents it reads too (app/core/formats.py).
    assert {
        "application/epub+zip",
        "text/markdown",
        "application/vnd.oasis.opendocument.text",
    } <= set(d["MimeType"].split(";"))
    validator = shutil.which("desktop-file-validate")
    if validator:
        check = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr

    # The installed command, from the symlink, in an empty environment and without network.
    cmd = [*package_test.network_isolation_prefix(), str(link), "docs", "--json"]
    cmd += ["--library", str(home / "lib")]
    run = subprocess.run(cmd, env=_env(home), capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr
    docs = json.loads(run.stdout)

    # Re-running the installer upgrades in place.
    again = subprocess.run(
        ["sh", str(top / "install.sh")],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert again.returncode == 0, again.stderr
    assert "Upgrading" in again.stdout

    out = subprocess.run(
        [str(app_dir / "uninstall.sh"), "--purge"], env=_env(home), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    shutil.rmtree(home / "lib", ignore_errors=True)  # the library we asked for, outside XDG dirs
    assert _tree(home) - before == set(), f"left behind: {sorted(_tree(home) - before)}"
    return docs


@pytest.mark.integration
@pytest.mark.slow
def test_real_tarball_installs_runs_offline_and_uninstalls(tmp_path: Path) -> None:
    tarball = _real_tarball()
    if tarball is None:
        pytest.skip("no installer tarball in dist/: build it with `make package` (several minutes)")
    docs = install_check_uninstall(tarball, tmp_path, timeout=600)
    assert docs == {"documents": []}


FAKE_APP = """#!/bin/sh
# Stand-in for the bundle's executable: answers `docs --json` like the real one on an empty library.
if [ "$1" = docs ]; then echo '{"documents": []}'; exit 0; fi
exit 2
"""


@pytest.mark.integration
def test_installer_scripts_with_a_small_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "build" / "Footnote"
    (bundle / "models").mkdir(parents=True)
    (bundle / "Footnote").write_text(FAKE_APP)
    (bundle / "Footnote").chmod(0o755)
    (bundle / "models" / "weights.bin").write_bytes(os.urandom(1024))
    tarball = make_tarball.build(bundle, tmp_path / "dist", compresslevel=1)
    assert tarball.name == f"{make_tarball.tarball_name(make_tarball.app_version())}.tar.gz"
    docs = install_check_uninstall(tarball, tmp_path / "run", timeout=60)
    assert docs == {"documents": []}


@pytest.mark.integration
def test_installer_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    bundle = tmp_path / "Footnote"
    bundle.mkdir()
    (bundle / "Footnote").write_text(FAKE_APP)
    (bundle / "Footnote").chmod(0o755)
    tarball = make_tarball.build(bundle, tmp_path / "dist", compresslevel=1)
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "unpack", filter="tar")
    (top,) = list((tmp_path / "unpack").iterdir())
    home = tmp_path / "home"
    precious = home / "elsewhere" / "keep.txt"
    precious.parent.mkdir(parents=True)
    precious.write_text("mine")
    env = {**_env(home), "PREFIX": str(precious.parent)}
    proc = subprocess.run(["sh", str(top / "install.sh")], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "was not made by this installer" in proc.stderr
    assert precious.read_text() == "mine"
