"""What the server-backed embedders share: batching, dimension discovery, validation."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from jw_rag.embed._http import JsonPoster
from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError

__all__ = ["RemoteEmbedder"]

_PROBE_TEXT = "dimension probe"


class RemoteEmbedder:
    """Base of embedders that ask a server; subclasses implement ``_request``.

    ``dim`` comes from the constructor, else from a table of known models, else
    from the first answer (reading ``dim`` before any ``embed`` then costs one
    request). Once known it is enforced: an answer of another size is an error.
    """

    model_id: str
    _poster: JsonPoster

    def __init__(self, *, dim: int | None, known_dim: int | None, batch_size: int) -> None:
        if dim is not None and dim < 1:
            raise ConfigError(f"dim must be positive, got {dim}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._dim = dim if dim is not None else known_dim
        self.batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed([_PROBE_TEXT])
        assert self._dim is not None
        return self._dim

    def _request(self, texts: list[str]) -> Any:
        """The raw vectors the server returns for ``texts`` (one per text, in order)."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = as_texts(texts)
        if not items:
            return empty(self.dim)
        parts = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            raw = self._request(batch)
            with self._lock:
                vecs = normalise_rows(raw, len(batch), self._dim, self._source())
                if self._dim is None:
                    self._dim = int(vecs.shape[1])
            parts.append(vecs)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _source(self) -> str:
        return f"{self.model_id} at {self._poster.base_url}"

    def close(self) -> None:
        """Close the HTTP connection pool (it reopens on the next ``embed``)."""
        self._poster.close()
