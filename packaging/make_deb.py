"""Build the Debian package dist/footnote_<version>_<arch>.deb from the bundle (``make package``).

Why a .deb beside the tarball: on Debian and Ubuntu a user expects the package manager to
install, list and remove the app, the application menu to show it and "Open with" to offer it
for the documents it reads. The package installs

    /opt/footnote/                          the bundle (dist/Footnote), see "left out" below
    /usr/bin/footnote                       -> /opt/footnote/Footnote (window, or the CLI)
    /usr/share/applications/footnote.desktop  menu entry, "Open with" (desktop_entry.py)
    /usr/share/icons/hicolor/*/apps/footnote.{png,svg}
    /usr/share/doc/footnote/copyright

and no maintainer scripts: the triggers of desktop-file-utils, shared-mime-info and
hicolor-icon-theme refresh the menu, MIME and icon caches when files appear there.

Left out of /opt/footnote, and depended on instead: every file of the bundle that is a
byte-identical copy of a file an installed Debian package ships (the system libraries
PyInstaller copied from the build machine: libxcb-*, libstdc++, OpenSSL, ...; the OCR language
data from tesseract-ocr-eng/-deu). The bundle was built and tested with exactly those files,
the system then keeps them patched, and the package is smaller. The tarball keeps them all,
for distributions without those packages.

Depends: dpkg-shlibdeps reads every ELF file of the package and names the package of each
system library they link to, with the minimum version their symbols need; plus the owners of
the left-out data files. Nothing is downloaded: dpkg-deb, dpkg-shlibdeps (dpkg-dev) and
dpkg-query only read this machine. Standard library otherwise.

Usage: python packaging/make_deb.py [--dist dist] [--bundle dist/Footnote] [--level 6]
Maintainer: $DEBFULLNAME <$DEBEMAIL> when set (Debian's convention).
"""

from __future__ import annotations

import argparse
import filecmp
import glob
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from desktop_entry import desktop_entry, formats_module  # noqa: E402
from elf_files import elf_files  # noqa: E402
from make_tarball import app_version  # noqa: E402

logger = logging.getLogger(__name__)

ROOT = HERE.parent
PACKAGE = "footnote"
PREFIX = "/opt/footnote"
COMMAND = "/usr/bin/footnote"
DEFAULT_MAINTAINER = "Footnote developers <footnote@localhost>"
SECTION = "text"
SUMMARY = "ask questions about your own PDFs, offline, with proven citations"
DESCRIPTION = """\
Footnote reads your PDFs (and EPUB, XPS, FB2, MOBI, CBZ, text and Markdown;
Office documents through LibreOffice) and answers questions about them with
a local language model. Every claim in an answer carries a numbered
citation; hovering shows the exact quote, clicking opens the page with that
span highlighted. A quote that does not occur in its source is dropped or
repaired, and Footnote refuses rather than present an unsupported answer as
grounded.
.
Nothing leaves the machine: the chat model (SmolLM2-135M-Instruct, GGUF),
the embedding model (all-MiniLM-L6-v2) and the OCR engine are in the
package; no network connection is ever opened.
.
The same command is the desktop app (footnote) and the command line
(footnote ingest FILE..., footnote ask QUESTION, footnote --help)."""
# Bundle data that Debian packages ship too: bundle folder -> where those packages put it.
SYSTEM_DATA = {"tessdata": ("/usr/share/tesseract-ocr/*/tessdata",)}
# Optional: Office documents (LibreOffice without its GUI) and a font for CJK titles.
SUGGESTS_EXTRA = ("fonts-noto-cjk",)


# --- versions and fields --------------------------------------------------------------------


def deb_version(version: str) -> str:
    """A Debian version from the app's PEP 440 one: pre-releases sort before the release
    (``0.2.0rc1`` -> ``0.2.0~rc1``, ``0.2.0.dev3`` -> ``0.2.0~dev3``)."""
    m = re.fullmatch(
        r"(\d+(?:\.\d+)*)(?:[.-]?(a|b|rc|alpha|beta|dev)\.?(\d*))?(\+[\w.]+)?", version
    )
    if not m:
        raise ValueError(f"cannot turn version {version!r} into a Debian version")
    base, pre, num, local = m.groups()
    out = base + (f"~{pre}{num}" if pre else "")
    return out + (local or "")


def deb_arch() -> str:
    try:
        out = subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        import platform

        return {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def deb_name(version: str, arch: str) -> str:
    return f"{PACKAGE}_{deb_version(version)}_{arch}.deb"


def maintainer() -> str:
    name, mail = os.environ.get("DEBFULLNAME"), os.environ.get("DEBEMAIL")
    return f"{name} <{mail}>" if name and mail else DEFAULT_MAINTAINER


def suggests() -> list[str]:
    """LibreOffice's converters (Office documents) and a CJK font: optional, never pulled in."""
    office = formats_module().OFFICE_PACKAGES
    return [f"{p} | {p.removesuffix('-nogui')}" for p in office] + list(SUGGESTS_EXTRA)


def merge_depends(*groups: Iterable[str]) -> list[str]:
    """One entry per package, sorted; of two entries for a package the one with a version wins
    (dpkg-shlibdeps already gives the highest minimum it needs)."""
    by_name: dict[str, str] = {}
    for group in groups:
        for dep in group:
            dep = dep.strip()
            if not dep:
                continue
            name = re.split(r"[\s(|]", dep, maxsplit=1)[0]
            if name not in by_name or ("(" in dep and "(" not in by_name[name]):
                by_name[name] = dep
    return [by_name[n] for n in sorted(by_name)]


def control_text(
    *,
    version: str,
    arch: str,
    installed_kib: int,
    depends: Sequence[str],
    suggests: Sequence[str] = (),
    maintainer: str = DEFAULT_MAINTAINER,
) -> str:
    """DEBIAN/control (deb-control(5)); the long description's lines are indented one space."""
    fields = [
        ("Package", PACKAGE),
        ("Version", deb_version(version)),
        ("Architecture", arch),
        ("Maintainer", maintainer),
        ("Installed-Size", str(installed_kib)),
        ("Depends", ", ".join(depends)),
        ("Suggests", ", ".join(suggests)),
        ("Section", SECTION),
        ("Priority", "optional"),
        ("Description", SUMMARY),
    ]
    lines = [f"{k}: {v}" for k, v in fields if v]
    lines += [f" {line}" for line in DESCRIPTION.splitlines()]
    return "\n".join(lines) + "\n"


def copyright_text() -> str:
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: Footnote\n"
        "Comment: /opt/footnote/_internal holds third-party components (Python, Qt, PyTorch,\n"
        " LanceDB, PyMuPDF, llama.cpp, the models, ...), each under its own licence; the\n"
        " *.dist-info folders there carry the Python packages' licence texts.\n"
        "\n"
        "Files: *\n"
        "Copyright: the Footnote developers\n"
        "License: MIT\n"
        "\n"
        "Files: opt/footnote/_internal/resources/lexicon/*\n"
        "Copyright: 1995-2022 Frank Richter, 2020-2022 Einhard Leichtfuß (German lists);\n"
        " 2000-2022 FreeDict contributors (French lists)\n"
        "License: GPL-3+ (German lists), GPL-2+ (French lists)\n"
        "Comment: word lists cut from the FreeDict dictionaries; see LICENSE beside them.\n"
        " On Debian systems, the full licence texts are in /usr/share/common-licenses/.\n"
    )


# --- what Debian already ships ---------------------------------------------------------------


@dataclass(frozen=True)
class SystemCopy:
    """A bundle file identical to ``system`` of installed Debian package ``package``."""

    rel: str  # path inside the bundle's _internal/
    system: str
    package: str
    size: int


def _ldconfig_paths() -> dict[str, str]:
    """soname -> path of the native-architecture libraries the dynamic linker knows."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = ""
    paths: dict[str, str] = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m and ("x86-64" in m.group(2) or "64bit" in m.group(2) or "," not in m.group(2)):
            paths.setdefault(m.group(1), m.group(3))
    return paths


def _usr_variants(path: str) -> list[str]:
    """A file and its name on the other side of the merged /usr (dpkg knows one of them)."""
    out = [path, os.path.realpath(path)]
    for p in list(out):
        if p.startswith("/usr/lib/") or p.startswith("/usr/bin/"):
            out.append(p.removeprefix("/usr"))
        elif p.startswith(("/lib/", "/bin/", "/lib64/")):
            out.append("/usr" + p)
    return list(dict.fromkeys(out))


def dpkg_owners(paths: Iterable[str]) -> dict[str, str]:
    """path -> owning package, for the paths dpkg knows (one dpkg-query call)."""
    paths = list(dict.fromkeys(paths))
    if not paths:
        return {}
    proc = subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True, check=False)
    owners: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("diversion ") or ": " not in line:
            continue
        pkgs, path = line.split(": ", 1)
        owners[path.strip()] = pkgs.split(",")[0].strip().split(":")[0]
    return owners


def find_system_copies(internal: Path) -> list[SystemCopy]:
    """Files of the bundle that an installed Debian package ships byte for byte: shared
    libraries at the top of ``_internal/`` (where PyInstaller puts the system's) and the data
    of :data:`SYSTEM_DATA`."""
    candidates: list[tuple[Path, str]] = []
    ld = _ldconfig_paths()
    for f in sorted(internal.iterdir()):
        if f.is_file() and not f.is_symlink() and f.name in ld:
            candidates.append((f, ld[f.name]))
    for folder, patterns in SYSTEM_DATA.items():
        for f in sorted((internal / folder).glob("*")) if (internal / folder).is_dir() else []:
            for pattern in patterns:
                for system in sorted(glob.glob(os.path.join(pattern, f.name))):
                    candidates.append((f, system))
    same = [
        (f, s)
        for f, s in candidates
        if os.path.isfile(s) and filecmp.cmp(f, os.path.realpath(s), shallow=False)
    ]
    owners = dpkg_owners(v for _, s in same for v in _usr_variants(s))
    copies: dict[str, SystemCopy] = {}
    for f, s in same:
        package = next((owners[v] for v in _usr_variants(s) if v in owners), None)
        rel = f.relative_to(internal).as_posix()
        if package and rel not in copies:
            copies[rel] = SystemCopy(rel, s, package, f.stat().st_size)
    return list(copies.values())


def shlib_depends(root: Path, files: Sequence[Path]) -> list[str]:
    """dpkg-shlibdeps' Depends for ``files`` (libraries inside ``root`` count as private)."""
    if not shutil.which("dpkg-shlibdeps"):
        raise SystemExit("make_deb.py needs dpkg-shlibdeps: apt-get install dpkg-dev")
    private = sorted({str(f.parent) for f in root.rglob("*.so*") if f.is_file()})
    with tempfile.TemporaryDirectory(prefix="footnote-shlibdeps-") as tmp:
        (Path(tmp) / "debian").mkdir()
        (Path(tmp) / "debian" / "control").write_text(
            f"Source: {PACKAGE}\n\nPackage: {PACKAGE}\nArchitecture: any\n", encoding="utf-8"
        )
        cmd = ["dpkg-shlibdeps", "-O", "--ignore-missing-info", "--warnings=0"]
        cmd += [f"-l{d}" for d in private] + [f"-e{f}" for f in files]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "warning:" not in line]
        raise SystemExit("dpkg-shlibdeps failed:\n" + "\n".join(errors[-40:]))
    m = re.search(r"^shlibs:Depends=(.*)$", proc.stdout, re.MULTILINE)
    return [d.strip() for d in m.group(1).split(",")] if m else []


# --- the package tree ------------------------------------------------------------------------


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def stage_tree(bundle: Path, stage: Path, leave_out: set[str]) -> None:
    """The package's files under ``stage`` (hard links to the bundle where possible)."""
    if stage.exists():
        shutil.rmtree(stage)
    opt = stage / PREFIX.lstrip("/")
    internal = bundle / "_internal"

    def ignore(folder: str, names: list[str]) -> set[str]:
        here = Path(folder)
        if here != internal and internal not in here.parents:
            return set()
        rel = here.relative_to(internal)
        return {n for n in names if (rel / n).as_posix() in leave_out}

    shutil.copytree(bundle, opt, symlinks=True, ignore=ignore, copy_function=_link_or_copy)
    for link in opt.rglob("*"):  # links to a left-out file would dangle
        if link.is_symlink() and not link.exists():
            link.unlink()

    bindir = stage / COMMAND.lstrip("/")
    bindir.parent.mkdir(parents=True)
    bindir.symlink_to(f"{PREFIX}/Footnote")  # another top-level folder: absolute (Policy 10.5)

    share = stage / "usr" / "share"
    (share / "applications").mkdir(parents=True)
    (share / "applications" / "footnote.desktop").write_text(
        desktop_entry(COMMAND), encoding="utf-8"
    )
    icons = HERE / "icons"
    for png in sorted(icons.glob("footnote-*.png")):
        size = png.stem.removeprefix("footnote-")
        dest = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "footnote.png"
        dest.parent.mkdir(parents=True)
        shutil.copy2(png, dest)
    svg = share / "icons" / "hicolor" / "scalable" / "apps" / "footnote.svg"
    svg.parent.mkdir(parents=True)
    shutil.copy2(icons / "footnote.svg", svg)
    doc = share / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(copyright_text(), encoding="utf-8")

    for path in [stage, *stage.rglob("*")]:  # dpkg wants 0755 folders, 0644/0755 files
        if path.is_symlink():
            continue
        mode = path.stat().st_mode & 0o777
        want = 0o755 if path.is_dir() or mode & 0o111 else 0o644
        if mode != want:
            path.chmod(want)


def installed_kib(stage: Path) -> int:
    """Installed-Size as dpkg-gencontrol counts it: KiB per file (rounded up), 1 per link/folder."""
    total = 0
    for path in stage.rglob("*"):
        if path.relative_to(stage).parts[0] == "DEBIAN":
            continue
        total += 1 if path.is_symlink() or path.is_dir() else -(-path.stat().st_size // 1024)
    return total


def md5sums(stage: Path) -> str:
    lines = []
    for path in sorted(stage.rglob("*")):
        rel = path.relative_to(stage)
        if rel.parts[0] == "DEBIAN" or path.is_symlink() or not path.is_file():
            continue
        digest = hashlib.md5(usedforsecurity=False)
        with open(path, "rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):
                digest.update(block)
        lines.append(f"{digest.hexdigest()}  {rel.as_posix()}")
    return "\n".join(lines) + "\n"


def build(bundle: Path, dist: Path, *, level: int = 6, work: Path | None = None) -> Path:
    exe = bundle / "Footnote"
    if not exe.is_file():
        raise SystemExit(f"no bundle at {bundle}: run `make package` (PyInstaller) first")
    for tool in ("dpkg-deb", "dpkg-query"):
        if not shutil.which(tool):
            raise SystemExit(f"make_deb.py needs {tool} (Debian's dpkg)")
    started = time.monotonic()
    version, arch = app_version(), deb_arch()
    stage = (work or ROOT / "build" / "deb") / f"{PACKAGE}_{deb_version(version)}_{arch}"

    copies = find_system_copies(bundle / "_internal")
    for c in copies:
        logger.info("left out %-40s %8.1f KiB = %s (%s)", c.rel, c.size / 1024, c.system, c.package)
    logger.info(
        "left out %d files the system's packages ship: %.1f MiB",
        len(copies),
        sum(c.size for c in copies) / 2**20,
    )
    stage_tree(bundle, stage, {c.rel for c in copies})

    opt = stage / PREFIX.lstrip("/")
    debian = stage / "DEBIAN"  # dpkg-shlibdeps finds the package root (for $ORIGIN) by it
    debian.mkdir(mode=0o755)
    elves = list(elf_files(opt))
    depends = merge_depends(shlib_depends(opt, elves), (c.package for c in copies))
    control = control_text(
        version=version,
        arch=arch,
        installed_kib=installed_kib(stage),
        depends=depends,
        suggests=suggests(),
        maintainer=maintainer(),
    )
    (debian / "control").write_text(control, encoding="utf-8")
    (debian / "md5sums").write_text(md5sums(stage), encoding="utf-8")
    for f in debian.iterdir():
        f.chmod(0o644)
    logger.info("%s", control)

    dist.mkdir(parents=True, exist_ok=True)
    out = dist / deb_name(version, arch)
    tmp = out.with_name(out.name + ".partial")
    cmd = ["dpkg-deb", "--root-owner-group", "-Zxz", f"-z{level}", "--build", str(stage), str(tmp)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    tmp.replace(out)
    shutil.rmtree(stage, ignore_errors=True)
    logger.info(
        "wrote %s (%.0f MB; %.0f MiB installed) in %.0f s",
        out,
        out.stat().st_size / 1e6,
        int(control.split("Installed-Size: ")[1].split()[0]) / 1024,
        time.monotonic() - started,
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--bundle", type=Path, default=None)
    parser.add_argument("--level", type=int, default=6, help="xz level (dpkg-deb -z)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    print(build(args.bundle or args.dist / "Footnote", args.dist, level=args.level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
