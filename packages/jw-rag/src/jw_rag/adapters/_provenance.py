"""The provenance an adapter copies from a chunk into its framework's metadata."""

from __future__ import annotations

from typing import Any

from jw_rag.model import Chunk

__all__ = ["PROVENANCE_KEYS", "provenance"]

PROVENANCE_KEYS = (
    "para_ids",
    "span",
    "chunker",
    "chunker_version",
    "heading_path",
    "pages",
    "language",
    "parent_id",
)


def provenance(chunk: Chunk) -> dict[str, Any]:
    """``chunk_id``, ``source_id`` and the chunk's known :data:`PROVENANCE_KEYS`."""
    meta = chunk.metadata
    found = {key: meta[key] for key in PROVENANCE_KEYS if meta.get(key) is not None}
    return {"chunk_id": chunk.id, "source_id": chunk.source_id, **found}
