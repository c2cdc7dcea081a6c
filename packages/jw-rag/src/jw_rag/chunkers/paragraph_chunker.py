"""The stable paragraph chunker: one chunk per paragraph, short ones merged.

``chunk_paragraphs`` is public API whose output is frozen by golden files:
its behaviour never changes. New behaviour goes into other chunkers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jw_rag.chunkers._pieces import (
    Piece,
    as_pieces,
    build_raw_chunks,
    paragraph_texts,
    resolve_text_language,
)
from jw_rag.chunkers._sizes import check_sizes
from jw_rag.chunkers._spans import paragraph_spans
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
    max_chars, min_chars = check_sizes(max_chars, min_chars)
    texts, paras = paragraph_texts(paragraphs)
    language = resolve_text_language(texts, paras, metadata)
    pieces = paragraph_spans(texts, max_chars=max_chars, min_chars=min_chars, language=language)
    return build_raw_chunks(
        texts,
        paras,
        pieces,
        source_id,
        chunker="paragraph",
        version=VERSION,
        language=language,
        metadata=metadata,
    )


class ParagraphChunker:
    """:func:`chunk_paragraphs` behind the :class:`~jw_rag.chunkers.Chunker` protocol."""

    name = "paragraph"
    version = VERSION

    def __init__(self, *, max_chars: int = 1500, min_chars: int = 80) -> None:
        max_chars, min_chars = check_sizes(max_chars, min_chars)
        self.max_chars = max_chars
        self.min_chars = min_chars

    def params(self) -> dict[str, Any]:
        """The options that shape the chunks (see :class:`~jw_rag.chunkers.Chunker`)."""
        return {"max_chars": self.max_chars, "min_chars": self.min_chars}

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        return chunk_paragraphs(
            paragraphs,
            source_id,
            max_chars=self.max_chars,
            min_chars=self.min_chars,
            metadata=metadata,
        )

    def __repr__(self) -> str:
        return f"ParagraphChunker(max_chars={self.max_chars}, min_chars={self.min_chars})"
