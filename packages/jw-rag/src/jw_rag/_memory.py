"""Giving memory back between the steps of a big ingest.

A parsed page's tree (lxml) and a chunker's working lists are freed before
the next step, but glibc's allocator keeps most of what they held inside the
process's heap, where Python's own object arenas (allocated apart from it)
never reuse it: a 29 MiB EPUB chapter left about 320 MB resident after its
tree was gone. :func:`give_back` asks the allocator to return free heap pages
to the system (``malloc_trim``) after collecting unreachable cycles (a book
read by ebooklib is one). Elsewhere than glibc it only collects.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from functools import cache
from typing import Any

__all__ = ["give_back"]


@cache
def _trim() -> Any:
    """glibc's ``malloc_trim``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:  # the allocator this process uses: its own symbols (no ldconfig run to find a libc)
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # musl and others: nothing to call
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def give_back() -> bool:
    """Collect unreachable cycles and return free heap pages to the system;
    True when the allocator could be asked (glibc)."""
    gc.collect()
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
