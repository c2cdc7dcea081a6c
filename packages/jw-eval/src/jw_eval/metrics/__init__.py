"""Retrieval metrics over character spans, one module per metric.

Every function takes the retrieved ranges in rank order (``DocRange`` in
document-text coordinates) and the question's expected spans.
"""

from jw_eval.metrics.budget import BUDGETS, budget_groups, within_budget
from jw_eval.metrics.chars import CharScores, char_scores
from jw_eval.metrics.evidence import complete_evidence
from jw_eval.metrics.hit import hit_at_k
from jw_eval.metrics.mrr import reciprocal_rank_at_k
from jw_eval.metrics.ndcg import dcg, grouped_ndcg, ndcg_at_k
from jw_eval.metrics.recall import recall_at_k

__all__ = [
    "BUDGETS",
    "budget_groups",
    "CharScores",
    "char_scores",
    "complete_evidence",
    "dcg",
    "grouped_ndcg",
    "hit_at_k",
    "ndcg_at_k",
    "reciprocal_rank_at_k",
    "recall_at_k",
    "within_budget",
]
