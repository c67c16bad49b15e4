"""Footnote's PyInstaller hook for torch (overrides the contrib hook; user hooks win).

Why: the contrib hook collects *every* torch submodule as a hidden import and every non-header
data file, which drags in test binaries (torch/bin), the C++ headers' neighbours and test
libraries. Footnote uses torch only for CPU inference of a small sentence-transformers model,
so we follow torch's own static imports and collect just the shared libraries it loads.
"""

from __future__ import annotations

from pathlib import Path

from PyInstaller.utils.hooks import (
    PY_DYLIB_PATTERNS,
    collect_data_files,
    collect_dynamic_libs,
    collect_submodules,
    get_package_paths,
)

# torch's TorchScript/dynamo helpers read Python source of some functions (inspect.getsource).
module_collection_mode = "pyz+py"
warn_on_missing_hiddenimports = False

# Test-only libraries shipped inside the wheel; nothing at run time loads them.
_TEST_LIBS = {
    "libjitbackend_test.so",
    "libtorchbind_test.so",
    "libbackend_with_compiler.so",
    "libaoti_custom_ops.so",
}

binaries = [
    (src, dest)
    for src, dest in collect_dynamic_libs("torch", search_patterns=[*PY_DYLIB_PATTERNS, "*.so.*"])
    if Path(src).name not in _TEST_LIBS and "/bin/" not in src
]
# `import torch` checks that this helper exists (torch._manager_path); the rest of torch/bin is
# test programs.
_shm_manager = Path(get_package_paths("torch")[1]) / "bin" / "torch_shm_manager"
if _shm_manager.is_file():
    binaries.append((str(_shm_manager), "torch/bin"))

# Only the few data files read at import / run time (schemas, registries); no headers, no tests.
datas = collect_data_files(
    "torch",
    includes=["_dynamo/*.json", "_export/serde/*.yaml", "_export/serde/*.thrift"],
)

# Imported by name at run time: dynamo's polyfill loader (reached from transformers' import of
# torch._dynamo) and torch.onnx's lazy attributes. Found by comparing sys.modules of the app
# running from the venv (ingest, ask, GUI) with the bundle's archive.
hiddenimports = [*collect_submodules("torch._dynamo.polyfills"), "torch.onnx.operators"]

# Keep torch/lib libraries where torch looks for them (see the contrib hook's note).
bindepend_symlink_suppression = ["**/torch/lib/*.so*"]
