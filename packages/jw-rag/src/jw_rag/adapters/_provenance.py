"""The provenance an adapter copies from a chunk into its framework's metadata,
and the chunks of one framework document under ids no other document shares."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from jw_rag.chunkers.protocol import Chunker
from jw_rag.model import Chunk

__all__ = [
    "LINK_KEYS",
    "PROVENANCE_KEYS",
    "document_chunks",
    "document_hierarchy",
    "provenance",
]

#: Metadata entries that hold other chunks' ids.
LINK_KEYS = ("prev_id", "next_id", "parent_id")

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


def document_chunks(
    chunker: Chunker, text: str, source_id: str, metadata: Mapping[Any, Any]
) -> list[Chunk]:
    """The chunks of one framework document (``text`` with ``metadata``), each
    id (and every id it links to) followed by ``@`` and a digest of the text
    and metadata: documents that share a source id (the pages of one PDF, all
    ``source="book.pdf"``) never share chunk ids, and the same document always
    gets the same ones."""
    return document_hierarchy(chunker, text, source_id, metadata, parents=False)[0]


def document_hierarchy(
    chunker: Chunker,
    text: str,
    source_id: str,
    metadata: Mapping[Any, Any],
    *,
    parents: bool = True,
) -> tuple[list[Chunk], list[Chunk]]:
    """``(chunks, parents)`` of one framework document, ids tagged as in
    :func:`document_chunks`. ``parents`` are the chunks a chunk's
    ``parent_id`` names (a ``parent-child`` chunker's sections), so an adapter
    can emit every node it links to; empty for a chunker without parents."""
    hierarchy = getattr(chunker, "chunk_hierarchy", None) if parents else None
    if callable(hierarchy):
        chunks, uppers = hierarchy(text, source_id)
    else:
        chunks, uppers = chunker.chunk(text, source_id), []
    entries = sorted(((str(k), v) for k, v in metadata.items()), key=lambda kv: kv[0])
    key = json.dumps([text, entries], default=str, ensure_ascii=False)
    tag = "@" + hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    for c in [*chunks, *uppers]:
        c.id += tag
        for link in LINK_KEYS:
            if isinstance(c.metadata.get(link), str) and c.metadata[link]:
                c.metadata[link] += tag
        if isinstance(c.metadata.get("child_ids"), list):
            c.metadata["child_ids"] = [f"{i}{tag}" for i in c.metadata["child_ids"]]
    return chunks, uppers
