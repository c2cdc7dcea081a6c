"""Validation of the size options every chunker with a character budget shares."""

from __future__ import annotations

from jw_rag.chunkers._options import whole
from jw_rag.errors import ConfigError

__all__ = ["check_sizes"]


def check_sizes(max_chars: object, min_chars: object) -> tuple[int, int]:
    """``(max_chars, min_chars)`` when both are whole numbers, ``max_chars`` at
    least 1 and ``min_chars`` in ``[0, max_chars]``; else a one-line ConfigError."""
    top = whole("max_chars", max_chars, low=1)
    bottom = whole("min_chars", min_chars)
    if bottom > top:
        raise ConfigError(f"min_chars must be between 0 and max_chars ({top}), got {bottom}")
    return top, bottom
