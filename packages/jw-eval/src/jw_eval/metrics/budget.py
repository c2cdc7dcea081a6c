"""Cost-fair delivery: what a reader gets within a fixed character budget.

Delivered ranges are counted in rank order (each rank's own chunk and any
expansion around it), characters already delivered are not paid twice, and
the range that crosses the budget is cut at it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from jw_eval.spans import DocRange, Ranges, subtract, union

__all__ = ["BUDGETS", "within_budget"]

#: Default context budgets, in characters.
BUDGETS = (2000, 4000)


def within_budget(delivered: Sequence[Sequence[DocRange]], budget: int) -> list[DocRange]:
    """The ranges a reader receives, rank by rank, until ``budget`` characters."""
    if budget < 1:
        raise ValueError(f"budget must be >= 1 character, got {budget}")
    taken: dict[str, Ranges] = defaultdict(list)
    out: list[DocRange] = []
    left = budget
    for rank in delivered:
        for r in rank:
            for a, b in subtract(r.start, r.end, taken[r.doc_id]):
                if left <= 0:
                    return out
                b = min(b, a + left)
                out.append(DocRange(r.doc_id, a, b))
                left -= b - a
                taken[r.doc_id] = union([*taken[r.doc_id], (a, b)])
    return out
