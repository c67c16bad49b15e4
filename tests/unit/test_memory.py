"""app.core.memory: the malloc arena cap, checked in a fresh process by counting glibc's heaps."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = [
    pytest.mark.unit,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only"),
]

# Eight threads that each allocate, then glibc's own report of its heaps (malloc_info).
PROBE = r"""
import ctypes, os, sys, tempfile, threading
sys.path.insert(0, os.getcwd())
from app.core import memory
capped = memory.limit_malloc_arenas() if sys.argv[1] == "cap" else False
barrier = threading.Barrier(8)
def work():
    barrier.wait()
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    for _ in range(200):
        libc.free(libc.malloc(200_000 if _ % 2 else 64))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
path = tempfile.mktemp()
f = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, f)
libc.fclose(f)
print(capped, open(path).read().count("<heap nr="))
"""


def _heaps(mode: str) -> tuple[str, int]:
    env = {k: v for k, v in __import__("os").environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    return out[0], int(out[1])


def test_the_cap_keeps_eight_allocating_threads_in_two_arenas() -> None:
    capped, heaps = _heaps("cap")
    if capped == "False":
        pytest.skip("this C library has no mallopt (not glibc)")
    assert heaps <= 2
    assert _heaps("free")[1] > 2  # the same threads without the cap spread over more


def test_a_users_own_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core import memory

    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.limit_malloc_arenas() is False
