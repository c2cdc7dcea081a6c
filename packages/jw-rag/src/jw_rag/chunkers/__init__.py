"""Chunkers: one module per strategy, a protocol, a registry, markers and fakes.

>>> from jw_rag.chunkers import get_chunker
>>> chunker = get_chunker("semantic")          # or $JW_CHUNKER, else "paragraph"
>>> chunks = chunker.chunk(["Premise ...", "However, ..."], "doc-1")
"""

from jw_rag.chunkers.markers import MarkerSet, load_markers, marker_languages
from jw_rag.chunkers.paragraph_chunker import ParagraphChunker, chunk_paragraphs
from jw_rag.chunkers.protocol import Chunker
from jw_rag.chunkers.registry import available_chunkers, get_chunker, register_chunker
from jw_rag.chunkers.semantic_chunker import SemanticChunker
from jw_rag.model import Chunk, Paragraph

register_chunker("paragraph", ParagraphChunker)
register_chunker("semantic", SemanticChunker)

__all__ = [
    "Chunk",
    "Chunker",
    "MarkerSet",
    "Paragraph",
    "ParagraphChunker",
    "SemanticChunker",
    "available_chunkers",
    "chunk_paragraphs",
    "get_chunker",
    "load_markers",
    "marker_languages",
    "register_chunker",
]
