"""Bootstrap CIs: deterministic with seed 0, sane coverage, paired lift."""

from __future__ import annotations

import numpy as np
import pytest

from jw_eval.bootstrap import bootstrap_mean, paired_lift


def test_deterministic_and_brackets_the_mean() -> None:
    x = np.random.default_rng(1).random(200)
    a, b = bootstrap_mean(x), bootstrap_mean(x)
    assert a == b
    assert a.low < a.value < a.high
    assert a.value == pytest.approx(x.mean())


def test_constant_values_give_a_zero_width_interval() -> None:
    e = bootstrap_mean([0.5] * 40)
    assert (e.low, e.value, e.high) == (0.5, 0.5, 0.5)


def test_coverage_is_near_95_percent() -> None:
    rng = np.random.default_rng(7)
    covered = 0
    trials = 200
    for t in range(trials):
        x = rng.binomial(1, 0.7, size=150).astype(float)
        e = bootstrap_mean(x, resamples=400, seed=t)
        covered += e.low <= 0.7 <= e.high
    assert 0.88 <= covered / trials <= 0.99


def test_paired_lift() -> None:
    base = np.random.default_rng(3).random(300)
    same = paired_lift(base, base)
    assert (same.value, same.low, same.high) == (0.0, 0.0, 0.0)
    up = paired_lift(base * 1.2, base)
    assert up.value == pytest.approx(0.2)
    assert up.low == pytest.approx(0.2) and up.high == pytest.approx(0.2)
    noisy = paired_lift(base + np.random.default_rng(4).normal(0.05, 0.1, 300), base)
    assert noisy.low < noisy.value < noisy.high
    with pytest.raises(ValueError, match="differ in length"):
        paired_lift([1.0], [1.0, 2.0])
