"""The local sentence-transformers embedder, tuned for a small CPU.

Loading torch and the model costs seconds, so it happens lazily, once, under a lock
(the UI may ask from two worker threads at once). Speed on CPU is mostly "how many
tokens go through the model": texts are embedded longest-first in batches so each
batch pads to similar lengths, and ``max_seq_length`` caps how much of a long chunk
is read. Measured figures and the levers that did not pay off are in
``app/retrieval/README.md``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import ModelLoadError
from app.core.resources import DEFAULT_EMBEDDER_NAME, default_embedder_path

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 32
# The model's own cap; the name of an embedder reading fewer tokens says so.
NATIVE_MAX_SEQ_LENGTH = 256
# Tokens read per text. 160-200-word chunks of technical text run to 250-400 tokens, so
# the cap bounds the cost. 192 tokens (about the first 120 words) was 1.33x faster than 256
# per CPU-second on a busy machine (only ~7 % on an idle one, where most corpus chunks fit
# in 256) and dense page recall did not drop (0.83 vs 0.82); 128 was 1.8x faster but dense
# recall fell to 0.72 (app/retrieval/README.md).
DEFAULT_MAX_SEQ_LENGTH = 192
# int8 (see _quantize) is 1.26x faster with cosine to fp32 0.991 mean / 0.986 min, but
# dynamic quantisation scales activations per call, so a text's vector depends on what it
# is batched with (0.971 cosine alone vs next to a long outlier): off by default.
DEFAULT_QUANTIZE = False
# "auto": bfloat16 matrix products where the CPU computes them natively (AVX512-BF16 or AMX),
# float32 elsewhere. On this machine's AVX512-BF16 cores, 640 real-corpus passages took 10.4 s
# against 19.2 s in float32 (1.85x), and every vector kept cosine >= 0.9999 to its float32 one
# (mean 0.99998). Weights stay float32 and only the products run in bfloat16 (torch.autocast),
# so unlike int8 a text's vector does not depend on what it is batched with, and vectors from
# both precisions mix in one library: the name does not change. Without native support the
# products would be emulated, slower than float32, so "auto" keeps float32 there.
PRECISIONS = ("auto", "float32", "bfloat16")
DEFAULT_PRECISION = "auto"
SMALL_INPUT = 2  # texts per call embedded on one thread (queries)


def _default_threads() -> int:
    """Physical cores are what matter for matrix maths; hyper-threads add little."""
    n = os.cpu_count() or 1
    with contextlib.suppress(AttributeError, OSError):
        n = len(os.sched_getaffinity(0))
    return max(1, n)


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (AVX512-BF16 or AMX tiles)."""
    import torch

    try:
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except (AttributeError, RuntimeError):  # a torch without these probes: assume not
        return False


class SentenceTransformerEmbedder:
    """Implements :class:`app.core.protocols.Embedder` with a local sentence-transformers folder.

    ``path`` None means the embedded default model. The folder is checked up front
    (cheap) so a bad choice in Settings fails with a clear message before any work;
    the weights load on first use of ``dim`` or ``embed``.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_seq_length: int | None = DEFAULT_MAX_SEQ_LENGTH,
        quantize: bool = DEFAULT_QUANTIZE,
        threads: int | None = None,
        precision: str = DEFAULT_PRECISION,
    ) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
        self.is_default = path is None
        self.path = Path(path).expanduser() if path is not None else default_embedder_path()
        _check_folder(self.path)
        self.batch_size = max(1, int(batch_size))
        self.max_seq_length = max_seq_length
        self.quantize = quantize
        self.threads = threads or _default_threads()
        self.precision = precision
        self.bfloat16 = False  # decided when the model loads (probing the CPU imports torch)
        base = DEFAULT_EMBEDDER_NAME if self.is_default else self.path.name
        # The name keys stored vectors: a different reading of the text (token cap,
        # int8 weights) gives different vectors, so it must give a different name.
        suffix = []
        if max_seq_length is not None and max_seq_length != NATIVE_MAX_SEQ_LENGTH:
            suffix.append(f"{max_seq_length} tokens")
        if quantize:
            suffix.append("int8")
        self.name = f"{base} [{', '.join(suffix)}]" if suffix else base
        self._model: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()

    # --- loading --------------------------------------------------------------------------

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:  # pragma: no cover - broken install
                raise ModelLoadError(
                    f"The embedding library could not be imported ({exc}).",
                    hint="Reinstall Footnote (make run).",
                ) from exc
            if torch.get_num_threads() != self.threads:
                torch.set_num_threads(self.threads)
            try:
                model = SentenceTransformer(
                    str(self.path),
                    device="cpu",
                    local_files_only=True,
                    # float32 whatever the file stores: a model saved in half precision (the
                    # installer's copy) would otherwise compute in float16, slowly, on a CPU
                    model_kwargs={"dtype": torch.float32},
                )
            except Exception as exc:
                raise ModelLoadError(
                    f"Cannot load the embedding model in {self.path}: {exc}",
                ) from exc
            model.eval()
            if self.max_seq_length is not None:
                model.max_seq_length = self.max_seq_length
            if self.quantize:
                model = _quantize(model)
            self.bfloat16 = not self.quantize and (
                self.precision == "bfloat16" or (self.precision == "auto" and native_bfloat16())
            )
            dim = model.get_embedding_dimension()
            if not dim:
                raise ModelLoadError(
                    f"The model in {self.path} does not say its embedding size.",
                )
            self._dim = int(dim)
            logger.info(
                "embedder %s loaded (dim %d, max_seq_length %s, %d threads, %s products)",
                self.name,
                self._dim,
                model.max_seq_length,
                self.threads,
                "bfloat16" if self.bfloat16 else "float32",
            )
            self._model = model
            return model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dim(self) -> int:
        self._load()
        assert self._dim is not None
        return self._dim

    # --- embedding ------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in the order given."""
        model = self._load()
        assert self._dim is not None
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        import torch

        # A query is a handful of tokens: splitting its tiny matrices over several
        # threads gains nothing and, on a busy machine (ingest or the chat model
        # running), OpenMP threads waiting for each other made it ~8x slower (measured).
        threads = 1 if len(texts) <= SMALL_INPUT else self.threads
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        bs = max(1, int(batch_size or self.batch_size))
        items = [t if t.strip() else " " for t in texts]
        # Longest first: every batch pads to near its own longest text, and the
        # largest (slowest) batch runs first so progress estimates err on the safe side.
        order = sorted(range(len(items)), key=lambda i: -len(items[i]))
        out = np.empty((len(items), self._dim), dtype=np.float32)
        products = (
            torch.autocast("cpu", dtype=torch.bfloat16)
            if self.bfloat16
            else contextlib.nullcontext()
        )
        with torch.inference_mode(), products:
            for start in range(0, len(order), bs):
                idx = order[start : start + bs]
                vecs = model.encode(
                    [items[i] for i in idx],
                    batch_size=bs,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
                out[idx] = vecs
        return out


def _check_folder(path: Path) -> None:
    """Fail early, in words a user understands, when ``path`` is not a usable model folder."""
    if not path.exists():
        raise ModelLoadError(f"The embedding model folder {path} does not exist.")
    if not path.is_dir():
        raise ModelLoadError(
            f"{path} is a file; an embedding model is a folder (sentence-transformers format)."
        )
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelLoadError(
            f"{path} is not a sentence-transformers model folder (no modules.json or config.json)."
        )
    config = path / "config.json"
    if config.is_file():
        try:
            json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelLoadError(
                f"The model configuration {config} is unreadable ({exc})."
            ) from exc


def _quantize(model: Any) -> Any:
    """Dynamic int8 weights (one scale per output channel) for the Linear layers that take it.

    Measured on this model against fp32 (60 manual chunks, 256 tokens): every Linear in
    int8 gives 1.32x speed but cosine only 0.979 mean / 0.965 min; keeping the feed-forward
    output projections (whose GELU inputs have outliers) in fp32 keeps 0.992 / 0.984 at
    1.28x. One scale per tensor instead of per channel drifts to ~0.91.
    """
    import warnings

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    names = {
        name
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and not _is_ffn_output(name)
    }
    # torch marks torch.ao.quantization deprecated in favour of the separate torchao package.
    # int8 is opt-in (benchmarks only), so this one known deprecation is allowed here rather
    # than adding torchao; it must move to torchao before torch removes the module.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "torch.ao.quantization is deprecated", DeprecationWarning)
        return quantize_dynamic(model, dict.fromkeys(names, per_channel_dynamic_qconfig))


def _is_ffn_output(name: str) -> bool:
    """BERT-style naming: ``...layer.N.output.dense`` (the attention one is ``attention.output``)."""
    return name.endswith("output.dense") and "attention" not in name
