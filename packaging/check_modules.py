"""List modules the app imports when run from the venv that the built bundle does not contain.

Why: PyInstaller follows ``import`` statements, but torch, transformers and sentence-transformers
also import modules by name at run time; a missing one only shows when a user's action reaches
it. This runs real app paths in the venv (ingest, ask, the window's start-up), records
``sys.modules`` after each, and compares them with the bundle's archive and extension modules.
Modules left out on purpose (``footnote.spec`` EXCLUDES) and virtual ones (``torch._C._nn``,
``torch.ops``) are filtered; what remains needs a hidden import, or a look.

Usage (after ``make package``):  .venv/bin/python packaging/check_modules.py [--pdf FILE]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]

# Runs one app path and prints sys.modules as JSON on the last line of stdout.
_TRACE = """
import json, sys
sys.argv[0] = "footnote"
args = json.loads(sys.argv[1])
try:
    if args and args[0] == "--smoke":
        from app.ui.main import main as run
    else:
        from app.cli.main import main as run
    run(args)
finally:
    print("\\n" + json.dumps(sorted(sys.modules)))
"""

# Left out on purpose (see footnote.spec), or not real modules (children of extensions, stdlib
# built-ins, aliases created at run time).
_IGNORED_PREFIXES = (
    "pymupdf.layout", "pymupdf4llm", "onnxruntime", "pymupdf.features", "pymupdf._features",
    "pyarrow._s3fs", "pyarrow._gcsfs", "pyarrow._hdfs", "pyarrow._azurefs", "torch._C.",
    "torch.classes", "torch.ops", "PySide6.support", "shibokensupport", "signature_bootstrap",
    "__feature__", "sentence_transformers.models", "typing.io", "typing.re", "os.path",
    "cython_runtime", "swig_runtime_data", "_cython_", "__main__", "__mp_main__", "_distutils_hack",
    "__editable__", "_remote_module_non_scriptable", "transformers.models.bert.tokenization_bert_fast",
)  # fmt: skip


def traced_modules(pdf: Path) -> set[str]:
    """Modules imported by ingest + ask + window start-up, run from this venv."""
    work = Path(tempfile.mkdtemp(prefix="footnote-trace-"))
    lib = str(work / "library")
    paths = [
        ["ingest", str(pdf), "--library", lib, "--json"],
        ["search", "longtable environment", "--library", lib, "--json"],
        ["ask", "What does the longtable package define?", "--library", lib, "--json"],
        ["--smoke", "--library", lib],
    ]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FOOTNOTE_LOG_DIR": str(work / "logs")}
    seen: set[str] = set()
    for args in paths:
        logger.info("tracing: %s", " ".join(args[:2]))
        proc = subprocess.run(
            [sys.executable, "-c", _TRACE, json.dumps(args)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "[]"
        if proc.returncode != 0 or not last.startswith("["):
            raise SystemExit(f"tracing {args[0]} failed:\n{proc.stderr[-3000:]}")
        seen |= set(json.loads(last))
    return seen


def _left_out() -> list[str]:
    """Packages left out on purpose (leave_out.py): SciPy and scikit-learn among them, which the
    venv imports and the bundle replaces by stand-ins."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import leave_out

    return [*leave_out.EXCLUDES, *leave_out.STANDIN_PACKAGES]


def _is_left_out(name: str, left_out: list[str]) -> bool:
    return any(name == x or name.startswith(x + ".") for x in left_out)


def _is_virtual(name: str, extensions: set[str]) -> bool:
    """Stdlib, a C-level sub-module registered by an extension (``_csparsetools``), or a child
    of an extension module (``scipy.optimize._highspy._core.cb``)."""
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or ("." not in name and name.startswith("_")):
        return True
    parts = name.split(".")
    return any(".".join(parts[:i]) in extensions for i in range(1, len(parts)))


def extension_modules(bundle: Path) -> set[str]:
    names = set()
    internal = bundle / "_internal"
    for ext in internal.rglob("*.so"):
        rel = ext.relative_to(internal).parts
        if rel[0].startswith("python3"):  # lib-dynload: stdlib extension modules
            rel = rel[2:]
        names.add(".".join(rel).split(".cpython")[0].split(".abi3")[0].removesuffix(".so"))
    return names


def bundled_modules(bundle: Path) -> set[str]:
    """Modules in the bundle: its PYZ archive, base_library.zip and extension modules."""
    from PyInstaller.archive.readers import CArchiveReader

    have = set(CArchiveReader(str(bundle / "Footnote")).open_embedded_archive("PYZ.pyz").toc)
    internal = bundle / "_internal"
    with zipfile.ZipFile(internal / "base_library.zip") as z:
        have |= {
            n[:-4].replace("/", ".").removesuffix(".__init__")
            for n in z.namelist()
            if n.endswith(".pyc")
        }
    return have | extension_modules(bundle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "Footnote")
    parser.add_argument("--pdf", type=Path, default=ROOT / "tests" / "data" / "longtable.pdf")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    used = traced_modules(args.pdf.resolve())
    have = bundled_modules(args.bundle)
    extensions = extension_modules(args.bundle)
    left_out = _left_out()
    missing = sorted(
        m
        for m in used - have
        if not m.startswith(_IGNORED_PREFIXES)
        and not _is_left_out(m, left_out)
        and not _is_virtual(m, extensions)
    )
    for m in missing:
        print(m)
    logger.info("%d modules used, %d missing from the bundle", len(used), len(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
