"""The chunker protocol: anything with a ``name`` and a ``chunk`` method."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from jw_rag.model import Chunk, ParagraphInput

__all__ = ["Chunker"]


@runtime_checkable
class Chunker(Protocol):
    """Turns the ordered paragraphs of one source into chunks with provenance.

    ``metadata`` is copied into every chunk; ``metadata["language"]`` (ISO or
    jw.org code) overrides language detection.
    """

    name: str

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]: ...
