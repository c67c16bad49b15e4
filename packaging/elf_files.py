"""Shared libraries of the bundle: strip them safely, and read what each one needs.

Why a module of its own: ``footnote.spec`` strips every library after collection (symbol
tables and debug information are never loaded by the app), and ``make_deb.py`` needs the
libraries each file links to (``DT_NEEDED``) to name the Debian packages the bundle relies on.

Why not PyInstaller's own ``strip=True``: it strips every file blindly, and ``strip``
rewrites the patchelf-edited libraries of manylinux wheels (``numpy.libs/``, ``scipy.libs/``)
into files the dynamic linker refuses ("ELF load command address/offset not page-aligned").
Here each library is stripped into a temporary copy that replaces it only if it is smaller and
every loadable segment is still page-aligned; otherwise the original stays.

Standard library only (plus binutils' ``strip`` for stripping); 64-bit little-endian ELF,
which is what Linux x86_64 and arm64 use.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

ELF_MAGIC = b"\x7fELF"
PAGE_SIZE = 4096  # x86_64; the loader's check uses the run-time page size
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_SONAME = 0, 1, 5, 14


def is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def elf_files(root: Path, *, skip: Iterable[str] = ()) -> Iterator[Path]:
    """Regular (not symlinked) ELF files under ``root``, sorted; ``skip``: relative path prefixes."""
    skipped = tuple(skip)
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if skipped and rel.startswith(skipped):
            continue
        if path.is_file() and not path.is_symlink() and is_elf(path):
            yield path


@dataclass(frozen=True)
class _Segment:
    kind: int
    offset: int
    vaddr: int
    filesz: int
    align: int


def _segments(data: bytes) -> list[_Segment]:
    if data[:4] != ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff, phentsize, phnum = (
        struct.unpack_from("<Q", data, 0x20)[0],
        *struct.unpack_from("<HH", data, 0x36),
    )
    out = []
    for i in range(phnum):
        kind, _flags, offset, vaddr, _paddr, filesz, _memsz, align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize
        )
        out.append(_Segment(kind, offset, vaddr, filesz, align))
    return out


def load_segments_aligned(data: bytes, page_size: int = PAGE_SIZE) -> bool:
    """The dynamic linker's check: every PT_LOAD has ``vaddr - offset`` a multiple of the page
    size and a page-multiple alignment (glibc's "not page-aligned" errors)."""
    for seg in _segments(data):
        if seg.kind != _PT_LOAD:
            continue
        if (seg.vaddr - seg.offset) % page_size or (seg.align and seg.align % page_size):
            return False
    return True


def _file_offset(segments: list[_Segment], vaddr: int) -> int:
    for seg in segments:
        if seg.kind == _PT_LOAD and seg.vaddr <= vaddr < seg.vaddr + seg.filesz:
            return vaddr - seg.vaddr + seg.offset
    raise ValueError(f"address {vaddr:#x} is in no loadable segment")


def file_offset(data: bytes, vaddr: int) -> int:
    """Where the loaded address ``vaddr`` of the ELF image ``data`` lies in the file."""
    return _file_offset(_segments(data), vaddr)


def _cstring(data: bytes, offset: int) -> str:
    end = data.index(b"\0", offset)
    return data[offset:end].decode("utf-8", "replace")


def dynamic_names(path: Path) -> tuple[str | None, list[str]]:
    """``(SONAME, [DT_NEEDED ...])`` of an ELF file; ``(None, [])`` for a static one."""
    data = path.read_bytes()
    segments = _segments(data)
    dynamic = next((s for s in segments if s.kind == _PT_DYNAMIC), None)
    if dynamic is None:
        return None, []
    entries = []
    for pos in range(dynamic.offset, dynamic.offset + dynamic.filesz, 16):
        tag, value = struct.unpack_from("<qQ", data, pos)
        if tag == _DT_NULL:
            break
        entries.append((tag, value))
    strtab = next((v for t, v in entries if t == _DT_STRTAB), None)
    if strtab is None:
        return None, []
    base = _file_offset(segments, strtab)
    soname = next((_cstring(data, base + v) for t, v in entries if t == _DT_SONAME), None)
    needed = [_cstring(data, base + v) for t, v in entries if t == _DT_NEEDED]
    return soname, needed


@dataclass(frozen=True)
class Stripped:
    path: Path
    before: int
    after: int
    note: str = ""  # why it was left as it was

    @property
    def saved(self) -> int:
        return self.before - self.after


def strip_file(path: Path, strip: str = "strip") -> Stripped:
    """Strip symbols and debug information (``--strip-unneeded``: what linking needs stays)."""
    before = path.stat().st_size
    fd, tmp_name = tempfile.mkstemp(prefix=".strip-", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        proc = subprocess.run(
            [strip, "--strip-unneeded", "-o", str(tmp), str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            return Stripped(path, before, before, f"strip failed: {proc.stderr.strip()[:200]}")
        after = tmp.stat().st_size
        if after >= before:
            return Stripped(path, before, before, "nothing to strip")
        if not load_segments_aligned(tmp.read_bytes()):
            return Stripped(path, before, before, "kept: stripping breaks its page alignment")
        shutil.copymode(path, tmp)
        tmp.replace(path)
        return Stripped(path, before, after)
    finally:
        tmp.unlink(missing_ok=True)


def strip_tree(root: Path, *, skip: Iterable[str] = (), strip: str = "strip") -> list[Stripped]:
    """Strip every ELF file under ``root`` (see :func:`strip_file`); returns what happened."""
    results = [strip_file(p, strip) for p in elf_files(root, skip=skip)]
    saved = sum(r.saved for r in results)
    logger.info(
        "stripped %d of %d libraries: %.1f MiB saved",
        sum(1 for r in results if r.saved),
        len(results),
        saved / 2**20,
    )
    return results


def link_duplicates(root: Path) -> list[tuple[Path, Path]]:
    """Replace files identical to another file of the same folder by a symlink to it.

    Wheels ship a library under its plain and its SONAME name as two copies (llama.cpp's
    ``libllama.so`` / ``libllama.so.0``, pyarrow's ``libarrow_python.so`` / ``.so.2600``);
    whichever name the app opens, the link gives the same file. The longest name (the
    versioned one) stays the real file. Returns ``(link, target)`` pairs.
    """
    by_folder: dict[tuple[Path, int, str], list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size < 4096:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        by_folder.setdefault((path.parent, path.stat().st_size, digest), []).append(path)
    linked = []
    for same in by_folder.values():
        if len(same) < 2:
            continue
        target = max(same, key=lambda p: (len(p.name), p.name))
        for path in same:
            if path != target:
                path.unlink()
                path.symlink_to(target.name)
                linked.append((path, target))
    return linked
