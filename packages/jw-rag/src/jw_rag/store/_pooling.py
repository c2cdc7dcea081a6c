"""Pooled window vectors: a window unit's vector from its members' vectors.

A window unit (:mod:`jw_rag.windows`) built with ``pooled=True`` carries
``metadata["pooled"]``; its vector is the normalised mean of its members'
vectors instead of an embedding of its 2,000-character text. Its text is
still stored and indexed for BM25 as it is. Measured on the shared sets with
the default embedder, pooled windows rank as well as embedded ones or better
(docs/results.md), and a source costs about one embedding per passage instead
of one per passage and one per window.

Members are embedded in the same write, before their windows (ingestion
yields each window right after its last member, see
:func:`jw_rag.windows.with_window_units`); the vectors of the last
:data:`POOL_MEMORY` members are kept, so memory stays bounded whatever the
source's size. A window whose members are not all known is embedded as text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from jw_rag.embed.protocol import Vectors
    from jw_rag.store._rows import ChunkRow

__all__ = ["POOL_MEMORY", "PooledMembers"]

#: How many recent member vectors one write keeps for pooling.
POOL_MEMORY = 4096


class PooledMembers:
    """Vectors of one write's rows: pooled windows from the members seen last."""

    def __init__(self, memory: int = POOL_MEMORY) -> None:
        self._memory = memory
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    def vectors(self, rows: Sequence[ChunkRow], embed: Callable[[list[str]], Vectors]) -> Vectors:
        """One vector per row: texts embedded with ``embed`` in one call, pooled
        windows (``metadata["pooled"]``) averaged from their members."""
        pooled = [i for i, r in enumerate(rows) if r.chunk.metadata.get("pooled")]
        pooled_set = set(pooled)
        direct = [i for i in range(len(rows)) if i not in pooled_set]
        embedded = embed([rows[i].embed_input for i in direct])
        out = np.empty((len(rows), embedded.shape[1]), dtype=np.float32)
        out[direct] = embedded
        for i in direct:
            self._remember(rows[i].chunk.id, out[i])
        late: list[int] = []
        for i in pooled:
            found = [self._recent.get(str(m)) for m in rows[i].chunk.metadata.get("window") or ()]
            members = [v for v in found if v is not None]
            if not found or len(members) < len(found):
                late.append(i)
                continue
            mean = np.mean(np.stack(members), axis=0)
            norm = float(np.linalg.norm(mean))
            out[i] = mean / norm if norm > 0 else mean
        if late:
            out[late] = embed([rows[i].embed_input for i in late])
        return out

    def _remember(self, chunk_id: str, vector: np.ndarray) -> None:
        self._recent[chunk_id] = vector
        self._recent.move_to_end(chunk_id)
        while len(self._recent) > self._memory:
            self._recent.popitem(last=False)
