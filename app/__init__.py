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
