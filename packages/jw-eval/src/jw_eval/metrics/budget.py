"""Cost-fair delivery: what a reader gets within a fixed character budget.

Delivered ranges are counted in rank order (each rank's own chunk and any
expansion around it), characters already delivered are not paid twice, and
the range that crosses the budget is cut at it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from jw_eval.spans import DocRange, Ranges, subtract, union

__all__ = ["BUDGETS", "budget_groups", "within_budget"]

#: Default context budgets, in characters.
BUDGETS = (2000, 4000)


def budget_groups(delivered: Sequence[Sequence[DocRange]], budget: int) -> list[list[DocRange]]:
    """Per rank, the ranges a reader receives until ``budget`` characters in
    total; ranks after the budget runs out are left out."""
    if budget < 1:
        raise ValueError(f"budget must be >= 1 character, got {budget}")
    taken: dict[str, Ranges] = defaultdict(list)
    out: list[list[DocRange]] = []
    left = budget
    for rank in delivered:
        if left <= 0:
            break
        group: list[DocRange] = []
        for r in rank:
            for a, b in subtract(r.start, r.end, taken[r.doc_id]):
                if left <= 0:
                    break
                b = min(b, a + left)
                group.append(DocRange(r.doc_id, a, b))
                left -= b - a
                taken[r.doc_id] = union([*taken[r.doc_id], (a, b)])
        out.append(group)
    return out


def within_budget(delivered: Sequence[Sequence[DocRange]], budget: int) -> list[DocRange]:
    """The ranges a reader receives, rank by rank, until ``budget`` characters."""
    return [r for group in budget_groups(delivered, budget) for r in group]
