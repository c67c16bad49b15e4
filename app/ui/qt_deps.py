"""Can Qt open a window here? Find the system libraries its platform plugin needs, before Qt aborts.

Why: Qt's xcb plugin aborts the process (exit 134) when a system library such as
libxcb-icccm4 is missing, and its message blames libxcb-cursor0 whatever is really absent.
This module never imports PySide6's GUI modules: it reads ``ldd`` of the plugin file, maps the
missing sonames to Debian/Ubuntu package names, and either installs them (``--fix`` as root
with apt-get) or prints the exact command. ``make run`` calls it before starting the app, and
the app calls :func:`problem` before creating its ``QApplication``.

    python -m app.ui.qt_deps          # report; exit 1 when something is missing
    python -m app.ui.qt_deps --fix    # install with apt-get when root on Debian/Ubuntu
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

# Debian package names that do not follow the soname convention (see ``package_for``).
_PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
}
# Always needed by the xcb plugin since Qt 6.5 (loaded at run time, so ldd may not list it).
_RUNTIME_PACKAGES = {"libxcb-cursor.so.0": "libxcb-cursor0"}
_LIB_DIRS = ("/usr/lib", "/lib", "/usr/lib64", "/lib64", "/usr/local/lib")


@dataclass
class Report:
    """What the platform plugin lacks on this machine."""

    plugin: Path | None
    missing: list[str] = field(default_factory=list)  # sonames
    error: str = ""  # why the check itself could not run

    @property
    def packages(self) -> list[str]:
        return sorted({package_for(s) for s in self.missing})

    @property
    def ok(self) -> bool:
        return not self.missing and not self.error

    def install_command(self) -> str:
        return "sudo apt-get install -y " + " ".join(self.packages)


def package_for(soname: str) -> str:
    """Debian/Ubuntu package that ships ``soname``: libxcb-icccm.so.4 -> libxcb-icccm4.

    The convention: lower-case name, then the major version, with a hyphen when the name
    already ends in a digit (libxkbcommon-x11.so.0 -> libxkbcommon-x11-0).
    """
    if soname in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[soname]
    if soname in _RUNTIME_PACKAGES:
        return _RUNTIME_PACKAGES[soname]
    m = re.match(r"^(lib[\w.+-]+?)\.so\.(\d+)", soname)
    if not m:
        return soname
    name, major = m.group(1).lower(), m.group(2)
    return f"{name}-{major}" if name[-1].isdigit() else f"{name}{major}"


def xcb_plugin() -> Path | None:
    """The xcb platform plugin inside the installed PySide6 (without importing Qt)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        for rel in ("Qt/plugins/platforms/libqxcb.so", "plugins/platforms/libqxcb.so"):
            p = Path(base) / rel
            if p.is_file():
                return p
    return None


def parse_ldd(output: str) -> list[str]:
    """Sonames that ``ldd`` reports as ``not found``."""
    found = []
    for line in output.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+not found", line)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


def _has_lib(soname: str) -> bool:
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    try:
        out = subprocess.run(
            [ldconfig, "-p"], capture_output=True, text=True, timeout=20, check=False
        ).stdout
        if soname in out:
            return True
    except OSError:
        pass
    return any(
        any(Path(d).glob(soname)) or any(Path(d).glob(f"*/{soname}"))
        for d in _LIB_DIRS
        if Path(d).is_dir()
    )


def check(plugin: Path | None = None) -> Report:
    """Missing system libraries of the xcb plugin (empty on a desktop that can run Qt)."""
    plugin = plugin or xcb_plugin()
    if plugin is None:
        return Report(None, error="PySide6's xcb platform plugin was not found.")
    ldd = shutil.which("ldd")
    if ldd is None:
        return Report(plugin, error="ldd is not available to check the plugin.")
    try:
        proc = subprocess.run(
            [ldd, str(plugin)], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Report(plugin, error=f"ldd failed: {exc}")
    missing = parse_ldd(proc.stdout + proc.stderr)
    for soname in _RUNTIME_PACKAGES:
        if soname not in missing and not _has_lib(soname):
            missing.append(soname)
    return Report(plugin, missing)


def uses_xcb(env: dict[str, str] | None = None) -> bool:
    """Whether Qt will pick the xcb plugin (not offscreen, wayland, ...)."""
    env = dict(os.environ) if env is None else env
    platform = env.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if platform:
        return platform == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def problem(argv: list[str] | None = None, env: dict[str, str] | None = None) -> str:
    """A message for the person when Qt cannot open a window here, else "" (Linux only)."""
    env = dict(os.environ) if env is None else env
    argv = argv or []
    if not sys.platform.startswith("linux"):
        return ""
    if any(a.startswith("-platform") for a in argv):
        return ""
    if not uses_xcb(env):
        return ""
    if not env.get("DISPLAY"):
        return (
            "Footnote cannot open its window: no graphical display was found (DISPLAY is not "
            "set). Start it from a desktop session, or use the command line: footnote --help."
        )
    report = check()
    if report.error or not report.missing:
        return ""
    return (
        "Footnote cannot open its window: Qt needs system libraries that are not installed "
        f"({', '.join(report.missing)}).\nInstall them with:\n\n    {report.install_command()}\n"
    )


def _is_debian() -> bool:
    return Path("/etc/debian_version").is_file() and shutil.which("apt-get") is not None


def fix(report: Report) -> bool:
    """Install the missing packages with apt-get (root on Debian/Ubuntu only)."""
    if not report.missing or not _is_debian() or os.geteuid() != 0:
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print("Installing Qt's system libraries:", " ".join(report.packages), flush=True)
    cmds = [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *report.packages],
    ]
    return all(subprocess.run(cmd, env=env, check=False).returncode == 0 for cmd in cmds)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.ui.qt_deps", description=__doc__.split("\n")[0])
    p.add_argument("--fix", action="store_true", help="install missing packages (root, apt-get)")
    args = p.parse_args(argv)
    if not sys.platform.startswith("linux"):
        return 0
    report = check()
    if report.error:
        print(f"Could not check Qt's system libraries: {report.error}", file=sys.stderr)
        return 0
    if report.ok:
        return 0
    if args.fix and fix(report):
        report = check()
        if report.ok:
            print("Qt's system libraries are installed.")
            return 0
    print(
        "The desktop window needs system libraries that are missing: "
        f"{', '.join(report.missing)}.\nInstall them with:\n\n    {report.install_command()}\n",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
