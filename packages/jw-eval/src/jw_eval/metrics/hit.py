"""Hit@k: 1 when any of the top ``k`` ranges overlaps an expected span."""

from __future__ import annotations

from collections.abc import Sequence

from jw_eval.metrics._coverage import first_cover_ranks
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["hit_at_k"]


def hit_at_k(retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int) -> float:
    return 1.0 if any(r is not None for r in first_cover_ranks(retrieved, expected, k)) else 0.0
