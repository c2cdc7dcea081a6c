"""Input checks and the L2 normalisation every embedder applies to its output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError, EmbeddingError

__all__ = ["as_texts", "empty", "normalise_rows"]


def as_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list of strings; a bare string or a non-string item is rejected."""
    if isinstance(texts, str | bytes):
        raise ConfigError("embed() takes a list of strings, not a single string: wrap it in [...]")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ConfigError(
                f"embed() got a {type(text).__name__} at position {i}: pass strings only"
            )
    return out


def empty(dim: int) -> Vectors:
    """The ``(0, dim)`` answer to an empty input."""
    return np.zeros((0, dim), dtype=np.float32)


def normalise_rows(raw: object, n: int, dim: int | None, source: str) -> Vectors:
    """Check that ``raw`` is ``n`` finite vectors (of ``dim`` values when given) and
    return them as float32 rows of unit length.

    ``source`` names where the vectors came from, for the error message.
    """
    try:
        arr = np.asarray(raw, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(f"{source} returned vectors that are not numbers: {exc}") from exc
    if arr.ndim != 2 or arr.shape[0] != n:
        raise EmbeddingError(
            f"{source} returned an array of shape {arr.shape} for {n} texts; "
            f"expected ({n}, {dim if dim is not None else 'dim'})"
        )
    if dim is not None and arr.shape[1] != dim:
        raise EmbeddingError(
            f"{source} returned {arr.shape[1]}-dimensional vectors, expected {dim}; "
            f"pass dim={arr.shape[1]} if the model really has that size"
        )
    if not np.isfinite(arr).all():
        raise EmbeddingError(f"{source} returned vectors containing NaN or infinity")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if n and (norms == 0).any():
        bad = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise EmbeddingError(f"{source} returned an all-zero vector for text {bad}")
    out = arr / norms
    return np.ascontiguousarray(out, dtype=np.float32)
