"""Reciprocal rank fusion of several ranked lists.

Each list gives an item ``1 / (RRF_K + rank)`` (rank 1-based); an item's fused
score is the sum over the lists it appears in. ``RRF_K = 60`` is the constant
proposed by Cormack, Clarke and Büttcher (SIGIR 2009): large enough that the
top few ranks of one list do not drown the other list, small enough that
rank still matters. Ties are broken by the best rank the item reached in any
list, then by the order of the lists, so the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

RRF_K = 60

T = TypeVar("T", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[T]], k: int | None = None, rrf_k: int = RRF_K
) -> list[tuple[T, float]]:
    """Fuse ``rankings`` (each best first) into ``(item, score)`` pairs, best first."""
    scores: dict[T, float] = {}
    best: dict[T, tuple[int, int]] = {}
    for list_no, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
            key = (rank, list_no)
            if item not in best or key < best[item]:
                best[item] = key
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], best[kv[0]]))
    return fused if k is None else fused[:k]
