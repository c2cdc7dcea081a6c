"""Percentile bootstrap over questions: CI95 of a mean and of a paired lift.

Both resample question indices with ``numpy.random.default_rng(seed)``
(1000 resamples, seed 0 by default), vectorised. The paired lift resamples
the indices once and computes ``mean(variant) / mean(baseline) - 1`` on each
resample, so both arms see the same questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RESAMPLES", "SEED", "Estimate", "bootstrap_mean", "paired_lift"]

RESAMPLES = 1000
SEED = 0


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with its percentile 95% interval."""

    value: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"value": self.value, "ci95": [self.low, self.high]}  # type: ignore[dict-item]


def _indices(n: int, resamples: int, seed: int) -> np.ndarray:
    if n < 1:
        raise ValueError("the bootstrap needs at least one question")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def _interval(samples: np.ndarray) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_mean(
    values: Sequence[float] | np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED
) -> Estimate:
    """Mean of ``values`` with its percentile CI95."""
    x = np.asarray(values, dtype=np.float64)
    means = x[_indices(len(x), resamples, seed)].mean(axis=1)
    return Estimate(float(x.mean()), *_interval(means))


def paired_lift(
    variant: Sequence[float] | np.ndarray,
    baseline: Sequence[float] | np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Estimate:
    """Relative lift ``mean(variant) / mean(baseline) - 1`` with its paired CI95.

    Resamples whose baseline mean is 0 are left out of the interval; the
    point value is ``nan`` when the baseline mean is 0.
    """
    v = np.asarray(variant, dtype=np.float64)
    b = np.asarray(baseline, dtype=np.float64)
    if v.shape != b.shape:
        raise ValueError(f"paired arrays differ in length: {v.shape} vs {b.shape}")
    idx = _indices(len(v), resamples, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        lifts = v[idx].mean(axis=1) / b[idx].mean(axis=1) - 1.0
        point = float(v.mean() / b.mean() - 1.0) if b.mean() else float("nan")
    return Estimate(point, *_interval(lifts))
