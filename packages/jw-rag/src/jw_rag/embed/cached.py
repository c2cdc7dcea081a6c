"""An embedder wrapper that never embeds the same text twice with the same model."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.cache import EmbeddingCache
from jw_rag.embed.protocol import Embedder, QueryEmbedder, Vectors
from jw_rag.errors import EmbeddingError

__all__ = ["CachedEmbedder"]


class CachedEmbedder:
    """Answers from ``cache`` (default: :class:`EmbeddingCache` at its default path)
    and sends only the texts it has never seen to ``inner``, each once per call.

    ``hits`` counts texts answered from the cache, ``misses`` distinct texts sent to
    ``inner``; a text repeated within one call counts once. A cache that cannot be
    used (a full disk, a read-only file or folder, a file that is not a cache) is
    left alone from then on, with one warning: searches and ingests go on, only
    slower.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache | None = None) -> None:
        self.inner = inner
        self.cache = cache if cache is not None else EmbeddingCache()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._cache_off = False

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._answer(texts, self.inner.model_id, self.inner.embed)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors: ``inner.embed_queries`` (cached apart from passages, under
        ``<model_id>#query``) when the model embeds queries differently, else ``embed``."""
        if isinstance(self.inner, QueryEmbedder):
            return self._answer(texts, f"{self.inner.model_id}#query", self.inner.embed_queries)
        return self.embed(texts)

    def _answer(
        self, texts: Sequence[str], key: str, embed: Callable[[Sequence[str]], Vectors]
    ) -> Vectors:
        items = as_texts(texts)
        if not items:
            return empty(self.dim)
        first: dict[str, int] = {}
        for i, text in enumerate(items):
            first.setdefault(text, i)
        unique = list(first)
        cached = self._cached(key, unique)
        missing = [text for j, text in enumerate(unique) if j not in cached]
        by_text = {unique[j]: vec for j, vec in cached.items()}
        if missing:
            fresh = self._fresh(embed, missing)
            self._keep(key, missing, fresh)
            by_text.update(zip(missing, fresh, strict=True))
        with self._lock:
            self.hits += len(cached)
            self.misses += len(missing)
        dims = {vec.shape[0] for vec in by_text.values()}
        if len(dims) != 1:
            # the cache holds vectors of another size under this model id: trust the model
            by_text = dict(zip(unique, self._fresh(embed, unique), strict=True))
        return np.stack([by_text[text] for text in items]).astype(np.float32, copy=False)

    def _cached(self, key: str, texts: list[str]) -> dict[int, Vectors]:
        if self._cache_off:
            return {}
        try:
            return self.cache.get_many(key, texts)
        except EmbeddingError as exc:
            self._turn_off(exc)
            return {}

    def _keep(self, key: str, texts: list[str], vectors: Vectors) -> None:
        if self._cache_off:
            return
        try:
            self.cache.put_many(key, texts, vectors)
        except EmbeddingError as exc:
            self._turn_off(exc)

    def _turn_off(self, exc: EmbeddingError) -> None:
        """A cache that cannot be used (full disk, read-only, not a cache) costs
        embedding time, never the search or ingest: warn once, go on without it."""
        with self._lock:
            if self._cache_off:
                return
            self._cache_off = True
        warnings.warn(f"{exc}; embedding without the cache for now", RuntimeWarning, stacklevel=5)

    def _fresh(self, embed: Callable[[Sequence[str]], Vectors], texts: list[str]) -> Vectors:
        return normalise_rows(embed(texts), len(texts), None, self.inner.model_id)

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, {self.cache!r})"
