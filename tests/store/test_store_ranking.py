"""Exact dense top-k (the small-store index) and reciprocal rank fusion,
checked against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.store import RRF_K, reciprocal_rank_fusion
from jw_rag.store._dense import DenseIndex, top_k


def _matrix(n: int, dim: int, seed: int) -> DenseIndex:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, dim)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    rowids = np.sort(rng.choice(10 * n + 10, size=n, replace=False)).astype(np.int64)
    index = DenseIndex.build(lambda: [(rowids, m)], dim, changes=0)
    assert index is not None and index.matrix is not None
    return index


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 320), st.integers(0, 10_000))
def test_top_k_equals_a_full_sort(n: int, k: int, seed: int) -> None:
    vm = _matrix(n, 8, seed)
    q = vm.matrix[seed % n].copy()
    got = top_k(vm, q, k)
    scores = vm.matrix @ q
    order = sorted(range(n), key=lambda i: (-scores[i], vm.rowids[i]))[:k]
    assert [r for r, _ in got] == [int(vm.rowids[i]) for i in order]
    assert [s for _, s in got] == pytest.approx([float(scores[i]) for i in order])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.integers(0, 10_000), st.data())
def test_top_k_restricted_to_positions(n: int, seed: int, data: st.DataObject) -> None:
    vm = _matrix(n, 4, seed)
    chosen = data.draw(st.lists(st.sampled_from(vm.rowids.tolist()), unique=True))
    wanted = np.sort(np.array(chosen + [10**9], dtype=np.int64))  # plus one unknown rowid
    positions = vm.positions(wanted)
    assert sorted(vm.rowids[positions].tolist()) == sorted(chosen)
    got = top_k(vm, vm.matrix[0], 5, positions)
    assert {r for r, _ in got} <= set(chosen) and len(got) == min(5, len(chosen))


def test_rrf_hand_computed() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "d"]])
    assert [item for item, _ in fused] == ["c", "a", "b", "d"]
    assert dict(fused) == pytest.approx(
        {"a": 1 / 61, "b": 1 / 62, "c": 1 / 63 + 1 / 61, "d": 1 / 62}
    )
    # b and d tie on score and best rank: the first list wins.
    assert RRF_K == 60
    assert reciprocal_rank_fusion([["x"], ["y"]], k=1) == [("x", 1 / 61)]
    assert reciprocal_rank_fusion([[], []]) == []
