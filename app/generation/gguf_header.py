"""Read what a person needs to pick a model from a GGUF file's header, without loading it.

Why our own reader: listing the models on a machine must take milliseconds per file and must
not load gigabytes; llama-cpp-python only reads a file by loading it. The GGUF header is a
magic, a version, counts and typed key/value pairs (spec: ggml's docs/gguf.md); we read the
keys we show (name, architecture, size label, quantisation, context length) and skip the rest.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

logger = logging.getLogger(__name__)

MAGIC = b"GGUF"

# GGUF value types -> struct format of a scalar (strings and arrays handled apart).
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
            11: "<q", 12: "<d"}  # fmt: skip
_STRING, _ARRAY = 8, 9

# general.file_type (llama.cpp's llama_ftype) -> the quantisation people know from file names.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
}  # fmt: skip

_MAX_STRING = 1 << 20  # a longer key or value means a corrupt file, not a real header
_MAX_KV = 1 << 16


class NotGGUFError(ValueError):
    """The file is not a readable GGUF model (wrong magic, version or a cut header)."""


@dataclass(frozen=True)
class GGUFInfo:
    """What the header says about a model file."""

    path: Path
    version: int
    name: str  # general.name, else the file name without .gguf
    architecture: str  # e.g. "llama"
    quantization: str  # e.g. "Q4_K_M" ("" when the header does not say)
    size_label: str  # e.g. "7B" ("" when the header does not say)
    context_length: int | None
    file_size: int  # bytes

    @property
    def summary(self) -> str:
        """One line for a list: 'Llama 3 8B Instruct · Q4_K_M · 4.9 GB'."""
        parts = [self.name]
        if self.size_label and self.size_label.lower() not in self.name.lower():
            parts.append(self.size_label)
        if self.quantization:
            parts.append(self.quantization)
        parts.append(human_size(self.file_size))
        return " · ".join(parts)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit in ("B", "KB") else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


class _Reader:
    def __init__(self, f: BinaryIO, version: int) -> None:
        self.f = f
        self.version = version

    def take(self, n: int) -> bytes:
        data = self.f.read(n)
        if len(data) != n:
            raise NotGGUFError("the GGUF header is cut short")
        return data

    def scalar(self, fmt: str) -> object:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def count(self) -> int:
        return int(self.scalar("<Q" if self.version >= 2 else "<I"))  # type: ignore[call-overload]

    def string(self) -> str:
        n = self.count()
        if n > _MAX_STRING:
            raise NotGGUFError("a GGUF header string is implausibly long")
        return self.take(n).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        n = self.count()
        if n > _MAX_STRING:
            raise NotGGUFError("a GGUF header string is implausibly long")
        self.f.seek(n, 1)

    def value(self, vtype: int, *, keep: bool) -> object:
        if vtype in _SCALARS:
            return self.scalar(_SCALARS[vtype])
        if vtype == _STRING:
            if keep:
                return self.string()
            self.skip_string()
            return None
        if vtype == _ARRAY:
            item_type = int(self.scalar("<I"))  # type: ignore[call-overload]
            n = self.count()
            if item_type in _SCALARS:
                self.f.seek(n * struct.calcsize(_SCALARS[item_type]), 1)
            else:
                for _ in range(n):
                    self.value(item_type, keep=False)
            return None
        raise NotGGUFError(f"unknown GGUF value type {vtype}")


def read_gguf(path: Path | str) -> GGUFInfo:
    """Header facts of a GGUF file; :class:`NotGGUFError` when it is not one."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            return _read(f, path, size)
    except OSError as exc:
        raise NotGGUFError(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    except struct.error as exc:
        raise NotGGUFError(f"{path.name} has a damaged GGUF header") from exc


def _read(f: BinaryIO, path: Path, size: int) -> GGUFInfo:
    if f.read(4) != MAGIC:
        raise NotGGUFError(f"{path.name} is not a GGUF model file")
    version = struct.unpack("<I", f.read(4) or b"\0\0\0\0")[0]
    if version not in (1, 2, 3):
        raise NotGGUFError(f"{path.name} has an unsupported GGUF version ({version})")
    r = _Reader(f, version)
    r.count()  # tensors
    n_kv = r.count()
    if n_kv > _MAX_KV:
        raise NotGGUFError(f"{path.name} has a damaged GGUF header")
    meta: dict[str, object] = {}
    for _ in range(n_kv):
        key = r.string()
        vtype = int(r.scalar("<I"))  # type: ignore[call-overload]
        if key.startswith("tokenizer.") and "general.architecture" in meta:
            break  # the vocabulary is the bulk of a header; what we show comes before it
        meta[key] = r.value(vtype, keep=not key.startswith("tokenizer."))
    arch = str(meta.get("general.architecture") or "")
    ftype = meta.get("general.file_type")
    ctx = meta.get(f"{arch}.context_length") if arch else None
    name = str(meta.get("general.name") or "").strip() or path.name.removesuffix(".gguf")
    return GGUFInfo(
        path=path,
        version=version,
        name=name,
        architecture=arch,
        quantization=FILE_TYPES.get(int(ftype), "") if isinstance(ftype, int) else "",
        size_label=str(meta.get("general.size_label") or ""),
        context_length=int(ctx) if isinstance(ctx, int) else None,
        file_size=size,
    )


def is_gguf(path: Path | str) -> bool:
    """True when ``path`` starts with the GGUF magic (a cheap check for file pickers)."""
    try:
        with Path(path).open("rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False
