"""Score one question's search hits with every metric the report shows."""

from __future__ import annotations

from collections.abc import Sequence

from jw_eval.metrics import (
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

__all__ = ["metric_names", "score_query"]


def metric_names(k: int, budgets: Sequence[int]) -> list[str]:
    cutoffs = sorted({5, k}) if k >= 5 else [k]
    names = ["ndcg@10", "doc_ndcg@10", f"mrr@{k}"]
    for c in cutoffs:
        names += [f"hit@{c}", f"recall@{c}"]
    for c in cutoffs:
        names += [f"char_recall@{c}", f"char_precision@{c}", f"char_iou@{c}"]
    names.append(f"complete@{k}")
    for b in budgets:
        names += [f"ndcg@{b}c", f"recall@{b}c", f"complete@{b}c"]
    return names


def _doc_level(expected: Sequence[ExpectedSpan]) -> list[ExpectedSpan]:
    docs = dict.fromkeys(e.doc_id for e in expected)
    return [ExpectedSpan(d, 0, 1 << 60) for d in docs]


def score_query(
    ranked: Sequence[DocRange],
    delivered: Sequence[Sequence[DocRange]],
    expected: Sequence[ExpectedSpan],
    *,
    k: int,
    budgets: Sequence[int],
) -> dict[str, float]:
    """``ranked``: the hit chunks' ranges in rank order; ``delivered``: per rank,
    what the reader got (the chunk plus any expansion). ``ndcg@10`` and the
    other rank metrics judge the hits; ``ndcg@<b>c`` judges what was delivered
    within ``b`` characters, so strategies that deliver more per hit pay for it."""
    refs = [e.range for e in expected]
    out: dict[str, float] = {
        "ndcg@10": ndcg_at_k(ranked, expected, 10),
        "doc_ndcg@10": ndcg_at_k(
            [DocRange(r.doc_id, 0, 1 << 60) for r in ranked], _doc_level(expected), 10
        ),
        f"mrr@{k}": reciprocal_rank_at_k(ranked, expected, k),
    }
    cutoffs = sorted({5, k}) if k >= 5 else [k]
    for c in cutoffs:
        out[f"hit@{c}"] = hit_at_k(ranked, expected, c)
        out[f"recall@{c}"] = recall_at_k(ranked, expected, c)
    for c in cutoffs:
        s = char_scores([r for rank in delivered[:c] for r in rank], refs)
        out[f"char_recall@{c}"] = s.recall
        out[f"char_precision@{c}"] = s.precision
        out[f"char_iou@{c}"] = s.iou
    out[f"complete@{k}"] = complete_evidence([r for rank in delivered[:k] for r in rank], expected)
    for b in budgets:
        groups = budget_groups(delivered, b)
        got = [r for g in groups for r in g]
        out[f"ndcg@{b}c"] = grouped_ndcg(groups, expected)
        out[f"recall@{b}c"] = recall_at_k(got, expected, len(got)) if got else 0.0
        out[f"complete@{b}c"] = complete_evidence(got, expected)
    return out
