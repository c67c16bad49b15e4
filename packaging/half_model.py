"""The bundle's copy of the embedding model, its weights stored in half precision.

all-MiniLM-L6-v2's ``model.safetensors`` is 87 MiB of float32. Stored as float16 it is 43 MiB;
``app.retrieval.embedder`` always loads an embedder's weights as float32
(``model_kwargs={"dtype": torch.float32}``), so the bundle computes exactly as a source
install does, on weights rounded to half precision: on every text tried the two embeddings'
cosine is above 0.99999 (``tests/unit/test_packaging_half_model.py`` checks it with the real
model). Used by ``footnote.spec``; the tokenizer and configuration files are copied as they are.
"""

from __future__ import annotations

import shutil
from pathlib import Path

WEIGHTS = "model.safetensors"


def half_copy(src: Path, dst: Path) -> Path:
    """Copy the model folder ``src`` to ``dst`` with its floating-point weights in float16;
    returns ``dst``. A folder without ``model.safetensors`` is copied as it is."""
    from safetensors.torch import load_file, save_file

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(WEIGHTS))
    weights = src / WEIGHTS
    if weights.is_file():
        tensors = load_file(str(weights))
        half = {k: v.half() if v.is_floating_point() else v for k, v in tensors.items()}
        save_file(half, str(dst / WEIGHTS), metadata={"format": "pt"})
    return dst
