"""The embedder protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "QueryEmbedder", "Vectors", "embed_queries"]

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of shape ``(len(texts), dim)``.

    ``model_id`` names the model exactly (it keys the embedding cache), e.g.
    ``"use-multilingual-v3"`` or ``"st:paraphrase-multilingual-MiniLM-L12-v2"``.
    Construction never loads a model or touches the network; the first
    ``embed`` call may.
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder whose model embeds search queries differently from passages
    (e5's ``query:`` / ``passage:`` prefixes): ``embed`` is for passages, the
    text that is stored, and ``embed_queries`` for what a user searches with.
    """

    def embed_queries(self, texts: Sequence[str]) -> Vectors: ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Vectors of search queries: ``embedder.embed_queries`` when the model
    distinguishes queries from passages, else ``embedder.embed``."""
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_queries(texts)
    return embedder.embed(texts)
