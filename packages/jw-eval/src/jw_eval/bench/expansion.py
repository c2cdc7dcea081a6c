"""What a reader receives around each hit, through :func:`jw_rag.retrieve.expand_hits`:
the best segment around it, the hit alone, its neighbours, its marker-linked
chain, the neighbours that belong with it (``relevant``), or its parent.

The bench measures the strategy itself, so the retrieval caps on delivered
context are lifted (``max_context_tokens=None``, one parent per hit allowed);
the report's character budgets decide what a reader can afford. A budget pays
for each hit first and for its context nearest first
(:func:`jw_rag.retrieve.delivery_order`), the way ``retrieve`` spends
``max_context_tokens``, so a wide expansion never crowds out the hit itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from jw_rag.model import Chunk
from jw_rag.renames import renamed
from jw_rag.retrieve import EXPANSIONS, Expansion, delivery_order, expand_hits
from jw_rag.store.protocol import SearchHit, Store

__all__ = ["EXPANSIONS", "Expansion", "deliver", "delivered_chunks", "paid_order"]


def paid_order(delivered: Sequence[SearchHit]) -> list[list[Chunk]]:
    """Per delivered hit, its chunks in the order a budget pays for them (the
    hit's core, then its context nearest first)."""
    return [delivery_order(h.chunk, h.expanded or [h.chunk]) for h in delivered]


def deliver(
    store: Store,
    hits: Sequence[SearchHit],
    expand: str,
    query: str | None = None,
    limit: int | None = None,
    reach: int | None = None,
    *,
    window: int | None = None,
) -> list[SearchHit]:
    """The hits ``expand_hits`` delivers with the bench's caps lifted (no
    context budget, a parent allowed per hit), at most ``limit`` of them;
    ``reach`` is how many chunks each way the expansion may add (``None``: the
    product's; ``window`` is its old name, kept for one release)."""
    reach = renamed("deliver()", "window", window, "reach", reach)
    return expand_hits(
        store,
        hits,
        expand=expand,
        query=query,
        reach=reach,
        max_parents=max(1, limit or len(hits)),
        max_context_tokens=None,
        limit=limit,
    )


def delivered_chunks(
    store: Store, hits: Sequence[SearchHit], expand: str, query: str | None = None
) -> list[list[Chunk]]:
    """Per delivered hit, its chunks in the order a budget pays for them (the
    hit, then its context nearest first). A hit whose chunks were all
    delivered for a better-ranked hit is left out (it adds nothing)."""
    return paid_order(deliver(store, hits, expand, query))
