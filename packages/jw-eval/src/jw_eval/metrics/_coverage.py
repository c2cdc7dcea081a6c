"""Which expected span each rank newly covers: the basis of every rank metric."""

from __future__ import annotations

from collections.abc import Sequence

from jw_eval.spans import DocRange, ExpectedSpan

__all__ = ["check_cutoff", "first_cover_ranks", "rank_gains"]


def check_cutoff(k: int) -> None:
    if k < 1:
        raise ValueError(f"cutoff k must be >= 1, got {k}")


def first_cover_ranks(
    retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int
) -> list[int | None]:
    """For each expected span, the 1-based rank of the first retrieved range
    (within the top ``k``) that overlaps it, else ``None``."""
    check_cutoff(k)
    if not expected:
        raise ValueError("a question needs at least one expected span")
    out: list[int | None] = []
    top = retrieved[:k]
    for item in expected:
        target = item.range
        out.append(next((r for r, got in enumerate(top, 1) if got.overlaps(target)), None))
    return out


def rank_gains(
    retrieved: Sequence[DocRange], expected: Sequence[ExpectedSpan], k: int
) -> list[float]:
    """Gain earned at each of the top ``k`` ranks: the summed gain of the
    expected spans that rank covers for the first time (each span credited once)."""
    gains = [0.0] * min(k, len(retrieved))
    for item, rank in zip(expected, first_cover_ranks(retrieved, expected, k), strict=True):
        if rank is not None:
            gains[rank - 1] += item.gain
    return gains
