"""The stable paragraph chunker: one chunk per paragraph, short ones merged.

``chunk_paragraphs`` is public API whose output is frozen by golden files:
its behaviour never changes. New behaviour goes into other chunkers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jw_core import ends_sentence
from jw_rag.chunkers._pieces import (
    Piece,
    RawPiece,
    as_pieces,
    build_raw_chunks,
    paragraph_texts,
    resolve_text_language,
    split_long,
)
from jw_rag.model import PARAGRAPH_SEPARATOR, Chunk, Paragraph, ParagraphInput

__all__ = ["ParagraphChunker", "chunk_paragraphs", "paragraph_pieces", "paragraph_spans"]

VERSION = "1"
_SEP = len(PARAGRAPH_SEPARATOR)


def _check_sizes(max_chars: int, min_chars: int) -> None:
    if max_chars < 1:
        raise ValueError(f"max_chars must be >= 1, got {max_chars}")
    if not 0 <= min_chars <= max_chars:
        raise ValueError(
            f"min_chars must be between 0 and max_chars ({max_chars}), got {min_chars}"
        )


def paragraph_pieces(
    paras: list[Paragraph], *, max_chars: int, min_chars: int, language: str | None = None
) -> list[Piece]:
    """The spans ``chunk_paragraphs`` produces (shared by fallbacks of other chunkers)."""
    return as_pieces(
        paragraph_spans(
            [p.text for p in paras], max_chars=max_chars, min_chars=min_chars, language=language
        )
    )


_SINGLE: Mapping[str, Any] = {"merge_reason": None}
_MERGED: Mapping[str, Any] = {"merge_reason": "short_paragraph"}


def paragraph_spans(
    texts: Sequence[str],
    *,
    max_chars: int,
    min_chars: int,
    language: str | None = None,
    single: Mapping[str, Any] = _SINGLE,
    merged: Mapping[str, Any] = _MERGED,
) -> list[RawPiece]:
    """:func:`paragraph_pieces` over plain texts, as raw pieces whose extra is
    ``merged`` for several paragraphs merged, else ``single`` (both shared)."""
    pieces: list[RawPiece] = []
    append = pieces.append
    sp = sc = ep = ec = 0
    open_ = False
    length = count = 0
    for i, text in enumerate(texts):
        stripped = text.strip()
        if not stripped:
            continue
        lo = text.find(stripped[0])
        size = len(stripped)
        hi = lo + size
        if size > max_chars:
            if open_:
                append((sp, sc, ep, ec, merged if count > 1 else single))
                open_ = False
            for a, b in split_long(text, lo, hi, max_chars, language):
                append((i, a, i, b, single))
            continue
        if open_ and length + _SEP + size > max_chars:
            append((sp, sc, ep, ec, merged if count > 1 else single))
            open_ = False
        if open_:
            length += _SEP + size
            count += 1
        else:
            open_, sp, sc, length, count = True, i, lo, size, 1
        ep, ec = i, hi
        if length >= min_chars and ends_sentence(stripped[-8:]):
            append((sp, sc, ep, ec, merged if count > 1 else single))
            open_ = False
    if open_:
        append((sp, sc, ep, ec, merged if count > 1 else single))
    return pieces


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
    _check_sizes(max_chars, min_chars)
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
        _check_sizes(max_chars, min_chars)
        self.max_chars = max_chars
        self.min_chars = min_chars

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
