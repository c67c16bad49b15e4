"""The bundle's ICU data, cut to what Qt uses it for in Footnote.

PySide6's Qt links ICU 73, whose data library (``libicudata.so.73``) is 31 MiB: collation,
converters for legacy encodings, locale display names, units, currencies, time zones, break
iteration dictionaries, transliteration, number spelling. Footnote's Qt needs only collation
(``QCollator``: the file dialogs sort names with it); Qt has its own Unicode tables, locale
data, case mapping fallback, text boundaries, time zones (the system's tz files) and UTF
codecs, and Footnote reads every file as UTF-8. So the bundle keeps collation (``coll/``) and
the core data ICU itself loads (``*.icu``, ``*.nrm``, ``*.cfu``, the root resource bundles) and
leaves out the rest, about 22 MiB: a legacy converter or a locale's display name asked of ICU
then fails as if not installed, which Qt reports as unavailable.

Needs ``icupkg`` (Debian's ``icu-devtools``) and a C compiler, both only when packing.
``tests/integration/test_packaging_icu.py`` sorts German names with ``QCollator`` on the cut
data.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from elf_files import dynamic_names, file_offset

KEEP_DIRS = ("coll/",)
KEEP_ROOT = re.compile(r"[^/]+\.(?:icu|nrm|cfu|spp)$|(?:root|res_index|pool|likelySubtags"
                       r"|supplementalData|metadata)\.res$")  # fmt: skip


def kept(item: str) -> bool:
    """Whether the ICU data item ``item`` ("coll/de.res", "ibm-1390_P110-2003.cnv") stays."""
    return item.startswith(KEEP_DIRS) or ("/" not in item and bool(KEEP_ROOT.fullmatch(item)))


def _symbol(lib: Path, data: bytes) -> tuple[str, int, int]:
    """Name, file offset and size of the data blob ``lib`` exports (``icudt73_dat``)."""
    out = subprocess.run(["nm", "-S", "-D", str(lib)], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and re.fullmatch(r"icudt\d+_dat", parts[3]):
            return parts[3], file_offset(data, int(parts[0], 16)), int(parts[1], 16)
    raise SystemExit(f"icu_data: no icudt*_dat symbol in {lib}")


def trim(lib: Path, out: Path) -> tuple[int, int]:
    """Write ``out``: the ICU data library ``lib`` with only the items :func:`kept` keeps, under
    the same soname and symbol. Returns (bytes before, bytes after) of the data."""
    icupkg, cc = shutil.which("icupkg"), shutil.which("cc") or shutil.which("gcc")
    if icupkg is None or cc is None:
        raise SystemExit("icu_data: needs icupkg (apt-get install icu-devtools) and a C compiler")
    image = lib.read_bytes()
    name, offset, size = _symbol(lib, image)
    soname = dynamic_names(lib)[0] or lib.name
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        data = t / f"{name.removesuffix('_dat')}l.dat"
        data.write_bytes(image[offset : offset + size])
        items = subprocess.run(
            [icupkg, "-l", str(data)], capture_output=True, text=True, check=True
        ).stdout.split()
        (t / "drop.txt").write_text("\n".join(i for i in items if not kept(i)) + "\n")
        cut = t / "cut" / data.name  # icupkg names the items after the file: keep its name
        cut.parent.mkdir()
        subprocess.run([icupkg, "-r", str(t / "drop.txt"), str(data), str(cut)], check=True)
        asm = t / "data.S"
        asm.write_text(
            f".section .rodata\n.global {name}\n.type {name}, @object\n.balign 16\n"
            f'{name}:\n.incbin "{cut}"\n.size {name}, .-{name}\n'
            '.section .note.GNU-stack,"",@progbits\n'
        )
        subprocess.run(
            [cc, "-shared", "-nostdlib", f"-Wl,-soname,{soname}", "-o", str(out), str(asm)],
            check=True,
        )
        return size, cut.stat().st_size
