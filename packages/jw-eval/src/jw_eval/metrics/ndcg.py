"""NDCG@k over expected spans, each credited once, linear gain.

DCG sums, at each rank, the gain of the expected spans that rank covers for
the first time, discounted by ``log2(rank + 1)``. The ideal DCG places the
expected spans one per rank in decreasing gain (as trec_eval does for
judged documents), so for one-span questions this is trec_eval's nDCG. A
single chunk that covers several spans earns their whole gain at its rank;
the score is capped at 1 so such a chunk at rank 1 counts as ideal.

:func:`grouped_ndcg` scores what was *delivered* rather than what was hit:
each rank is a group of ranges (a hit with its neighbours or its parent,
possibly cut at a context budget), and a span counts as covered at the first
rank whose group overlaps it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from jw_eval.metrics._coverage import rank_gains
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["dcg", "grouped_ndcg", "ndcg_at_k"]


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, 1) if g)


def ndcg_at_k(retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int) -> float:
    gains = rank_gains(retrieved, expected, k)
    ideal = dcg(sorted((e.gain for e in expected if e.gain > 0), reverse=True)[:k])
    if ideal <= 0:
        raise ValueError("a question needs at least one expected span with positive gain")
    return min(1.0, dcg(gains) / ideal)


def grouped_ndcg(
    groups: Sequence[Sequence[DocRange]], expected: Sequence[ExpectedSpan], k: int = 10
) -> float:
    """NDCG@k over delivered groups, one rank per group, each span credited once
    (the ideal as in :func:`ndcg_at_k`: one span per rank, top ``k``)."""
    if not expected:
        raise ValueError("a question needs at least one expected span")
    groups = groups[:k]
    ideal = dcg(sorted((e.gain for e in expected if e.gain > 0), reverse=True)[:k])
    if ideal <= 0:
        raise ValueError("a question needs at least one expected span with positive gain")
    gains = [0.0] * len(groups)
    for item in expected:
        target = item.range
        rank = next(
            (i for i, group in enumerate(groups) if any(r.overlaps(target) for r in group)), None
        )
        if rank is not None:
            gains[rank] += item.gain
    return min(1.0, dcg(gains) / ideal)
