"""NDCG@k over expected spans, each credited once, linear gain.

DCG sums, at each rank, the gain of the expected spans that rank covers for
the first time, discounted by ``log2(rank + 1)``. The ideal DCG places the
expected spans one per rank in decreasing gain (as trec_eval does for
judged documents), so for one-span questions this is trec_eval's nDCG. A
single chunk that covers several spans earns their whole gain at its rank;
the score is capped at 1 so such a chunk at rank 1 counts as ideal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from jw_eval.metrics._coverage import rank_gains
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["dcg", "ndcg_at_k"]


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, 1) if g)


def ndcg_at_k(retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int) -> float:
    gains = rank_gains(retrieved, expected, k)
    ideal = dcg(sorted((e.gain for e in expected if e.gain > 0), reverse=True)[:k])
    if ideal <= 0:
        raise ValueError("a question needs at least one expected span with positive gain")
    return min(1.0, dcg(gains) / ideal)
