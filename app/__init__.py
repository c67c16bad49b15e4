"""Footnote: ask questions about your own PDFs, offline, with proven citations."""

import os as _os

__version__ = "0.1.0"

# Footnote never reaches a model hub: every model is a local file or folder.
# Set before any Hugging Face library is imported, whichever entry point runs first.
for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    _os.environ.setdefault(_var, "1")
_os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# No download/"Loading weights" progress bars from Hugging Face libraries: Footnote reports its own.
_os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
_os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# numpy's OpenBLAS on one thread: Footnote's numpy products are small (a question against
# at most 40,000 chunk vectors, a passage's sentences), and after each one OpenBLAS's idle
# worker spins for ~0.1 s on the second core. The embedder call that follows a search then
# took 60-120 ms instead of 9 (measured on 2 cores: the support check's word comparison
# and the sentence ranking both come right after the search). Torch has its own pool.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
