"""The stable paragraph chunker: one chunk per paragraph, short ones merged.

``chunk_paragraphs`` is public API whose output is frozen by golden files:
its behaviour never changes. New behaviour goes into other chunkers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jw_rag.chunkers._pieces import Piece, RawPiece, as_pieces
from jw_rag.chunkers._spans import paragraph_spans
from jw_rag.chunkers.base import ChunkerBase, ChunkInput, check_sizes
from jw_rag.model import Chunk, Paragraph, ParagraphInput

__all__ = ["ParagraphChunker", "chunk_paragraphs", "paragraph_pieces", "paragraph_spans"]

VERSION = "1"


def paragraph_pieces(
    paras: list[Paragraph], *, max_chars: int, min_chars: int, language: str | None = None
) -> list[Piece]:
    """The spans ``chunk_paragraphs`` produces (shared by fallbacks of other chunkers)."""
    return as_pieces(
        paragraph_spans(
            [p.text for p in paras], max_chars=max_chars, min_chars=min_chars, language=language
        )
    )


def chunk_paragraphs(
    paragraphs: ParagraphInput,
    source_id: str,
    *,
    max_chars: int = 1500,
    min_chars: int = 80,
    metadata: Mapping[str, Any] | None = None,
) -> list[Chunk]:
    """One chunk per paragraph; paragraphs shorter than ``min_chars`` (or not
    ending a sentence) merge with the next until both hold; a chunk never
    exceeds ``max_chars``; an over-long paragraph is split at sentence
    boundaries (never mid-word)."""
    chunker = ParagraphChunker(max_chars=max_chars, min_chars=min_chars)
    return chunker.chunk(paragraphs, source_id, metadata=metadata)


class ParagraphChunker(ChunkerBase):
    """:func:`chunk_paragraphs` behind the :class:`~jw_rag.chunkers.Chunker` protocol."""

    name = "paragraph"
    version = VERSION
    options = ("max_chars", "min_chars")

    def __init__(self, *, max_chars: int = 1500, min_chars: int = 80) -> None:
        self.max_chars, self.min_chars = check_sizes(max_chars, min_chars)

    def _pieces_for(self, doc: ChunkInput) -> list[RawPiece]:
        return paragraph_spans(
            doc.texts, max_chars=self.max_chars, min_chars=self.min_chars, language=doc.language
        )
