"""Small GGUF files for tests: a real header (magic, version, counts, typed key/values), no tensors.

Written by hand from the GGUF spec (ggml docs/gguf.md) so the reader is tested against the
format, not against itself.
"""

from __future__ import annotations

import struct
from pathlib import Path

UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64 = 4, 5, 6, 7, 8, 9, 10


def _str(s: str, version: int) -> bytes:
    data = s.encode()
    return struct.pack("<Q" if version >= 2 else "<I", len(data)) + data


def _value(v: object, version: int) -> tuple[int, bytes]:
    if isinstance(v, bool):
        return BOOL, struct.pack("<?", v)
    if isinstance(v, int):
        return UINT32, struct.pack("<I", v)
    if isinstance(v, float):
        return FLOAT32, struct.pack("<f", v)
    if isinstance(v, str):
        return STRING, _str(v, version)
    if isinstance(v, list):
        count = struct.pack("<Q" if version >= 2 else "<I", len(v))
        if all(isinstance(x, str) for x in v):
            return ARRAY, struct.pack("<I", STRING) + count + b"".join(_str(x, version) for x in v)
        return ARRAY, struct.pack("<I", INT32) + count + b"".join(struct.pack("<i", x) for x in v)
    raise TypeError(v)


def write_gguf(path: Path, meta: dict[str, object], *, version: int = 3, pad: int = 0) -> Path:
    """A GGUF header with ``meta`` (ints as uint32, lists as arrays), then ``pad`` zero bytes."""
    n = "<Q" if version >= 2 else "<I"
    out = bytearray(b"GGUF" + struct.pack("<I", version) + struct.pack(n, 0))
    out += struct.pack(n, len(meta))
    for key, value in meta.items():
        vtype, payload = _value(value, version)
        out += _str(key, version) + struct.pack("<I", vtype) + payload
    out += bytes(pad)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def llama_meta(name: str = "Tiny Llama", ftype: int = 15, ctx: int = 4096) -> dict[str, object]:
    return {
        "general.architecture": "llama",
        "general.name": name,
        "general.size_label": "1B",
        "general.file_type": ftype,
        "llama.context_length": ctx,
        "llama.rope.freq_base": 10000.0,
        "llama.some_list": [1, 2, 3],
        "tokenizer.ggml.tokens": ["<s>", "</s>", "hello", "world"],
        "tokenizer.ggml.model": "llama",
    }
