"""The start-up check that finds Qt's missing system libraries before Qt aborts the process."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from app.ui import qt_deps

pytestmark = pytest.mark.unit

LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxkbcommon-x11.so.0 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
"""


def test_parse_ldd_lists_each_missing_library_once() -> None:
    assert qt_deps.parse_ldd(LDD_OUTPUT) == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libxkbcommon-x11.so.0",
    ]


@pytest.mark.parametrize(
    "soname, package",
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libEGL.so.1", "libegl1"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
    ],
)
def test_debian_package_names(soname: str, package: str) -> None:
    assert qt_deps.package_for(soname) == package


def test_report_gives_the_exact_install_command() -> None:
    r = qt_deps.Report(None, ["libxcb-keysyms.so.1", "libxcb-icccm.so.4"])
    assert r.install_command() == "sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1"
    assert not r.ok


def test_which_platform_qt_will_use() -> None:
    assert qt_deps.uses_xcb({"DISPLAY": ":0"})
    assert not qt_deps.uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"})
    assert not qt_deps.uses_xcb({"WAYLAND_DISPLAY": "wayland-0"})
    assert qt_deps.uses_xcb({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_no_display_is_explained_not_aborted() -> None:
    msg = qt_deps.problem([], {"PATH": "/usr/bin"})
    assert "no graphical display" in msg and "footnote --help" in msg
    assert qt_deps.problem(["-platform", "offscreen"], {}) == ""


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd")
def test_check_reads_the_real_plugin_with_ldd() -> None:
    """On this machine the plugin is found and ldd runs; whatever it lacks is named."""
    report = qt_deps.check()
    assert report.plugin is not None and report.plugin.name == "libqxcb.so"
    assert report.error == ""
    out = subprocess.run(["ldd", str(report.plugin)], capture_output=True, text=True).stdout
    assert set(qt_deps.parse_ldd(out)) <= set(report.missing)
