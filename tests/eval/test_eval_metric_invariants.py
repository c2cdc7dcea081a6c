"""Hypothesis invariants of the span metrics on random runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_eval.metrics import (
    budget_groups,
    char_scores,
    complete_evidence,
    grouped_ndcg,
    hit_at_k,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    within_budget,
)
from jw_eval.spans import DocRange, ExpectedSpan

_range = st.tuples(st.sampled_from("ab"), st.integers(0, 200), st.integers(1, 80)).map(
    lambda t: DocRange(t[0], t[1], t[1] + t[2])
)
_expected = st.lists(
    st.tuples(st.sampled_from("ab"), st.integers(0, 200), st.integers(1, 40)).map(
        lambda t: ExpectedSpan(t[0], t[1], t[1] + t[2])
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_range, max_size=15), _expected, st.integers(1, 15))
def test_rank_metric_invariants(run: list[DocRange], expected: list[ExpectedSpan], k: int) -> None:
    n = ndcg_at_k(run, expected, k)
    assert 0.0 <= n <= 1.0
    rec = recall_at_k(run, expected, k)
    assert rec <= recall_at_k(run, expected, k + 1)
    assert (
        (hit_at_k(run, expected, k) > 0)
        == (rec > 0)
        == (reciprocal_rank_at_k(run, expected, k) > 0)
    )
    assert complete_evidence(run[:k], expected) <= (1.0 if rec == 1.0 else 0.0)
    # duplicating every retrieved range (same chunk twice) never raises NDCG
    doubled = [r for r in run for _ in range(2)]
    assert ndcg_at_k(doubled, expected, 2 * k) <= n + 1e-12 or n == 1.0
    s = char_scores(run[:k], [e.range for e in expected])
    assert 0.0 <= s.iou <= min(s.recall, s.precision) + 1e-12 if run else s.recall == 0.0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_range, min_size=1, max_size=3), max_size=10), st.integers(1, 500))
def test_budget_never_exceeds_and_never_repeats(
    delivered: list[list[DocRange]], budget: int
) -> None:
    got = within_budget(delivered, budget)
    assert sum(len(r) for r in got) <= budget
    for i, a in enumerate(got):
        assert len(a) > 0
        assert any(b.contains(a) for rank in delivered for b in rank)
        assert not any(a.overlaps(b) for b in got[i + 1 :])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(_range, min_size=1, max_size=3), max_size=10),
    st.integers(1, 500),
    _expected,
)
def test_budgeted_ndcg_grows_with_the_budget_and_matches_hit_ndcg_unexpanded(
    delivered: list[list[DocRange]], budget: int, expected: list[ExpectedSpan]
) -> None:
    small = grouped_ndcg(budget_groups(delivered, budget), expected)
    large = grouped_ndcg(budget_groups(delivered, budget + 200), expected)
    assert 0.0 <= small <= large + 1e-12 <= 1.0 + 1e-12
    # one range per rank and a budget that holds everything: the hit-level NDCG
    singles = [rank[:1] for rank in delivered]
    total = sum(len(r[0]) for r in singles) or 1
    got = budget_groups(singles, total)
    if all(len(g) == 1 and g[0] == s[0] for g, s in zip(got, singles, strict=False)) and len(
        got
    ) == len(singles):
        flat = [s[0] for s in singles]
        assert grouped_ndcg(got, expected) == pytest.approx(ndcg_at_k(flat, expected, 10))
