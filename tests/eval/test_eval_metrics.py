"""Span metrics: hand-computed cases and agreement with ir-measures (trec_eval)."""

from __future__ import annotations

import math
import random

import ir_measures
import pytest
from ir_measures import Qrel, ScoredDoc

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
from jw_eval.spans import DocRange, ExpectedSpan, subtract, union


def R(a: int, b: int, doc: str = "d") -> DocRange:
    return DocRange(doc, a, b)


def E(a: int, b: int, doc: str = "d", gain: float = 1.0) -> ExpectedSpan:
    return ExpectedSpan(doc, a, b, gain)


def test_single_span_hand_computed() -> None:
    expected = [E(100, 110)]
    run = [R(0, 50), R(200, 300), R(90, 105)]
    assert ndcg_at_k(run, expected, 10) == pytest.approx(1 / math.log2(4))
    assert reciprocal_rank_at_k(run, expected, 10) == pytest.approx(1 / 3)
    assert hit_at_k(run, expected, 2) == 0.0
    assert hit_at_k(run, expected, 3) == 1.0
    assert recall_at_k(run, expected, 3) == 1.0


def test_touching_ranges_do_not_overlap_and_other_documents_never_count() -> None:
    expected = [E(100, 110)]
    assert hit_at_k([R(110, 200), R(0, 100), R(100, 110, "other")], expected, 10) == 0.0


def test_each_item_is_credited_once() -> None:
    expected = [E(100, 110)]
    run = [R(95, 105), R(100, 110), R(104, 120)]
    assert ndcg_at_k(run, expected, 10) == 1.0


def test_multi_span_chunk_holding_the_chain_earns_all_gain_at_once() -> None:
    chain = [E(0, 10), E(12, 20), E(22, 30)]
    # one chunk with the whole chain at rank 2: DCG = 3/log2(3); IDCG = 1 + 1/log2(3) + 1/2
    got = ndcg_at_k([R(40, 50), R(0, 30)], chain, 10)
    assert got == pytest.approx((3 / math.log2(3)) / (1 + 1 / math.log2(3) + 0.5))
    assert ndcg_at_k([R(0, 30)], chain, 10) == 1.0  # capped
    # paragraph-sized chunks: spans 1 and 3 at ranks 1 and 3
    run = [R(0, 10), R(40, 50), R(22, 30)]
    assert ndcg_at_k(run, chain, 10) == pytest.approx((1 + 0.5) / (1 + 1 / math.log2(3) + 0.5))
    assert recall_at_k(run, chain, 10) == pytest.approx(2 / 3)
    assert complete_evidence(run, chain) == 0.0
    assert complete_evidence([*run, R(11, 21)], chain) == 1.0
    assert complete_evidence([R(0, 29)], chain) == 0.0  # one character short


def test_graded_gain() -> None:
    expected = [E(0, 10, gain=2), E(20, 30, gain=1)]
    run = [R(20, 30), R(0, 10)]
    ideal = 2 + 1 / math.log2(3)
    assert ndcg_at_k(run, expected, 10) == pytest.approx((1 + 2 / math.log2(3)) / ideal)


def test_char_scores_match_hand_computation() -> None:
    refs = [R(10, 20), R(15, 30)]  # union 10..30 = 20 chars
    got = [R(0, 12), R(25, 40), R(5, 8)]  # union 0..12 + 25..40 = 27 chars, inter 2+5 = 7
    s = char_scores(got, refs)
    assert s.recall == pytest.approx(7 / 20)
    assert s.precision == pytest.approx(7 / 27)
    assert s.iou == pytest.approx(7 / (27 + 20 - 7))
    assert char_scores([], refs).precision == 0.0


def test_budget_truncates_in_rank_order_and_never_pays_twice() -> None:
    delivered = [[R(0, 1500)], [R(1000, 2000), R(5000, 6000)]]
    out = within_budget(delivered, 2000)
    assert out == [R(0, 1500), R(1500, 2000)]
    out = within_budget(delivered, 2200)
    assert out == [R(0, 1500), R(1500, 2000), R(5000, 5200)]


def test_budget_groups_keep_ranks_and_stop_when_spent() -> None:
    delivered = [[R(0, 1500)], [R(1000, 2000), R(5000, 6000)], [R(7000, 7100)]]
    assert budget_groups(delivered, 2200) == [[R(0, 1500)], [R(1500, 2000), R(5000, 5200)]]
    # a rank whose chunks were all delivered already is an empty group
    assert budget_groups([[R(0, 10)], [R(0, 10)], [R(20, 30)]], 100) == [
        [R(0, 10)],
        [],
        [R(20, 30)],
    ]


def test_grouped_ndcg_credits_a_span_at_the_first_group_that_delivers_it() -> None:
    chain = [E(0, 10), E(20, 30), E(40, 50)]
    # the hit holds span 1; its neighbours deliver spans 0 and 2 at the same rank
    assert grouped_ndcg([[R(0, 12), R(18, 32), R(38, 52)]], chain) == 1.0
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    # delivered one per rank, in order: the ideal ranking
    assert grouped_ndcg([[R(0, 10)], [R(20, 30)], [R(40, 50)]], chain) == pytest.approx(1.0)
    # spans 0 and 2 only at rank 3; rank 2 delivered nothing relevant
    got = grouped_ndcg([[R(20, 30)], [R(60, 70)], [R(0, 10), R(40, 50)]], chain)
    assert got == pytest.approx((1 + 2 / math.log2(4)) / ideal)
    assert grouped_ndcg([], chain) == 0.0
    with pytest.raises(ValueError, match="expected span"):
        grouped_ndcg([[R(0, 1)]], [])


def test_interval_helpers() -> None:
    assert union([(5, 7), (0, 3), (2, 4), (7, 8), (9, 9)]) == [(0, 4), (5, 8)]
    assert subtract(0, 10, [(2, 3), (5, 12)]) == [(0, 2), (3, 5)]


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="expected span"):
        ndcg_at_k([R(0, 1)], [], 10)
    with pytest.raises(ValueError, match="k must be"):
        hit_at_k([R(0, 1)], [E(0, 1)], 0)


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_ir_measures_on_random_runs(seed: int) -> None:
    rng = random.Random(seed)
    qrels, run = [], []
    mine: dict[str, dict[str, float]] = {}
    for q in range(30):
        qid = f"q{q}"
        docs = [f"x{i}" for i in range(25)]
        relevant = rng.sample(docs, rng.randint(1, 6))
        grades = {d: rng.choice([1, 2, 3]) for d in relevant}
        qrels += [Qrel(qid, d, g) for d, g in grades.items()]
        ranked = rng.sample(docs, rng.randint(0, 20))
        run += [ScoredDoc(qid, d, 100.0 - r) for r, d in enumerate(ranked)]
        # one document = one range; a relevant document's range is its expected span
        pos = {d: i * 10 for i, d in enumerate(docs)}
        retrieved = [R(pos[d], pos[d] + 10) for d in ranked]
        graded = [E(pos[d], pos[d] + 10, gain=g) for d, g in grades.items()]
        binary = [E(pos[d], pos[d] + 10) for d in grades]
        mine[qid] = {
            "nDCG@10": ndcg_at_k(retrieved, graded, 10),
            "RR@10": reciprocal_rank_at_k(retrieved, binary, 10),
            "Success@5": hit_at_k(retrieved, binary, 5),
            "R@10": recall_at_k(retrieved, binary, 10),
        }
    measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "RR@10", "Success@5", "R@10")]
    ref = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)
    }
    for qid, values in mine.items():
        for name, value in values.items():
            assert value == pytest.approx(ref.get((qid, name), 0.0), abs=1e-9), (qid, name)
