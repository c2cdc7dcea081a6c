"""Recall@k: the fraction of expected spans overlapped by the top ``k`` ranges."""

from __future__ import annotations

from collections.abc import Sequence

from jw_eval.metrics._coverage import first_cover_ranks
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["recall_at_k"]


def recall_at_k(retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int) -> float:
    ranks = first_cover_ranks(retrieved, expected, k)
    return sum(r is not None for r in ranks) / len(ranks)
