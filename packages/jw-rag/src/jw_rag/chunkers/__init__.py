"""Chunkers: one module per strategy, a protocol, a registry, markers and fakes.

>>> from jw_rag.chunkers import get_chunker
>>> chunker = get_chunker("semantic")          # or $JW_CHUNKER, else "paragraph"
>>> chunker = get_chunker("semantic:target_chars=800")   # a spec: name:key=value,...
>>> chunks = chunker.chunk(["Premise ...", "However, ..."], "doc-1")
"""

from importlib import import_module
from typing import Any

from jw_rag.chunkers.base import ChunkerBase
from jw_rag.chunkers.embedding_chunker import EmbeddingChunker
from jw_rag.chunkers.markers import MarkerSet, load_markers, marker_languages
from jw_rag.chunkers.page_chunker import PageChunker
from jw_rag.chunkers.paragraph_chunker import ParagraphChunker, chunk_paragraphs
from jw_rag.chunkers.parent_child import ParentChildChunker
from jw_rag.chunkers.protocol import Chunker
from jw_rag.chunkers.registry import (
    available_chunkers,
    get_chunker,
    parse_chunker_spec,
    register_chunker,
    split_chunker_specs,
    text_parameters,
)
from jw_rag.chunkers.semantic_chunker import SemanticChunker
from jw_rag.chunkers.structure_chunker import StructureChunker
from jw_rag.model import Chunk, Paragraph


class _LLMFactory:
    """Builds an LLMChunker, importing its module only when one is built."""

    def __call__(self, **kwargs: Any) -> Chunker:
        return self._class()(**kwargs)

    @property
    def text_options(self) -> frozenset[str]:
        """The LLM chunker's options that take text (``model``, ``markers_path``...)."""
        return text_parameters(self._class())

    @staticmethod
    def _class() -> Any:
        return import_module("jw_rag.chunkers.llm_chunker").LLMChunker


register_chunker("paragraph", ParagraphChunker)
register_chunker("semantic", SemanticChunker)
register_chunker("llm", _LLMFactory())
register_chunker("structure", StructureChunker)
register_chunker("page", PageChunker)
register_chunker("embedding", EmbeddingChunker)
register_chunker("parent-child", ParentChildChunker)

__all__ = [
    "Chunk",
    "Chunker",
    "ChunkerBase",
    "EmbeddingChunker",
    "MarkerSet",
    "PageChunker",
    "Paragraph",
    "ParagraphChunker",
    "ParentChildChunker",
    "SemanticChunker",
    "StructureChunker",
    "available_chunkers",
    "chunk_paragraphs",
    "get_chunker",
    "load_markers",
    "marker_languages",
    "parse_chunker_spec",
    "split_chunker_specs",
    "register_chunker",
]
