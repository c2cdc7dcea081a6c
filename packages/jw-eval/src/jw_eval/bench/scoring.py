"""Score one question's search hits with every measure of the run
(:mod:`jw_eval.bench.measures`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from jw_eval.bench.measures import Measure
from jw_eval.metrics import (
    CharScores,
    budget_groups,
    char_scores,
    complete_evidence,
    grouped_ndcg,
    hit_at_k,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)
from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["score_query"]


def _doc_level(expected: Sequence[ExpectedSpan]) -> list[ExpectedSpan]:
    docs = dict.fromkeys(e.doc_id for e in expected)
    return [ExpectedSpan(d, 0, 1 << 60) for d in docs]


def _flat(groups: Sequence[Sequence[DocRange]]) -> list[DocRange]:
    return [r for g in groups for r in g]


def score_query(
    ranked: Sequence[DocRange],
    delivered: Sequence[Sequence[DocRange]],
    expected: Sequence[ExpectedSpan],
    measures: Sequence[Measure],
) -> dict[str, float]:
    """``ranked``: the hit chunks' ranges in rank order; ``delivered``: per rank,
    what the reader got (the chunk plus any expansion). Measures that judge
    ``hits`` see ``ranked``; ``delivered`` ones see the first ``cutoff``
    groups; ``budget`` ones what was delivered within ``budget`` characters,
    so strategies that deliver more per hit pay for it."""
    refs = [e.range for e in expected]
    chars: Callable[[int], CharScores] = cache(lambda c: char_scores(_flat(delivered[:c]), refs))
    within: Callable[[int], list[list[DocRange]]] = cache(lambda b: budget_groups(delivered, b))

    def budget_recall(b: int) -> float:
        got = _flat(within(b))
        return recall_at_k(got, expected, len(got)) if got else 0.0

    doc_ranked = [DocRange(r.doc_id, 0, 1 << 60) for r in ranked]
    scorers: dict[tuple[str, str], Callable[[Measure], float]] = {
        ("hits", "ndcg"): lambda m: ndcg_at_k(ranked, expected, m.cutoff or 10),
        ("hits", "doc_ndcg"): lambda m: ndcg_at_k(doc_ranked, _doc_level(expected), m.cutoff or 10),
        ("hits", "mrr"): lambda m: reciprocal_rank_at_k(ranked, expected, m.cutoff or 10),
        ("hits", "hit"): lambda m: hit_at_k(ranked, expected, m.cutoff or 10),
        ("hits", "recall"): lambda m: recall_at_k(ranked, expected, m.cutoff or 10),
        ("delivered", "char_recall"): lambda m: chars(m.cutoff or 10).recall,
        ("delivered", "char_precision"): lambda m: chars(m.cutoff or 10).precision,
        ("delivered", "char_iou"): lambda m: chars(m.cutoff or 10).iou,
        ("delivered", "complete"): lambda m: complete_evidence(
            _flat(delivered[: m.cutoff]), expected
        ),
        ("budget", "ndcg"): lambda m: grouped_ndcg(within(m.budget or 0), expected),
        ("budget", "recall"): lambda m: budget_recall(m.budget or 0),
        ("budget", "complete"): lambda m: complete_evidence(_flat(within(m.budget or 0)), expected),
    }
    return {m.name: scorers[(m.judges, m.kind)](m) for m in measures}
