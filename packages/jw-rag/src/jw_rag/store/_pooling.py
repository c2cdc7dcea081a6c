"""Vectors made from parts: pooled window units, and units with a mixed-in prefix.

**Pooled windows.**
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

**Mixed-in prefix.** A chunk with a non-blank ``embed_prefix`` (its title and heading
path) and a ``metadata["prefix_weight"]`` *w* > 0 is embedded without the
prefix; the prefix is embedded once per write (and the embedding cache keeps
it across writes), and the chunk's vector is ``normalise(t + w * p)`` of the
two unit vectors. Embedding ``prefix + "\\n" + text`` for every chunk costs
the title's tokens once per chunk (12.7% more text on the argument corpus);
mixing costs one short text per source. The weight is set by ingestion
(:attr:`jw_rag.units.UnitRules.prefix_weight`, measured in docs/results.md);
a chunk without it is embedded as ``prefix + "\\n" + text``, as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from jw_rag.store._rows import embed_text, prefix_weight

if TYPE_CHECKING:
    from jw_rag.embed.protocol import Vectors
    from jw_rag.model import Chunk
    from jw_rag.store._rows import ChunkRow

__all__ = ["POOL_MEMORY", "PooledMembers", "embed_chunks"]

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
        embedded = embed_chunks([rows[i].chunk for i in direct], embed)
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
            out[late] = embed_chunks([rows[i].chunk for i in late], embed)
        return out

    def _remember(self, chunk_id: str, vector: np.ndarray) -> None:
        self._recent[chunk_id] = vector
        self._recent.move_to_end(chunk_id)
        while len(self._recent) > self._memory:
            self._recent.popitem(last=False)


def embed_chunks(chunks: Sequence[Chunk], embed: Callable[[list[str]], Vectors]) -> np.ndarray:
    """One vector per chunk, from one call to ``embed``: ``embed_text(chunk)``
    for a chunk without a prefix weight, its text mixed with its prefix's
    vector for one with (module docstring); each distinct prefix is sent once."""
    weights = [prefix_weight(c) for c in chunks]
    texts = [c.text if w else embed_text(c) for c, w in zip(chunks, weights, strict=True)]
    mixed = [c.metadata["embed_prefix"] for c, w in zip(chunks, weights, strict=True) if w]
    prefixes = list(dict.fromkeys(mixed))
    vectors = np.array(embed(texts + prefixes), dtype=np.float32)
    out = vectors[: len(texts)]
    if not prefixes:
        return out
    where = {p: len(texts) + i for i, p in enumerate(prefixes)}
    for i, (c, w) in enumerate(zip(chunks, weights, strict=True)):
        if w:
            out[i] = _mixed(out[i], vectors[where[c.metadata["embed_prefix"]]], w)
    return out


def _mixed(text: np.ndarray, prefix: np.ndarray, weight: float) -> np.ndarray:
    """``normalise(t + weight * p)`` of the two unit vectors (``t`` when that is 0)."""
    t = _unit(text)
    v = t + weight * _unit(prefix)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 1e-12 else t


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v
