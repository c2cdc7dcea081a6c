"""Façade: the stable chunking API.

``chunk_paragraphs`` and ``Chunk`` keep their names and behaviour here for
good; everything else lives in :mod:`jw_rag.chunkers`.
"""

from jw_rag.chunkers import Chunker, get_chunker
from jw_rag.chunkers.paragraph_chunker import chunk_paragraphs
from jw_rag.model import Chunk, Paragraph

__all__ = ["Chunk", "Chunker", "Paragraph", "chunk_paragraphs", "get_chunker"]
