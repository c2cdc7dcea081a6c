"""Segment delivery: the best contiguous run of chunks around each hit.

A hit is rarely the whole answer to a question about an argument: the
premise sits in the paragraph before, the conclusion in the one after. A
window hit (:mod:`jw_rag.windows`) already is such a run, chosen by the
retriever, and is delivered as it is. For a hit on a single chunk, delivery
looks at up to ``reach`` chunks on each side of it and keeps the contiguous
run that is worth the most:

- every chunk is valued by how much more similar it is to the query than the
  weakest hit retrieved: ``value = cosine(chunk, query) - threshold``, where
  ``threshold`` is the lowest cosine among the hits the caller asked for
  (the k-th hit's). A neighbour as close to the query as a hit that made the
  list is worth keeping; one further away costs what it lacks;
- a neighbour linked to the run by a continuation, closure or back-reference
  marker ("However, …", "Por lo tanto, …", "Isso …") is worth at least
  :data:`LINK_VALUE`: the text itself says it continues the argument;
- the hit is always kept; the run extends on each side as far as the
  running sum of values on that side last peaked (a maximum-sum extension,
  so one weak chunk between two strong ones is kept when the strong one
  beyond pays for it).

There is no threshold to tune: the weakest hit sets the bar for each query.
The chunks' vectors come from the store (nothing stored is embedded again);
the query is embedded once. The same idea is known as relevant segment
extraction; this module's scoring is our own.

Why windows are not extended: on the shared sets, extending window hits as
well cost 1.5% NDCG within 2,000 characters on single-paragraph questions
(FaQuAD) for no gain on argumentative prose; extending single-chunk hits is
what lifts NDCG within 4,000 characters there (README, "Measured").
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["LINK_VALUE", "best_run", "run_values"]

#: The least a marker-linked neighbour is worth (in cosine units).
LINK_VALUE = 0.01


def run_values(
    similarities: Sequence[float], threshold: float, linked: Sequence[bool], core: tuple[int, int]
) -> list[float]:
    """Each chunk's value for a run around ``core`` (first and last index of
    the hit's chunks): ``similarity - threshold``, at least :data:`LINK_VALUE`
    for a chunk that ``linked`` ties to its neighbour on the core's side
    (``linked[j]`` means chunk ``j`` opens with a marker tying it to ``j - 1``)."""
    if len(similarities) != len(linked):
        raise ValueError("similarities and linked must have one entry per chunk")
    lo, hi = core
    values = [s - threshold for s in similarities]
    for j in range(1, len(values)):
        if not linked[j]:
            continue
        if j > hi:  # j continues the chunk before it, on the far side of the core
            values[j] = max(values[j], LINK_VALUE)
        elif j <= lo:  # the core's side continues j - 1
            values[j - 1] = max(values[j - 1], LINK_VALUE)
    return values


def best_run(values: Sequence[float], core: tuple[int, int]) -> tuple[int, int]:
    """``(first, last)`` indexes of the maximum-value contiguous run that holds
    ``core``: each side extends to where its running sum of values peaks
    (strictly above zero), so a side that adds nothing stays empty.

    >>> best_run([0.2, -0.1, 0.0, 0.3, -0.5], (2, 2))
    (0, 3)
    >>> best_run([-0.2, 1.0, -0.2], (1, 1))
    (1, 1)
    """
    lo, hi = core
    if not 0 <= lo <= hi < len(values):
        raise ValueError(f"core {core} is outside the {len(values)} values given")
    first, total, best = lo, 0.0, 0.0
    for j in range(lo - 1, -1, -1):
        total += values[j]
        if total > best:
            best, first = total, j
    last, total, best = hi, 0.0, 0.0
    for j in range(hi + 1, len(values)):
        total += values[j]
        if total > best:
            best, last = total, j
    return first, last
