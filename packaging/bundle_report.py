"""What each part of the bundle costs, and what the app never loads from it.

Why: the installer must stay under its size targets (packaging/README.md), and every cut must
be shown to be safe. This reads the built bundle and, when given, the import log of a
``make package-test`` run (``build/import-log.json``: every module the app's processes
imported and every shared library they mapped, written by the bundle itself, see
``app/core/importlog.py``), and prints:

- the size of each part, unpacked and (``--xz``) compressed as the .deb compresses it;
- the shared libraries of the bundle no process mapped, and the Python packages in its
  archive none imported: what a further cut could take, if no untested path needs it.

Usage (after ``make package`` and ``make package-test``):
    .venv/bin/python packaging/bundle_report.py [--bundle dist/Footnote]
        [--import-log build/import-log.json] [--xz]
"""

from __future__ import annotations

import argparse
import json
import lzma
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from elf_files import elf_files  # noqa: E402

MiB = 2**20


def component(rel: str) -> str:
    """The part of the bundle a file of ``_internal/`` belongs to: its top folder, the
    package a ``*.libs``/``*.dist-info`` folder serves, or "system libraries"."""
    top = rel.split("/", 1)[0]
    if "/" not in rel and ".so" in top:
        return "libraries at the top (system's, Qt's, Python's)"
    for suffix in (".libs", ".dist-info"):
        if top.endswith(suffix):
            return "metadata (*.dist-info)" if suffix == ".dist-info" else top
    return top


def sizes(bundle: Path) -> dict[str, list[Path]]:
    parts: dict[str, list[Path]] = defaultdict(list)
    parts["Footnote (executable + Python archive)"].append(bundle / "Footnote")
    internal = bundle / "_internal"
    for f in sorted(internal.rglob("*")):
        if f.is_file() and not f.is_symlink():
            parts[component(f.relative_to(internal).as_posix())].append(f)
    return parts


def xz_size(files: list[Path], preset: int = 6) -> int:
    """Bytes of the files compressed in one xz stream (as in the .deb's data.tar.xz)."""
    comp = lzma.LZMACompressor(preset=preset)
    out = 0
    for f in files:
        with open(f, "rb") as fh:
            for block in iter(lambda fh=fh: fh.read(1 << 22), b""):
                out += len(comp.compress(block))
    return out + len(comp.flush())


def archive_packages(bundle: Path) -> dict[str, int]:
    """Top-level package -> compressed bytes in the executable's Python archive (PYZ)."""
    try:
        from PyInstaller.archive.readers import CArchiveReader
    except ImportError:
        return {}
    pyz = CArchiveReader(str(bundle / "Footnote")).open_embedded_archive("PYZ.pyz")
    out: dict[str, int] = defaultdict(int)
    for name, entry in pyz.toc.items():
        out[name.split(".")[0]] += entry[2]
    return dict(out)


def _rel_internal(path: str) -> str | None:
    return path.split("/_internal/", 1)[1] if "/_internal/" in path else None


def report(bundle: Path, log: dict[str, list[str]] | None, *, xz: bool) -> str:
    lines = []
    parts = sizes(bundle)
    total = sum(f.stat().st_size for files in parts.values() for f in files)
    head = f"{'part':<48} {'MiB':>8}" + (f" {'xz MB':>8}" if xz else "")
    lines += [f"bundle {bundle}: {total / MiB:.0f} MiB unpacked", head]
    rows = sorted(parts.items(), key=lambda kv: -sum(f.stat().st_size for f in kv[1]))
    xz_total = 0
    for name, files in rows:
        size = sum(f.stat().st_size for f in files)
        if size < MiB / 2:
            continue
        row = f"{name:<48} {size / MiB:8.1f}"
        if xz:
            packed = xz_size(files)
            xz_total += packed
            row += f" {packed / 1e6:8.1f}"
        lines.append(row)
    if xz:
        lines.append(
            f"{'(parts over 0.5 MiB, compressed one by one)':<48} {'':>8} {xz_total / 1e6:8.1f}"
        )
    if not log:
        return "\n".join(lines)

    internal = bundle / "_internal"
    mapped = {r for r in map(_rel_internal, log.get("libraries", [])) if r}
    unmapped: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for f in elf_files(internal):
        rel = f.relative_to(internal).as_posix()
        if rel not in mapped:
            unmapped[component(rel)].append((rel, f.stat().st_size))
    lines += [
        "",
        f"shared libraries no process mapped ({len(log.get('processes', []))} processes):",
    ]
    for name, files in sorted(unmapped.items(), key=lambda kv: -sum(s for _, s in kv[1])):
        size = sum(s for _, s in files)
        sample = ", ".join(Path(r).name for r, _ in sorted(files, key=lambda x: -x[1])[:4])
        lines.append(f"  {name:<46} {size / MiB:8.1f} MiB  {len(files):4d} files  ({sample})")
    imported = {m.split(".")[0] for m in log.get("modules", [])}
    packages = archive_packages(bundle)
    unused = {p: s for p, s in packages.items() if p not in imported}
    lines += ["", "packages in the Python archive none imported (compressed size):"]
    for name, size in sorted(unused.items(), key=lambda kv: -kv[1])[:30]:
        lines.append(f"  {name:<46} {size / MiB:8.2f} MiB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "Footnote")
    parser.add_argument("--import-log", type=Path, default=ROOT / "build" / "import-log.json")
    parser.add_argument("--xz", action="store_true", help="Compress each part too (minutes).")
    args = parser.parse_args(argv)
    log = None
    if args.import_log.is_file():
        log = json.loads(args.import_log.read_text(encoding="utf-8"))
    print(report(args.bundle, log, xz=args.xz))
    return 0


if __name__ == "__main__":
    sys.exit(main())
