"""What a reader receives around each hit, through :func:`jw_rag.retrieve.expand_hits`:
the hit alone, its neighbours, its marker-linked chain, or its parent.

The bench measures the strategy itself, so the retrieval caps on delivered
context are lifted (``max_context_tokens=None``, one parent per hit allowed);
the report's character budgets decide what a reader can afford.
"""

from __future__ import annotations

from collections.abc import Sequence

from jw_rag.model import Chunk
from jw_rag.retrieve import EXPANSIONS, Expansion, expand_hits
from jw_rag.store.protocol import SearchHit, Store

__all__ = ["EXPANSIONS", "Expansion", "delivered_chunks"]


def delivered_chunks(store: Store, hits: Sequence[SearchHit], expand: str) -> list[list[Chunk]]:
    """Per delivered hit, its chunks in reading order. A hit whose chunks were
    all delivered for a better-ranked hit is left out (it adds nothing)."""
    delivered = expand_hits(
        store, hits, expand=expand, max_parents=max(1, len(hits)), max_context_tokens=None
    )
    return [list(h.expanded) if h.expanded else [h.chunk] for h in delivered]
