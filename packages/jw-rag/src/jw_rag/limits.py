"""The one upper bound every size option shares.

A chunker's character or sentence count, a retrieval unit's passage, split
or group size, and a benchmark peer's chunk size all take whole numbers up
to :data:`MAX_SIZE`: far above any source's length (so it means "never
split" where a size is a threshold), and short enough to print in a chunker
spec or a unit rules' identity. Larger values are refused in one line before
any work starts (Python's own digit limit, 4,300 digits, would otherwise be
the first to complain).
"""

from __future__ import annotations

__all__ = ["MAX_SIZE"]

#: The largest size option, in characters (or sentences for a sentence count).
MAX_SIZE = 1_000_000_000
