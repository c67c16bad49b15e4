"""Footnote's PyInstaller hook for pyarrow (overrides the contrib hook; user hooks win).

Why: the contrib hook collects every pyarrow submodule, its C++ headers and every shared library,
including Arrow Flight (RPC) and the S3/GCS/HDFS/Azure file systems. LanceDB in Footnote only
reads and writes a local folder; those parts are ~50 MB of libraries nothing loads.
``pyarrow.fs`` imports the cloud file systems inside try/except ImportError, so leaving them out
is clean.
"""

from __future__ import annotations

from pathlib import Path

from PyInstaller.utils.hooks import collect_dynamic_libs, collect_submodules

_UNUSED = ("flight", "s3fs", "gcsfs", "hdfs", "azurefs", "orc", "cuda", "gandiva", "cpp_tests",
           "tests", "interchange", "benchmark",
           "substrait", "parquet_encryption")  # fmt: skip
# Substrait query plans and Parquet encryption: neither LanceDB nor anything else in the app
# imports pyarrow.substrait or pyarrow.parquet.encryption (libarrow_substrait stays: pyarrow's
# core links it).


def _wanted(name: str) -> bool:
    return not any(part.lstrip("_") in _UNUSED or "tests" in part for part in name.split("."))


hiddenimports = collect_submodules("pyarrow", filter=_wanted)

# Binary dependency analysis finds the libarrow*.so libraries the collected extensions link to;
# add the rest explicitly except Flight and the cloud file systems.
binaries = [
    (src, dest)
    for src, dest in collect_dynamic_libs("pyarrow")
    if not any(
        x in Path(src).name for x in ("flight", "_s3", "gandiva", "cpp_tests", "parquet_encryption")
    )
]

datas: list[tuple[str, str]] = []
