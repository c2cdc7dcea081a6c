"""jw_rag: chunking, embeddings, stores and retrieval for jw-agent-toolkit."""

from jw_rag.chunkers import Chunker, available_chunkers, get_chunker, register_chunker
from jw_rag.chunkers.paragraph_chunker import chunk_paragraphs
from jw_rag.errors import ConfigError, IngestError, JwRagError
from jw_rag.model import Chunk, Document, Paragraph, Span, rebuild_text

__all__ = [
    "Chunk",
    "Chunker",
    "ConfigError",
    "Document",
    "IngestError",
    "JwRagError",
    "Paragraph",
    "Span",
    "available_chunkers",
    "chunk_paragraphs",
    "get_chunker",
    "rebuild_text",
    "register_chunker",
]
