"""Embedders (text to L2-normalised float32 vectors) and the embedding cache.

``get_embedder(name)`` builds one from a name (see :mod:`jw_rag.embed.registry`);
every backend class is importable from here too. Importing this package loads no
model and opens no connection; optional backends import their libraries on first use.
"""

from jw_rag.embed.cache import EmbeddingCache
from jw_rag.embed.cached import CachedEmbedder
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.embed.ollama import OllamaEmbedder
from jw_rag.embed.openai_compat import OpenAIEmbedder
from jw_rag.embed.protocol import Embedder, Vectors
from jw_rag.embed.registry import available_embedders, get_embedder
from jw_rag.embed.sentence_transformer import SentenceTransformerEmbedder
from jw_rag.embed.use import USEEmbedder

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCache",
    "FakeEmbedder",
    "OllamaEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "USEEmbedder",
    "Vectors",
    "available_embedders",
    "get_embedder",
]
