"""Deterministic fake chunkers for tests of code that consumes chunkers.

Each fake has the real chunker's ``name`` (prefixed ``fake-``), needs no data
files, detects nothing, and gives output that is easy to predict: it still
sets the full provenance metadata, so consumers can rely on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jw_rag.chunkers._pieces import Piece, build_chunks
from jw_rag.model import Chunk, ParagraphInput, Span, as_paragraphs, content_bounds

__all__ = ["FakeChunker", "FakeParagraphChunker", "FakeSemanticChunker"]


class FakeChunker:
    """Groups every ``group`` non-blank paragraphs into one chunk, whole."""

    version = "fake-1"

    def __init__(self, name: str = "fake", *, group: int = 1, language: str = "en") -> None:
        if group < 1:
            raise ValueError(f"group must be >= 1, got {group}")
        self.name = name
        self.group = group
        self.language = language
        self.calls: list[str] = []

    def params(self) -> dict[str, Any]:
        """The options that shape the chunks (see :class:`~jw_rag.chunkers.Chunker`)."""
        return {"group": self.group, "language": self.language}

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        self.calls.append(source_id)
        paras = as_paragraphs(paragraphs)
        nonblank = [i for i, p in enumerate(paras) if p.text.strip()]
        pieces = []
        for k in range(0, len(nonblank), self.group):
            first, last = nonblank[k], nonblank[min(k + self.group, len(nonblank)) - 1]
            lo, _ = content_bounds(paras[first].text)
            _, hi = content_bounds(paras[last].text)
            reason = "short_paragraph" if last != first else None
            pieces.append(Piece(Span(first, lo, last, hi), {"merge_reason": reason}))
        lang = (metadata or {}).get("language") or self.language
        return build_chunks(
            paras,
            pieces,
            source_id,
            chunker=self.name,
            version=self.version,
            language=lang,
            metadata=metadata,
        )


class FakeParagraphChunker(FakeChunker):
    """One chunk per non-blank paragraph."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("fake-paragraph", group=1, **kwargs)


class FakeSemanticChunker(FakeChunker):
    """Pairs of paragraphs, as if every second one continued the first."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("fake-semantic", group=2, **kwargs)

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        chunks = super().chunk(paragraphs, source_id, metadata=metadata)
        for c in chunks:
            if c.metadata["merge_reason"]:
                c.metadata["merge_reason"] = "continuation_marker"
        return chunks
