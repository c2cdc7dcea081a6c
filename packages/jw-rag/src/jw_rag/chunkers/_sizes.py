"""Validation of the size options the structure, page and embedding chunkers share."""

from __future__ import annotations

from jw_rag.errors import ConfigError

__all__ = ["check_sizes"]


def check_sizes(max_chars: int, min_chars: int) -> None:
    """Reject a ``max_chars`` below 1 or a ``min_chars`` outside ``[0, max_chars]``."""
    if max_chars < 1:
        raise ConfigError(f"max_chars must be >= 1, got {max_chars}")
    if not 0 <= min_chars <= max_chars:
        raise ConfigError(
            f"min_chars must be between 0 and max_chars ({max_chars}), got {min_chars}"
        )
