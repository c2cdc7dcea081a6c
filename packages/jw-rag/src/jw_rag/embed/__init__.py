"""Embedders (text to L2-normalised float32 vectors) and the embedding cache.

``get_embedder(name)`` builds one from a name (see :mod:`jw_rag.embed.registry`);
every backend class is importable from here too. Importing this package loads no
model and opens no connection; optional backends import their libraries on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jw_rag.embed.cache import EmbeddingCache
    from jw_rag.embed.cached import CachedEmbedder
    from jw_rag.embed.e5 import E5Embedder
    from jw_rag.embed.fake import FakeEmbedder
    from jw_rag.embed.ollama import OllamaEmbedder
    from jw_rag.embed.openai_compat import OpenAIEmbedder
    from jw_rag.embed.protocol import Embedder, QueryEmbedder, Vectors, embed_queries
    from jw_rag.embed.registry import available_embedders, get_embedder
    from jw_rag.embed.sentence_transformer import SentenceTransformerEmbedder
    from jw_rag.embed.use import USEEmbedder

# Each public name and the submodule that defines it; loaded on first access so that
# importing jw_rag.embed (or a module that needs only its protocol) stays cheap.
_WHERE = {
    "CachedEmbedder": "cached",
    "E5Embedder": "e5",
    "Embedder": "protocol",
    "EmbeddingCache": "cache",
    "FakeEmbedder": "fake",
    "OllamaEmbedder": "ollama",
    "OpenAIEmbedder": "openai_compat",
    "QueryEmbedder": "protocol",
    "SentenceTransformerEmbedder": "sentence_transformer",
    "USEEmbedder": "use",
    "Vectors": "protocol",
    "available_embedders": "registry",
    "embed_queries": "protocol",
    "get_embedder": "registry",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'jw_rag.embed' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"jw_rag.embed.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "CachedEmbedder",
    "E5Embedder",
    "Embedder",
    "EmbeddingCache",
    "FakeEmbedder",
    "OllamaEmbedder",
    "OpenAIEmbedder",
    "QueryEmbedder",
    "SentenceTransformerEmbedder",
    "USEEmbedder",
    "Vectors",
    "available_embedders",
    "embed_queries",
    "get_embedder",
]
