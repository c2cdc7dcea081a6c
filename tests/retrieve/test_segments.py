"""Segment delivery: the maximum-value run around a hit, and retrieve's invariants."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.retrieve import approx_tokens, retrieve
from jw_rag.segments import LINK_VALUE, best_run, run_values
from jw_rag.store import SQLiteStore
from jw_rag.windows import window_units

values = st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=12)


def test_best_run_golden() -> None:
    assert best_run([0.2, -0.1, 0.0, 0.3, -0.5], (2, 2)) == (0, 3)
    assert best_run([-0.2, 1.0, -0.2], (1, 1)) == (1, 1)
    # a weak chunk between the hit and a strong one is kept when the strong one pays for it
    assert best_run([0.0, -0.1, 0.5], (0, 0)) == (0, 2)
    assert best_run([0.0, -0.6, 0.5], (0, 0)) == (0, 0)
    with pytest.raises(ValueError, match="outside"):
        best_run([0.1], (0, 1))


def test_marker_links_make_a_neighbour_worth_keeping() -> None:
    # chunk 1 is the hit; chunk 2 opens with "Therefore," (linked to 1), chunk 1
    # opens with "However," (linked to 0): both neighbours join
    v = run_values([0.0, 0.5, 0.0], 0.3, [False, True, True], (1, 1))
    assert v == pytest.approx([LINK_VALUE, 0.2, LINK_VALUE])
    assert best_run(v, (1, 1)) == (0, 2)
    # without links they are below the weakest hit and stay out
    assert best_run(run_values([0.0, 0.5, 0.0], 0.3, [False] * 3, (1, 1)), (1, 1)) == (1, 1)


@given(values, st.data())
def test_best_run_holds_the_core_and_no_run_is_worth_more(vals: list[float], data) -> None:
    lo = data.draw(st.integers(0, len(vals) - 1))
    hi = data.draw(st.integers(lo, len(vals) - 1))
    first, last = best_run(vals, (lo, hi))
    assert first <= lo <= hi <= last
    assert best_run(vals, (lo, hi)) == (first, last)  # deterministic
    best = sum(vals[first : last + 1])
    for a in range(0, lo + 1):
        for b in range(hi, len(vals)):
            assert sum(vals[a : b + 1]) <= best + 1e-9


WORDS = ["soul", "death", "garden", "water", "music", "harp", "kingdom", "earth", "hope", "law"]
paragraph = st.lists(st.sampled_from(WORDS), min_size=3, max_size=30).map(" ".join)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(paragraph, min_size=2, max_size=9),
    st.sampled_from(WORDS),
    st.integers(1, 4),
    st.integers(10, 120),
    st.sampled_from([0, 120, 400]),
)
def test_segment_delivery_invariants(
    paras: list[str], query: str, k: int, budget: int, windows: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "s.sqlite", FakeEmbedder(dim=32))
        chunks = ParagraphChunker(min_chars=1).chunk(paras, "doc", metadata={"language": "en"})
        store.replace_source("doc", [*chunks, *window_units(chunks, paras, max_chars=windows)])
        order = {c.id: i for i, c in enumerate(chunks)}
        hits = retrieve(store, query, k, max_context_tokens=budget)
        again = retrieve(store, query, k, max_context_tokens=budget)
        store.close()
    assert [(h.chunk.id, [c.id for c in h.expanded]) for h in hits] == [
        (h.chunk.id, [c.id for c in h.expanded]) for h in again
    ]
    assert len(hits) <= k and [h.rank for h in hits] == list(range(1, len(hits) + 1))
    delivered = [c.id for h in hits for c in h.expanded]
    assert len(delivered) == len(set(delivered))  # nothing twice
    for h in hits:
        at = [order[c.id] for c in h.expanded]  # delivered chunks are the source's chunks
        assert at == list(range(at[0], at[0] + len(at)))  # contiguous, reading order
        assert h.chunk.id in {c.id for c in h.expanded}  # the hit is in its segment
    cost = sum(approx_tokens(c.text) for h in hits for c in h.expanded)
    if hits and cost > budget:  # only the first hit may pass the budget, and alone
        assert len(hits) == 1 and len(hits[0].expanded) == 1
