"""How the process allocates: fewer malloc arenas, so a long ingest does not creep up.

glibc gives every thread that allocates its own arena (up to 8 per core) and returns freed
memory from them reluctantly. Ingestion allocates from many threads (two embedding streams,
the one embedding ahead, LanceDB's and the BM25 worker's), so the freed tensors and Arrow
buffers of each stay mapped in its own arena: a whole-corpus ingest crept from 0.9 to 1.54 GB
peak RSS. Two arenas kept the same run at ~1.3 GB in the same time (1 arena: 1.30 GB peak,
83.1 -> 85.9 s, one run each, idle 2-core machine, 2026-11-27).
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

logger = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter number
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` for this process (call before threads start).

    True when the cap was set. Nothing is done where it does not apply (not Linux, a C
    library without ``mallopt`` such as musl) or when the user set ``MALLOC_ARENA_MAX``
    themselves, which glibc reads at start-up and which wins.
    """
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(M_ARENA_MAX, arenas))
    logger.debug("malloc arenas capped at %d: %s", arenas, done)
    return done
