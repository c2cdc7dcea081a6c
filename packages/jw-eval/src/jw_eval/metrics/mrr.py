"""Reciprocal rank of the first retrieved range that overlaps any expected span."""

from __future__ import annotations

from collections.abc import Sequence

from jw_eval.metrics._coverage import first_cover_ranks
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["reciprocal_rank_at_k"]


def reciprocal_rank_at_k(
    retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int
) -> float:
    ranks = [r for r in first_cover_ranks(retrieved, expected, k) if r is not None]
    return 1.0 / min(ranks) if ranks else 0.0
