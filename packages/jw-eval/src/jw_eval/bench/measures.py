"""The measures a report shows, as objects built once per run.

A :class:`Measure` has a name (the report's key, e.g. ``ndcg@10``,
``hit@5``, ``ndcg@2000c``), what it judges (the ranked hits, what was
delivered, or what was delivered within a character budget), its cutoff or
budget, and whether the report gives it a bootstrap CI95. Scoring, summaries
and renderers read these objects instead of rebuilding or parsing names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["GATE", "Measure", "measures"]

Judges = Literal["hits", "delivered", "budget"]


@dataclass(frozen=True, slots=True)
class Measure:
    """One column of the report: ``kind`` at ``cutoff`` ranks or ``budget`` characters."""

    kind: str
    judges: Judges
    cutoff: int | None = None
    budget: int | None = None
    ci: bool = False

    @property
    def name(self) -> str:
        if self.budget is not None:
            return f"{self.kind}@{self.budget}c"
        return self.kind if self.cutoff is None else f"{self.kind}@{self.cutoff}"


#: The measure the ``--min-lift`` gate and the default lifts use.
GATE = Measure("ndcg", "hits", cutoff=10, ci=True)


def measures(k: int, budgets: Sequence[int]) -> tuple[Measure, ...]:
    """Every measure of a run with ``k`` hits and these character budgets, in
    report order: NDCG@10 (with CI95), document NDCG@10, MRR@k, Hit and
    Recall at 5 and k, character recall/precision/IoU at 5 and k, complete
    evidence at k, then NDCG (with CI95), recall and complete evidence within
    each budget."""
    cutoffs = sorted({5, k}) if k >= 5 else [k]
    out: list[Measure] = [GATE, Measure("doc_ndcg", "hits", 10), Measure("mrr", "hits", k)]
    for c in cutoffs:
        out += [Measure("hit", "hits", c), Measure("recall", "hits", c)]
    for c in cutoffs:
        out += [
            Measure(kind, "delivered", c) for kind in ("char_recall", "char_precision", "char_iou")
        ]
    out.append(Measure("complete", "delivered", k))
    for b in budgets:
        out += [
            Measure("ndcg", "budget", budget=b, ci=True),
            Measure("recall", "budget", budget=b),
            Measure("complete", "budget", budget=b),
        ]
    return tuple(out)
