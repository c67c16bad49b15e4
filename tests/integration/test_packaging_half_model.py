"""The installer's embedding model stores its weights in half precision
(``packaging/half_model.py``); the app loads them as float32. With the real default model:
the copy is half the size and embeds like the original."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.resources import default_embedder_path
from app.retrieval.embedder import SentenceTransformerEmbedder
from tests.packaging_modules import load

pytestmark = pytest.mark.integration

half_model = load("half_model")

TEXTS = [
    "How do I declare an option in a class file?",
    "Wie hoch ist der staatliche Zuschuss für eine Wärmepumpe?",
    "The server listens on port 8080 unless FOOTNOTE_PORT says otherwise.",
    "Lobular carcinoma in situ (LCIS) is not cancer.",
    "\\DeclareOption{draft}{\\setlength\\overfullrule{5pt}}",
]


def test_the_half_precision_copy_is_half_the_size_and_embeds_the_same(tmp_path: Path) -> None:
    src = default_embedder_path()
    dst = half_model.half_copy(src, tmp_path / "minilm")
    weights = half_model.WEIGHTS
    assert (dst / weights).stat().st_size < 0.55 * (src / weights).stat().st_size
    assert sorted(p.name for p in dst.iterdir()) == sorted(p.name for p in src.iterdir())
    # What the stored precision changes, seen in float32 products: nothing a search can tell.
    full = SentenceTransformerEmbedder(src, precision="float32").embed(TEXTS)
    half = SentenceTransformerEmbedder(dst, precision="float32")
    assert half.dim == 384
    cos = np.sum(full * half.embed(TEXTS), axis=1)  # both normalised
    assert cos.min() > 0.99999, cos
    # As the installed app embeds (bfloat16 products where the CPU has them): still the same.
    app_cos = np.sum(full * SentenceTransformerEmbedder(dst).embed(TEXTS), axis=1)
    assert app_cos.min() > 0.9995, app_cos
