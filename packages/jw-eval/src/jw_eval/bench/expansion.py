"""What a reader receives around each hit: the hit alone, its neighbours, or its parent.

Used when the store's hits carry no ``expanded`` chunks of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from jw_rag.model import Chunk
from jw_rag.store.protocol import SearchHit, Store

__all__ = ["EXPANSIONS", "Expansion", "delivered_chunks"]

Expansion = Literal["none", "neighbors", "parent"]
EXPANSIONS: tuple[str, ...] = ("none", "neighbors", "parent")


def delivered_chunks(store: Store, hits: Sequence[SearchHit], expand: str) -> list[list[Chunk]]:
    """Per hit, the chunks delivered in reading order: ``hit.expanded`` when
    present (with the hit itself if it is not among them), else the hit plus
    its previous/next chunk (``neighbors``) or its parent (``parent``, when the
    chunk names one in ``metadata["parent_id"]`` and the store keeps parents)."""
    out: list[list[Chunk]] = []
    for hit in hits:
        chunk = hit.chunk
        if hit.expanded:
            extra = list(hit.expanded)
            if all(c.id != chunk.id for c in extra):
                extra.insert(0, chunk)
            out.append(extra)
        elif expand == "neighbors":
            ids = [chunk.metadata.get("prev_id"), chunk.metadata.get("next_id")]
            found = {c.id: c for c in store.get([i for i in ids if i])}
            prev, nxt = (found.get(i) if i else None for i in ids)
            out.append([c for c in (prev, chunk, nxt) if c is not None])
        elif expand == "parent":
            parent_id = chunk.metadata.get("parent_id")
            getter = getattr(store, "get_parents", None)
            parents = getter([parent_id]) if parent_id and getter is not None else []
            out.append(list(parents) or [chunk])
        else:
            out.append([chunk])
    return out
