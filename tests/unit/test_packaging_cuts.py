"""What the bundle leaves out, checked without a build: the exclude and drop lists against the
app and its libraries, the SciPy / scikit-learn stand-ins, torch's source files, and the
stripping of shared libraries. ``make package-test`` runs the built package through the same
flows as before every cut.
"""

from __future__ import annotations

import ctypes
import importlib.util
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from tests.packaging_modules import load

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "packaging"


elf_files = load("elf_files")
leave_out = load("leave_out")


# --- what the bundle leaves out -----------------------------------------------------------------


def _app_imports() -> set[str]:
    names = set()
    for path in (ROOT / "app").rglob("*.py"):
        for m in re.finditer(
            r"^\s*(?:from|import)\s+([\w.]+)", path.read_text(encoding="utf-8"), re.MULTILINE
        ):
            names.add(m.group(1))
    return names


def test_app_never_translates_qt() -> None:
    """Qt's .qm files are left out because nothing installs a QTranslator to read them."""
    assert not any("QTranslator" in p.read_text(encoding="utf-8") for p in ROOT.glob("app/**/*.py"))


def test_app_imports_nothing_the_bundle_leaves_out() -> None:
    """Except Ray: the optional footnote[cluster] extra, imported lazily by
    app/services/cluster.py, left out of the desktop installer on purpose (leave_out.py)."""
    left_out = [x for x in (*leave_out.EXCLUDES, *leave_out.STANDIN_PACKAGES) if x != "ray"]
    imported = _app_imports()
    clash = sorted(i for i in imported for x in left_out if i == x or i.startswith(x + "."))
    assert clash == []


def test_standins_cover_what_sentence_transformers_imports_at_start_up() -> None:
    """The two modules sentence-transformers' package import reaches import exactly the names
    the stand-ins hold (footnote.spec also loads the embedder with them at build time)."""
    spec = importlib.util.find_spec("sentence_transformers")
    assert spec and spec.origin
    util = Path(spec.origin).parent / "util"
    # Loading the hook installs its stand-ins (sklearn as None, sklearn.metrics a stand-in):
    # they must not outlive this test, or a later test that fits a model cannot import sklearn.
    with mock.patch.dict(sys.modules):
        standins = load("standins", PKG / "rthooks" / "standins.py")
    found = {}
    for name in ("similarity.py", "tensor.py"):
        text = (util / name).read_text(encoding="utf-8")
        for m in re.finditer(r"^from (scipy|sklearn)([\w.]*) import ([\w, ]+)$", text, re.M):
            found[m.group(1) + m.group(2)] = tuple(n.strip() for n in m.group(3).split(","))
    assert found == standins.STANDINS
    assert {m.split(".")[0] for m in standins.STANDINS} == set(leave_out.STANDIN_PACKAGES)


def test_standins_import_only_their_names_and_say_scipy_is_absent() -> None:
    code = """
import importlib.abc, importlib.util, runpy, sys
class LeftOut(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("scipy", "sklearn"):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, LeftOut())
runpy.run_path(sys.argv[1])
from scipy.sparse import coo_matrix
from sklearn.metrics import pairwise_distances
assert importlib.util.find_spec("scipy") is None and importlib.util.find_spec("sklearn") is None
for stmt in ("import scipy", "import scipy.optimize", "from sklearn.linear_model import Ridge"):
    try:
        exec(stmt)
    except ImportError:
        pass
    else:
        raise SystemExit(stmt + " worked")
try:
    coo_matrix([1])
except ImportError as exc:
    print("raised:", exc)
"""
    proc = subprocess.run(
        [sys.executable, "-c", code, str(PKG / "rthooks" / "standins.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "raised: scipy.sparse.coo_matrix is not in the Footnote bundle" in proc.stdout


def test_the_drop_list_keeps_our_files_and_drops_what_it_says() -> None:
    assert leave_out.dropped("PySide6/Qt/qml/QtQuick/x.so")
    assert leave_out.dropped("scipy-1.17.1.dist-info/METADATA")
    assert leave_out.dropped("scikit_learn.libs/libgomp.so.1")
    assert leave_out.dropped("PySide6/Qt/translations/qtbase_de.qm")  # no QTranslator in app/
    assert leave_out.dropped("PySide6/Qt/plugins/imageformats/libqjpeg.so")
    assert not leave_out.dropped("PySide6/Qt/plugins/imageformats/libqsvg.so")
    assert leave_out.dropped("torch-2.13.0+cpu.dist-info/RECORD")
    assert not leave_out.dropped("torch-2.13.0+cpu.dist-info/METADATA")
    assert not leave_out.dropped("models/all-MiniLM-L6-v2/config.json")
    assert not leave_out.dropped("include/python3.11/pyconfig.h")
    assert not leave_out.dropped("torch/lib/libtorch_cpu.so")
    assert not leave_out.dropped("sentence_transformers-6.2.0.dist-info/METADATA")


def test_torch_keeps_the_source_of_modules_that_read_it_when_imported() -> None:
    spec = importlib.util.find_spec("torch")
    assert spec and spec.origin
    torch_dir = Path(spec.origin).parent

    def needed(rel: str) -> bool:
        return leave_out.torch_source_needed((torch_dir / rel).read_text(encoding="utf-8"))

    assert needed("_dynamo/config.py")  # install_config_module -> inspect.getsource
    assert needed("nn/functional.py")  # @_overload
    assert not needed("nn/modules/linear.py")
    assert not needed("_tensor.py")
    assert leave_out.torch_source_needed("@torch.jit.script\ndef f(x):\n    return x\n")


# --- stripping ----------------------------------------------------------------------------------


def _elf_withload(vaddr: int, offset: int, align: int = 0x1000) -> bytes:
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x20, 64)  # e_phoff
    struct.pack_into("<HH", header, 0x36, 56, 1)  # e_phentsize, e_phnum
    phdr = struct.pack("<IIQQQQQQ", 1, 5, offset, vaddr, vaddr, 16, 16, align)
    return bytes(header) + phdr


def test_page_alignment_check_is_the_dynamic_linkers() -> None:
    assert elf_files.load_segments_aligned(_elf_withload(0x289800, 0x288800))
    # what strip makes of a patchelf-edited manylinux library: ld.so refuses it
    assert not elf_files.load_segments_aligned(_elf_withload(0x166B000, 0x1621098))
    assert not elf_files.load_segments_aligned(_elf_withload(0x1000, 0x1000, align=0x10))


def _extension_library() -> Path:
    import _ctypes

    return Path(_ctypes.__file__)


def test_dynamic_names_reads_the_needed_libraries() -> None:
    soname, needed = elf_files.dynamic_names(_extension_library())
    assert soname is None or soname.startswith("_ctypes")
    assert any(n.startswith("libc.so") for n in needed) or any("ffi" in n for n in needed)


@pytest.mark.skipif(not shutil.which("strip"), reason="binutils' strip not installed")
def test_stripped_library_still_loads(tmp_path: Path) -> None:
    lib = tmp_path / _extension_library().name
    shutil.copy2(_extension_library(), lib)
    result = elf_files.strip_file(lib)
    assert result.after <= result.before and lib.stat().st_size == result.after
    assert elf_files.load_segments_aligned(lib.read_bytes())
    ctypes.CDLL(str(lib))  # the dynamic linker accepts it
    assert [p.name for p in elf_files.elf_files(tmp_path)] == [lib.name]
