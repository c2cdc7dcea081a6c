"""Deterministic fake chunkers for tests of code that consumes chunkers.

Each fake has the real chunker's ``name`` (prefixed ``fake-``), needs no data
files, detects nothing, and gives output that is easy to predict: it still
sets the full provenance metadata, so consumers can rely on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jw_rag.chunkers._options import whole
from jw_rag.chunkers._pieces import Piece, RawPiece
from jw_rag.chunkers.base import ChunkerBase, ChunkInput
from jw_rag.model import Chunk, Paragraph, ParagraphInput, Span, content_bounds

__all__ = ["FakeChunker", "FakeParagraphChunker", "FakeSemanticChunker"]


class FakeChunker(ChunkerBase):
    """Groups every ``group`` non-blank paragraphs into one chunk, whole."""

    version = "fake-1"
    options = ("group", "language")

    def __init__(self, name: str = "fake", *, group: int = 1, language: str = "en") -> None:
        self.name = name
        self.group = whole("group", group, low=1)
        self.language = language
        self.calls: list[str] = []

    def _read(
        self, paragraphs: ParagraphInput, source_id: str, metadata: Mapping[str, Any] | None
    ) -> ChunkInput:
        self.calls.append(source_id)
        return super()._read(paragraphs, source_id, metadata)

    def _language(
        self, texts: list[str], given: list[Paragraph] | None, metadata: Mapping[str, Any] | None
    ) -> str | None:
        """``metadata["language"]`` as given, else this fake's language: no detection."""
        return (metadata or {}).get("language") or self.language

    def _pieces_for(self, doc: ChunkInput) -> list[Piece]:
        paras = doc.paragraphs
        nonblank = [i for i, p in enumerate(paras) if p.text.strip()]
        pieces = []
        for k in range(0, len(nonblank), self.group):
            first, last = nonblank[k], nonblank[min(k + self.group, len(nonblank)) - 1]
            lo, _ = content_bounds(paras[first].text)
            _, hi = content_bounds(paras[last].text)
            reason = "short_paragraph" if last != first else None
            pieces.append(Piece(Span(first, lo, last, hi), {"merge_reason": reason}))
        return pieces


class FakeParagraphChunker(FakeChunker):
    """One chunk per non-blank paragraph."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("fake-paragraph", group=1, **kwargs)


class FakeSemanticChunker(FakeChunker):
    """Pairs of paragraphs, as if every second one continued the first."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("fake-semantic", group=2, **kwargs)

    def _build(self, doc: ChunkInput, pieces: Sequence[Piece] | Sequence[RawPiece]) -> list[Chunk]:
        chunks = super()._build(doc, pieces)
        for c in chunks:
            if c.metadata["merge_reason"]:
                c.metadata["merge_reason"] = "continuation_marker"
        return chunks
