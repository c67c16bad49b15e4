"""The Debian package's pieces that need no build: its control file, its desktop entry (the
MIME types Footnote reads, from app/core/formats.py), the tree it installs, and the system files
it leaves out. The built package is checked by ``make package-test`` (packaging/package_test.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app.core import formats
from tests.packaging_modules import load

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "packaging"


make_deb = load("make_deb")
desktop_entry = load("desktop_entry")


# --- desktop entry: "Open with" for exactly what Footnote reads ---------------------------------


def test_every_supported_extension_has_mime_types_and_no_other() -> None:
    assert set(formats.MIME_TYPES) == formats.SUPPORTED_SUFFIXES
    for suffix, types in formats.MIME_TYPES.items():
        assert types, suffix
        assert all(re.fullmatch(r"[a-z]+/[a-z0-9.+-]+", t) for t in types), types


def test_desktop_entry_offers_every_mime_type_once_pdf_first() -> None:
    text = desktop_entry.desktop_entry("/usr/bin/footnote")
    entry = dict(line.split("=", 1) for line in text.splitlines()[1:])
    listed = entry["MimeType"].split(";")
    assert listed[-1] == "" and listed[0] == "application/pdf"  # the spec's trailing ;
    listed = listed[:-1]
    assert len(listed) == len(set(listed))
    every = {t for types in formats.MIME_TYPES.values() for t in types}
    assert set(listed) == every
    assert entry["Exec"] == "/usr/bin/footnote %F" and entry["TryExec"] == "/usr/bin/footnote"
    assert entry["Icon"] == "footnote" and entry["Type"] == "Application"


def test_desktop_entry_quotes_a_path_with_spaces() -> None:
    text = desktop_entry.desktop_entry("/home/a b/$x/Footnote")
    assert 'Exec="/home/a b/\\$x/Footnote" %F' in text.splitlines()


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="no desktop-file-validate")
def test_desktop_entry_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "footnote.desktop"
    path.write_text(desktop_entry.desktop_entry("/usr/bin/footnote"), encoding="utf-8")
    proc = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the control file ---------------------------------------------------------------------------


def _parse_control(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = ""
    for line in text.splitlines():
        assert line.strip(), "an empty line ends the paragraph"
        if line[0] in " \t":
            fields[key] += "\n" + line
        else:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def test_control_file_fields() -> None:
    text = make_deb.control_text(
        version="0.1.0",
        arch="amd64",
        installed_kib=812_345,
        depends=["libc6 (>= 2.36)", "libxcb-icccm4 (>= 0.4.1)"],
        suggests=make_deb.suggests(),
    )
    assert text.endswith("\n")
    f = _parse_control(text)
    assert f["Package"] == "footnote" and f["Version"] == "0.1.0"
    assert f["Architecture"] == "amd64" and f["Installed-Size"] == "812345"
    assert f["Depends"] == "libc6 (>= 2.36), libxcb-icccm4 (>= 0.4.1)"
    assert re.fullmatch(r".+ <[^<>@\s]+@[^<>\s]+>", f["Maintainer"])
    summary, *body = f["Description"].split("\n")
    assert summary and len(summary) < 80 and body
    assert all(line.startswith(" ") and len(line) <= 80 for line in body)
    # every Office converter is suggested (never pulled in), with its GUI package as alternative
    for package in formats.OFFICE_PACKAGES:
        assert f"{package} | {package.removesuffix('-nogui')}" in f["Suggests"]
    assert "Recommends" not in f


@pytest.mark.parametrize(
    ("pep440", "debian"),
    [("0.1.0", "0.1.0"), ("0.2.0rc1", "0.2.0~rc1"), ("1.0.dev3", "1.0~dev3"), ("1.2b2", "1.2~b2")],
)
def test_debian_version_sorts_pre_releases_first(pep440: str, debian: str) -> None:
    assert make_deb.deb_version(pep440) == debian


def test_deb_file_name() -> None:
    assert make_deb.deb_name("0.1.0", "amd64") == "footnote_0.1.0_amd64.deb"


def test_merged_depends_keep_one_entry_per_package_the_versioned_one() -> None:
    got = make_deb.merge_depends(
        ["libc6 (>= 2.34)", "libxcb1", "libx11-6"],
        ["tesseract-ocr-eng", "libxcb1", "libc6"],
    )
    assert got == ["libc6 (>= 2.34)", "libx11-6", "libxcb1", "tesseract-ocr-eng"]


def test_system_copies_are_only_identical_files_dpkg_owns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    internal = tmp_path / "_internal"
    (internal / "tessdata").mkdir(parents=True)
    system = tmp_path / "system"
    system.mkdir()
    (system / "libsame.so.1").write_bytes(b"\x7fELF same")
    (system / "libother.so.2").write_bytes(b"\x7fELF system build")
    (system / "eng.traineddata").write_bytes(b"eng")
    (internal / "libsame.so.1").write_bytes(b"\x7fELF same")
    (internal / "libother.so.2").write_bytes(b"\x7fELF our build")
    (internal / "libunowned.so.3").write_bytes(b"x")
    (internal / "tessdata" / "eng.traineddata").write_bytes(b"eng")
    (system / "libunowned.so.3").write_bytes(b"x")
    monkeypatch.setattr(
        make_deb,
        "_ldconfig_paths",
        lambda: {n: str(system / n) for n in ("libsame.so.1", "libother.so.2", "libunowned.so.3")},
    )
    monkeypatch.setattr(make_deb, "SYSTEM_DATA", {"tessdata": (str(system),)})
    owned = {str(system / "libsame.so.1"): "libsame1", str(system / "eng.traineddata"): "ocr-eng"}
    monkeypatch.setattr(make_deb, "dpkg_owners", lambda paths: owned)
    copies = make_deb.find_system_copies(internal)
    assert sorted((c.rel, c.package) for c in copies) == [
        ("libsame.so.1", "libsame1"),
        ("tessdata/eng.traineddata", "ocr-eng"),
    ]


def test_staged_tree_has_the_command_menu_entry_icons_and_no_left_out_file(
    tmp_path: Path,
) -> None:
    bundle = tmp_path / "Footnote"
    (bundle / "_internal" / "tessdata").mkdir(parents=True)
    (bundle / "Footnote").write_bytes(b"#!/bin/sh\n")
    (bundle / "Footnote").chmod(0o755)
    (bundle / "_internal" / "libx.so.1").write_bytes(b"x")
    (bundle / "_internal" / "libkept.so.1").write_bytes(b"k")
    (bundle / "_internal" / "link.so").symlink_to("libx.so.1")
    (bundle / "_internal" / "tessdata" / "eng.traineddata").write_bytes(b"e")
    stage = tmp_path / "stage"
    make_deb.stage_tree(bundle, stage, {"libx.so.1", "tessdata/eng.traineddata"})
    opt = stage / "opt" / "footnote"
    assert (opt / "Footnote").is_file() and (opt / "_internal" / "libkept.so.1").is_file()
    assert not (opt / "_internal" / "libx.so.1").exists()
    assert not (opt / "_internal" / "link.so").is_symlink()  # it would dangle
    assert not (opt / "_internal" / "tessdata" / "eng.traineddata").exists()
    assert (stage / "usr/bin/footnote").readlink() == Path("/opt/footnote/Footnote")
    assert "Exec=/usr/bin/footnote %F" in (
        stage / "usr/share/applications/footnote.desktop"
    ).read_text(encoding="utf-8")
    assert (stage / "usr/share/icons/hicolor/scalable/apps/footnote.svg").is_file()
    assert (stage / "usr/share/icons/hicolor/256x256/apps/footnote.png").is_file()
    assert "License: MIT" in (stage / "usr/share/doc/footnote/copyright").read_text()
    assert (opt / "Footnote").stat().st_mode & 0o777 == 0o755
    assert (opt / "_internal" / "libkept.so.1").stat().st_mode & 0o777 == 0o644
    assert make_deb.installed_kib(stage) > 0
    sums = make_deb.md5sums(stage)
    assert "  opt/footnote/Footnote\n" in sums and "usr/bin/footnote" not in sums


def test_tarball_install_script_uses_the_generated_entry() -> None:
    script = (PKG / "linux" / "install.sh").read_text(encoding="utf-8")
    assert "footnote.desktop.in" in script and "MimeType=" not in script
