"""What the bundle leaves out that a default PyInstaller build would collect, and why.

Read by ``footnote.spec`` (and by the unit tests, which check these lists against the app and
its libraries); kept apart from the spec so they can be. Every cut here is checked by
``make package-test``, which runs ingest, search, ask, the window and OCR through the built
package, and shown by its import log (``packaging/bundle_report.py``). Standard library only.
"""

from __future__ import annotations

import re

# --- Python packages the app never imports at run time ------------------------------------
# (the Qt modules app/ does not use are added by the spec, which reads app/ to find them)
EXCLUDES = [
    # development tools that happen to live in the same venv
    "tkinter", "_tkinter", "IPython", "matplotlib", "notebook", "pytest", "_pytest", "pytestqt", "py",
    "PyInstaller", "pip", "setuptools", "pkg_resources", "ruff", "grimp", "importlinter",
    # PyMuPDF 2.x's optional ONNX layout analyser: `import pymupdf` tries `pymupdf.layout` and
    # carries on without it; it costs ~2.5 s of start-up and ~120 MB with onnxruntime.
    "pymupdf.layout", "pymupdf4llm", "onnxruntime", "networkx",
    # training / logging extras of torch and transformers
    "tensorboard", "torch.utils.tensorboard", "torchvision", "torchaudio", "triton",
    "datasets", "accelerate", "optimum", "peft", "wandb", "pandas", "polars",
    # Hugging Face Hub's download accelerator: Footnote never downloads
    "hf_xet",
    # Team libraries: Ray (bulk ingestion on a cluster, the optional footnote[cluster] extra) and
    # the S3 test server stay out of the desktop installer; a desktop opens a team library
    # read-only through LanceDB's own (Rust) object-store client, which needs none of them.
    "ray", "moto", "boto3", "botocore", "s3transfer",
    # Arrow's network file systems and RPC: LanceDB reaches object storage without them
    "pyarrow.flight", "pyarrow._flight", "pyarrow._s3fs", "pyarrow._gcsfs", "pyarrow._hdfs",
    "pyarrow._azurefs", "pyarrow.orc", "pyarrow._orc", "pyarrow.cuda", "pyarrow._cuda",
    "pyarrow.gandiva", "pyarrow._pyarrow_cpp_tests", "pyarrow.tests",
    # llama-cpp-python's OpenAI-compatible server (FastAPI); Footnote only links the library
    "llama_cpp.server",
    # type checker and its compiled runtime: pydantic's and numpy's mypy plugins name them,
    # nothing imports them at run time
    "mypy", "mypyc", "librt", "ast_serialize",
    # urllib3's and requests' optional pyOpenSSL support (14 MB): Footnote opens no connection;
    # LanceDB and obstore reach a team library's object store with their own (Rust) TLS
    "cryptography", "OpenSSL", "joserfc",
    # terminal colouring and the web servers / command lines of Hugging Face's and llama.cpp's
    # own tools, which name them; none is imported by ingest, ask or the window (import log)
    "pygments", "rich", "markdown_it", "mdurl", "fastapi", "starlette", "uvicorn",
    "sse_starlette", "typer", "click",
]  # fmt: skip

# --- SciPy and scikit-learn: replaced by two stand-ins ------------------------------------
# sentence-transformers imports sklearn.metrics.pairwise_distances and scipy.sparse.coo_matrix
# at start-up for sparse-vector helpers Footnote never calls; the real packages are 94 MiB and
# ~2 s of the embedder's start-up. rthooks/standins.py registers modules holding just those two
# names (calling one raises ImportError); the spec proves at build time that the default
# embedder loads and embeds so. import name -> distribution (whose metadata is left out too).
STANDIN_PACKAGES = {"scipy": "scipy", "sklearn": "scikit-learn"}

# --- files the hooks collect that nothing reads ---------------------------------------------
# regular expressions on a file's path inside the bundle's _internal/
DROP = [
    # Qt plugins for platforms, drivers and modules Footnote does not use
    r"PySide6/Qt/plugins/(egldeviceintegrations|sqldrivers|qmltooling|designer|tls"
    r"|networkinformation|generic|platforminputcontexts/libqtvirtualkeyboard)",
    r"PySide6/Qt/plugins/platforms/lib(qeglfs|qlinuxfb|qvnc|qvkkhrdisplay|qminimalegl)",
    r"PySide6/Qt/qml/",
    # GTK platform theme: it would load the desktop's GTK against the bundle's older GLib/Cairo;
    # Qt then uses its own theme and the XDG portal for native file dialogs.
    r"platformthemes/libqgtk3",
    r"(^|/)lib(atk-1\.0|cairo-gobject|gdk_pixbuf-2\.0|pangocairo-1\.0)\.",
    # CUDA runtime found on the build machine via ctypes look-ups; the CPU build never loads it
    r"(^|/)lib(cudart|cublas|cudnn|nvrtc|nvToolsExt|cufft|curand|cusparse|nccl|nvJitLink)[.-]",
    # Arrow Flight / S3 libraries pulled in by name (their Python modules are excluded)
    r"(^|/)libarrow(_python)?_(flight|s3)",
    # the Python side of Substrait query plans and of Parquet encryption: nothing imports
    # pyarrow.substrait or pyarrow.parquet.encryption, and pyarrow.dataset imports its
    # encryption part in try/except (libarrow_substrait itself stays: pyarrow links it)
    r"pyarrow/(_substrait\.|_(dataset_)?parquet_encryption\.|libarrow_python_parquet_encryption)",
    # Qt's own translations (5.8 MiB): Qt reads a .qm file only through a QTranslator, and the
    # app installs none (its UI is English; native file dialogs come from the desktop)
    r"PySide6/Qt/translations/",
    # image format plugins: the app draws SVG icons (qsvg) and PyMuPDF's pixels (no plugin);
    # PNG is built into Qt. None of these raster readers is ever loaded (import log)
    r"PySide6/Qt/plugins/imageformats/libq(gif|icns|ico|jpeg|tga|tiff|wbmp|webp)\.",
    # llama.cpp's multimodal (image input) library: loaded only by llava-style chat handlers
    r"llama_cpp/lib/libmtmd\.",
    # the installer's list of a package's files (pip uninstall, importlib.metadata.files());
    # version look-ups read METADATA. torch's alone is 1.4 MiB
    r"\.dist-info/RECORD$",
    # headers, tests and type stubs
    r"(^|/)(include|tests?)/",
    r"\.(pyi|h|hpp|cuh|cmake|a|lib)$",
    # the packages replaced by stand-ins: their metadata (transformers' hook copies it; it would
    # tell importlib.metadata they are installed) and their vendored libraries
    r"^(scipy|scikit_learn)[-.]",
]
# Never dropped or stripped: ours, and the header sysconfig reads in a frozen app.
KEEP_PREFIXES = ("models/", "tessdata/", "include/python")

# --- torch's Python source ------------------------------------------------------------------
# torch's hook collects every .py beside its compiled copy in the archive ("pyz+py"), 37 MiB.
# Only three kinds of module read their own source when imported; the rest run from the archive
# (a missing source only leaves a line out of a warning or a traceback):
#   - config modules (torch.utils._config_module.install_config_module calls inspect.getsource;
#     without the file: "OSError: could not get source code" at `import torch`),
#   - TorchScript compiled at import (@torch.jit.script / @torch.jit.interface at top level),
#   - @torch.jit._overload users, which parse their overloads' source (a warning without it).
TORCH_SOURCE_READERS = re.compile(
    r"install_config_module\(|\b_overload(_method)?\b|^@(torch\.)?jit\.(script|interface)\b",
    re.MULTILINE,
)

# --- stripping --------------------------------------------------------------------------------
# elf_files.strip_tree skips these (relative to _internal/): data, not libraries.
STRIP_SKIP = ("models/", "tessdata/")


def torch_source_needed(source: str) -> bool:
    """Whether a torch module whose source is ``source`` reads it when imported."""
    return bool(TORCH_SOURCE_READERS.search(source))


def dropped(dest: str, drop: re.Pattern[str] | None = None) -> bool:
    """Whether the file at ``dest`` (inside _internal/) is left out by :data:`DROP`."""
    if dest.startswith(KEEP_PREFIXES):
        return False
    return bool((drop or _DROP_RE).search(dest))


_DROP_RE = re.compile("|".join(DROP))
